//! Does activation checkpointing really trade memory for time? A real
//! network trains for one step in the reader's browser with a checkpoint
//! every k layers, for several k; the lab measures the activations held and
//! the time taken, and checks that every k gives the same gradients.
//!
//! This file holds the figure (parameters, what it computes from the
//! measured points, its charts and view); `experiment.rs` runs the
//! experiment in the browser. The imports below serve it too.

use leptos::prelude::*;

use crate::figures::cells::Cells;
use plotters::prelude::*;

use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::param::{whole, Param};
use crate::hooks::{clock_tick, now, page_hidden, use_on_screen, yield_to_browser};
use crate::model::checkpoint::{
    best_every, extra_compute, predicted_peak_tensors, predicted_recomputed, predicted_time,
    time_ratio, Network, Run, Spread, Stopwatch, TimeRatio, Timing, VALUE_BYTES,
};
use crate::model::query::NumberSpec;
use crate::model::units::{format_ratio, trimmed, Bytes, Fraction};
use crate::widgets::{
    draw_line_chart, num, rows, AxisLabel, Canvas, Equation, Equations, InWords, LineChart,
    Palette, Piece, PlotCanvas, Readout, ReadoutData, Series, Unit,
};

mod experiment;

use experiment::{run_experiment, status, Experiment, Progress};

pub const FIGURE: Figure = Figure::of::<LabParams>(
    About {
        slug: "checkpoint",
        title: "Activation checkpointing lab",
        subtitle: "A real network in your browser, trading memory for recomputation",
        part: Part::Course,
        example: "layers=64&every=8",
    },
    false,
);

pub const LAYERS: NumberSpec = NumberSpec::whole("layers", 2.0, 64.0);
/// 0 and 1 both keep every activation (a checkpoint at every layer); 0 is how the URL writes it.
pub const EVERY: NumberSpec = NumberSpec::whole("every", 0.0, 64.0);
pub const WIDTH: NumberSpec = NumberSpec::whole("width", 16.0, 256.0);
pub const BATCH: NumberSpec = NumberSpec::whole("batch", 1.0, 64.0);

/// The lab's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabParams {
    pub layers: u32,
    /// Checkpoint every k layers; 0 keeps every activation. The reader's
    /// choice, kept while fewer layers than it are set (the lab then uses
    /// and shows [`LabParams::interval`]) so that it returns with the layers.
    pub every: u32,
    pub width: u32,
    pub batch: u32,
}

impl Default for LabParams {
    fn default() -> Self {
        Self {
            layers: 32,
            every: 0,
            width: 128,
            batch: 32,
        }
    }
}

impl LabParams {
    /// The interval the lab runs, 1 for "keep everything": the reader's,
    /// or every layer while there are fewer layers than it.
    pub fn interval(&self) -> usize {
        (self.every as usize).clamp(1, self.layers as usize)
    }

    /// `every` as the slider and the URL show it: the interval in use, with
    /// 0 still for keeping every activation.
    pub fn shown_every(&self) -> u32 {
        self.every.min(self.layers)
    }

    /// Bytes of one activation tensor: n × w values.
    pub fn tensor_bytes(&self) -> f64 {
        f64::from(self.batch) * f64::from(self.width) * VALUE_BYTES as f64
    }

    /// The intervals the experiment runs: every activation kept, the reader's
    /// k, √L and a spread of others, each once, in order.
    pub fn sweep(&self) -> Vec<usize> {
        let layers = self.layers as usize;
        let root = (layers as f64).sqrt().round() as usize;
        let mut ks = vec![1, 2, 3, 4, root, self.interval(), 8, 12, 16, 24, 32, layers];
        ks.retain(|&k| (1..=layers).contains(&k));
        ks.sort_unstable();
        ks.dedup();
        ks
    }
}

/// One run of the experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct LabPoint {
    pub every: usize,
    pub peak_bytes: usize,
    /// The time of one run (one training step), in each round of the experiment.
    pub times: Vec<Timing>,
    pub recomputed_layers: usize,
    /// Largest relative difference from the keep-everything gradients.
    pub gradient_difference: f64,
}

impl LabPoint {
    /// The median of its rounds' times, in milliseconds.
    fn millis(&self) -> f64 {
        let millis: Vec<f64> = self.times.iter().map(|t| t.millis).collect();
        Spread::of(&millis).map_or(0.0, |s| s.median)
    }
}

/// Everything the lab view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct LabData {
    pub layers: usize,
    /// The reader's k.
    pub every: usize,
    pub activation_memory: ReadoutData,
    pub measured_memory: Option<ReadoutData>,
    pub extra_compute: ReadoutData,
    pub best_every: ReadoutData,
    pub gradients_agree: Option<ReadoutData>,
    pub time_ratio: Option<ReadoutData>,
    /// Predicted peak bytes for every k from 1 to L.
    pub predicted: Vec<(f64, f64)>,
    /// The peak with a checkpoint every k layers, and k ≈ √L.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// Gradients that differ by less than this (relative) agree.
pub const AGREEMENT: f64 = 1e-12;

/// The peak with a checkpoint every k layers, in tensors of a bytes: L + 1
/// when every activation is kept, L/k + k when k divides L (Chen et al.
/// 2016, section 4.3; `predicted_peak_tensors` for the rest); and the best
/// k near √L.
fn equations(
    layers: usize,
    k: usize,
    tensor: f64,
    memory: &ReadoutData,
    best: &ReadoutData,
) -> Vec<Equation> {
    let l = var("L", "layers");
    let a = || var("a", "width");
    // The count in symbols is n_peak whatever k is, so that the letters
    // under the equations stay put as k moves; the numbers show its form.
    let value = if k == 1 {
        vec![Piece::Group(vec![num(layers), Piece::Op("+"), num(1)])]
    } else if layers.is_multiple_of(k) {
        vec![Piece::Group(vec![
            Piece::Frac(vec![num(layers)], vec![num(k)]),
            Piece::Op("+"),
            num(k),
        ])]
    } else {
        vec![num(predicted_peak_tensors(layers, k))]
    };
    let times = || Piece::Op("×");
    vec![
        Equation {
            words: format!(
                "Activations at the peak with a checkpoint every {k} layers: {} tensors of a bytes each, {}",
                predicted_peak_tensors(layers, k),
                memory.text
            ),
            left: vec![var("A", memory.id)],
            rows: vec![
                vec![Piece::Var("n", "peak", "every"), times(), a()],
                [
                    value,
                    vec![
                        times(),
                        equations::multiplied(
                            Bytes(tensor),
                            predicted_peak_tensors(layers, k) as f64,
                            Bytes(memory.value),
                        ),
                    ],
                ]
                .concat(),
                vec![Piece::Value(memory.text.clone(), memory.id)],
            ],
        },
        Equation {
            words: format!("The best interval is near the square root of L: {}", best.text),
            left: vec![Piece::Var("k", "*", best.id)],
            rows: vec![
                vec![Piece::Op("≈"), Piece::Sqrt(vec![l])],
                // √64 is 8, the interval itself: "≈ √64 ≈ 8", not "≈ √64 ≈ 8 ≈ 8".
                [vec![Piece::Op("≈"), Piece::Sqrt(vec![num(layers)])], {
                    let root = trimmed((layers as f64).sqrt(), 3);
                    if root == best.text { Vec::new() } else { vec![Piece::Op("≈"), num(root)] }
                }]
                .concat(),
                // The whole interval nearest the root: about it, not equal to it.
                vec![Piece::Op("≈"), Piece::Value(best.text.clone(), best.id)],
            ],
        },
    ]
}

/// Computes what the lab shows from its parameters and the runs so far.
pub fn data(params: &LabParams, points: &[LabPoint]) -> LabData {
    let layers = params.layers as usize;
    let k = params.interval();
    let tensor = params.tensor_bytes();
    let predicted_bytes = |k: usize| predicted_peak_tensors(layers, k) as f64 * tensor;
    let predicted = Bytes(predicted_bytes(k));
    let mine = points.iter().find(|p| p.every == k);
    let keep_all = points.iter().find(|p| p.every == 1);
    let extra = extra_compute(
        layers,
        mine.map_or(predicted_recomputed(layers, k), |p| p.recomputed_layers),
    );
    let best = best_every(layers);
    let worst_difference = points
        .iter()
        .map(|p| p.gradient_difference)
        .fold(0.0, f64::max);
    let agree = worst_difference <= AGREEMENT;
    let setting = if k == 1 {
        "keeping every activation".to_string()
    } else {
        format!("a checkpoint every {k} layers")
    };
    let summary = match mine {
        Some(point) => {
            let held = Bytes(point.peak_bytes as f64);
            let outcome = if k == 1 {
                format!("{setting} held {held} (predicted {predicted}) and recomputed nothing")
            } else {
                // Against keeping everything, once that run is done (it runs first).
                let against = keep_all.map_or_else(String::new, |p| {
                    format!("keeping every activation held {}; ", Bytes(p.peak_bytes as f64))
                });
                let passes = point.recomputed_layers;
                format!(
                    "{against}{setting} held {held} (predicted {predicted}), recomputing {passes} \
                     layer {}, {} more compute",
                    if passes == 1 { "pass" } else { "passes" },
                    Fraction(extra)
                )
            };
            format!(
                "{layers} layers of width {} on a batch of {}: {outcome}. The best interval is {best}, near \
                 √{layers} ≈ {:.1}. {}",
                params.width,
                params.batch,
                (layers as f64).sqrt(),
                if agree { "Every run gave the same gradients." } else { "Warning: the runs' gradients differ." }
            )
        }
        None => format!(
            "{layers} layers of width {} on a batch of {}: {setting} should hold {predicted} of activations at the \
             peak and recompute {} of the step; the experiment, run in your browser, measures both.",
            params.width,
            params.batch,
            Fraction(extra)
        ),
    };
    let activation_memory = ReadoutData::bytes(
        "activation-memory",
        "Activations at the peak, predicted",
        predicted,
    );
    let best_every = ReadoutData::count("best-every", "Best interval k", best as f64);
    LabData {
        equations: equations(layers, k, tensor, &activation_memory, &best_every),
        layers,
        every: k,
        activation_memory,
        measured_memory: mine.map(|p| {
            ReadoutData::bytes(
                "measured-memory",
                "Measured in your browser",
                Bytes(p.peak_bytes as f64),
            )
        }),
        extra_compute: ReadoutData::fraction("extra-compute", "Extra compute", extra),
        best_every,
        gradients_agree: (!points.is_empty()).then(|| {
            let text = if worst_difference == 0.0 {
                "Yes, identical".to_string()
            } else if agree {
                format!("Yes, within {worst_difference:.0e}")
            } else {
                format!("No: {worst_difference:.1e}")
            };
            ReadoutData::new(
                "gradients-agree",
                "Gradients agree across runs",
                f64::from(u8::from(agree)),
                text,
                Unit::YesNo,
            )
        }),
        time_ratio: mine.zip(keep_all).map(|(m, all)| {
            let ratio = time_ratio(layers, k, &m.times, &all.times);
            let readout = ReadoutData::ratio(
                "time-ratio",
                "Time against keeping everything",
                ratio.value(),
                2,
            );
            match ratio {
                TimeRatio::Predicted(_) => readout.with_note(
                    "predicted: the runs were too quick for your browser's clock to time",
                ),
                TimeRatio::Unsure {
                    measured, error, ..
                } => readout.with_note(format!(
                    "predicted; measured {}{}, but the clock's ticks could move a round's ratio by up to {}",
                    format_ratio(measured.median, 2),
                    if measured.rounds > 1 {
                        format!(" ({})", rounds(measured))
                    } else {
                        String::new()
                    },
                    Fraction(error)
                )),
                TimeRatio::Measured(spread) if spread.rounds > 1 => {
                    let mut note = rounds(spread);
                    if spread.includes(1.0) {
                        note += ": within the noise, no slower than keeping everything";
                    }
                    readout.with_note(note)
                }
                TimeRatio::Baseline | TimeRatio::Measured(_) => readout,
            }
        }),
        predicted: (1..=layers)
            .map(|k| (k as f64, predicted_bytes(k)))
            .collect(),
        summary,
    }
}

/// The rounds' ratios: "median of 3 rounds, 1.27× to 1.31×".
fn rounds(spread: Spread) -> String {
    format!(
        "median of {} rounds, {} to {}",
        spread.rounds,
        format_ratio(spread.low, 2),
        format_ratio(spread.high, 2)
    )
}

impl LabData {
    /// Every readout present, in the order the panel shows them.
    fn all(&self) -> Vec<ReadoutData> {
        self.slots()
            .into_iter()
            .filter_map(|(_, readout)| readout)
            .collect()
    }

    /// The panel's places, in order: each readout, or the label of one the
    /// runs have not measured yet (held so that nothing moves when it comes).
    fn slots(&self) -> Vec<(&'static str, Option<ReadoutData>)> {
        vec![
            ("", Some(self.activation_memory.clone())),
            ("Measured in your browser", self.measured_memory.clone()),
            ("", Some(self.extra_compute.clone())),
            ("", Some(self.best_every.clone())),
            ("Gradients agree across runs", self.gradients_agree.clone()),
            ("Time against keeping everything", self.time_ratio.clone()),
        ]
    }
}

/// Which quantity a lab chart plots against k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabChart {
    /// Peak activation memory, measured (dots) over the prediction (line).
    Memory,
    /// Time per step, measured (dots) over the keep-everything time scaled by the recomputation (line).
    Time,
}

/// One lab chart against k, with the reader's k marked by a dashed line.
pub fn chart(which: LabChart, lab: &LabData, points: &[LabPoint]) -> LineChart {
    let layers = lab.layers;
    type Points = Vec<(f64, f64)>;
    let (title, line, dots): (&str, Points, Points) = match which {
        LabChart::Memory => (
            "Peak activations (KB) against k",
            lab.predicted.iter().map(|&(k, b)| (k, b / 1e3)).collect(),
            points
                .iter()
                .map(|p| (p.every as f64, p.peak_bytes as f64 / 1e3))
                .collect(),
        ),
        LabChart::Time => {
            let base = points
                .iter()
                .find(|p| p.every == 1)
                .map_or(0.0, LabPoint::millis);
            (
                "Time per step (ms) against k",
                (1..=layers)
                    .map(|k| (k as f64, predicted_time(base, layers, k)))
                    .collect(),
                points
                    .iter()
                    .map(|p| (p.every as f64, p.millis()))
                    .collect(),
            )
        }
    };
    let highest = line
        .iter()
        .chain(&dots)
        .map(|&(_, y)| y)
        .fold(0.0, f64::max);
    // Room above the highest point; a chart with nothing yet gets an axis of 0 to 1.
    let top = if highest > 0.0 { highest * 1.1 } else { 1.0 };
    LineChart {
        title: title.to_string(),
        x_desc: "checkpoint every k layers",
        y_desc: "",
        x_range: (1.0, layers.max(2) as f64),
        y_range: (0.0, top),
        // Whole ticks only: k is a number of layers.
        x_labels: layers.clamp(2, 9),
        x_label: AxisLabel::Whole,
        y_label: AxisLabel::Plain,
        lines: vec![Series {
            label: "predicted",
            points: line,
            colour: 0,
            bold: false,
        }],
        dots: vec![Series {
            label: "measured",
            points: dots,
            colour: 1,
            bold: false,
        }],
        marker: None,
        rule: Some((lab.every as f64, "your k")),
    }
}

/// Height of each chart, in CSS pixels: the plot keeps about 150 px under
/// the title, with the axis labels and a row of legend below it.
const CHART_HEIGHT: u32 = 264;

/// Keeps every activation at 1; otherwise the interval.
fn every_text(k: f64) -> String {
    if k <= 1.0 {
        "1: keeps every activation".to_string()
    } else {
        whole(k)
    }
}

impl Params for LabParams {
    type Data = LabData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::number(
            "Layers L",
            LAYERS,
            |p| f64::from(p.layers),
            |p, v| p.layers = v as u32,
        )
        .slider(2.0, |_| LAYERS.max, 1.0, whole)
        .help("Layers of the network the lab trains."),
        // 1 and 0 are the same setting; 0 is the one the URL keeps. Read
        // and written as shown, so a link gives what its page showed.
        Param::<Self>::number(
            "Checkpoint every k layers",
            EVERY,
            |p| f64::from(p.shown_every()),
            |p, v| p.every = if v <= 1.0 { 0 } else { v as u32 },
        )
        .slider(1.0, |p| f64::from(p.layers), 1.0, every_text)
        .limited_by(|p| f64::from(p.layers), "set by the network's layers")
        .help("Keep a checkpoint every k layers; 0 or 1 keeps every activation."),
        Param::<Self>::number(
            "Width w",
            WIDTH,
            |p| f64::from(p.width),
            |p, v| p.width = v as u32,
        )
        .slider(16.0, |_| WIDTH.max, 16.0, whole)
        .help("Width of each layer."),
        Param::<Self>::number(
            "Batch n",
            BATCH,
            |p| f64::from(p.batch),
            |p, v| p.batch = v as u32,
        )
        .slider(1.0, |_| BATCH.max, 1.0, whole)
        .help("Examples in the batch."),
    ];

    /// The prediction alone; the page adds the measurements as they come.
    fn data(&self) -> LabData {
        data(self, &[])
    }

    fn equations(d: &LabData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn readouts(d: &LabData) -> Vec<ReadoutData> {
        d.all()
    }

    fn summary(d: &LabData) -> String {
        d.summary.clone()
    }

    /// The experiment, its charts and its readouts, which follow the runs as they finish.
    fn body(params: Cells<Self>, _prediction: Memo<LabData>) -> AnyView {
        let points = RwSignal::new(Vec::<LabPoint>::new());
        let progress = RwSignal::new(Progress::default());
        let generation = RwSignal::new(0u32);
        // The charts redraw when the controls rest and when points come, not
        // on every input of a drag: two canvases were a long frame on a phone.
        let redraw = [RwSignal::new(0u32), RwSignal::new(0u32)];
        // The experiment runs while the lab is within a screen of the viewport.
        let holder = NodeRef::<leptos::html::Div>::new();
        let on_screen = use_on_screen(holder, "100%");
        let lab = Memo::new(move |_| params.with(|p| points.with(|pts| data(p, pts))));
        // (Re)start the experiment whenever the network's shape changes.
        Effect::new(move |_| {
            let current = params.get();
            generation.update(|g| *g = g.wrapping_add(1));
            points.set(Vec::new());
            let experiment = Experiment {
                generation,
                started: generation.get_untracked(),
                on_screen,
                redraw,
            };
            leptos::task::spawn_local(run_experiment(current, points, progress, experiment));
        });
        let chart = move |which: LabChart| {
            Callback::new(move |(backend, palette, scale): (Canvas, Palette, f64)| {
                redraw[which as usize].track();
                let area = backend.into_drawing_area();
                _ = area.fill(&TRANSPARENT);
                lab.with_untracked(|d| {
                    points.with_untracked(|pts| {
                        _ = draw_line_chart(&area, &chart(which, d, pts), &palette, scale)
                    })
                });
                _ = area.present();
            })
        };
        let slots = Memo::new(move |_| lab.with(LabData::slots));
        view! {
            <div class="figure__diagram fig-lab" node_ref=holder>
                <p class="fig-lab__status" role="status">{move || status(progress.get())}</p>
                <progress
                    class="fig-lab__progress"
                    max=move || progress.get().total.max(1)
                    value=move || progress.get().done
                    aria-label="Experiment progress"
                ></progress>
                <div class="fig-lab__charts">
                    // Its x axis is k: a sideways drag moves the "your k" marker along it (src/boot.js).
                    <div class="fig-lab__drag" data-drives="every">
                        <PlotCanvas draw=chart(LabChart::Memory) height=CHART_HEIGHT label=Signal::derive(move || lab.with(|d| d.summary.clone()))/>
                    </div>
                    <PlotCanvas draw=chart(LabChart::Time) height=CHART_HEIGHT label="Measured time per step against k, over the time the recomputation predicts"/>
                </div>
            </div>
            <div class="figure__readouts">
                {rows(slots, |s| s.as_slice(), |slot| {
                    // The readout's view is built when it is first measured and
                    // kept while its value changes; a new experiment puts the
                    // placeholder back.
                    let measured = Memo::new(move |_| slot.with(|(_, r)| r.is_some()));
                    move || match (measured.get(), slot.with_untracked(|(_, r)| r.clone())) {
                        (true, Some(first)) => view! {
                            <Readout data=Signal::derive(move || slot.with(|(_, r)| r.clone()).unwrap_or_else(|| first.clone()))/>
                        }
                        .into_any(),
                        _ => view! {
                            <div class="readout readout--pending">
                                // A slot's label never changes: read once, not followed.
                                <span class="readout__label">{slot.with_untracked(|(label, _)| *label)}</span>
                                <span class="readout__value">"measuring…"</span>
                            </div>
                        }
                        .into_any(),
                    }
                })}
            </div>
            <Equations equations=Signal::derive(move || lab.with(|d| d.equations.clone())) glossary=crate::figures::notation::GLOSSARY/>
            <InWords text=Signal::derive(move || lab.with(|d| d.summary.clone()))/>
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::query::Query;

    /// 32 layers, every activation kept: 33 tensors of 32 × 128 values of 8
    /// bytes; √32 ≈ 5.7 and the smallest peak is at k = 6.
    #[test]
    fn predictions_before_any_run() {
        let d = data(&LabParams::default(), &[]);
        assert_eq!(d.activation_memory.value, 33.0 * 32.0 * 128.0 * 8.0);
        assert_eq!(d.extra_compute.value, 0.0);
        assert_eq!(d.best_every.value, 6.0);
        assert!(d.measured_memory.is_none() && d.gradients_agree.is_none());
    }

    /// The sweep's runs, done for real, each timed as `time(k)` says.
    fn runs(params: &LabParams, time: impl Fn(usize) -> Timing) -> Vec<LabPoint> {
        let net = Network::new(
            params.layers as usize,
            params.width as usize,
            params.batch as usize,
        );
        let reference = Run::new(&net, 1).finish();
        params
            .sweep()
            .into_iter()
            .map(|every| {
                let m = Run::new(&net, every).finish();
                LabPoint {
                    every,
                    peak_bytes: m.peak_bytes,
                    times: vec![time(every)],
                    recomputed_layers: m.recomputed_layers,
                    gradient_difference: m.gradients.max_relative_difference(&reference.gradients),
                }
            })
            .collect()
    }

    fn lab(layers: u32, every: u32, width: u32, batch: u32) -> LabParams {
        LabParams {
            layers,
            every,
            width,
            batch,
        }
    }

    #[test]
    fn measured_runs_fill_the_readouts() {
        let params = lab(8, 3, 4, 2);
        // A millisecond a step, and one more a recomputed layer, timed exactly.
        let points = runs(&params, |k| Timing {
            millis: 1.0 + predicted_recomputed(8, k) as f64,
            error: 0.0,
        });
        assert_eq!(params.sweep(), [1, 2, 3, 4, 8]);
        let d = data(&params, &points);
        assert_eq!(d.measured_memory.unwrap().value, d.activation_memory.value);
        assert_eq!(d.gradients_agree.unwrap().text, "Yes, identical");
        // k = 3 over 8 layers: 8 − ⌈8/3⌉ = 5 forwards redone, of 3 × 8 layer passes.
        assert_eq!(d.extra_compute.value, 5.0 / 24.0);
        assert_eq!(d.time_ratio.unwrap().value, 6.0);
    }

    /// k* ≈ √L: √64 is 8, the interval itself, so the chain ends "≈ √64"
    /// then the readout's 8 (it read "√64 ≈ 8 ≈ 8"); √32 ≈ 5.66 stays
    /// before the interval, 6.
    #[test]
    fn the_root_is_written_once() {
        for (layers, pieces) in [(64, 2), (32, 4)] {
            let d = data(&lab(layers, 0, 16, 1), &[]);
            assert_eq!(d.equations[1].rows[1].len(), pieces, "L = {layers}");
        }
    }

    /// Width 16 and batch 1 take microseconds a step: the clock (ticks of
    /// 0.1 ms) read 0 or 0.1 ms, and their quotient read 0.00× at k = 1 and
    /// 100,000,000× elsewhere. k = 1 is the baseline, 1.00× by definition;
    /// elsewhere the ratio is predicted, and says so.
    #[test]
    fn the_time_ratio_is_never_absurd() {
        let ratio = |params: &LabParams, time: &dyn Fn(usize) -> Timing| {
            data(params, &runs(params, time)).time_ratio.unwrap()
        };
        let unresolved = |k: usize| Timing {
            millis: if k == 1 { 0.0 } else { 0.1 },
            error: 0.2,
        };
        for layers in 2..=8 {
            let baseline = ratio(&lab(layers, 0, 16, 1), &unresolved);
            assert_eq!((baseline.value, baseline.text.as_str()), (1.0, "1.00×"));
            assert_eq!(baseline.note, None);
        }
        // L = 2, k = 2: x_1 is recomputed, 1 layer pass of 3 × 2, so 7/6.
        let predicted = ratio(&lab(2, 2, 16, 1), &unresolved);
        assert_eq!(predicted.text, "1.17×");
        assert!(predicted.note.unwrap().contains("too quick"));
        // Timed to 0.1 ms in 10 ms: measured, 13/10.
        let measured = ratio(&lab(8, 2, 16, 1), &|k| Timing {
            millis: if k == 1 { 10.0 } else { 13.0 },
            error: 0.1,
        });
        assert_eq!((measured.text.as_str(), measured.note), ("1.30×", None));
    }

    /// L = 2 with k = 2 recomputes one layer; k = 1 keeps everything, so
    /// there is nothing to set it against.
    #[test]
    fn in_words_at_the_edges() {
        let timed = |_| Timing {
            millis: 1.0,
            error: 0.0,
        };
        let two = lab(2, 2, 16, 1);
        let text = data(&two, &runs(&two, timed)).summary;
        assert!(text.contains("recomputing 1 layer pass,"), "{text}");
        let one = lab(2, 0, 16, 1);
        let text = data(&one, &runs(&one, timed)).summary;
        assert_eq!(
            text.matches("keeping every activation").count(),
            1,
            "{text}"
        );
        assert!(text.contains("recomputed nothing"), "{text}");
    }

    /// Sets a parameter as its control does.
    fn set(params: &mut LabParams, key: &str, value: f64) {
        let param = LabParams::TABLE.iter().find(|p| p.key == key).unwrap();
        let super::super::param::Value::Number { set, .. } = param.value else {
            unreachable!("{key} is a number")
        };
        set(params, value);
    }

    /// A parameter as its control shows it.
    fn shown(params: &LabParams, key: &str) -> f64 {
        let param = LabParams::TABLE.iter().find(|p| p.key == key).unwrap();
        let super::super::param::Value::Number { get, .. } = param.value else {
            unreachable!("{key} is a number")
        };
        get(params)
    }

    /// Fewer layers than the reader's k clamp it, for as long as they are
    /// fewer: raising the layers again brings the reader's k back.
    #[test]
    fn the_readers_k_returns_with_the_layers() {
        let mut params = LabParams::default();
        set(&mut params, "every", 10.0);
        set(&mut params, "layers", 4.0);
        assert_eq!((shown(&params, "every"), params.interval()), (4.0, 4));
        // The link writes what the page shows, and reads back without a notice.
        let mut pairs = Vec::new();
        params.write(&mut pairs);
        let query = pairs
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join("&");
        assert_eq!(query, "layers=4&every=4");
        let mut notices = Vec::new();
        let read = LabParams::from_query(&Query::parse(&query), &mut notices);
        assert_eq!((read.interval(), notices.len()), (4, 0));
        set(&mut params, "layers", 32.0);
        assert_eq!((shown(&params, "every"), params.interval()), (10.0, 10));
        // A k chosen while clamped is the reader's new choice.
        set(&mut params, "layers", 4.0);
        set(&mut params, "every", 3.0);
        set(&mut params, "layers", 32.0);
        assert_eq!(params.interval(), 3);
        // Keeping everything survives any number of layers.
        set(&mut params, "every", 1.0);
        set(&mut params, "layers", 2.0);
        set(&mut params, "layers", 64.0);
        assert_eq!((shown(&params, "every"), params.interval()), (0.0, 1));
    }

    /// `every` is bounded by `layers`; 1 means what 0 means and is written as 0 (not at all).
    #[test]
    fn every_in_urls() {
        let mut notices = Vec::new();
        let p = LabParams::from_query(&Query::parse("layers=8&every=20"), &mut notices);
        assert_eq!((p.layers, p.every), (8, 8));
        assert_eq!(notices.len(), 1);
        let one = LabParams::from_query(&Query::parse("every=1"), &mut notices);
        assert_eq!(one, LabParams::default());
        let mut pairs = Vec::new();
        one.write(&mut pairs);
        assert!(pairs.is_empty());
    }

    /// Issue 21: one noisy timing read as a finding (4.47× next to 29.2%
    /// more compute). Three rounds whose ratios are 13/10, 15/10 and 12/12:
    /// the readout is their median, 1.30×, and its note gives the range and
    /// says that 1 is inside it.
    #[test]
    fn a_ratio_within_the_rounds_noise_says_so() {
        let params = lab(8, 2, 16, 1);
        let t = |millis| Timing { millis, error: 0.0 };
        let mut points = runs(&params, |_| t(1.0));
        for point in &mut points {
            point.times = match point.every {
                1 => vec![t(10.0), t(10.0), t(12.0)],
                _ => vec![t(13.0), t(15.0), t(12.0)],
            };
        }
        let ratio = data(&params, &points).time_ratio.unwrap();
        assert_eq!(ratio.text, "1.30×");
        assert_eq!(
            ratio.note.as_deref(),
            Some("median of 3 rounds, 1.00× to 1.50×: within the noise, no slower than keeping everything")
        );
    }

    #[test]
    fn the_status_says_how_long_is_left() {
        assert_eq!(
            status(Progress {
                done: 2,
                total: 12,
                left_ms: Some(9600.0)
            }),
            "Running in your browser: 2 of 12 timings done, about 10 s left"
        );
        assert_eq!(
            status(Progress {
                done: 12,
                total: 12,
                left_ms: None
            }),
            "Done: 12 timings, 3 rounds of full training steps"
        );
    }
}
