//! The pipeline schedule as a timeline, shared by the `pp` and `bubble`
//! figures: the parameters they both read (stages, micro-batches,
//! schedule, chunks), the simulated step laid out for drawing, and its
//! view. The simulator (`model/schedule.rs`) places every block; this
//! module only lays the blocks out and names them.

use std::fmt::Write;

use leptos::prelude::*;

use super::figure::Params;
use super::param::{set_option, whole, Param};
use crate::model::activations::in_flight;
use crate::model::choice::{options, Choice};
use crate::model::pipeline::{bubble, runnable_micro_batches, stage_layers, Schedule};
use crate::model::query::NumberSpec;
use crate::model::scenario::Scenario;
use crate::model::schedule::{simulate, BlockKind, Timeline as Simulated};
use crate::model::units::{counted, Fraction};
use crate::widgets::rows;

pub const STAGES: NumberSpec = NumberSpec::whole("pp", 1.0, 8.0);
pub const MICRO: NumberSpec = NumberSpec::whole("micro", 1.0, 64.0);
pub const CHUNKS: NumberSpec = NumberSpec::whole("chunks", 1.0, 4.0);

/// A pipeline's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub scenario: Scenario,
    /// Pipeline stages p.
    pub stages: u32,
    /// Micro-batches m.
    pub micro: u32,
    pub schedule: Schedule,
    /// Model chunks per GPU for the interleaved schedule.
    pub chunks: u32,
}

impl Pipeline {
    /// A GPipe pipeline of `stages` stages and `micro` micro-batches, 2 chunks when interleaved.
    pub fn new(stages: u32, micro: u32) -> Self {
        Self {
            scenario: Scenario::default(),
            stages,
            micro,
            schedule: Schedule::GPipe,
            chunks: 2,
        }
    }
}

/// A figure whose parameters hold a pipeline.
pub trait HasPipeline {
    fn pipeline(&self) -> &Pipeline;
    fn pipeline_mut(&mut self) -> &mut Pipeline;
}

/// The table entries for a pipeline: stages, micro-batches, schedule and
/// (for the interleaved schedule) chunks.
pub const fn pipeline_params<P: Params + HasPipeline>() -> [Param<P>; 4] {
    [
        Param::number("Pipeline stages p", STAGES, |p: &P| f64::from(p.pipeline().stages), |p: &mut P, v| {
            p.pipeline_mut().stages = v as u32
        })
        .slider(1.0, |_| STAGES.max, 1.0, whole)
        .help("Pipeline stages: GPUs, each holding a run of consecutive layers."),
        Param::number("Micro-batches m", MICRO, |p: &P| f64::from(p.pipeline().micro), |p: &mut P, v| {
            p.pipeline_mut().micro = v as u32
        })
        .slider(1.0, |_| MICRO.max, 1.0, whole)
        .help("Micro-batches streamed through the pipeline in one step."),
        Param::choice(
            "schedule",
            "Schedule",
            options::<Schedule>,
            |p: &P| p.pipeline().schedule.id(),
            |p: &mut P, id| set_option(&mut p.pipeline_mut().schedule, id),
        )
        .toggle()
        .help("The order of forwards and backwards: GPipe, 1F1B, interleaved 1F1B, zero-bubble ZB-H1, or DeepSeek's bidirectional DualPipe and its folded DualPipeV."),
        Param::number("Model chunks per GPU", CHUNKS, |p: &P| f64::from(p.pipeline().chunks), |p: &mut P, v| {
            p.pipeline_mut().chunks = v as u32
        })
        .slider(1.0, |_| CHUNKS.max, 1.0, whole)
        .shown_when(|p: &P| p.pipeline().schedule == Schedule::Interleaved)
        .help("Model chunks per GPU under the interleaved schedule."),
    ]
}

/// One block of the timeline, placed in percent of the timeline's width.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineBlock {
    pub stage: u32,
    /// CSS modifier: `forward`, `backward`, `input-grad` or `weight-grad`.
    pub class: &'static str,
    pub x_percent: f64,
    pub width_percent: f64,
    /// Where it starts and how long it runs, in the simulator's ticks.
    pub start: u32,
    pub len: u32,
    /// The micro-batch number (1-based), shown when the block is wide enough.
    pub label: Option<String>,
    /// Too narrow for its number on a phone's width.
    pub narrow: bool,
}

/// A row heading: the GPU and its layers.
#[derive(Clone, Debug, PartialEq)]
pub struct StageRow {
    pub name: String,
    pub layers: String,
}

/// The simulated step, laid out for drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineData {
    pub rows: Vec<StageRow>,
    pub blocks: Vec<TimelineBlock>,
    /// The blocks of each kind as one path: `(path data, block count)`,
    /// in ticks across and px down.
    pub paths: [(String, usize); 4],
    /// The step's length in ticks: the paths' width.
    pub span: u32,
    /// The blocks wide enough for their micro-batch's number.
    pub labelled: Vec<TimelineBlock>,
    pub legend: Vec<(&'static str, &'static str)>,
    pub axis_caption: String,
    /// A note when the schedule changed the micro-batch count.
    pub note: Option<String>,
    /// The bubble, for the timeline's description.
    pub bubble: f64,
    /// What the simulator placed.
    pub simulated: Simulated,
    /// On what basis the schedules are compared, and each one's bubble and memory.
    pub basis: String,
    pub cards: Vec<ScheduleCard>,
}

/// One schedule at this pipeline's p and m: what it saves in bubble and costs in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleCard {
    pub name: &'static str,
    pub current: bool,
    /// Its bubble and the activations its first stage holds, in words.
    pub numbers: String,
    /// How it orders the work, and what that buys or costs.
    pub how: &'static str,
}

/// How each schedule orders its blocks, and at what price.
fn how(schedule: Schedule) -> &'static str {
    match schedule {
        Schedule::GPipe => "Every forward, then every backward: each stage keeps every micro-batch's activations until its backward.",
        Schedule::OneFOneB => "After p warm-up forwards, one forward and one backward in turn: the same bubble as GPipe, with at most p micro-batches' activations held.",
        Schedule::Interleaved => "Each GPU holds v thinner chunks of layers: the fill and drain shrink v times, for v times the messages between stages and a little more memory on the first.",
        Schedule::ZeroBubbleH1 => "The backward split in two: B, the input gradient the previous stage waits for, and W, the weight gradient, which fills the idle ticks. 1F1B's memory.",
        Schedule::DualPipe => "Micro-batches enter from both ends, each GPU holding a stage of each direction, so it keeps two copies of the parameters; a forward of one direction runs beside a backward of the other, hiding their messages, and split backwards fill the ends. Numbers of the reverse direction are marked ′.",
        Schedule::DualPipeV => "DualPipe folded onto half the GPUs: each holds two half-stages, the micro-batch going down the GPUs and back up, one copy of the parameters. ZB-H1's bubble, with the messages hidden as DualPipe hides them.",
    }
}

/// Every schedule at p stages and m micro-batches (v chunks when interleaved):
/// its bubble (`pipeline::bubble`, which the simulator matches) and the
/// micro-batches' activations its first stage holds (`activations::in_flight`).
fn cards(current: Schedule, p: u32, m: u32, v: u32) -> Vec<ScheduleCard> {
    Schedule::ALL
        .iter()
        .map(|&schedule| {
            let runs = runnable_micro_batches(schedule, p, m);
            let chunks = if schedule == Schedule::Interleaved {
                v
            } else {
                1
            };
            ScheduleCard {
                name: schedule.label(),
                current: schedule == current,
                numbers: format!(
                    "bubble {}; holds {} micro-batches' activations",
                    Fraction(bubble(schedule, p, runs, chunks)),
                    units_text(in_flight(schedule, p, runs, chunks))
                ),
                how: how(schedule),
            }
        })
        .collect()
}

/// Blocks narrower than this (percent of the width) carry no number.
const LABEL_MIN_PERCENT: f64 = 3.2;
/// Whether a block's number fits it on a phone, where a percent of the
/// timeline is about 2.5 px and a digit of its 11 px bold numbers about
/// 6.5 px: 2.6% a digit, and 1.2% of margin.
fn narrow_on_a_phone(width_percent: f64, label: &str) -> bool {
    width_percent < 2.6 * label.chars().count() as f64 + 1.2
}

/// A count of time units or micro-batches, exact: `21`, `28.5`, `197.25`.
pub fn units_text(units: f64) -> String {
    let text = format!("{units:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if units >= 1000.0 {
        crate::model::units::group_thousands(units)
    } else {
        text.to_string()
    }
}

/// Simulates the pipeline and lays its step out.
pub fn timeline(pipeline: &Pipeline) -> TimelineData {
    let arch = pipeline.scenario.arch();
    let p = pipeline.stages.max(1);
    let simulated = simulate(pipeline.schedule, p, pipeline.micro, pipeline.chunks);
    let (m, v) = (simulated.micro_batches, simulated.chunks);
    let dual = pipeline.schedule == Schedule::DualPipe;
    // DualPipe's reverse direction is numbered from 1 too, marked ′.
    let number = |block: &crate::model::schedule::Block| {
        let mark = if dual && block.chunk == 1 { "′" } else { "" };
        format!("{}{mark}", block.micro + 1)
    };
    let makespan = f64::from(simulated.makespan.max(1));
    let blocks: Vec<TimelineBlock> = simulated
        .blocks
        .iter()
        .map(|block| {
            let width_percent = f64::from(block.len) / makespan * 100.0;
            TimelineBlock {
                stage: block.stage,
                class: match block.kind {
                    BlockKind::Forward => "forward",
                    BlockKind::Backward => "backward",
                    BlockKind::InputGradient => "input-grad",
                    BlockKind::WeightGradient => "weight-grad",
                },
                x_percent: f64::from(block.start) / makespan * 100.0,
                width_percent,
                start: block.start,
                len: block.len,
                label: (width_percent >= LABEL_MIN_PERCENT).then(|| number(block)),
                narrow: narrow_on_a_phone(width_percent, &number(block)),
            }
        })
        .collect();
    // With v chunks GPU s holds virtual stages s, s + p, ...: not one run of
    // layers; under DualPipe stages s and p − 1 − s, under DualPipeV s and 2p − 1 − s.
    let p = simulated.stages;
    let virtual_stages = stage_layers(arch.layers, p * v);
    let held = |stage: u32| -> Vec<u32> {
        match pipeline.schedule {
            Schedule::DualPipe => vec![stage, p - 1 - stage],
            Schedule::DualPipeV => vec![stage, 2 * p - 1 - stage],
            _ => (0..v).map(|chunk| chunk * p + stage).collect(),
        }
    };
    let rows = (0..p)
        .map(|stage| {
            let layers: Vec<String> = held(stage)
                .into_iter()
                .filter_map(|index| virtual_stages.get(index as usize))
                .map(|range| format!("L{}–{}", range.start, range.end.saturating_sub(1)))
                .collect();
            StageRow {
                name: format!("GPU {stage}"),
                layers: layers.join(", "),
            }
        })
        .collect();
    let mut legend = vec![("forward", "forward, numbered by micro-batch")];
    if pipeline.schedule != Schedule::ZeroBubbleH1 {
        legend.push(("backward", "backward, twice as long"));
    }
    if matches!(
        pipeline.schedule,
        Schedule::ZeroBubbleH1 | Schedule::DualPipe | Schedule::DualPipeV
    ) {
        legend.extend([
            ("input-grad", "backward: input gradient"),
            ("weight-grad", "backward: weight gradient"),
        ]);
    }
    legend.push(("idle", "idle: the bubble"));
    let total = makespan / f64::from(simulated.ticks_per_unit);
    TimelineData {
        rows,
        paths: block_paths(&blocks),
        span: simulated.makespan.max(1),
        labelled: blocks.iter().filter(|b| b.label.is_some()).cloned().collect(),
        blocks,
        legend,
        axis_caption: format!("Time runs right: {} units, a forward through a whole stage being one", units_text(total)),
        note: rounded_note(pipeline, p, m),
        bubble: simulated.bubble(),
        basis: format!(
            "Compared at p = {p} stages and m = {}{}, a forward F taking one unit and a backward B two in \
             every schedule. B is the whole backward for GPipe, 1F1B and interleaving; for ZB-H1 it is only the input \
             gradient, and W, the weight gradient, is the other unit; DualPipe splits some backwards so, and both \
             DualPipes run at least 2p micro-batches (DualPipe an even count and an even p), so theirs may be more.",
            counted(f64::from(pipeline.micro), "micro-batch", "micro-batches"),
            if v > 1 { format!(", v = {v} chunks") } else { String::new() },
        ),
        cards: cards(pipeline.schedule, pipeline.stages.max(1), pipeline.micro, pipeline.chunks),
        simulated,
    }
}

/// What the schedule changed of the stages or micro-batches asked, if anything.
fn rounded_note(pipeline: &Pipeline, p: u32, m: u32) -> Option<String> {
    let asked = counted(f64::from(pipeline.micro), "micro-batch", "micro-batches");
    let verb = if pipeline.micro == 1 { "is" } else { "are" };
    let asked_stages = pipeline.stages.max(1);
    let stages = (p != asked_stages).then(|| {
        format!(
            "DualPipe pairs each GPU with its mirror from the other end, so {} {} as {p}. ",
            counted(f64::from(asked_stages), "stage", "stages"),
            if asked_stages == 1 { "runs" } else { "run" }
        )
    });
    let micro = (m != pipeline.micro).then(|| match pipeline.schedule {
        Schedule::Interleaved => format!(
            "The interleaved schedule sends micro-batches through in groups of {p}, so {asked} {verb} rounded up to {m}."
        ),
        _ => format!(
            "{} needs at least two micro-batches a GPU{}, so {asked} {verb} rounded up to {m}.",
            pipeline.schedule.label(),
            if pipeline.schedule == Schedule::DualPipe {
                " and an even count, half from each end"
            } else {
                ""
            }
        ),
    });
    match (stages, micro) {
        (None, None) => None,
        (stages, micro) => Some(format!(
            "{}{}",
            stages.unwrap_or_default(),
            micro.unwrap_or_default()
        )),
    }
}

/// Height of one stage's row in the timeline, in CSS pixels.
const ROW_PX: u32 = 26;
/// The blocks' kinds, in the order their paths are drawn.
const BLOCK_CLASSES: [&str; 4] = ["forward", "backward", "input-grad", "weight-grad"];

/// One rectangle as SVG path data, in the timeline's (tick, px) units:
/// whole numbers, which are written several times faster than decimals
/// (1,024 blocks at 8 stages and 64 micro-batches, issue 39).
fn rect_path(path: &mut String, x: u32, y: u32, width: u32) {
    _ = write!(path, "M{x} {y}h{width}v{}h-{width}z", ROW_PX - 4);
}

/// The idle background of every row, `span` ticks long.
fn idle_path(rows: u32, span: u32) -> String {
    let mut path = String::new();
    for row in 0..rows {
        rect_path(&mut path, 0, row * ROW_PX + 2, span);
    }
    path
}

/// The blocks of each kind as one path (four elements rather than a rect
/// per block: 1,536 at 8 stages, 64 micro-batches, ZB-H1), in
/// [`BLOCK_CLASSES`]' order: `(path data, block count)`, empty for a kind
/// the schedule does not have.
fn block_paths(blocks: &[TimelineBlock]) -> [(String, usize); 4] {
    BLOCK_CLASSES.map(|class| {
        let mut path = String::new();
        let mut count = 0;
        for block in blocks.iter().filter(|b| b.class == class) {
            rect_path(&mut path, block.start, block.stage * ROW_PX + 2, block.len);
            count += 1;
        }
        (path, count)
    })
}

/// The schedule's timeline, one row per GPU.
#[component]
pub fn Timeline(
    /// The laid-out step.
    #[prop(into)]
    data: Signal<TimelineData>,
) -> impl IntoView {
    let stages = move || data.with(|d| d.rows.len() as u32);
    let height = move || stages() * ROW_PX;
    let compared_open = RwSignal::new(false);

    view! {
        <div class="fig-pp__timeline">
            <ol class="fig-pp__rows" aria-hidden="true">
                {rows(data, |d| &d.rows, |row| view! {
                    <li class="fig-pp__row-label">
                        <span class="fig-pp__row-name">{move || row.with(|r| r.name.clone())}</span>
                        <span class="fig-pp__row-layers">{move || row.with(|r| r.layers.clone())}</span>
                    </li>
                })}
            </ol>
            // Built once; a change rewrites attributes and texts. The blocks'
            // paths are in (tick, px) units, the inner view box one step wide.
            // A sideways drag on the timeline moves the micro-batch slider, a
            // downward one (by mouse) the stages' (src/boot.js).
            // The inner svg fills the outer one, so a new stage changes one
            // height and the viewBox.
            <svg
                class="fig-pp__svg"
                data-drives="micro"
                data-drives-down="pp"
                width="100%"
                height=height
                role="img"
                aria-label=move || data.with(|d| format!("Schedule timeline: a bubble of {}; {}", Fraction(d.bubble), d.axis_caption))
            >
                <svg viewBox=move || format!("0 0 {} {}", data.with(|d| d.span), height()) preserveAspectRatio="none" width="100%" height="100%">
                    <path class="fig-pp__idle" d=move || idle_path(stages(), data.with(|d| d.span))></path>
                    {(0..BLOCK_CLASSES.len()).map(|kind| view! {
                        <path
                            class=format!("fig-pp__block fig-pp__block--{}", BLOCK_CLASSES[kind])
                            d=move || data.with(|d| d.paths[kind].0.clone())
                            data-blocks=move || data.with(|d| d.paths[kind].1)
                        ></path>
                    }).collect_view()}
                </svg>
                {rows(data, |d| &d.labelled, |block| view! {
                    <text
                        class=move || block.with(|b| {
                            let narrow = if b.narrow { " fig-pp__label--narrow" } else { "" };
                            format!("fig-pp__label fig-pp__label--{}{narrow}", b.class)
                        })
                        x=move || block.with(|b| format!("{:.3}%", b.x_percent + b.width_percent / 2.0))
                        y=move || block.with(|b| b.stage * ROW_PX + 18)
                    >
                        {move || block.with(|b| b.label.clone())}
                    </text>
                })}
            </svg>
        </div>
        <p class="fig-pp__axis">{move || data.with(|d| d.axis_caption.clone())}</p>
        <ul class="fig-pp__legend">
            {rows(data, |d| &d.legend, |key| view! {
                <li class=move || key.with(|(class, _)| format!("fig-pp__key fig-pp__key--{class}"))>{move || key.with(|(_, text)| *text)}</li>
            })}
        </ul>
        {move || data.with(|d| d.note.clone()).map(|note| view! { <p class="fig-pp__note" role="status">{note}</p> })}
        // The comparison's numbers are written while it is open and follow
        // every step then; closed, a step touches none of them (six
        // schedules', issue 38's DualPipes among them).
        <details class="schedules" on:toggle=move |_| compared_open.update(|open| *open = !*open)>
            <summary>"The schedules compared"</summary>
            <p class="schedules__basis">{move || compared_open.get().then(|| data.with(|d| d.basis.clone()))}</p>
            <ul class="schedules__list">
                {rows(data, |d| &d.cards, move |card| view! {
                    <li class="schedules__card" class:schedules__card--current=move || card.with(|c| c.current)>
                        <strong>{move || card.with(|c| c.name)}</strong>
                        {move || card.with(|c| c.current).then_some(" (shown)")}
                        ": "
                        {move || compared_open.get().then(|| card.with(|c| c.numbers.clone()))}
                        ". "
                        {move || card.with(|c| c.how)}
                    </li>
                })}
            </ul>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPipe, 8 stages, 64 micro-batches: a forward and a backward block for
    /// each stage and micro-batch, too narrow for numbers; every block
    /// inside the timeline, and one path per kind.
    #[test]
    fn eight_stages_and_64_micro_batches_stay_drawable() {
        let d = timeline(&Pipeline::new(8, 64));
        assert_eq!(d.rows.len(), 8);
        assert_eq!(d.blocks.len(), 8 * 64 * 2);
        assert!(d.blocks.iter().all(|b| b.label.is_none()));
        assert!(d
            .blocks
            .iter()
            .all(|b| b.x_percent + b.width_percent <= 100.0 + 1e-9));
        let paths = block_paths(&d.blocks);
        assert_eq!(paths.each_ref().map(|(_, n)| *n), [8 * 64, 8 * 64, 0, 0]);
        for (path, count) in &paths {
            assert_eq!(path.matches('M').count(), *count);
        }
        // GPipe runs (m + p − 1)(F + B) = 71 × 3 units (Huang et al. 2019,
        // a backward twice a forward), the paths' width; the last block ends there.
        assert_eq!(d.span, 71 * 3 * d.simulated.ticks_per_unit);
        assert!(d.blocks.iter().all(|b| b.start + b.len <= d.span));
        assert!(d.blocks.iter().any(|b| b.start + b.len == d.span));
        assert_eq!(idle_path(2, 71), "M0 2h71v22h-71zM0 28h71v22h-71z");
    }

    /// The default pipeline (GPipe, 4 stages, 4 micro-batches) runs
    /// (4 + 3) × 3 = 21 time units: a forward block is 1/21 = 4.8% wide,
    /// about 12 px at 360 px, room for a one-digit number (2.6% + 1.2% =
    /// 3.8%), so a phone keeps them all; 8 stages of 16 micro-batches run
    /// 23 × 3 = 69 units (blocks of 1.4% and 2.9%) and carry no number; a
    /// two-digit number needs 6.4%.
    #[test]
    fn a_phone_keeps_the_numbers_that_fit() {
        let d = timeline(&Pipeline::new(4, 4));
        assert!(d.blocks.iter().all(|b| b.label.is_some() && !b.narrow));
        assert!(timeline(&Pipeline::new(8, 16))
            .blocks
            .iter()
            .all(|b| b.label.is_none()));
        assert!(narrow_on_a_phone(5.0, "12") && !narrow_on_a_phone(6.5, "12"));
    }

    /// Interleaved with 2 chunks over 4 stages: 32 layers make 8 virtual
    /// stages of 4; GPU 0 holds virtual stages 0 and 4, layers 0–3 and 16–19.
    #[test]
    fn interleaved_rows_name_each_chunks_layers() {
        let mut pipeline = Pipeline::new(4, 8);
        pipeline.schedule = Schedule::Interleaved;
        let d = timeline(&pipeline);
        assert_eq!(d.rows[0].layers, "L0–3, L16–19");
        assert_eq!(d.rows[3].layers, "L12–15, L28–31");
        assert_eq!(timeline(&Pipeline::new(4, 4)).rows[3].layers, "L24–31");
    }

    #[test]
    fn units_are_written_exactly() {
        assert_eq!(units_text(21.0), "21");
        assert_eq!(units_text(28.5), "28.5");
        assert_eq!(units_text(197.25), "197.25");
        assert_eq!(units_text(5.5), "5.5");
    }
}
