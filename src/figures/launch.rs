//! "Run it with": the plan on screen as each launch tool takes it
//! (`src/launch/`), one tab a tool, chosen by the figure's `export` key.
//! The texts are written, and pasted ones read, by the launch worker
//! (`src/bin/launch.rs`): the page's bundle has neither the writers nor
//! the readers, a slider step only posts the plan's URL to it, and a
//! reader who never opens the part never fetches it.

use leptos::prelude::*;

use super::param::Param;
use crate::hooks::use_scoped;
use crate::launch::wire::{self, Question};
use crate::launch::{Launch, Reading, Tool, Unreadable};
use crate::model::choice::Choice;
use crate::widgets::{ask, copy_text, rows};

/// The part's data: the plan, as the planner's URL query the worker reads
/// it from, and the tab shown.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchData {
    pub shown: Tool,
    /// The planner's parameters as its URL writes them (`?gpus=64&tp=8…`).
    pub query: String,
}

/// The launch worker's script (`index.html` has Trunk build it).
const LAUNCH_WORKER: &str = "./launch-worker.js";

/// What the reader is told when the worker cannot load.
const NO_WORKER: &str =
    "The launch worker could not be loaded (offline, or blocked by the network). Nothing was changed.";

/// Asks the launch worker `question`; `answered` gets its answer, or
/// `None` if the worker could not load, unless `alive` has gone meanwhile
/// (the part was closed while the worker wrote).
fn ask_worker(
    question: &Question,
    alive: impl IsDisposed + 'static,
    answered: impl FnOnce(Option<String>) + 'static,
) {
    ask(LAUNCH_WORKER, &question.to_text(), move |answer| {
        if !alive.is_disposed() {
            answered(answer);
        }
    });
}

/// The options of a figure's `export` key: closed, or a tool's tab.
fn export_options() -> Vec<(&'static str, &'static str)> {
    let mut options = vec![("off", "Off")];
    options.extend(crate::model::choice::options::<Tool>());
    options
}

/// A figure with a "Run it with" part: the tab its `export` key opens.
pub trait Exports {
    fn export(&self) -> Option<Tool>;
    fn set_export(&mut self, tool: Option<Tool>);
}

/// A figure's `export` key, one declaration for every figure that has the part.
pub const fn export_param<P: Exports>() -> Param<P> {
    Param::<P>::choice(
        "export",
        "Run it with",
        export_options,
        |p| p.export().map_or("off", Tool::id),
        |p, id| p.set_export(Tool::from_id(id)),
    )
    .toggle()
    .help("The plan as a launch tool takes it: Megatron-LM's flags, Megatron-Bridge's overrides, torchtitan's command line and TOML, or DeepSpeed's JSON, with what the tool cannot take said beside it.")
}

/// One tool's tab: its parts, each with a copy button, what it cannot
/// take and the checks the plan fails.
fn tab(
    launches: RwSignal<Vec<Launch>>,
    shown: Signal<Option<Tool>>,
    index: usize,
) -> impl IntoView {
    let tool = Tool::ALL[index];
    let launch = Signal::derive(move || {
        launches
            .with(|all| all.iter().find(|l| l.tool == tool).cloned())
            .unwrap_or_else(|| export_placeholder(tool))
    });
    let hidden = move || shown.get() != Some(tool);
    let status = RwSignal::new("");
    // "Copied." is of the text copied: a new text clears it.
    Effect::new(move |_| {
        launch.track();
        status.set("");
    });
    view! {
        <div class="launch__tab" hidden=hidden>
            <p class="launch__for">{move || launch.with(|l| if l.written_for.is_empty() { String::new() } else { format!("Written for {}.", l.written_for) })}</p>
            // Above the texts, where a reader about to copy them sees it.
            <ul class="launch__refusals">
                {rows(launch, |l| l.refusals.as_slice(), move |refusal| view! {
                    <li>{move || format!("{} will stop: \u{201c}{}\u{201d}", tool.label(), refusal.get())}</li>
                })}
            </ul>
            {rows(launch, |l| l.parts.as_slice(), move |part| view! {
                <figure class="launch__part">
                    <figcaption>
                        {move || part.with(|p| p.name.clone())}
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
        written_for: String::new(),
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
    /// Whether nothing was read: the lead says why, set apart as a notice.
    pub refused: bool,
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
            "Read as {}: the figure now shows that plan{}",
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
        refused: false,
    }
}

/// The box a launch configuration is pasted into, and what was read of it.
/// The reading is the launch worker's; the report is `aria-busy` until it
/// answers.
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
        ask_worker(&Question::Read(text), report, move |answer| {
            let answer = answer.map_or_else(
                || Err(Unreadable(NO_WORKER.to_string())),
                |w| wire::decode(&w),
            );
            report.set(match answer {
                Ok(reading) => {
                    let notices = apply.run(reading.clone());
                    read_report(&reading, &notices)
                }
                Err(unreadable) => ReadReport {
                    lead: unreadable.0,
                    lines: Vec::new(),
                    refused: true,
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
        <div class="launch__report" data-import-report role="status" aria-busy=move || busy.get().to_string() data-refused=move || report.with(|r| r.refused.then_some(""))>
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
    let shown = Signal::derive(move || data.with(|d| d.as_ref().map(|d| d.shown)));
    let query = Memo::new(move |_| data.with(|d| d.as_ref().map(|d| d.query.clone())));
    let launches = RwSignal::new(Vec::<Launch>::new());
    let busy = RwSignal::new(false);
    let notice = RwSignal::new(String::new());
    // The part opens far from the control that opens it (below it on a
    // wide screen, above it on a phone): opened from that control (it has
    // the focus), the part is brought into view once its texts are in; a
    // part opened by the URL, or drawn as the reader scrolls, is not.
    let section = NodeRef::<leptos::html::Section>::new();
    let from_its_control = StoredValue::new(
        document()
            .active_element()
            .and_then(|focused| focused.closest(r#"[data-param="export"]"#).ok().flatten())
            .is_some(),
    );
    // Each plan's texts are asked for as it changes; an answer to an
    // earlier plan than the last asked is dropped.
    let asked = StoredValue::new(0u32);
    Effect::new(move |_| {
        let Some(query) = query.get() else {
            return;
        };
        let number = asked.get_value().wrapping_add(1);
        asked.set_value(number);
        busy.set(true);
        ask_worker(&Question::Export(query), launches, move |answer| {
            if asked.try_get_value() != Some(number) {
                return;
            }
            match answer.map(|w| wire::decode_launches(&w)) {
                Some(Ok(written)) => {
                    launches.set(written);
                    notice.set(String::new());
                    if from_its_control.get_value() {
                        from_its_control.set_value(false);
                        request_animation_frame(move || {
                            if let Some(section) = section.get_untracked() {
                                section.scroll_into_view();
                            }
                        });
                    }
                }
                Some(Err(garbled)) => notice.set(garbled.0),
                None => notice.set(NO_WORKER.to_string()),
            }
            busy.set(false);
        });
    });
    let heading = move || {
        shown
            .get()
            .map(|tool| format!("Run it with {}", tool.label()))
    };
    view! {
        <section class="launch" aria-label="Run it with" aria-busy=move || busy.get().to_string() node_ref=section>
            <h3 class="launch__title">{heading}</h3>
            <p class="launch__notice" role="status">{move || notice.get()}</p>
            {(0..Tool::ALL.len()).map(|index| tab(launches, shown, index)).collect_view()}
            {import_box(read)}
        </section>
    }
}
