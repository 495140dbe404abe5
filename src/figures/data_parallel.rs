//! What does data parallelism buy, and what does it cost? Every GPU keeps a
//! full copy of the model and computes a slice of the batch; a ring
//! all-reduce then sums the gradients, sending 2(N − 1)/N of them per GPU.

use std::time::Duration;

use leptos::prelude::*;

use super::cells::Cells;
use super::crossover::{self, Crossover, Explained};
use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::param::{set_option, whole, Param};
use super::shared;
use crate::hooks::{page_hidden, use_interval, use_on_screen, use_reduced_motion};
use crate::model::choice::{options, Choice};
use crate::model::comm::{ring_step, Link, RingStep};
use crate::model::data_parallel::{allreduce_meets_compute_at, sequences_on, step, Step};
use crate::model::memory::{fits, TrainingState};
use crate::model::query::NumberSpec;
use crate::model::scenario::Scenario;
use crate::model::units::{counted, group_thousands, Bytes};
use crate::widgets::{num, rows, Equation, Piece, ReadoutData, Unit};

pub const FIGURE: Figure = Figure::of::<DpParams>(
    About {
        slug: "dp",
        title: "Data parallelism",
        subtitle:
            "A full copy on every GPU, a slice of the batch each, gradients summed round a ring",
        part: Part::Explainer,
        example: "gpus=16&link=nvlink",
    },
    true,
);

/// Data-parallel GPUs N.
pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, 64.0);

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DpParams {
    pub scenario: Scenario,
    pub gpus: u32,
    /// The link the all-reduce runs over (the seeds' default: the network).
    pub link: Link,
}

impl Default for DpParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            gpus: 8,
            link: Link::Network,
        }
    }
}

/// One GPU's box: its share of the batch and its memory against capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuBox {
    pub index: u32,
    /// Sequences this GPU computes a step.
    pub sequences: u32,
    /// Its training state as a share of the bar, in percent.
    pub state_percent: f64,
    /// The capacity line on its bar, in percent: the same for every GPU,
    /// and carried by each so that its row reads only its own item (see
    /// `widgets::rows` for why).
    pub capacity_percent: f64,
    pub over_capacity: bool,
}

/// Everything the `dp` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct DpData {
    pub gpus: Vec<GpuBox>,
    pub state_per_gpu: ReadoutData,
    pub sequences_per_gpu: ReadoutData,
    pub gradient_size: ReadoutData,
    pub sent_per_gpu: ReadoutData,
    pub compute_per_step: ReadoutData,
    pub allreduce_time: ReadoutData,
    pub batch_caption: String,
    pub state_note: String,
    /// S = 2(N − 1)/N × G and the compute of a step, with the current values.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &DpParams) -> DpData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let n = params.gpus.max(1);
    let batch = scenario.batch.max(1.0);
    let seq = f64::from(scenario.arch().seq);
    let total = TrainingState::full(scenario.params(), scenario.state_bytes()).total();
    let bandwidth = params.link.bandwidth(&gpu);
    let step = step_at(scenario, n, params.link);
    let scale = total.value().max(gpu.memory.value());
    let over = !fits(total, gpu.memory);
    let gpus = (0..n)
        .map(|index| GpuBox {
            index,
            sequences: sequences_on(batch as u32, n, index),
            state_percent: total.value() / scale * 100.0,
            capacity_percent: gpu.memory.value() / scale * 100.0,
            over_capacity: over,
        })
        .collect();
    let per_gpu = step.sequences_per_gpu;
    // A batch that does not divide evenly gives each GPU one of two whole
    // counts, as the GPU cards show; the readout is their mean.
    let (per_gpu_text, shares) = if per_gpu.fract() == 0.0 {
        (group_thousands(per_gpu), None)
    } else {
        // Two decimals where one would read as a whole count: 1,024/41
        // is 24.98, not 25.0 (N ≤ 64 leaves at least 1/64 = 0.016).
        let decimals = if ((per_gpu * 10.0).round() / 10.0).fract() == 0.0 {
            2
        } else {
            1
        };
        (
            format!("{per_gpu:.decimals$}"),
            Some(format!(
                "{} or {}",
                group_thousands(per_gpu.floor()),
                group_thousands(per_gpu.ceil())
            )),
        )
    };
    let work = if n == 1 {
        format!(
            "With one GPU it computes {all} of a step, {compute} of work, and has no gradient to \
             all-reduce. It holds the full {total} of training state, which {verdict} its {capacity}.",
            all = if batch == 1.0 {
                "the one sequence".to_string()
            } else {
                format!("all {} sequences", group_thousands(batch))
            },
            compute = step.compute,
            verdict = if over { "is more than" } else { "fits in" },
            capacity = gpu.memory.capacity_in_gb(),
        )
    } else {
        String::new()
    };
    let summary = if n == 1 {
        work
    } else {
        format!(
        "With {n} GPUs each one computes {each} of the {batch} sequences in a step, {compute} of work, \
         and then sends {sent} of gradients in the ring all-reduce, {ratio:.2} times the {gradient} gradient. \
         Over {link} at {bandwidth} that takes {time}. Every GPU still holds the full {total} of training state, \
         which {verdict} its {capacity}.",
        each = shares.as_ref().map_or_else(|| per_gpu_text.clone(), |shares| format!("{shares} ({per_gpu_text} on average)")),
        batch = group_thousands(batch),
        compute = step.compute,
        sent = step.sent,
        ratio = step.sent_per_gradient_byte(),
        gradient = step.gradient,
        link = params.link.phrase(),
        time = step.allreduce,
        verdict = if over { "is more than" } else { "fits in" },
        capacity = gpu.memory.capacity_in_gb(),
    )
    };
    let mut figure = DpData {
        equations: Vec::new(),
        gpus,
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", total),
        sequences_per_gpu: ReadoutData::new(
            "sequences-per-gpu",
            "Sequences per GPU",
            per_gpu,
            per_gpu_text.clone(),
            Unit::Count,
        ),
        gradient_size: ReadoutData::bytes("gradient-size", "Gradient to all-reduce", step.gradient),
        sent_per_gpu: ReadoutData::bytes("sent-per-gpu", "Sent per GPU, per step", step.sent),
        compute_per_step: ReadoutData::seconds(
            "compute-per-step",
            "Compute per step",
            step.compute,
        )
        .with_note(shared::rate_note(scenario)),
        allreduce_time: ReadoutData::seconds("allreduce-time", "All-reduce time", step.allreduce)
            .with_note(format!("at {bandwidth}")),
        batch_caption: format!(
            "Global batch: {} {} of {} tokens, split {}",
            group_thousands(batch),
            if batch == 1.0 {
                "sequence"
            } else {
                "sequences"
            },
            group_thousands(seq),
            if (batch as u32).is_multiple_of(n) {
                "evenly"
            } else {
                "as evenly as whole sequences allow"
            }
        ),
        state_note: format!(
            "Each bar is one GPU's full copy, {total}; the mark is its memory{}.",
            if over {
                ", and the hatched part does not fit"
            } else {
                ""
            }
        ),
        summary,
    };
    figure.equations = equations(params, &figure);
    figure
}

/// A step of the scenario's batch on `gpus` GPUs whose gradients go over `link`.
fn step_at(scenario: &Scenario, gpus: u32, link: Link) -> Step {
    step(
        scenario
            .bytes_per_param
            .reduced_gradient_of(scenario.params()),
        scenario.flop_per_token(),
        scenario.batch.max(1.0),
        f64::from(scenario.arch().seq),
        gpus,
        scenario.sustained(),
        link.bandwidth(&scenario.gpu()),
    )
}

/// Where more GPUs stop paying over `link`: the chart of one GPU's compute
/// and each link's all-reduce against N, the reader's N marked, and in
/// words where they meet (below), which N does not change.
pub fn crossover((scenario, link, gpus): &(Scenario, Link, u32)) -> Explained {
    let batch = scenario.batch.max(1.0);
    let seq = f64::from(scenario.arch().seq);
    let at = |gpus: u32, link: Link| step_at(scenario, gpus, link);
    // Where the all-reduce over `link` comes to last as long as the compute: a GPU count to round up.
    let meeting = |link: Link| {
        allreduce_meets_compute_at(
            scenario
                .bytes_per_param
                .reduced_gradient_of(scenario.params()),
            scenario.flop_per_token(),
            batch,
            seq,
            scenario.sustained(),
            link.bandwidth(&scenario.gpu()),
        )
    };
    Explained {
        chart: crossover::chart(&Crossover {
            title: "A step's compute and all-reduce, against GPUs".to_string(),
            x_desc: "GPUs N (log scale)",
            y_desc: "time a step (log scale)",
            top: batch,
            link: *link,
            meeting: meeting(*link),
            at: *gpus,
            time: &|n, link| {
                let step = at(n, link);
                (step.compute, step.allreduce)
            },
        }),
        words: crossover_words(*link, batch, batch * seq, &at, &meeting),
    }
}

/// Where more GPUs stop paying, in words: N = 1 + C₁/(2T) for the reader's
/// link and the other (`allreduce_meets_compute_at`), and as a rule of
/// thumb the tokens a GPU needs a step, B·s/N there.
fn crossover_words(
    link: Link,
    batch: f64,
    tokens: f64,
    at: &dyn Fn(u32, Link) -> Step,
    meeting: &dyn Fn(Link) -> f64,
) -> String {
    let other = link.other();
    // N, the first whole N past it, whether the batch has that many sequences, and its tokens a GPU.
    let meets = |link: Link| {
        let (first, within) = crossover::rounded(meeting(link), batch);
        (
            crossover::exact(meeting(link)),
            first,
            within,
            (tokens / meeting(link)).round(),
        )
    };
    let (here, first, within, tokens_here) = meets(link);
    let (there, _, there_within, tokens_there) = meets(other);
    // A ring of two sends each half of the gradient once each way: 2(2 − 1)/2 × T = T.
    let (whole, one) = crossover::operands(at(1, link).compute, at(2, link).allreduce);
    format!(
        "On one GPU the whole batch takes C₁ = {whole}, and sending one gradient once over {link} takes \
         T = {one}. More GPUs shrink the compute a step, C₁/N, and grow the all-reduce, 2(N − 1)/N × T, \
         towards 2T: they meet at N = 1 + C₁/(2T). Over {link} that is N = {here}{verdict} Over {other} \
         it is {there}{other_verdict}. As a rule of thumb, the all-reduce over {link} stays shorter than \
         the compute while each GPU has more than {tokens_here} a step (B·s/N); over {other}, \
         {tokens_there}. This model does not overlap the two: the all-reduce starts once the compute ends.",
        verdict = if within {
            format!(
                ": from {} GPUs on, each GPU spends more of a step waiting for the all-reduce than \
                 computing. The step still shortens, ever more slowly, towards 2T, while the GPU-hours of \
                 each step grow.",
                group_thousands(first)
            )
        } else {
            format!(
                ", beyond N = {}, where each GPU has a single sequence of the batch: the batch runs out \
                 before the link does.",
                group_thousands(batch)
            )
        },
        other_verdict = crossover::other_beyond(there_within, within, "the batch"),
        link = link.phrase(),
        other = other.phrase(),
        tokens_here = counted(tokens_here, "token", "tokens"),
        tokens_there = group_thousands(tokens_there),
    )
}

/// The ring all-reduce's traffic, S = 2(N − 1)/N × G (Patarasuk and Yuan
/// 2009; `comm.rs`), and a step's compute, c·(B/N)·s / X.
fn equations(params: &DpParams, d: &DpData) -> Vec<Equation> {
    let scenario = &params.scenario;
    let n = params.gpus.max(1);
    let (token_symbol, token_value) = equations::per_token(scenario);
    let seq = scenario.arch().seq;
    let rate = scenario.sustained();
    let ring = 2.0 * f64::from(n - 1) / f64::from(n);
    let gradient = || {
        equations::multiplied(
            Bytes(d.gradient_size.value),
            ring,
            Bytes(d.sent_per_gpu.value),
        )
    };
    vec![
        Equation {
            words: format!(
                "Each GPU sends S equals 2 times N minus 1 over N times the gradient G: {}",
                d.sent_per_gpu.text
            ),
            left: vec![var("S", "sent-per-gpu")],
            rows: vec![
                vec![
                    num(2),
                    Piece::Op("×"),
                    Piece::Frac(vec![var("N", "gpus"), Piece::Op("−"), num(1)], vec![var("N", "gpus")]),
                    Piece::Op("×"),
                    var("G", "gradient-size"),
                ],
                vec![
                    num(2),
                    Piece::Op("×"),
                    Piece::Frac(vec![num(n), Piece::Op("−"), num(1)], vec![num(n)]),
                    Piece::Op("×"),
                    gradient(),
                ],
                equations::result(&d.sent_per_gpu),
            ],
        },
        Equation {
            words: format!(
                "A step's compute time on each GPU, T step, is the FLOP a token times its B over N sequences of s tokens, over the rate X: {}",
                d.compute_per_step.text
            ),
            left: vec![Piece::Var("T", "step", "compute-per-step")],
            rows: vec![
                vec![Piece::Frac(
                    [token_symbol, vec![Piece::Op("×"), Piece::Frac(vec![var("B", "batch")], vec![var("N", "gpus")]), Piece::Op("×"), var("s", "seq")]].concat(),
                    vec![var("X", "gpu busy-util")],
                )],
                vec![Piece::Frac(
                    [token_value, vec![Piece::Op("×"), Piece::Value(d.sequences_per_gpu.text.clone(), "sequences-per-gpu"), Piece::Op("×"), num(group_thousands(f64::from(seq)))]].concat(),
                    vec![Piece::Sci(rate.value()), Piece::Unit("FLOP/s")],
                )],
                equations::result(&d.compute_per_step),
            ],
        },
    ]
}

impl Params for DpParams {
    type Data = DpData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::number(
            "GPUs (data-parallel replicas)",
            GPUS,
            |p| f64::from(p.gpus),
            |p, v| p.gpus = v as u32,
        )
        .slider(1.0, |p| GPUS.max.min(p.scenario.batch.max(1.0)), 1.0, whole)
        // A GPU with no sequence of the batch would only wait: at most one a sequence.
        .limited_by(|p| p.scenario.batch.max(1.0), "set by the batch, one GPU a sequence")
        .help("Data-parallel GPUs, each with a full copy of the model: at most one a sequence of the batch."),
        Param::<Self>::choice(
            "link",
            "All-reduce over",
            options::<Link>,
            |p| p.link.id(),
            |p, id| set_option(&mut p.link, id),
        )
        .toggle()
        .help("The link the gradients' all-reduce crosses."),
        shared::model().assumed(),
        shared::gpu().assumed(),
        shared::busy().assumed(),
        shared::software().assumed(),
        shared::flop().assumed(),
    ];

    fn data(&self) -> DpData {
        data(self)
    }

    fn readouts(d: &DpData) -> Vec<ReadoutData> {
        vec![
            d.state_per_gpu.clone(),
            d.sequences_per_gpu.clone(),
            d.gradient_size.clone(),
            d.sent_per_gpu.clone(),
            d.compute_per_step.clone(),
            d.allreduce_time.clone(),
        ]
    }

    fn summary(d: &DpData) -> String {
        d.summary.clone()
    }

    fn equations(d: &DpData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    fn diagram(params: Cells<Self>, data: Memo<DpData>) -> AnyView {
        view! {
            <div class="figure__diagram fig-dp">
                <p class="fig-dp__caption">{move || data.with(|d| d.batch_caption.clone())}</p>
                <ol class="fig-dp__gpus" class:fig-dp__gpus--many=move || params.with(|p| p.gpus > 16)>
                    {rows(data, |d| &d.gpus, move |gpu| {
                        let capacity = move || gpu.with(|g| g.capacity_percent);
                        view! {
                            <li class="fig-dp__gpu">
                                <span class="fig-dp__gpu-name">{move || gpu.with(|g| format!("GPU {}", g.index))}</span>
                                <span class="fig-dp__gpu-seq">{move || gpu.with(|g| format!("{} seq", g.sequences))}</span>
                                <span class="fig-dp__bar" class:fig-dp__bar--over=move || gpu.with(|g| g.over_capacity)>
                                    <span class="fig-dp__fill" style:width=move || gpu.with(|g| format!("{:.2}%", g.state_percent.min(capacity())))></span>
                                    <span
                                        class="fig-dp__excess"
                                        style:left=move || format!("{:.2}%", capacity())
                                        style:width=move || gpu.with(|g| format!("{:.2}%", (g.state_percent - capacity()).max(0.0)))
                                    ></span>
                                    <span class="fig-dp__line" style:left=move || format!("{:.2}%", capacity())></span>
                                </span>
                            </li>
                        }
                    })}
                </ol>
                <p class="fig-dp__note">{move || data.with(|d| d.state_note.clone())}</p>
                <Ring params=params/>
            </div>
            {crossover::view(Memo::new(move |_| params.with(|p| (p.scenario.clone(), p.link, p.gpus.max(1)))), crossover)}
        }
        .into_any()
    }
}

/// Milliseconds between animation steps of the ring.
const RING_STEP: Duration = Duration::from_millis(900);

/// What one ring step does, in words.
fn ring_caption(step: &RingStep) -> String {
    if step.reducing {
        format!(
            "Reduce-scatter, step {} of {}: each GPU passes one chunk right and adds the chunk it receives to its own.",
            step.step, step.steps_per_phase
        )
    } else {
        format!(
            "All-gather, step {} of {}: each GPU passes on a chunk that is now fully summed.",
            step.step, step.steps_per_phase
        )
    }
}

/// The ring all-reduce, step by step: on a timer unless the reader prefers
/// reduced motion or pauses it.
#[component]
fn Ring(
    /// The figure's parameters.
    params: Cells<DpParams>,
) -> impl IntoView {
    let step = RwSignal::new(0u32);
    let playing = RwSignal::new(!use_reduced_motion().get_untracked());
    let ring = Memo::new(move |_| {
        let (n, gradient) = params.with(|p| {
            (
                p.gpus,
                p.scenario
                    .bytes_per_param
                    .reduced_gradient_of(p.scenario.params()),
            )
        });
        let steps = 2 * n.saturating_sub(1);
        (steps > 0)
            .then(|| ring_step(n, gradient, step.get() % steps))
            .flatten()
    });
    // The ring turns only while it is playing and on screen: off screen no
    // timer runs, in a background tab it does nothing, and either way it
    // resumes where it stopped.
    let holder = NodeRef::<leptos::html::Div>::new();
    let on_screen = use_on_screen(holder, "0px");
    let turning = Signal::derive(move || playing.get() && on_screen.get());
    use_interval(RING_STEP, turning, move || {
        if !page_hidden() {
            step.update(|s| *s = s.wrapping_add(1));
        }
    });
    view! {
        <div class="fig-dp__ring" node_ref=holder>
            <RingDiagram gpus=Signal::derive(move || params.with(|p| p.gpus)) step=ring/>
            <div class="fig-dp__ring-text">
                <p aria-live="off">
                    {move || ring.with(|r| match r {
                        Some(r) => ring_caption(r),
                        None => "With one GPU there is nothing to all-reduce.".to_string(),
                    })}
                </p>
                <p class="fig-dp__ring-sent">
                    {move || ring.with(|r| r.as_ref().map(|r| format!("Sent by each GPU so far: {}", r.sent_so_far)))}
                </p>
                <div class="fig-dp__ring-buttons">
                    <button type="button" class="button" on:click=move |_| playing.update(|p| *p = !*p)>
                        {move || if playing.get() { "Pause" } else { "Play" }}
                    </button>
                    <button
                        type="button"
                        class="button"
                        on:click=move |_| {
                            playing.set(false);
                            step.update(|s| *s = s.wrapping_add(1));
                        }
                    >
                        "Next step"
                    </button>
                </div>
            </div>
        </div>
    }
}

/// Side of the ring diagram's square view box.
const RING_BOX: f64 = 200.0;

/// One GPU of the ring diagram, in view-box units.
#[derive(Clone, Debug, PartialEq)]
struct RingNode {
    index: u32,
    /// The GPU's centre.
    x: f64,
    y: f64,
    /// Halfway round the ring to its right-hand neighbour, where its chunk
    /// is drawn: on the ring, so that two GPUs' chunks do not meet at its centre.
    mx: f64,
    my: f64,
    radius: f64,
    /// The chunk it sends this step, if any.
    chunk: Option<u32>,
}

/// Rings of up to this many GPUs have their numbers drawn.
const LABELLED: usize = 12;

/// The point a fraction `turn` of the way round the unit circle, clockwise
/// from the top as SVG's y runs down: (sin 2πt, −cos 2πt).
///
/// The nearest quarter turn is taken off the fraction exactly, and the sine
/// and cosine of the angle left (at most π/4) are their Taylor series to the
/// x¹⁵ and x¹⁴ terms, within 1e-13. `f64::sin` and `cos` reduce any angle,
/// however large, and that code was 5 KB of the wasm for a ring's positions.
fn clockwise_from_top(turn: f64) -> (f64, f64) {
    let quarters = (turn * 4.0).round();
    let angle = std::f64::consts::TAU * (turn - quarters / 4.0);
    let square = angle * angle;
    let (mut sine, mut cosine) = (1.0, 1.0);
    for k in (1..=7u32).rev() {
        sine = 1.0 - square / f64::from(2 * k * (2 * k + 1)) * sine;
        cosine = 1.0 - square / f64::from((2 * k - 1) * 2 * k) * cosine;
    }
    let sine = angle * sine;
    // Turned on by whole quarters: (sin, cos) of θ + k·π/2.
    let (sin, cos) = match (quarters as i64).rem_euclid(4) {
        0 => (sine, cosine),
        1 => (cosine, -sine),
        2 => (-sine, -cosine),
        _ => (-cosine, sine),
    };
    (sin, -cos)
}

/// Lays out a ring of `n` GPUs around the view box's centre, with this step's chunks.
fn ring_nodes(n: u32, step: Option<&RingStep>) -> Vec<RingNode> {
    let center = RING_BOX / 2.0;
    let radius = RING_BOX * 0.38;
    // In halves of a GPU's share of the turn: GPU i at 2i, its chunk at 2i + 1.
    let position = |half: u32| {
        let (x, y) = clockwise_from_top(f64::from(half) / f64::from(2 * n.max(1)));
        (center + radius * x, center + radius * y)
    };
    let node = (RING_BOX / f64::from(n.max(1)) * 0.9).clamp(2.5, 10.0);
    (0..n)
        .map(|index| {
            let (x, y) = position(2 * index);
            let (mx, my) = position(2 * index + 1);
            RingNode {
                index,
                x,
                y,
                mx,
                my,
                radius: node,
                chunk: step.and_then(|s| s.sends.get(index as usize).copied()),
            }
        })
        .collect()
}

/// Circles, each (centre x, centre y, radius), as one SVG path: from its
/// left edge, two half-circle arcs (SVG 1.1, 8.3.7, the elliptical arc commands).
fn circles(all: impl Iterator<Item = (f64, f64, f64)>) -> String {
    let mut d = String::new();
    for (x, y, r) in all {
        d += &format!(
            "M{:.2} {y:.2}a{r:.2} {r:.2} 0 1 0 {:.2} 0a{r:.2} {r:.2} 0 1 0 {:.2} 0",
            x - r,
            2.0 * r,
            -2.0 * r
        );
    }
    d
}

/// The ring of GPUs, with the chunk each one sends this step.
///
/// The GPUs are one path and their chunks another: a new N rewrites those
/// two attributes, where a circle a GPU and a chunk rewrote six for each
/// of up to 64 GPUs, every one restyled (about 6 ms of style a step at 4x
/// CPU, issue 39). Their numbers, drawn up to [`LABELLED`] GPUs, are text.
#[component]
fn RingDiagram(
    /// Number of GPUs in the ring.
    #[prop(into)]
    gpus: Signal<u32>,
    /// The current animation step, if there is a ring at all.
    #[prop(into)]
    step: Signal<Option<RingStep>>,
) -> impl IntoView {
    let nodes = Memo::new(move |_| step.with(|s| ring_nodes(gpus.get(), s.as_ref())));
    let path = move |circle: fn(&RingNode) -> Option<(f64, f64, f64)>| {
        move || nodes.with(|nodes| circles(nodes.iter().filter_map(circle)))
    };
    view! {
        // A sideways drag on the ring moves the GPU slider (src/boot.js).
        <svg
            class="fig-dp__ring-svg"
            data-drives="gpus"
            viewBox=format!("0 0 {RING_BOX} {RING_BOX}")
            role="img"
            aria-label=move || format!("A ring of {}, each sending to its right-hand neighbour", counted(f64::from(gpus.get()), "GPU", "GPUs"))
        >
            <circle class="fig-dp__ring-path" cx=RING_BOX / 2.0 cy=RING_BOX / 2.0 r=RING_BOX * 0.38></circle>
            <path class="fig-dp__gpu-dot" d=path(|n| Some((n.x, n.y, n.radius)))></path>
            <path
                class="fig-dp__chunk"
                class:fig-dp__chunk--reduce=move || step.with(|s| s.as_ref().is_some_and(|s| s.reducing))
                d=path(|n| n.chunk.map(|_| (n.mx, n.my, (n.radius * 0.7).max(2.0))))
            ></path>
            {rows(nodes, |nodes| if nodes.len() <= LABELLED { nodes } else { &[] }, |node| {
                let at = move |f: fn(&RingNode) -> f64| move || node.with(f);
                view! {
                    <g>
                        <text class="fig-dp__chunk-label" x=at(|n| n.mx) y=at(|n| n.my + 3.0)>
                            {move || node.with(|n| n.chunk.map(|c| c.to_string()))}
                        </text>
                        <text class="fig-dp__gpu-label" x=at(|n| n.x) y=at(|n| n.y + 3.5)>{move || node.with(|n| n.index.to_string())}</text>
                    </g>
                }
            })}
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::BytesPerParam;

    /// The seeds' defaults: 6.74B parameters (Llama 2 7B's preset), a batch
    /// of 1,024 sequences of 4,096 tokens, 150 TFLOP/s. On one GPU the batch
    /// is 6 × 6.74e9 × 4,194,304 / 1.5e14 = 1,130.78 s (18.8 min); one
    /// gradient of 2 bytes a parameter, 13.48 GB, takes 0.2696 s over 50
    /// GB/s and 29.96 ms over 450 GB/s. They meet at N = 1 + 1,130.78/0.5392
    /// = 2,098.2 and 1 + 1,130.78/0.059911 = 18,875.4 GPUs, both past the
    /// 1,024 sequences; B·s/N there is 4,194,304/2,098.2 = 1,999 and 222
    /// tokens a GPU. At 600 TFLOP/s the compute is a quarter and the
    /// network's crossing, 1 + 282.70/0.5392 = 525.3, falls inside the batch:
    /// from 526 GPUs on. The words write C₁ and T to the fewest figures (three
    /// at least) that give the same tenth: 1 + 1,131/(2 × 0.2696) = 2,098.6 at
    /// four, 1 + 1,130.8/(2 × 0.2696) = 2,098.2 at five; over NVLink it takes
    /// seven, 1,130.784 s and 0.02995556 s, both in C₁'s unit (at six,
    /// 1 + 1,130.78/(2 × 0.0299556) = 18,875.3).
    #[test]
    fn the_all_reduce_outlasts_the_compute_where_the_model_says() {
        let network = crossover(&(Scenario::default(), Link::Network, 8));
        let words = &network.words;
        for part in [
            "C₁ = 1,130.8 s, and sending one gradient once over the network takes T = 0.2696 s",
            "Over the network that is N = 2,098.2, beyond N = 1,024, where each GPU has a single sequence",
            "Over NVLink it is 18,875.4, beyond the batch too",
            "more than 1,999 tokens a step (B·s/N); over NVLink, 222.",
        ] {
            assert!(words.contains(part), "{part:?} not in {words}");
        }
        assert_eq!(network.chart.rule, None);
        assert_eq!(network.chart.x_range, (0.0, 10.0));
        let bold: Vec<&str> = network
            .chart
            .lines
            .iter()
            .filter(|s| s.bold)
            .map(|s| s.label)
            .collect();
        assert_eq!(bold, ["Compute", "All-reduce, network"]);
        // The compute halves with every doubling of N: C₁/1,024 = 1.10 s at the right end.
        let compute = &network.chart.lines[0].points;
        assert_eq!(compute.first().map(|p| p.0), Some(0.0));
        let (x, y) = *compute.last().unwrap();
        assert_eq!(x, 10.0);
        assert!((10f64.powf(y) - 1130.78 / 1024.0).abs() < 0.01);
        // The reader's 8 GPUs, marked on the compute curve: 1,130.78 s / 8.
        let (x, y) = network.chart.marker.unwrap();
        assert_eq!(x, 3.0);
        assert!((10f64.powf(y) - 1130.78 / 8.0).abs() < 0.01, "{y}");

        let nvlink = crossover(&(Scenario::default(), Link::NvLink, 8));
        assert!(nvlink.words.contains(
            "C₁ = 1,130.784 s, and sending one gradient once over NVLink takes T = 0.02995556 s"
        ));

        let fast = Scenario {
            tflops_override: Some(600.0),
            ..Scenario::default()
        };
        let fast = crossover(&(fast, Link::Network, 8));
        assert!(fast.words.contains(
            "Over the network that is N = 525.3: from 526 GPUs on, each GPU spends more of a step waiting for the all-reduce than computing."
        ));
        // Four figures: 1 + 282.7/(2 × 0.2696) = 525.30.
        assert!(fast.words.contains("C₁ = 282.7 s, and sending"));
        let (x, label) = fast.chart.rule.unwrap();
        assert!((x - 525.29f64.log2()).abs() < 0.001, "{x}");
        assert_eq!(label, "network all-reduce overtakes compute");
    }

    /// A batch of 3 sequences feeds at most 3 GPUs: the default 8 comes down
    /// to 3 with a notice, as does a `gpus` above 3; 2 stands (a newcomer
    /// met 8 GPUs with 0.375 sequences each, and a step that counted them).
    #[test]
    fn no_more_gpus_than_sequences() {
        use crate::figures::figure::Params;
        use crate::model::query::Query;
        let read = |search: &str| {
            let mut notices = Vec::new();
            let params = DpParams::from_query(&Query::parse(search), &mut notices);
            (params.gpus, notices)
        };
        let (gpus, notices) = read("batch=3");
        assert_eq!(gpus, 3);
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].key, "gpus");
        assert!(notices[0].message.contains("gpus: the default, 8, is above the largest allowed value, 3 (set by the batch, one GPU a sequence), so 3 is used."));
        let (gpus, notices) = read("batch=3&gpus=8");
        assert_eq!((gpus, notices[0].key.as_str()), (3, "gpus"));
        assert!(notices[0].message.contains(
            "above the largest allowed value, 3 (set by the batch, one GPU a sequence), so 3"
        ));
        // A bad value falls back to the default, which comes down too: the
        // property test's "gpus=&batch=0" kept 8 GPUs for 1 sequence.
        let (gpus, notices) = read("gpus=&batch=0");
        assert_eq!((gpus, notices.len()), (1, 3), "{notices:?}");
        let (gpus, notices) = read("batch=3&gpus=2");
        assert_eq!((gpus, notices.len()), (2, 0));
        assert_eq!(read("").0, 8);
    }

    /// One sequence is one sequence (newcomers read "1 sequences" and "all
    /// 1 sequences"); Llama 2 7B's sequences are 4,096 tokens, and one
    /// feeds one GPU.
    #[test]
    fn the_batch_caption_counts_in_words() {
        let mut one = DpParams::default();
        one.scenario.batch = 1.0;
        one.gpus = 1;
        let d = data(&one);
        assert_eq!(
            d.batch_caption,
            "Global batch: 1 sequence of 4,096 tokens, split evenly"
        );
        assert!(d
            .summary
            .starts_with("With one GPU it computes the one sequence of a step"));
        assert_eq!(
            data(&DpParams::default()).batch_caption,
            "Global batch: 1,024 sequences of 4,096 tokens, split evenly"
        );
    }

    /// The ring's positions against the standard library's sine and cosine
    /// (clockwise from the top: x = sin 2πt, y = −cos 2πt), for every GPU of
    /// rings of 1 to 64, and the quarter turns exactly.
    #[test]
    fn ring_positions_match_sine_and_cosine() {
        for n in 1..=64u32 {
            for i in 0..=n {
                let turn = f64::from(i) / f64::from(n);
                let angle = std::f64::consts::TAU * turn;
                let (x, y) = clockwise_from_top(turn);
                assert!((x - angle.sin()).abs() < 1e-13, "x of {i}/{n}: {x}");
                assert!((y + angle.cos()).abs() < 1e-13, "y of {i}/{n}: {y}");
            }
        }
        assert_eq!(clockwise_from_top(0.0), (0.0, -1.0));
        assert_eq!(clockwise_from_top(0.25), (1.0, 0.0));
        assert_eq!(clockwise_from_top(0.5), (0.0, 1.0));
        assert_eq!(clockwise_from_top(0.75), (-1.0, 0.0));
    }

    /// 64 GPUs over NVLink: each computes 1,024/64 = 16 sequences and sends
    /// 2 × 63/64 × 13.48 GB = 26.5 GB, at 450 GB/s 59 ms.
    #[test]
    fn sixty_four_gpus_send_almost_twice_the_gradient() {
        let many = data(&DpParams {
            gpus: 64,
            link: Link::NvLink,
            ..DpParams::default()
        });
        let gradient = 2.0 * 6.74e9;
        assert_eq!(many.sent_per_gpu.value, gradient * 2.0 * 63.0 / 64.0);
        assert_eq!(many.sequences_per_gpu.value, 16.0);
        assert_eq!(
            many.allreduce_time.value,
            gradient * 2.0 * 63.0 / 64.0 / 450e9
        );
        assert_eq!(many.gpus.len(), 64);
        let one = data(&DpParams {
            gpus: 1,
            ..DpParams::default()
        });
        assert_eq!(one.sent_per_gpu.value, 0.0);
    }

    /// 1,024 sequences over 3 GPUs: 342 + 341 + 341.
    #[test]
    fn an_uneven_batch_is_shared_as_evenly_as_possible() {
        let d = data(&DpParams {
            gpus: 3,
            ..DpParams::default()
        });
        let shares: Vec<u32> = d.gpus.iter().map(|g| g.sequences).collect();
        assert_eq!(shares, [342, 341, 341]);
        assert_eq!(d.sequences_per_gpu.text, "341.3");
        // The mean is no GPU's count: the words name the two whole counts
        // the cards show (1,024 = 3 × 341 + 1).
        assert!(
            d.summary
                .contains("each one computes 341 or 342 (341.3 on average) of the 1,024 sequences"),
            "{}",
            d.summary
        );
        let near = |gpus| {
            data(&DpParams {
                gpus,
                ..DpParams::default()
            })
            .sequences_per_gpu
            .text
        };
        assert_eq!(
            (near(41), near(33)),
            ("24.98".to_string(), "31.03".to_string())
        );
        let even = data(&DpParams::default());
        assert_eq!(even.sequences_per_gpu.text, "128");
        assert!(
            even.summary.contains("each one computes 128 of the 1,024"),
            "{}",
            even.summary
        );
    }

    /// With fp32 gradients the all-reduce sends 4 bytes a parameter, not 2.
    #[test]
    fn fp32_gradients_double_what_the_ring_sends() {
        let mut params = DpParams::default();
        params.scenario.bytes_per_param = BytesPerParam::FP32_GRADIENTS;
        let d = data(&params);
        assert_eq!(d.state_per_gpu.value, 18.0 * 6.74e9);
        assert_eq!(d.gradient_size.value, 4.0 * 6.74e9);
        assert_eq!(
            d.sent_per_gpu.value,
            2.0 * data(&DpParams::default()).sent_per_gpu.value
        );
    }

    #[test]
    fn the_ring_is_laid_out_with_this_steps_chunks() {
        let step = ring_step(4, crate::model::units::Bytes(4e9), 1).unwrap();
        let nodes = ring_nodes(4, Some(&step));
        assert_eq!(
            nodes.iter().map(|n| n.chunk).collect::<Vec<_>>(),
            [Some(3), Some(0), Some(1), Some(2)]
        );
        assert!((nodes[0].x - RING_BOX / 2.0).abs() < 1e-9 && nodes[0].y < RING_BOX / 2.0);
        // Two GPUs, at the top and the bottom of the ring of radius 76
        // round (100, 100): their chunks sit on the ring a quarter turn on,
        // at (176, 100) and (24, 100), not both at its centre.
        let two = ring_nodes(2, None);
        let at = |node: &RingNode| ((node.mx * 1e9).round() / 1e9, (node.my * 1e9).round() / 1e9);
        assert_eq!((at(&two[0]), at(&two[1])), ((176.0, 100.0), (24.0, 100.0)));
        // Two GPUs' dots of radius 10 at the top and bottom of the ring,
        // (100, 24) and (100, 176), each from its left edge by two arcs of 2r.
        assert_eq!(
            circles([(100.0, 24.0, 10.0), (100.0, 176.0, 10.0)].into_iter()),
            "M90.00 24.00a10.00 10.00 0 1 0 20.00 0a10.00 10.00 0 1 0 -20.00 0\
             M90.00 176.00a10.00 10.00 0 1 0 20.00 0a10.00 10.00 0 1 0 -20.00 0"
        );
        assert_eq!(ring_caption(&step), "Reduce-scatter, step 2 of 3: each GPU passes one chunk right and adds the chunk it receives to its own.");
    }
}
