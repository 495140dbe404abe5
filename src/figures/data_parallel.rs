//! What does data parallelism buy, and what does it cost? Every GPU keeps a
//! full copy of the model and computes a slice of the batch; a ring
//! all-reduce then sums the gradients, sending 2(N − 1)/N of them per GPU.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::ReadoutData;
use crate::model::comm::{ring_allreduce_sent, transfer_time, Link};
use crate::model::compute::training_flop;
use crate::model::memory::TrainingState;
use crate::model::query::{read_choice, Notice, NumberSpec, Query};
use crate::model::scenario::Scenario;
use crate::model::units::{group_thousands, Bytes};
use crate::widgets::{rows, InWords, ReadoutPanel, Slider, Toggle};

/// Data-parallel GPUs N.
pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, 64.0);
pub const DEFAULT_GPUS: u32 = 8;

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
            gpus: DEFAULT_GPUS,
            link: Link::Network,
        }
    }
}

impl DpParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let link_ids: Vec<&str> = Link::ALL.iter().map(|l| l.id()).collect();
        Self {
            scenario: Scenario::from_query(query, notices),
            gpus: GPUS.read(query, f64::from(DEFAULT_GPUS), notices) as u32,
            link: read_choice(query, "link", &link_ids, notices)
                .and_then(Link::from_id)
                .unwrap_or(Link::Network),
        }
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.scenario.write(pairs);
        if self.gpus != DEFAULT_GPUS {
            pairs.push(("gpus".into(), self.gpus.to_string()));
        }
        if self.link != Link::Network {
            pairs.push(("link".into(), self.link.id().into()));
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
}

/// One step of the ring all-reduce animation.
#[derive(Clone, Debug, PartialEq)]
pub struct RingStep {
    /// True in the reduce-scatter phase, false in the all-gather phase.
    pub reducing: bool,
    /// 1-based step within its phase.
    pub step: u32,
    /// Steps in each phase: N − 1.
    pub steps_per_phase: u32,
    /// The chunk each GPU sends to its right-hand neighbour this step.
    pub sends: Vec<u32>,
    /// Bytes each GPU has sent so far, after this step.
    pub sent_so_far: Bytes,
    pub caption: String,
}

/// Everything the `dp` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct DpData {
    pub gpus: Vec<GpuBox>,
    /// The capacity line on each GPU's bar, in percent.
    pub capacity_percent: f64,
    pub over_capacity: bool,
    pub state_per_gpu: ReadoutData,
    pub sequences_per_gpu: ReadoutData,
    pub gradient_size: ReadoutData,
    pub sent_per_gpu: ReadoutData,
    pub compute_per_step: ReadoutData,
    pub allreduce_time: ReadoutData,
    pub batch_caption: String,
    pub summary: String,
}

/// The ring all-reduce of N chunks (Patarasuk & Yuan 2009): in step k of
/// reduce-scatter GPU i sends chunk (i − k) mod N and adds the one it gets;
/// in step k of all-gather it forwards chunk (i + 1 − k) mod N, now complete.
/// `index` runs over 0..2(N − 1).
pub fn ring_step(gpus: u32, gradient: Bytes, index: u32) -> Option<RingStep> {
    let n = gpus.max(1);
    let per_phase = n - 1;
    if per_phase == 0 || index >= 2 * per_phase {
        return None;
    }
    let reducing = index < per_phase;
    let k = index % per_phase;
    let sends = (0..n)
        .map(|i| {
            if reducing {
                (i + n - k) % n
            } else {
                (i + 1 + n - k) % n
            }
        })
        .collect();
    let chunk = gradient / f64::from(n);
    let caption = if reducing {
        format!("Reduce-scatter, step {} of {per_phase}: each GPU passes one chunk right and adds the chunk it receives to its own.", k + 1)
    } else {
        format!("All-gather, step {} of {per_phase}: each GPU passes on a chunk that is now fully summed.", k + 1)
    };
    Some(RingStep {
        reducing,
        step: k + 1,
        steps_per_phase: per_phase,
        sends,
        sent_so_far: chunk * f64::from(index + 1),
        caption,
    })
}

/// Computes the figure from its parameters.
pub fn data(params: &DpParams) -> DpData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let n = params.gpus.max(1);
    let batch = scenario.batch.max(1.0) as u32;
    let state = TrainingState::full(scenario.params(), scenario.bytes_per_param);
    let gradient = scenario
        .bytes_per_param
        .reduced_gradient_of(scenario.params());
    let total = state.total();
    let scale = total.value().max(gpu.memory.value());
    let state_percent = total.value() / scale * 100.0;
    let gpus = (0..n)
        .map(|index| GpuBox {
            index,
            // The batch divides as evenly as it can: the first B mod N GPUs take one more.
            sequences: batch / n + u32::from(index < batch % n),
            state_percent,
        })
        .collect();
    let per_gpu = f64::from(batch) / f64::from(n);
    let tokens_per_gpu = per_gpu * f64::from(scenario.arch().seq);
    let compute = training_flop(scenario.params(), tokens_per_gpu, false).at(gpu.sustained());
    let sent = ring_allreduce_sent(gradient, n);
    let time = transfer_time(sent, params.link.bandwidth(&gpu));
    let per_gpu_text = if per_gpu.fract() == 0.0 {
        group_thousands(per_gpu)
    } else {
        format!("{per_gpu:.1}")
    };
    let over = total.value() > gpu.memory.value();
    let summary = format!(
        "With {n} GPUs each one computes {per_gpu_text} of the {batch} sequences in a step, {compute} of work, \
         and then sends {sent} of gradients in the ring all-reduce, {ratio:.2} times the {gradient} gradient. \
         Over {link} at {bandwidth} that takes {time}. Every GPU still holds the full {total} of training state, \
         which {verdict} its {capacity}.",
        batch = group_thousands(f64::from(batch)),
        ratio = sent.value() / gradient.value(),
        link = params.link.phrase(),
        bandwidth = params.link.bandwidth(&gpu),
        verdict = if over { "is more than" } else { "fits in" },
        capacity = gpu.memory.capacity_text(),
    );
    DpData {
        gpus,
        capacity_percent: gpu.memory.value() / scale * 100.0,
        over_capacity: over,
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", total),
        sequences_per_gpu: ReadoutData::new(
            "sequences-per-gpu",
            "Sequences per GPU",
            per_gpu,
            per_gpu_text,
        ),
        gradient_size: ReadoutData::bytes("gradient-size", "Gradient to all-reduce", gradient),
        sent_per_gpu: ReadoutData::bytes("sent-per-gpu", "Sent per GPU, per step", sent),
        compute_per_step: ReadoutData::new(
            "compute-per-step",
            "Compute per step",
            compute.value(),
            compute.to_string(),
        ),
        allreduce_time: ReadoutData::new(
            "allreduce-time",
            "All-reduce time",
            time.value(),
            time.to_string(),
        ),
        batch_caption: format!(
            "Global batch: {} sequences of {} tokens, split evenly",
            group_thousands(f64::from(batch)),
            group_thousands(f64::from(scenario.arch().seq))
        ),
        summary,
    }
}

/// Milliseconds between animation steps of the ring.
const RING_STEP_MS: u64 = 900;

/// Whether the reader asked for less motion.
fn prefers_reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|query| query.matches())
}

/// The `dp` figure.
#[component]
pub fn DpFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<DpParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    let gpus = Signal::derive(move || f64::from(params.with(|p| p.gpus)));
    let set_gpus = Callback::new(move |value: f64| {
        if let Ok(value) = GPUS.validate(value) {
            params.update(|p| p.gpus = value as u32);
        }
    });
    let set_link = Callback::new(move |id: String| {
        if let Some(link) = Link::from_id(&id) {
            params.update(|p| p.link = link);
        }
    });
    let links = Link::ALL
        .iter()
        .map(|l| (l.id().to_string(), l.label().to_string()))
        .collect();

    // The ring animation: a step counter that advances on a timer unless the
    // reader prefers reduced motion or has paused it.
    let step = RwSignal::new(0u32);
    let playing = RwSignal::new(!prefers_reduced_motion());
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
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if playing.get_untracked() {
                step.update(|s| *s = s.wrapping_add(1));
            }
        },
        std::time::Duration::from_millis(RING_STEP_MS),
    ) {
        on_cleanup(move || handle.clear());
    }

    view! {
        <div class="figure__controls">
            <Slider
                label="GPUs (data-parallel replicas)"
                param="gpus"
                min=GPUS.min
                max=GPUS.max
                step=1.0
                value=gpus
                text=Signal::derive(move || group_thousands(gpus.get()))
                on_input=set_gpus
            />
            <Toggle
                label="All-reduce over"
                param="link"
                options=links
                selected=Signal::derive(move || params.with(|p| p.link.id().to_string()))
                on_change=set_link
            />
            <PresetChoices params=params/>
        </div>
        <div class="figure__diagram fig-dp">
            <p class="fig-dp__caption">{move || data.with(|d| d.batch_caption.clone())}</p>
            <ol class="fig-dp__gpus" class:fig-dp__gpus--many=move || params.with(|p| p.gpus > 16)>
                {rows(data, |d| &d.gpus, move |gpu| {
                    let capacity = move || data.with(|d| d.capacity_percent);
                    view! {
                        <li class="fig-dp__gpu">
                            <span class="fig-dp__gpu-name">{move || gpu.with(|g| format!("GPU {}", g.index))}</span>
                            <span class="fig-dp__gpu-seq">{move || gpu.with(|g| format!("{} seq", g.sequences))}</span>
                            <span class="fig-dp__bar" class:fig-dp__bar--over=move || data.with(|d| d.over_capacity)>
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
            <p class="fig-dp__note">
                {move || data.with(|d| format!(
                    "Each bar is one GPU's full copy, {}; the mark is its memory{}.",
                    d.state_per_gpu.text,
                    if d.over_capacity { ", and the red part does not fit" } else { "" }
                ))}
            </p>
            <div class="fig-dp__ring">
                <RingDiagram gpus=Signal::derive(move || params.with(|p| p.gpus)) step=ring/>
                <div class="fig-dp__ring-text">
                    <p aria-live="off">
                        {move || ring.with(|r| match r {
                            Some(r) => r.caption.clone(),
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
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.state_per_gpu.clone(), |d| d.sequences_per_gpu.clone(), |d| d.gradient_size.clone(), |d| d.sent_per_gpu.clone(), |d| d.compute_per_step.clone(), |d| d.allreduce_time.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
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
    /// Halfway to its right-hand neighbour, where its chunk is drawn.
    mx: f64,
    my: f64,
    radius: f64,
    /// The chunk it sends this step, if any.
    chunk: Option<u32>,
    reducing: bool,
    /// Numbers are drawn for rings of up to 12 GPUs.
    labels: bool,
}

/// Lays out a ring of `n` GPUs around the view box's centre, with this step's chunks.
fn ring_nodes(n: u32, step: Option<&RingStep>) -> Vec<RingNode> {
    let center = RING_BOX / 2.0;
    let radius = RING_BOX * 0.38;
    let position = |i: u32| {
        let angle = std::f64::consts::TAU * f64::from(i) / f64::from(n.max(1))
            - std::f64::consts::FRAC_PI_2;
        (center + radius * angle.cos(), center + radius * angle.sin())
    };
    let node = (RING_BOX / f64::from(n.max(1)) * 0.9).clamp(2.5, 10.0);
    (0..n)
        .map(|index| {
            let (x, y) = position(index);
            let (nx, ny) = position(index + 1);
            RingNode {
                index,
                x,
                y,
                mx: (x + nx) / 2.0,
                my: (y + ny) / 2.0,
                radius: node,
                chunk: step.and_then(|s| s.sends.get(index as usize).copied()),
                reducing: step.is_some_and(|s| s.reducing),
                labels: n <= 12,
            }
        })
        .collect()
}

/// The ring of GPUs, with the chunk each one sends this step.
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
    view! {
        <svg
            class="fig-dp__ring-svg"
            viewBox=format!("0 0 {RING_BOX} {RING_BOX}")
            role="img"
            aria-label=move || format!("A ring of {} GPUs, each sending to its right-hand neighbour", gpus.get())
        >
            <circle class="fig-dp__ring-path" cx=RING_BOX / 2.0 cy=RING_BOX / 2.0 r=RING_BOX * 0.38></circle>
            {rows(nodes, |nodes| nodes, |node| {
                let at = move |f: fn(&RingNode) -> f64| move || node.with(f);
                // Which parts the node has: the views below are rebuilt only
                // when this changes, not when the node merely moves.
                let shape = Memo::new(move |_| node.with(|n| (n.chunk.is_some(), n.labels)));
                let chunk_label = move || node.with(|n| n.chunk.map(|c| c.to_string()));
                view! {
                    <g class="fig-dp__ring-node">
                        {move || shape.with(|&(sends, _)| sends).then(|| view! {
                            <circle
                                class="fig-dp__chunk"
                                class:fig-dp__chunk--reduce=move || node.with(|n| n.reducing)
                                cx=at(|n| n.mx)
                                cy=at(|n| n.my)
                                r=at(|n| (n.radius * 0.7).max(2.0))
                            ></circle>
                        })}
                        {move || shape.with(|&(sends, labels)| sends && labels).then(|| view! {
                            <text class="fig-dp__chunk-label" x=at(|n| n.mx) y=at(|n| n.my + 3.0)>{chunk_label}</text>
                        })}
                        <circle class="fig-dp__gpu-dot" cx=at(|n| n.x) cy=at(|n| n.y) r=at(|n| n.radius)></circle>
                        {move || shape.with(|&(_, labels)| labels).then(|| view! {
                            <text class="fig-dp__gpu-label" x=at(|n| n.x) y=at(|n| n.y + 3.5)>{move || node.with(|n| n.index.to_string())}</text>
                        })}
                    </g>
                }
            })}
        </svg>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn DpText() -> impl IntoView {
    view! {
        <p>
            "Data parallelism is the first thing anyone tries: give every GPU a complete copy of the model, "
            "hand each one a different slice of the batch, and let them all run the forward and backward "
            "pass at once. The catch comes at the end of the step. Each GPU now holds a gradient computed "
            "from its own slice, and before anyone may update the weights those gradients must be summed, so "
            "that every copy takes the same step and the copies never drift apart."
        </p>
        <p>
            "The sum is an all-reduce, and the ring algorithm is how it is usually done. The gradient is cut "
            "into N chunks. In the reduce-scatter phase, each GPU passes one chunk to its neighbour and adds "
            "the chunk it receives to its own, N − 1 times, until every GPU owns one fully summed chunk. In "
            "the all-gather phase the finished chunks go round the ring once more, another N − 1 steps. Each "
            "GPU has then sent 2(N − 1)/N of the gradient: almost exactly twice its size, however many GPUs "
            "there are. That is why data parallelism scales so well. It also saves no memory at all: every GPU "
            "still keeps the whole training state, which is the problem the next step solves. Real frameworks "
            "hide most of the all-reduce behind the backward pass, sending the last layers' gradients while the "
            "first layers are still being differentiated."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::BytesPerParam;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&DpParams::default());
        assert_eq!(d.state_per_gpu.text, "107.8 GB");
        assert_eq!(d.sequences_per_gpu.text, "128");
        assert_eq!(d.gradient_size.text, "13.5 GB");
        assert_eq!(d.sent_per_gpu.text, "23.6 GB");
        assert_eq!(d.compute_per_step.text, "2.4 min");
        assert_eq!(d.allreduce_time.text, "0.47 s");
        assert_eq!(d.gpus.len(), 8);
        assert!(d.gpus.iter().all(|g| g.sequences == 128));
        assert!(d.over_capacity);
    }

    #[test]
    fn one_gpu_sends_nothing_and_64_send_almost_twice() {
        let one = data(&DpParams {
            gpus: 1,
            ..DpParams::default()
        });
        assert_eq!(one.sent_per_gpu.value, 0.0);
        assert_eq!(one.sequences_per_gpu.text, "1,024");
        assert_eq!(one.compute_per_step.text, "18.8 min");
        let many = data(&DpParams {
            gpus: 64,
            link: Link::NvLink,
            ..DpParams::default()
        });
        assert_eq!(many.sent_per_gpu.text, "26.5 GB");
        assert_eq!(many.sequences_per_gpu.text, "16");
        assert_eq!(many.allreduce_time.text, "59 ms");
        assert_eq!(many.gpus.len(), 64);
    }

    #[test]
    fn an_uneven_batch_is_shared_as_evenly_as_possible() {
        let d = data(&DpParams {
            gpus: 3,
            ..DpParams::default()
        });
        let shares: Vec<u32> = d.gpus.iter().map(|g| g.sequences).collect();
        assert_eq!(shares, [342, 341, 341]);
        assert_eq!(d.sequences_per_gpu.text, "341.3");
    }

    #[test]
    fn the_ring_sends_every_chunk_round_in_two_phases() {
        let n = 4;
        let steps: Vec<RingStep> = (0..).map_while(|k| ring_step(n, Bytes(4e9), k)).collect();
        assert_eq!(steps.len(), 6);
        assert!(steps[..3].iter().all(|s| s.reducing) && steps[3..].iter().all(|s| !s.reducing));
        assert_eq!(steps[0].sends, [0, 1, 2, 3]);
        assert_eq!(steps[1].sends, [3, 0, 1, 2]);
        // After reduce-scatter GPU i owns chunk i + 1; all-gather starts by sending it.
        assert_eq!(steps[3].sends, [1, 2, 3, 0]);
        assert_eq!(steps[5].sent_so_far, Bytes(6e9));
        assert!(ring_step(1, Bytes(1.0), 0).is_none());
    }

    #[test]
    fn fp32_gradients_double_what_the_ring_sends() {
        let mut params = DpParams::default();
        params.scenario.bytes_per_param = BytesPerParam::FP32_GRADIENTS;
        let d = data(&params);
        assert_eq!(d.state_per_gpu.value, 18.0 * 6.74e9);
        assert_eq!(d.gradient_size.value, 4.0 * 6.74e9);
        assert!(d.gradient_size.bytes);
        let sixteen = data(&DpParams::default());
        assert_eq!(d.sent_per_gpu.value, 2.0 * sixteen.sent_per_gpu.value);
    }
}
