//! "Run it with": the plan on screen as each launch tool takes it
//! (`src/launch/`), one tab a tool, chosen by the figure's `export` key.

use leptos::prelude::*;

use crate::hooks::use_scoped;
use crate::launch::{export, wire, Launch, Reading, Run, Tool, Unreadable};
use crate::model::choice::Choice;
use crate::widgets::{ask, copy_text, rows};

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
                    <pre data-export=tool.id() tabindex="0" aria-label=move || part.with(|p| format!("{}, {}", tool.label(), p.name))>{move || part.with(|p| p.text.clone())}</pre>
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

/// What the reader is told of a paste: a lead, then its lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadReport {
    pub lead: String,
    pub lines: Vec<String>,
}

/// The report of a text read (`reading`), with what the planner's URL
/// reader said of the values it set (`notices`).
pub fn read_report(reading: &Reading, notices: &[String]) -> ReadReport {
    let tool = reading.tool.map_or("the tool", Tool::label);
    let mut lines = vec![format!("Read: {}.", reading.read.join(", "))];
    lines.extend(reading.ignored.iter().cloned());
    lines.extend(
        notices
            .iter()
            .map(|n| format!("Changed by the planner: {n}")),
    );
    lines.extend(
        reading
            .broken
            .iter()
            .map(|b| format!("{tool} would stop: \u{201c}{b}\u{201d}")),
    );
    ReadReport {
        lead: format!(
            "Read as {}: the planner now shows that plan{}",
            if reading.format.is_empty() {
                format!("{tool}'s settings")
            } else {
                reading.format.clone()
            },
            if reading.broken.is_empty() {
                "."
            } else {
                ", which breaks the tool's own checks below."
            }
        ),
        lines,
    }
}

/// The launch worker's script (`index.html` has Trunk build it).
const LAUNCH_WORKER: &str = "./launch-worker.js";

/// The box a launch configuration is pasted into, and what was read of it.
/// The reading is the launch worker's: its parsers load with the first
/// paste read, and the report is `aria-busy` until it answers.
fn import_box(apply: Callback<Reading, Vec<String>>) -> impl IntoView {
    let field = NodeRef::<leptos::html::Textarea>::new();
    let report = RwSignal::new(ReadReport::default());
    let busy = RwSignal::new(false);
    let lines = Signal::derive(move || report.with(|r| r.lines.clone()));
    let on_submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let Some(text) = field.get_untracked().map(|f| f.value()) else {
            return;
        };
        busy.set(true);
        ask(LAUNCH_WORKER, &text, move |answer| {
            // The figure may have gone while the worker read.
            if report.is_disposed() {
                return;
            }
            let answer = answer.map_or_else(
                || Err(Unreadable("The launch reader could not be loaded (offline, or blocked by the network). Nothing was changed.".to_string())),
                |wire| wire::decode(&wire),
            );
            report.set(match answer {
                Ok(reading) => {
                    let notices = apply.run(reading.clone());
                    read_report(&reading, &notices)
                }
                Err(unreadable) => ReadReport {
                    lead: unreadable.0,
                    lines: Vec::new(),
                },
            });
            busy.set(false);
        });
    };
    view! {
        <form class="launch__import" on:submit=on_submit>
            <label for="launch-import">"Paste a Megatron-LM or torchtitan command line, Megatron-Bridge's overrides, a torchtitan TOML or a DeepSpeed JSON"</label>
            <textarea id="launch-import" data-import rows="4" spellcheck="false" node_ref=field></textarea>
            <button type="submit" class="button">"Read"</button>
        </form>
        <div class="launch__report" data-import-report role="status" aria-busy=move || busy.get().to_string()>
            <p>{move || if busy.get() { "Reading\u{2026}".to_string() } else { report.with(|r| r.lead.clone()) }}</p>
            <ul>{rows(lines, |l| l.as_slice(), |line| view! { <li>{move || line.get()}</li> })}</ul>
        </div>
    }
}

/// The part, shown while `data` holds it; the tabs are the figure's
/// `export` control.
#[component]
pub fn RunItWith(
    /// Every tool's launch, while the part is open.
    #[prop(into)]
    data: Signal<Option<LaunchData>>,
    /// Sets the figure's parameters from a launch configuration's URL
    /// pairs; returns what the URL reader said of them.
    read: Callback<Reading, Vec<String>>,
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
            {import_box(read)}
        </section>
    }
}
