//! Does activation checkpointing really trade memory for time? A real
//! network trains for one step in the reader's browser with a checkpoint
//! every k layers, for several k; the lab measures the activations held and
//! the time taken, and checks that every k gives the same gradients.

use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use wasm_bindgen::JsCast;

use super::ReadoutData;
use crate::model::checkpoint::{
    best_every, predicted_peak_tensors, predicted_recomputed, Network, Run,
};
use crate::model::query::{Notice, NumberSpec, Pairs, Query};
use crate::model::units::{format_ratio, group_thousands, Bytes, Fraction};
use crate::widgets::{Canvas, InWords, LegendMark, Palette, PlotCanvas, Readout, Slider};

pub const LAYERS: NumberSpec = NumberSpec::whole("layers", 2.0, 64.0);
/// 0 keeps every activation.
pub const EVERY: NumberSpec = NumberSpec::whole("every", 0.0, 64.0);
pub const WIDTH: NumberSpec = NumberSpec::whole("width", 16.0, 256.0);
pub const BATCH: NumberSpec = NumberSpec::whole("batch", 1.0, 64.0);
const DEFAULTS: LabParams = LabParams {
    layers: 32,
    every: 0,
    width: 128,
    batch: 32,
};

/// The lab's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabParams {
    pub layers: u32,
    /// Checkpoint every k layers; 0 keeps every activation.
    pub every: u32,
    pub width: u32,
    pub batch: u32,
}

impl Default for LabParams {
    fn default() -> Self {
        DEFAULTS
    }
}

impl LabParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let layers = LAYERS.read(query, f64::from(DEFAULTS.layers), notices) as u32;
        let every = NumberSpec {
            max: f64::from(layers),
            ..EVERY
        }
        .read(query, 0.0, notices) as u32;
        Self {
            layers,
            every,
            width: WIDTH.read(query, f64::from(DEFAULTS.width), notices) as u32,
            batch: BATCH.read(query, f64::from(DEFAULTS.batch), notices) as u32,
        }
    }

    pub fn write(&self, pairs: &mut Pairs) {
        for (key, value, default) in [
            ("layers", self.layers, DEFAULTS.layers),
            ("every", self.every, DEFAULTS.every),
            ("width", self.width, DEFAULTS.width),
            ("batch", self.batch, DEFAULTS.batch),
        ] {
            if value != default {
                pairs.push((key.into(), value.to_string()));
            }
        }
    }

    /// The interval the reader chose, 1 for "keep everything".
    pub fn interval(&self) -> usize {
        (self.every as usize).clamp(1, self.layers as usize)
    }

    /// Bytes of one activation tensor.
    pub fn tensor_bytes(&self) -> f64 {
        f64::from(self.batch) * f64::from(self.width) * crate::model::checkpoint::VALUE_BYTES as f64
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
    pub millis: f64,
    pub recomputed_layers: usize,
    /// Largest relative difference from the keep-everything gradients.
    pub gradient_difference: f64,
}

/// Everything the lab view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct LabData {
    pub activation_memory: ReadoutData,
    pub measured_memory: Option<ReadoutData>,
    pub extra_compute: ReadoutData,
    pub best_every: ReadoutData,
    pub gradients_agree: Option<ReadoutData>,
    pub time_ratio: Option<ReadoutData>,
    /// Predicted peak bytes for every k from 1 to L.
    pub predicted: Vec<(f64, f64)>,
    pub summary: String,
}

/// Gradients that differ by less than this (relative) agree.
pub const AGREEMENT: f64 = 1e-12;

/// Computes what the lab shows from its parameters and the runs so far.
pub fn data(params: &LabParams, points: &[LabPoint]) -> LabData {
    let layers = params.layers as usize;
    let k = params.interval();
    let tensor = params.tensor_bytes();
    let predicted_bytes = |k: usize| predicted_peak_tensors(layers, k) as f64 * tensor;
    let predicted = Bytes(predicted_bytes(k));
    let mine = points.iter().find(|p| p.every == k);
    let keep_all = points.iter().find(|p| p.every == 1);
    let extra = mine.map_or(predicted_recomputed(layers, k), |p| p.recomputed_layers) as f64
        / (3.0 * layers as f64);
    let best = best_every(layers);
    let worst_difference = points
        .iter()
        .map(|p| p.gradient_difference)
        .fold(0.0, f64::max);
    let agree = worst_difference <= AGREEMENT;
    let summary = match mine {
        Some(point) => format!(
            "{} layers of width {} on a batch of {}: keeping every activation held {}; {} held {} \
             (predicted {}), recomputing {} layer passes, {} more compute. The best interval is {}, near √{} ≈ {:.1}. {}",
            layers,
            params.width,
            params.batch,
            keep_all.map_or_else(|| "-".to_string(), |p| Bytes(p.peak_bytes as f64).to_string()),
            if k == 1 { "the chosen setting, which is the same".to_string() } else { format!("a checkpoint every {k} layers") },
            Bytes(point.peak_bytes as f64),
            predicted,
            point.recomputed_layers,
            Fraction(extra),
            best,
            layers,
            (layers as f64).sqrt(),
            if agree { "Every run gave the same gradients." } else { "Warning: the runs' gradients differ." }
        ),
        None => format!(
            "{layers} layers of width {} on a batch of {}: a checkpoint every {k} layers should hold {predicted} of \
             activations at the peak and recompute {} of the step. Run the experiment to measure it.",
            params.width,
            params.batch,
            Fraction(extra)
        ),
    };
    LabData {
        activation_memory: ReadoutData::bytes(
            "activation-memory",
            "Activations at the peak, predicted",
            predicted,
        ),
        measured_memory: mine.map(|p| {
            let bytes = Bytes(p.peak_bytes as f64);
            ReadoutData::bytes("measured-memory", "Measured in your browser", bytes)
        }),
        extra_compute: ReadoutData::new(
            "extra-compute",
            "Extra compute",
            extra,
            Fraction(extra).to_string(),
        ),
        best_every: ReadoutData::new(
            "best-every",
            "Best interval k",
            best as f64,
            best.to_string(),
        ),
        gradients_agree: (!points.is_empty()).then(|| {
            ReadoutData::new(
                "gradients-agree",
                "Gradients agree across runs",
                f64::from(u8::from(agree)),
                if worst_difference == 0.0 {
                    "Yes, identical".to_string()
                } else if agree {
                    format!("Yes, within {worst_difference:.0e}")
                } else {
                    format!("No: {worst_difference:.1e}")
                },
            )
        }),
        time_ratio: mine.zip(keep_all).map(|(m, all)| {
            let ratio = m.millis / all.millis.max(1e-9);
            ReadoutData::new(
                "time-ratio",
                "Time against keeping everything",
                ratio,
                format_ratio(ratio, 2),
            )
        }),
        predicted: (1..=layers)
            .map(|k| (k as f64, predicted_bytes(k)))
            .collect(),
        summary,
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

/// Draws one lab chart on any plotters backend; `scale` is the pixel ratio.
pub fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    which: LabChart,
    layers: usize,
    lab: &LabData,
    points: &[LabPoint],
    palette: &Palette,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |css: f64| Palette::px(scale, css);
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
                .map_or(0.0, |p| p.millis);
            (
                "Time per step (ms) against k",
                (1..=layers)
                    .map(|k| {
                        (
                            k as f64,
                            base * (1.0
                                + predicted_recomputed(layers, k) as f64 / (3.0 * layers as f64)),
                        )
                    })
                    .collect(),
                points.iter().map(|p| (p.every as f64, p.millis)).collect(),
            )
        }
    };
    let top = line
        .iter()
        .chain(&dots)
        .map(|&(_, y)| y)
        .fold(0.0, f64::max)
        .max(1e-6)
        * 1.1;
    let mut ctx = ChartBuilder::on(area)
        .margin(px(8.0))
        .x_label_area_size(px(30.0))
        .y_label_area_size(px(46.0))
        .caption(title, palette.font(13.0, palette.text, scale))
        .build_cartesian_2d(1f64..(layers.max(2) as f64), 0f64..top)?;
    let mut mesh = ctx.configure_mesh();
    palette.theme_mesh(&mut mesh, scale);
    mesh.x_desc("checkpoint every k layers")
        .x_label_formatter(&|k| format!("{k:.0}"))
        .draw()?;
    ctx.draw_series(LineSeries::new(
        line,
        palette.series[0].stroke_width(px(2.0) as u32),
    ))?;
    let dot = palette.series[1];
    ctx.draw_series(
        dots.into_iter()
            .map(|p| Circle::new(p, px(4.0), dot.filled())),
    )?;
    let entries = [
        ("predicted", palette.series[0], LegendMark::Line),
        ("measured", dot, LegendMark::Dot),
    ];
    palette.draw_legend(&ctx, scale, &entries)?;
    Ok(())
}

/// Work in one chunk before yielding to the browser, in milliseconds: short
/// enough that a frame with a chunk in it stays under 20 ms.
const CHUNK_MS: f64 = 8.0;

/// How long the controls must rest before an experiment starts, in
/// milliseconds: while a slider is dragged, each input would otherwise build
/// a network and run a chunk before the next frame (a p95 of 38 ms an input).
const SETTLE_MS: i32 = 120;

fn now() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Lets the browser paint and handle input for at least `millis` before the next chunk.
async fn yield_to_browser(millis: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        _ = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(resolve.unchecked_ref(), millis);
    });
    _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Runs every interval of the sweep, a chunk at a time, reporting each point.
async fn run_experiment(
    params: LabParams,
    points: RwSignal<Vec<LabPoint>>,
    progress: RwSignal<(usize, usize)>,
    generation: RwSignal<u32>,
) {
    let started = generation.get_untracked();
    let sweep = params.sweep();
    progress.set((0, sweep.len()));
    yield_to_browser(SETTLE_MS).await;
    if generation.get_untracked() != started {
        return; // The controls moved again while settling.
    }
    let net = Network::new(
        params.layers as usize,
        params.width as usize,
        params.batch as usize,
    );
    let mut reference = None;
    for (index, &every) in sweep.iter().enumerate() {
        let mut run = Run::new(&net, every);
        let mut millis = 0.0;
        loop {
            let chunk_start = now();
            let mut finished = false;
            while !finished && now() - chunk_start < CHUNK_MS {
                finished = run.step();
            }
            millis += now() - chunk_start;
            if finished {
                break;
            }
            yield_to_browser(0).await;
            if generation.get_untracked() != started {
                return; // The parameters changed; a newer experiment has started.
            }
        }
        let measured = run.measured();
        let reference = reference.get_or_insert_with(|| measured.gradients.clone());
        points.update(|all| {
            all.push(LabPoint {
                every,
                peak_bytes: measured.peak_bytes,
                millis,
                recomputed_layers: measured.recomputed_layers,
                gradient_difference: measured.gradients.max_relative_difference(reference),
            })
        });
        progress.set((index + 1, sweep.len()));
        yield_to_browser(0).await;
    }
}

/// The `checkpoint` lab.
#[component]
pub fn CheckpointLab(
    /// The lab's parameters, shared with the URL.
    params: RwSignal<LabParams>,
) -> impl IntoView {
    let points = RwSignal::new(Vec::<LabPoint>::new());
    let progress = RwSignal::new((0usize, 0usize));
    let generation = RwSignal::new(0u32);
    let data = Memo::new(move |_| params.with(|p| points.with(|pts| data(p, pts))));
    // (Re)start the experiment whenever the network's shape changes.
    Effect::new(move |_| {
        let current = params.get();
        generation.update(|g| *g = g.wrapping_add(1));
        points.set(Vec::new());
        leptos::task::spawn_local(run_experiment(current, points, progress, generation));
    });
    let slider = |spec: NumberSpec, get: fn(&LabParams) -> u32, set: fn(&mut LabParams, u32)| {
        let value = Signal::derive(move || f64::from(params.with(get)));
        let on_input = Callback::new(move |v: f64| {
            if let Ok(v) = spec.validate(v) {
                params.update(|p| set(p, v as u32));
            }
        });
        (value, on_input)
    };
    let (layers, set_layers) = slider(
        LAYERS,
        |p| p.layers,
        |p, v| {
            p.layers = v;
            p.every = p.every.min(v);
        },
    );
    let (every, set_every) = slider(EVERY, |p| p.every, |p, v| p.every = v.min(p.layers));
    let (width, set_width) = slider(WIDTH, |p| p.width, |p, v| p.width = v);
    let (batch, set_batch) = slider(BATCH, |p| p.batch, |p, v| p.batch = v);
    let chart = move |which: LabChart| {
        Callback::new(move |(backend, palette, scale): (Canvas, Palette, f64)| {
            let area = backend.into_drawing_area();
            _ = area.fill(&TRANSPARENT);
            let layers = params.with(|p| p.layers as usize);
            data.with(|d| {
                points.with(|pts| _ = draw_chart(&area, which, layers, d, pts, &palette, scale))
            });
            _ = area.present();
        })
    };
    let text = |value: Signal<f64>| Signal::derive(move || group_thousands(value.get()));
    view! {
        <div class="figure__controls">
            <Slider label="Layers L" param="layers" min=LAYERS.min max=LAYERS.max step=1.0 value=layers text=text(layers) on_input=set_layers/>
            <Slider
                label="Checkpoint every k layers (0 keeps all)"
                param="every"
                min=0.0
                max=Signal::derive(move || layers.get())
                step=1.0
                value=every
                text=text(every)
                on_input=set_every
            />
            <Slider label="Width w" param="width" min=WIDTH.min max=WIDTH.max step=16.0 value=width text=text(width) on_input=set_width/>
            <Slider label="Batch n" param="batch" min=BATCH.min max=BATCH.max step=1.0 value=batch text=text(batch) on_input=set_batch/>
        </div>
        <div class="figure__diagram fig-lab">
            <p class="fig-lab__status" role="status">
                {move || {
                    let (done, total) = progress.get();
                    if done < total {
                        format!("Running in your browser: {done} of {total} runs done")
                    } else {
                        format!("Done: {total} runs, each a full forward and backward pass")
                    }
                }}
            </p>
            <progress
                class="fig-lab__progress"
                max=move || progress.get().1.max(1)
                value=move || progress.get().0
                aria-label="Experiment progress"
            ></progress>
            <div class="fig-lab__charts">
                <PlotCanvas draw=chart(LabChart::Memory) height=220 label=Signal::derive(move || data.with(|d| d.summary.clone()))/>
                <PlotCanvas draw=chart(LabChart::Time) height=220 label=Signal::derive(move || "Measured time per step against k, over the time the recomputation predicts".to_string())/>
            </div>
        </div>
        <div class="figure__readouts">
            <Readout data=Signal::derive(move || data.with(|d| d.activation_memory.clone()))/>
            {move || data.with(|d| d.measured_memory.clone()).map(|r| view! { <Readout data=r/> })}
            <Readout data=Signal::derive(move || data.with(|d| d.extra_compute.clone()))/>
            <Readout data=Signal::derive(move || data.with(|d| d.best_every.clone()))/>
            {move || data.with(|d| d.gradients_agree.clone()).map(|r| view! { <Readout data=r/> })}
            {move || data.with(|d| d.time_ratio.clone()).map(|r| view! { <Readout data=r/> })}
        </div>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the lab.
#[component]
pub fn LabText() -> impl IntoView {
    view! {
        <p>
            "The backward pass needs every layer's activations, and keeping them all can take more memory than the "
            "model itself. Activation checkpointing keeps only some of them, the checkpoints, and recomputes the rest "
            "from the nearest checkpoint when the backward pass reaches them. With a checkpoint every k layers, the "
            "peak is about L/k checkpoints plus the k layers of the segment being recomputed, smallest near k = √L, "
            "as Chen and colleagues showed in 2016; the price is about one extra forward pass, a third more compute. "
            "This lab does it for real: the network above runs in your browser, and the memory it reports is what its "
            "code held."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_before_any_run() {
        let d = data(&LabParams::default(), &[]);
        assert_eq!(d.activation_memory.value, 33.0 * 32.0 * 128.0 * 8.0);
        assert_eq!(d.activation_memory.text, "1.1 MB");
        assert_eq!(d.extra_compute.value, 0.0);
        assert_eq!(d.best_every.text, "6");
        assert!(d.measured_memory.is_none() && d.gradients_agree.is_none());
    }

    #[test]
    fn measured_runs_fill_the_readouts() {
        let params = LabParams {
            layers: 8,
            every: 3,
            width: 4,
            batch: 2,
        };
        let net = Network::new(8, 4, 2);
        let reference = Run::new(&net, 1).finish();
        let points: Vec<LabPoint> = params
            .sweep()
            .into_iter()
            .map(|every| {
                let m = Run::new(&net, every).finish();
                LabPoint {
                    every,
                    peak_bytes: m.peak_bytes,
                    millis: 1.0 + m.recomputed_layers as f64,
                    recomputed_layers: m.recomputed_layers,
                    gradient_difference: m.gradients.max_relative_difference(&reference.gradients),
                }
            })
            .collect();
        assert_eq!(params.sweep(), [1, 2, 3, 4, 8]);
        let d = data(&params, &points);
        let measured = d.measured_memory.unwrap();
        assert_eq!(measured.value, d.activation_memory.value);
        assert_eq!(d.gradients_agree.unwrap().text, "Yes, identical");
        assert_eq!(d.extra_compute.value, 5.0 / 24.0);
        assert_eq!(d.time_ratio.unwrap().text, "6.00×");
    }

    #[test]
    fn every_is_bounded_by_layers_in_urls() {
        let mut notices = Vec::new();
        let p = LabParams::from_query(&Query::parse("layers=8&every=20"), &mut notices);
        assert_eq!((p.layers, p.every), (8, 8));
        assert_eq!(notices.len(), 1);
    }
}
