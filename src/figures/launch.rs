//! "Run it with": the plan on screen as each launch tool takes it
//! (`src/launch/`), one tab a tool, chosen by the figure's `export` key.

use leptos::prelude::*;

use crate::hooks::use_scoped;
use crate::launch::{export, Launch, Run, Tool};
use crate::model::choice::Choice;
use crate::widgets::{copy_text, rows};

/// The part's data: every tool's launch (each tab's text is on the page
/// while the part is open) and the tab shown.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchData {
    pub shown: Tool,
    /// In [`Tool::ALL`]'s order.
    pub launches: Vec<Launch>,
}

/// The part's data for `run` with `shown`'s tab open.
pub fn launch_data(run: &Run, shown: Tool) -> LaunchData {
    LaunchData {
        shown,
        launches: Tool::ALL.iter().map(|&tool| export(tool, run)).collect(),
    }
}

/// The options of a figure's `export` key: closed, or a tool's tab.
pub fn export_options() -> Vec<(&'static str, &'static str)> {
    let mut options = vec![("off", "Off")];
    options.extend(crate::model::choice::options::<Tool>());
    options
}

/// One tool's tab: its parts, each with a copy button, what it cannot
/// take and the checks the plan fails.
fn tab(data: Signal<Option<LaunchData>>, index: usize) -> impl IntoView {
    let tool = Tool::ALL[index];
    let launch = Signal::derive(move || {
        data.with(|d| d.as_ref().and_then(|d| d.launches.get(index).cloned()))
            .unwrap_or_else(|| export_placeholder(tool))
    });
    let hidden = move || data.with(|d| d.as_ref().is_none_or(|d| d.shown != tool));
    let status = RwSignal::new("");
    view! {
        <div class="launch__tab" hidden=hidden>
            <p class="launch__for">{move || launch.with(|l| format!("Written for {}.", l.written_for))}</p>
            {rows(launch, |l| l.parts.as_slice(), move |part| view! {
                <figure class="launch__part">
                    <figcaption>
                        {move || part.with(|p| p.name)}
                        <button
                            type="button"
                            class="button launch__copy"
                            aria-label=move || part.with(|p| format!("Copy {} for {}", p.name, tool.label()))
                            on:click=move |_| part.with_untracked(|p| copy_text(&p.text, status, "Select the text and press Ctrl+C (⌘C) to copy it."))
                        >"Copy"</button>
                    </figcaption>
                    <pre data-export=tool.id() tabindex="0">{move || part.with(|p| p.text.clone())}</pre>
                </figure>
            })}
            <p class="launch__status" role="status">{move || status.get()}</p>
            <ul class="launch__refusals">
                {rows(launch, |l| l.refusals.as_slice(), move |refusal| view! {
                    <li>{move || format!("{} will stop: \u{201c}{}\u{201d}", tool.label(), refusal.get())}</li>
                })}
            </ul>
            <ul class="launch__unsaid">
                {rows(launch, |l| l.unsaid.as_slice(), move |line| view! { <li>{move || line.get()}</li> })}
            </ul>
        </div>
    }
}

/// An empty launch, for a tab while the part closes.
fn export_placeholder(tool: Tool) -> Launch {
    Launch {
        tool,
        written_for: "",
        parts: Vec::new(),
        unsaid: Vec::new(),
        refusals: Vec::new(),
    }
}

/// The part, shown while `data` holds it; the tabs are the figure's
/// `export` control.
#[component]
pub fn RunItWith(
    /// Every tool's launch, while the part is open.
    #[prop(into)]
    data: Signal<Option<LaunchData>>,
) -> impl IntoView {
    // Shown only while the part is open: it reads the figure's data
    // through a memo that leaves with it.
    let data = use_scoped(data);
    let data = Signal::derive(move || data.get());
    let heading = move || {
        data.with(|d| {
            d.as_ref()
                .map(|d| format!("Run it with {}", d.shown.label()))
        })
    };
    view! {
        <section class="launch" aria-label="Run it with">
            <h3 class="launch__title">{heading}</h3>
            {(0..Tool::ALL.len()).map(|index| tab(data, index)).collect_view()}
        </section>
    }
}
