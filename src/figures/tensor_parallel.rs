//! How does tensor parallelism split a layer, and what does it cost? Each of
//! t GPUs multiplies by 1/t of every matrix (Megatron-LM's column-then-row
//! split), and four all-reduces a layer sum the partial results.

use leptos::prelude::*;

use super::preset_choices::PresetChoices;

use super::ReadoutData;
use crate::model::comm::{transfer_time, Link};
use crate::model::memory::TrainingState;
use crate::model::query::{read_choice, Notice, Query};
use crate::model::scenario::Scenario;
use crate::model::tensor::{
    flop_per_gpu_per_layer, sent_per_gpu_per_layer, weights_per_gpu_per_layer,
};
use crate::model::units::{format_ratio, group_thousands};
use crate::widgets::{InWords, ReadoutPanel, Toggle};

/// The tensor-parallel degrees offered: powers of two up to one 8-GPU node.
pub const DEGREES: [&str; 4] = ["1", "2", "4", "8"];
pub const DEFAULT_DEGREE: u32 = 4;

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TpParams {
    pub scenario: Scenario,
    /// Tensor-parallel degree t.
    pub tp: u32,
    /// The link the all-reduces run over (the seeds' default: NVLink).
    pub link: Link,
}

impl Default for TpParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            tp: DEFAULT_DEGREE,
            link: Link::NvLink,
        }
    }
}

impl TpParams {
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let link_ids: Vec<&str> = Link::ALL.iter().map(|l| l.id()).collect();
        Self {
            scenario: Scenario::from_query(query, notices),
            tp: read_choice(query, "tp", &DEGREES, notices)
                .and_then(|t| t.parse().ok())
                .unwrap_or(DEFAULT_DEGREE),
            link: read_choice(query, "link", &link_ids, notices)
                .and_then(Link::from_id)
                .unwrap_or(Link::NvLink),
        }
    }

    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.scenario.write(pairs);
        if self.tp != DEFAULT_DEGREE {
            pairs.push(("tp".into(), self.tp.to_string()));
        }
        if self.link != Link::NvLink {
            pairs.push(("link".into(), self.link.id().into()));
        }
    }
}

/// A column of the MLP-split diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Heading over the column.
    pub heading: &'static str,
    /// The block's label on GPU i, `{}` standing for i.
    pub block: &'static str,
    /// Left edge, in percent of the diagram's width.
    pub x_percent: f64,
    /// Whether every GPU holds the same block (the input X).
    pub shared: bool,
}

/// Everything the `tp` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct TpData {
    pub gpus: u32,
    pub columns: Vec<Column>,
    /// Bar lengths of communication and computation, in percent of the longer.
    pub comm_percent: f64,
    pub compute_percent: f64,
    pub weights_per_gpu_layer: ReadoutData,
    pub state_per_gpu: ReadoutData,
    pub sent_per_gpu_layer: ReadoutData,
    pub comm_time: ReadoutData,
    pub compute_time: ReadoutData,
    pub comm_over_compute: ReadoutData,
    pub summary: String,
}

/// Width of one block column, in percent of the diagram.
pub const BLOCK_WIDTH_PERCENT: f64 = 10.0;

fn columns() -> Vec<Column> {
    let spec = [
        ("input", "X", true),
        ("W₁ cols", "A{}", false),
        ("φ(XA)", "Y{}", false),
        ("W₂ rows", "B{}", false),
        ("partial", "Z{}", false),
    ];
    spec.iter()
        .enumerate()
        .map(|(index, &(heading, block, shared))| Column {
            heading,
            block,
            x_percent: 14.0 + index as f64 * 14.5,
            shared,
        })
        .collect()
}

/// Computes the figure from its parameters.
pub fn data(params: &TpParams) -> TpData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let arch = scenario.arch();
    let t = params.tp.max(1);
    let tokens = f64::from(arch.seq);
    let weights = weights_per_gpu_per_layer(&arch, t);
    let state =
        TrainingState::full(scenario.params(), scenario.bytes_per_param).total() / f64::from(t);
    let sent = sent_per_gpu_per_layer(&arch, t, tokens);
    let comm = transfer_time(sent, params.link.bandwidth(&gpu));
    let compute = flop_per_gpu_per_layer(&arch, t, tokens).at(gpu.sustained());
    let ratio = comm.value() / compute.value();
    let longer = comm.value().max(compute.value());
    let summary = if t == 1 {
        format!(
            "With one GPU nothing is split: it holds all {weights} weights of each layer and computes a layer \
             for one {seq}-token sequence in {compute}, with nothing to send.",
            seq = group_thousands(tokens),
        )
    } else {
        format!(
            "Each of the {t} GPUs multiplies by 1/{t} of every matrix, {weights} weights a layer, and the partial \
             results are summed by 4 all-reduces a layer: {sent} sent per GPU for one {seq}-token sequence. Over \
             {link} that takes {comm} against {compute} of computation, a ratio of {ratio}.",
            seq = group_thousands(tokens),
            link = params.link.phrase(),
            ratio = format_ratio(ratio, 2),
        )
    };
    TpData {
        gpus: t,
        columns: columns(),
        comm_percent: comm.value() / longer * 100.0,
        compute_percent: compute.value() / longer * 100.0,
        weights_per_gpu_layer: ReadoutData::new(
            "weights-per-gpu-layer",
            "Weights per GPU, one layer",
            weights.value(),
            weights.to_string(),
        ),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        sent_per_gpu_layer: ReadoutData::bytes(
            "sent-per-gpu-layer",
            "Sent per GPU, per layer",
            sent,
        ),
        comm_time: ReadoutData::new(
            "comm-time",
            "Communication, per layer",
            comm.value(),
            comm.to_string(),
        ),
        compute_time: ReadoutData::new(
            "compute-time",
            "Computation, per layer",
            compute.value(),
            compute.to_string(),
        ),
        comm_over_compute: ReadoutData::new(
            "comm-over-compute",
            "Comm ÷ compute",
            ratio,
            format_ratio(ratio, 2),
        ),
        summary,
    }
}

/// Height of one GPU row in the diagram, in CSS pixels.
const ROW_PX: u32 = 30;
const HEAD_PX: u32 = 22;

/// The `tp` figure.
#[component]
pub fn TpFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<TpParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    // The block diagram depends on t alone: rebuilt when it changes, not on every input.
    let diagram = Memo::new(move |_| data.with(|d| (d.gpus, d.columns.clone())));
    let set_tp = Callback::new(move |id: String| {
        if let Ok(t) = id.parse::<u32>() {
            params.update(|p| p.tp = t);
        }
    });
    let set_link = Callback::new(move |id: String| {
        if let Some(link) = Link::from_id(&id) {
            params.update(|p| p.link = link);
        }
    });
    let degrees = DEGREES
        .iter()
        .map(|d| (d.to_string(), d.to_string()))
        .collect();
    let links = Link::ALL
        .iter()
        .map(|l| (l.id().to_string(), l.label().to_string()))
        .collect();
    view! {
        <div class="figure__controls">
            <Toggle
                label="Tensor-parallel GPUs t"
                param="tp"
                options=degrees
                selected=Signal::derive(move || params.with(|p| p.tp.to_string()))
                on_change=set_tp
            />
            <Toggle
                label="Link between them"
                param="link"
                options=links
                selected=Signal::derive(move || params.with(|p| p.link.id().to_string()))
                on_change=set_link
            />
            <PresetChoices params=params/>
        </div>
        <div class="figure__diagram fig-tp">
            {move || diagram.with(|(rows, columns)| {
                let rows = *rows;
                let height = HEAD_PX + rows * ROW_PX + 8;
                let middle = f64::from(HEAD_PX + rows * ROW_PX / 2);
                view! {
                    <svg
                        class="fig-tp__svg"
                        width="100%"
                        height=height
                        role="img"
                        aria-label=format!(
                            "One MLP block split {rows} ways: each GPU multiplies the input X by its column block A of the first matrix, applies the activation locally, multiplies by its row block B of the second matrix, and an all-reduce sums the partial results into Z"
                        )
                    >
                        {columns.iter().map(|c| view! {
                            <text class="fig-tp__heading" x=format!("{:.2}%", c.x_percent + BLOCK_WIDTH_PERCENT / 2.0) y="14">{c.heading}</text>
                        }).collect_view()}
                        {(0..rows).map(|i| {
                            let y = HEAD_PX + i * ROW_PX;
                            view! {
                                <text class="fig-tp__gpu" x="0" y=y + 19>{format!("GPU {i}")}</text>
                                {columns.iter().map(|c| view! {
                                    <rect
                                        class="fig-tp__block"
                                        class:fig-tp__block--shared=c.shared
                                        x=format!("{:.2}%", c.x_percent)
                                        y=y + 3
                                        width=format!("{BLOCK_WIDTH_PERCENT}%")
                                        height=ROW_PX - 6
                                        rx="3"
                                    ></rect>
                                    <text class="fig-tp__block-label" x=format!("{:.2}%", c.x_percent + BLOCK_WIDTH_PERCENT / 2.0) y=y + 19>
                                        {c.block.replace("{}", &i.to_string())}
                                    </text>
                                }).collect_view()}
                                <line class="fig-tp__arrow" x1="84.5%" y1=y + ROW_PX / 2 x2="89%" y2=middle></line>
                            }
                        }).collect_view()}
                        <circle class="fig-tp__sum" cx="91%" cy=middle r="11"></circle>
                        <text class="fig-tp__block-label" x="91%" y=middle + 5.0>"Σ"</text>
                        <rect class="fig-tp__block fig-tp__block--shared" x="95%" y=middle - 12.0 width="5%" height="24" rx="3"></rect>
                        <text class="fig-tp__block-label" x="97.5%" y=middle + 5.0>"Z"</text>
                    </svg>
                }
            })}
            <p class="fig-tp__caption">
                {move || data.with(|d| format!(
                    "One MLP block split {} ways; attention splits the same way, by heads. Σ is the all-reduce.",
                    d.gpus
                ))}
            </p>
            <div class="fig-tp__bars">
                <span class="fig-tp__bar-label">"Communication"</span>
                <span class="fig-tp__bar-track">
                    <span class="fig-tp__bar fig-tp__bar--comm" style:width=move || format!("{:.2}%", data.with(|d| d.comm_percent))></span>
                </span>
                <span class="fig-tp__bar-value">{move || data.with(|d| d.comm_time.text.clone())}</span>
                <span class="fig-tp__bar-label">"Computation"</span>
                <span class="fig-tp__bar-track">
                    <span class="fig-tp__bar fig-tp__bar--compute" style:width=move || format!("{:.2}%", data.with(|d| d.compute_percent))></span>
                </span>
                <span class="fig-tp__bar-value">{move || data.with(|d| d.compute_time.text.clone())}</span>
            </div>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.weights_per_gpu_layer.clone(), |d| d.state_per_gpu.clone(), |d| d.sent_per_gpu_layer.clone(), |d| d.comm_time.clone(), |d| d.compute_time.clone(), |d| d.comm_over_compute.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
    }
}

/// The explanation under the figure, in our own words.
#[component]
pub fn TpText() -> impl IntoView {
    view! {
        <p>
            "ZeRO still runs each layer on a single GPU. Tensor parallelism, as Megatron-LM does it, splits "
            "the matrix multiplications themselves. Take the MLP, φ(XW₁)W₂. Cut W₁ by columns into t blocks and "
            "give one to each GPU: each computes its own slice of XW₁, and because the activation φ works entry "
            "by entry, it can apply φ to that slice without asking anyone. Now cut W₂ by rows to match. Each GPU "
            "multiplies its slice by its rows and gets a partial result of full size; adding the t partial "
            "results gives exactly the unsplit answer, and one all-reduce does that adding."
        </p>
        <p>
            "Attention splits the same way, by heads, with its output projection cut by rows. So each layer "
            "needs one all-reduce after attention and one after the MLP on the way forward, and two more on the "
            "way back. Those exchanges stand between one computation and the next, so nothing can hide them. "
            "That is why tensor parallelism stays inside one server, where NVLink is about nine times faster "
            "than the network here, and rarely goes past 8 GPUs. Switch the link to the network and watch the "
            "communication bar grow."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reproduce_the_seed() {
        let d = data(&TpParams::default());
        assert_eq!(d.weights_per_gpu_layer.text, "50.6M");
        assert_eq!(d.state_per_gpu.text, "27.0 GB");
        assert_eq!(d.sent_per_gpu_layer.text, "201 MB");
        assert_eq!(d.comm_time.text, "0.45 ms");
        assert_eq!(d.compute_time.text, "8.3 ms");
        assert_eq!(d.comm_over_compute.text, "0.05×");
        assert_eq!(d.gpus, 4);
    }

    #[test]
    fn over_the_network_communication_costs_nine_times_more() {
        let d = data(&TpParams {
            link: Link::Network,
            ..TpParams::default()
        });
        assert_eq!(d.comm_time.text, "4.0 ms");
        assert_eq!(d.comm_over_compute.text, "0.49×");
        let eight = data(&TpParams {
            tp: 8,
            ..TpParams::default()
        });
        assert_eq!(eight.sent_per_gpu_layer.text, "235 MB");
        assert_eq!(eight.compute_time.text, "4.1 ms");
    }

    #[test]
    fn one_gpu_splits_nothing() {
        let d = data(&TpParams {
            tp: 1,
            ..TpParams::default()
        });
        assert_eq!(d.sent_per_gpu_layer.value, 0.0);
        assert_eq!(d.state_per_gpu.text, "107.8 GB");
        assert_eq!(d.comm_over_compute.text, "0.00×");
        assert!(d.summary.contains("nothing is split"));
    }

    #[test]
    fn a_degree_outside_the_choices_falls_back_with_a_notice() {
        let mut notices = Vec::new();
        let params = TpParams::from_query(&Query::parse("tp=3&link=carrier-pigeon"), &mut notices);
        assert_eq!((params.tp, params.link), (DEFAULT_DEGREE, Link::NvLink));
        assert_eq!(notices.len(), 2);
    }
}
