//! Where does pipeline parallelism lose time? Each GPU holds a stage of
//! consecutive layers; micro-batches stream through, and the GPUs idle while
//! the pipeline fills and drains: the bubble.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::ReadoutData;
use crate::model::activations::hidden_state;
use crate::model::memory::TrainingState;
use crate::model::pipeline::{layers_per_stage, stage_layers, Schedule};
use crate::model::query::{read_choice, Notice, NumberSpec, Query};
use crate::model::scenario::Scenario;
use crate::model::schedule::{simulate, BlockKind};
use crate::model::units::{group_thousands, Fraction};
use crate::widgets::{rows, InWords, ReadoutPanel, Slider, Toggle};

pub const STAGES: NumberSpec = NumberSpec::whole("pp", 1.0, 8.0);
pub const MICRO: NumberSpec = NumberSpec::whole("micro", 1.0, 64.0);
pub const CHUNKS: NumberSpec = NumberSpec::whole("chunks", 1.0, 4.0);
pub const DEFAULT_STAGES: u32 = 4;
pub const DEFAULT_MICRO: u32 = 4;
pub const DEFAULT_CHUNKS: u32 = 2;

/// The figure's parameters (shared with the course module's `bubble` figure).
#[derive(Clone, Debug, PartialEq)]
pub struct PpParams {
    pub scenario: Scenario,
    /// Pipeline stages p.
    pub stages: u32,
    /// Micro-batches m.
    pub micro: u32,
    pub schedule: Schedule,
    /// Model chunks per GPU for the interleaved schedule.
    pub chunks: u32,
}

impl Default for PpParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            stages: DEFAULT_STAGES,
            micro: DEFAULT_MICRO,
            schedule: Schedule::GPipe,
            chunks: DEFAULT_CHUNKS,
        }
    }
}

impl PpParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        Self::read(query, notices, &Self::default())
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.write_against(pairs, &Self::default());
    }

    /// Reads the parameters, falling back to `defaults` (the `bubble` figure
    /// shares these parameters with other defaults).
    pub fn read(query: &Query, notices: &mut Vec<Notice>, defaults: &Self) -> Self {
        let schedule_ids: Vec<&str> = Schedule::ALL.iter().map(|s| s.id()).collect();
        Self {
            scenario: Scenario::from_query(query, notices),
            stages: STAGES.read(query, f64::from(defaults.stages), notices) as u32,
            micro: MICRO.read(query, f64::from(defaults.micro), notices) as u32,
            schedule: read_choice(query, "schedule", &schedule_ids, notices)
                .and_then(Schedule::from_id)
                .unwrap_or(defaults.schedule),
            chunks: CHUNKS.read(query, f64::from(defaults.chunks), notices) as u32,
        }
    }

    /// Appends the parameters that differ from `defaults`.
    pub fn write_against(&self, pairs: &mut Vec<(String, String)>, defaults: &Self) {
        self.scenario.write(pairs);
        for (key, value, default) in [
            ("pp", self.stages, defaults.stages),
            ("micro", self.micro, defaults.micro),
            ("chunks", self.chunks, defaults.chunks),
        ] {
            if value != default {
                pairs.push((key.into(), value.to_string()));
            }
        }
        if self.schedule != defaults.schedule {
            pairs.push(("schedule".into(), self.schedule.id().into()));
        }
    }
}

/// One block of the timeline, placed in percent of the timeline's width.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineBlock {
    pub stage: u32,
    /// CSS modifier: `forward`, `backward`, `input-grad` or `weight-grad`.
    pub class: &'static str,
    pub x_percent: f64,
    pub width_percent: f64,
    /// The micro-batch number (1-based), shown when the block is wide enough.
    pub label: Option<String>,
}

/// A row heading: the GPU and its layers.
#[derive(Clone, Debug, PartialEq)]
pub struct StageRow {
    pub name: String,
    pub layers: String,
}

/// Everything the `pp` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct PpData {
    pub rows: Vec<StageRow>,
    pub blocks: Vec<TimelineBlock>,
    pub legend: Vec<(&'static str, &'static str)>,
    pub axis_caption: String,
    /// A note when the schedule changed the micro-batch count.
    pub note: Option<String>,
    pub bubble: ReadoutData,
    pub layers_per_gpu: ReadoutData,
    pub state_per_gpu: ReadoutData,
    pub busy_units: ReadoutData,
    pub total_units: ReadoutData,
    pub boundary_activations: ReadoutData,
    pub peak_in_flight: ReadoutData,
    pub summary: String,
}

/// Blocks narrower than this (percent of the width) carry no number.
const LABEL_MIN_PERCENT: f64 = 2.6;

fn units_text(units: f64) -> String {
    if units.fract() == 0.0 {
        group_thousands(units)
    } else {
        format!("{units:.1}")
    }
}

/// Computes the figure from its parameters.
pub fn data(params: &PpParams) -> PpData {
    let scenario = &params.scenario;
    let arch = scenario.arch();
    let p = params.stages.max(1);
    let timeline = simulate(params.schedule, p, params.micro, params.chunks);
    let m = timeline.micro_batches;
    let makespan = f64::from(timeline.makespan.max(1));
    let blocks = timeline
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
                label: (width_percent >= LABEL_MIN_PERCENT).then(|| (block.micro + 1).to_string()),
            }
        })
        .collect();
    let rows = stage_layers(arch.layers, p)
        .into_iter()
        .enumerate()
        .map(|(stage, layers)| StageRow {
            name: format!("GPU {stage}"),
            layers: format!("L{}–{}", layers.start, layers.end.saturating_sub(1)),
        })
        .collect();
    let mut legend = vec![("forward", "forward, numbered by micro-batch")];
    if params.schedule == Schedule::ZeroBubbleH1 {
        legend.push(("input-grad", "backward: input gradient"));
        legend.push(("weight-grad", "backward: weight gradient"));
    } else {
        legend.push(("backward", "backward, twice as long"));
    }
    legend.push(("idle", "idle: the bubble"));
    let units_per_tick = 1.0 / f64::from(timeline.ticks_per_unit);
    let busy = f64::from(timeline.busy_ticks()) * units_per_tick;
    let total = makespan * units_per_tick;
    let bubble = timeline.bubble();
    let state =
        TrainingState::full(scenario.params(), scenario.bytes_per_param).total() / f64::from(p);
    let boundary = hidden_state(&arch, f64::from(arch.seq));
    let layers = layers_per_stage(arch.layers, p);
    let note = (m != params.micro).then(|| {
        format!(
            "The interleaved schedule sends micro-batches through in groups of {p}, so {} micro-batches are rounded up to {m}.",
            params.micro
        )
    });
    let summary = format!(
        "{m} micro-batches through {p} stages under {schedule} leave a bubble of {bubble}: each GPU is busy {busy} of \
         the {total} time units in a step. Each GPU holds {layers} layers and {state} of training state, holds the \
         activations of at most {in_flight} micro-batches at once, and passes {boundary} of activations to the next \
         stage per {seq}-token micro-batch.",
        schedule = params.schedule.label(),
        bubble = Fraction(bubble),
        busy = units_text(busy),
        total = units_text(total),
        in_flight = units_text(timeline.peak_in_flight),
        seq = group_thousands(f64::from(arch.seq)),
    );
    PpData {
        rows,
        blocks,
        legend,
        axis_caption: format!(
            "Time runs right: {} units, a forward block being one",
            units_text(total)
        ),
        note,
        bubble: ReadoutData::new(
            "bubble",
            "Bubble (idle time)",
            bubble,
            Fraction(bubble).to_string(),
        ),
        layers_per_gpu: ReadoutData::new(
            "layers-per-gpu",
            "Layers per GPU",
            f64::from(layers),
            layers.to_string(),
        ),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        busy_units: ReadoutData::new("busy-units", "Busy units per GPU", busy, units_text(busy)),
        total_units: ReadoutData::new("total-units", "Units in the step", total, units_text(total)),
        boundary_activations: ReadoutData::bytes(
            "boundary-activations",
            "Activations across a boundary",
            boundary,
        ),
        peak_in_flight: ReadoutData::new(
            "peak-in-flight",
            "Micro-batches in flight, at most",
            timeline.peak_in_flight,
            units_text(timeline.peak_in_flight),
        ),
        summary,
    }
}

/// Height of one stage's row in the timeline, in CSS pixels.
const ROW_PX: u32 = 26;
/// The blocks' kinds, in the order their paths are drawn.
const BLOCK_CLASSES: [&str; 4] = ["forward", "backward", "input-grad", "weight-grad"];

/// One rectangle as SVG path data, in the timeline's (percent, px) units.
fn rect_path(path: &mut String, x: f64, y: u32, width: f64) {
    use std::fmt::Write;
    _ = write!(path, "M{x:.3} {y}h{width:.3}v{}h{:.3}z", ROW_PX - 4, -width);
}

/// The idle background of every row.
fn idle_path(rows: u32) -> String {
    let mut path = String::new();
    for row in 0..rows {
        rect_path(&mut path, 0.0, row * ROW_PX + 2, 100.0);
    }
    path
}

/// The blocks of each kind as one path: `(class, path data, block count)`.
fn block_paths(blocks: &[TimelineBlock]) -> Vec<(&'static str, String, usize)> {
    BLOCK_CLASSES
        .iter()
        .filter_map(|&class| {
            let mut path = String::new();
            let mut count = 0;
            for block in blocks.iter().filter(|b| b.class == class) {
                rect_path(
                    &mut path,
                    block.x_percent,
                    block.stage * ROW_PX + 2,
                    block.width_percent,
                );
                count += 1;
            }
            (count > 0).then_some((class, path, count))
        })
        .collect()
}

/// The schedule's timeline, one row per GPU (shared with the `bubble` figure).
#[component]
pub fn Timeline(
    /// The computed figure.
    #[prop(into)]
    data: Signal<PpData>,
) -> impl IntoView {
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
            {move || data.with(|d| {
                let rows = d.rows.len() as u32;
                view! {
                    <svg
                        class="fig-pp__svg"
                        width="100%"
                        height=rows * ROW_PX
                        role="img"
                        aria-label=format!("Schedule timeline: {}; {}", d.bubble.text, d.axis_caption)
                    >
                        // Blocks in (percent of the width, px) units, one path per kind:
                        // a handful of elements to rebuild on each change rather than a
                        // rect per block (1,536 at 8 stages, 64 micro-batches, ZB-H1).
                        <svg viewBox=format!("0 0 100 {}", rows * ROW_PX) preserveAspectRatio="none" width="100%" height=rows * ROW_PX>
                            <path class="fig-pp__idle" d=idle_path(rows)></path>
                            {block_paths(&d.blocks).into_iter().map(|(class, path, count)| view! {
                                <path class=format!("fig-pp__block fig-pp__block--{class}") d=path data-blocks=count></path>
                            }).collect_view()}
                        </svg>
                        {d.blocks.iter().filter_map(|block| {
                            block.label.clone().map(|label| view! {
                                <text
                                    class="fig-pp__label"
                                    x=format!("{:.3}%", block.x_percent + block.width_percent / 2.0)
                                    y=block.stage * ROW_PX + 18
                                >
                                    {label}
                                </text>
                            })
                        }).collect_view()}
                    </svg>
                }
            })}
        </div>
        <p class="fig-pp__axis">{move || data.with(|d| d.axis_caption.clone())}</p>
        <ul class="fig-pp__legend">
            {rows(data, |d| &d.legend, |key| view! {
                <li class=move || key.with(|(class, _)| format!("fig-pp__key fig-pp__key--{class}"))>{move || key.with(|(_, text)| *text)}</li>
            })}
        </ul>
        {move || data.with(|d| d.note.clone()).map(|note| view! { <p class="fig-pp__note" role="status">{note}</p> })}
    }
}

/// The schedule choice, with the chunks slider when interleaving (shared with `bubble`).
#[component]
pub fn ScheduleControls(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<PpParams>,
) -> impl IntoView {
    let schedules = Schedule::ALL
        .iter()
        .map(|s| (s.id().to_string(), s.label().to_string()))
        .collect();
    let set_schedule = Callback::new(move |id: String| {
        if let Some(schedule) = Schedule::from_id(&id) {
            params.update(|p| p.schedule = schedule);
        }
    });
    let chunks = Signal::derive(move || f64::from(params.with(|p| p.chunks)));
    let set_chunks = Callback::new(move |value: f64| {
        if let Ok(value) = CHUNKS.validate(value) {
            params.update(|p| p.chunks = value as u32);
        }
    });
    view! {
        <Toggle
            label="Schedule"
            param="schedule"
            options=schedules
            selected=Signal::derive(move || params.with(|p| p.schedule.id().to_string()))
            on_change=set_schedule
        />
        <Show when=move || params.with(|p| p.schedule == Schedule::Interleaved)>
            <Slider
                label="Model chunks per GPU"
                param="chunks"
                min=CHUNKS.min
                max=CHUNKS.max
                step=1.0
                value=chunks
                text=Signal::derive(move || group_thousands(chunks.get()))
                on_input=set_chunks
            />
        </Show>
    }
}

/// Sliders for stages and micro-batches (shared with `bubble`).
#[component]
pub fn StageControls(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<PpParams>,
) -> impl IntoView {
    let stages = Signal::derive(move || f64::from(params.with(|p| p.stages)));
    let micro = Signal::derive(move || f64::from(params.with(|p| p.micro)));
    let set_stages = Callback::new(move |value: f64| {
        if let Ok(value) = STAGES.validate(value) {
            params.update(|p| p.stages = value as u32);
        }
    });
    let set_micro = Callback::new(move |value: f64| {
        if let Ok(value) = MICRO.validate(value) {
            params.update(|p| p.micro = value as u32);
        }
    });
    view! {
        <Slider
            label="Pipeline stages p"
            param="pp"
            min=STAGES.min
            max=STAGES.max
            step=1.0
            value=stages
            text=Signal::derive(move || group_thousands(stages.get()))
            on_input=set_stages
        />
        <Slider
            label="Micro-batches m"
            param="micro"
            min=MICRO.min
            max=MICRO.max
            step=1.0
            value=micro
            text=Signal::derive(move || group_thousands(micro.get()))
            on_input=set_micro
        />
    }
}

/// The `pp` figure.
#[component]
pub fn PpFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<PpParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    view! {
        <div class="figure__controls">
            <StageControls params=params/>
            <ScheduleControls params=params/>
            <PresetChoices params=params gpu=false/>
        </div>
        <div class="figure__diagram fig-pp">
            <Timeline data=data/>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.bubble.clone(), |d| d.layers_per_gpu.clone(), |d| d.state_per_gpu.clone(), |d| d.busy_units.clone(), |d| d.total_units.clone(), |d| d.boundary_activations.clone(), |d| d.peak_in_flight.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn PpText() -> impl IntoView {
    view! {
        <p>
            "Pipeline parallelism cuts the model by depth: with p stages, each GPU holds L/p consecutive layers "
            "and hands its output to the next GPU. Only the activations at a stage boundary travel, one "
            "micro-batch's hidden state at a time, so slower links between servers are good enough. But if a "
            "whole batch went through at once, only one GPU would ever be working. GPipe, from Huang and "
            "colleagues, cuts the batch into m micro-batches and streams them: the second stage starts on "
            "micro-batch 1 while the first starts on micro-batch 2."
        </p>
        <p>
            "The gray triangles at the two ends are the price: while the pipeline fills and drains, some GPUs "
            "have nothing to do. That idle share of the step, the bubble, is (p − 1)/(m + p − 1), so it shrinks "
            "only as m grows large against p. GPipe also keeps the activations of all m micro-batches until their "
            "backward passes, so memory grows with m. The 1F1B schedule (PipeDream-Flush, used by Megatron-LM) "
            "alternates one forward with one backward after a short warm-up: the same bubble, but never more than "
            "p micro-batches in flight. Interleaving gives each GPU several thinner chunks of layers and divides "
            "the bubble by their number; the zero-bubble schedule ZB-H1 splits each backward into its input and "
            "weight gradients and slides the weight gradients into the gaps."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&PpParams::default());
        assert_eq!(d.bubble.text, "42.9%");
        assert_eq!(d.layers_per_gpu.text, "8");
        assert_eq!(d.state_per_gpu.text, "27.0 GB");
        assert_eq!(
            (d.busy_units.text.as_str(), d.total_units.text.as_str()),
            ("12", "21")
        );
        assert_eq!(d.boundary_activations.text, "34 MB");
        assert_eq!(d.peak_in_flight.text, "4");
        assert_eq!(d.rows[3].layers, "L24–31");
        assert_eq!(d.blocks.len(), 32);
        assert!(d.blocks.iter().all(|b| b.label.is_some()));
    }

    #[test]
    fn one_f_one_b_keeps_the_bubble_and_bounds_memory() {
        let d = data(&PpParams {
            micro: 16,
            schedule: Schedule::OneFOneB,
            ..PpParams::default()
        });
        assert_eq!(d.bubble.text, "15.8%");
        assert_eq!(d.peak_in_flight.text, "4");
        let g = data(&PpParams {
            micro: 16,
            ..PpParams::default()
        });
        assert_eq!(g.bubble.text, "15.8%");
        assert_eq!(g.peak_in_flight.text, "16");
    }

    #[test]
    fn interleaving_and_zero_bubble_shrink_the_bubble() {
        let interleaved = data(&PpParams {
            micro: 8,
            schedule: Schedule::Interleaved,
            ..PpParams::default()
        });
        assert_eq!(interleaved.bubble.text, "15.8%");
        assert_eq!(interleaved.total_units.text, "28.5");
        let zb = data(&PpParams {
            micro: 8,
            schedule: Schedule::ZeroBubbleH1,
            ..PpParams::default()
        });
        assert_eq!(zb.bubble.text, "11.1%");
        assert!(zb.legend.iter().any(|(class, _)| *class == "weight-grad"));
        let rounded = data(&PpParams {
            micro: 5,
            schedule: Schedule::Interleaved,
            ..PpParams::default()
        });
        assert!(rounded
            .note
            .as_deref()
            .unwrap_or("")
            .contains("rounded up to 8"));
    }

    #[test]
    fn eight_stages_and_64_micro_batches_stay_drawable() {
        let d = data(&PpParams {
            stages: 8,
            micro: 64,
            ..PpParams::default()
        });
        assert_eq!(d.rows.len(), 8);
        assert_eq!(d.blocks.len(), 8 * 64 * 2);
        assert!(d.blocks.iter().all(|b| b.label.is_none()));
        assert!(d
            .blocks
            .iter()
            .all(|b| b.x_percent + b.width_percent <= 100.0 + 1e-9));
        let paths = block_paths(&d.blocks);
        assert_eq!(
            paths.iter().map(|(c, _, n)| (*c, *n)).collect::<Vec<_>>(),
            [("forward", 8 * 64), ("backward", 8 * 64)]
        );
        for (_, path, count) in &paths {
            assert_eq!(path.matches('M').count(), *count);
        }
        assert_eq!(
            idle_path(2),
            "M0.000 2h100.000v22h-100.000zM0.000 28h100.000v22h-100.000z"
        );
    }
}
