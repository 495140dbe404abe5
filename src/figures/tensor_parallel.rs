//! How does tensor parallelism split a layer, and what does it cost? Each of
//! t GPUs multiplies by 1/t of every matrix (Megatron-LM's column-then-row
//! split), and four all-reduces a layer sum the partial results.

use leptos::prelude::*;

use super::cells::Cells;
use super::crossover::{self, Crossover, Explained};
use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::param::{number_id, plain_options, set_option, Param};
use super::shared;
use crate::model::choice::{options, Choice};
use crate::model::comm::Link;
use crate::model::memory::{TrainingState, ZeroStage};
use crate::model::presets::Architecture;
use crate::model::scenario::Scenario;
use crate::model::tensor::{self, allreduces_meet_compute_at, layer_cost};
use crate::model::units::group_thousands;
use crate::widgets::{num, Equation, Piece, ReadoutData, Unit};

pub const FIGURE: Figure = Figure::of::<TpParams>(
    About {
        slug: "tp",
        title: "Tensor parallelism",
        subtitle: "Cut every matrix multiplication across the GPUs of one node",
        part: Part::Explainer,
        example: "tp=8&link=network",
    },
    true,
);

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
            tp: 4,
            link: Link::NvLink,
        }
    }
}

/// What a column of the MLP-split diagram holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The input x, the same on every GPU.
    Input,
    /// A block of columns of W₁.
    Columns,
    /// The activation of the GPU's slice, computed locally.
    Activation,
    /// A block of rows of W₂.
    Rows,
    /// The GPU's full-size partial result.
    Partial,
}

/// A column of the MLP-split diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Heading over the column, on two lines.
    pub heading: (&'static str, &'static str),
    /// The block's symbol; GPU i's block carries the subscript i.
    pub symbol: &'static str,
    pub block: Block,
    /// Left edge, in percent of the diagram's width.
    pub x_percent: f64,
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
    pub caption: String,
    /// The MLP as a sum over the t GPUs, and a layer's traffic.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// The MLP split t ways (Shoeybi et al. 2019, section 3): W₁ by columns and
/// W₂ by rows, so each GPU computes one term of the sum and the all-reduce adds them.
fn mlp_sum(t: u32) -> Equation {
    let term = |i: String| {
        vec![
            Piece::Func("φ"),
            Piece::Group(vec![var("x", ""), Piece::Indexed("W", format!("1,{i}"))]),
            Piece::Indexed("W", format!("2,{i}")),
        ]
    };
    // GPUs 0 to t − 1, as the diagram numbers them.
    let shown: Vec<u32> = if t <= 3 {
        (0..t).collect()
    } else {
        vec![0, 1, t - 1]
    };
    let mut expanded = Vec::new();
    for (position, &i) in shown.iter().enumerate() {
        if position > 0 {
            expanded.push(Piece::Op("+"));
            if t > 3 && i == t - 1 {
                expanded.extend([Piece::Op("…"), Piece::Op("+")]);
            }
        }
        expanded.extend(term(i.to_string()));
    }
    Equation {
        words: format!(
            "The MLP's output Z equals phi of x times W1, times W2: the sum over the {t} GPUs of each one's columns of W1 and rows of W2"
        ),
        left: vec![var("Z", "")],
        rows: vec![
            vec![Piece::Func("φ"), Piece::Group(vec![var("x", ""), Piece::Indexed("W", "1".to_string())]), Piece::Indexed("W", "2".to_string())],
            [vec![Piece::Sum(vec![var("t", "tp"), Piece::Op("−"), num(1)])], term("i".to_string())].concat(),
            expanded,
        ],
    }
}

/// Four all-reduces a layer, each of s·h 2-byte values, a ring sending
/// 2(t − 1)/t of it from every GPU (`tensor.rs`).
fn traffic(t: u32, arch: &Architecture, sent: &ReadoutData) -> Equation {
    Equation {
        words: format!(
            "Each GPU sends 4 all-reduces a layer of 2 times t minus 1 over t times s times h values of 2 bytes: {}",
            sent.text
        ),
        left: vec![var("S", "sent-per-gpu-layer")],
        rows: vec![
            vec![
                num(4),
                Piece::Op("×"),
                num(2),
                Piece::Frac(vec![var("t", "tp"), Piece::Op("−"), num(1)], vec![var("t", "tp")]),
                Piece::Op("×"),
                var("s", "seq"),
                var("h", "hidden"),
                Piece::Op("×"),
                num(2),
                Piece::Unit("B"),
            ],
            vec![
                num(4),
                Piece::Op("×"),
                num(2),
                Piece::Op("×"),
                Piece::Frac(vec![num(t), Piece::Op("−"), num(1)], vec![num(t)]),
                Piece::Op("×"),
                num(group_thousands(f64::from(arch.seq))),
                Piece::Op("×"),
                num(group_thousands(f64::from(arch.hidden))),
                Piece::Op("×"),
                num(2),
                Piece::Unit("B"),
            ],
            equations::result(sent),
        ],
    }
}

/// Width of one block column, in percent of the diagram.
pub const BLOCK_WIDTH_PERCENT: f64 = 10.0;

fn columns() -> Vec<Column> {
    [
        (("input", "x"), "x", Block::Input),
        (("W₁ by", "columns"), "W₁", Block::Columns),
        (("local", "φ(xW₁)"), "Y", Block::Activation),
        (("W₂ by", "rows"), "W₂", Block::Rows),
        (("partial", "result"), "Z", Block::Partial),
    ]
    .iter()
    .enumerate()
    .map(|(index, &(heading, symbol, block))| Column {
        heading,
        symbol,
        block,
        x_percent: 14.0 + index as f64 * 14.5,
    })
    .collect()
}

/// `symbol` with the subscript `i`: W₁ for GPU 3 is `W₁,₃`, Y is `Y₃`.
pub fn block_label(symbol: &str, i: u32) -> String {
    const DIGITS: [char; 10] = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];
    let index: String = i
        .to_string()
        .chars()
        .filter_map(|c| c.to_digit(10).map(|d| DIGITS[d as usize]))
        .collect();
    if symbol.chars().count() > 1 {
        format!("{symbol},{index}")
    } else {
        format!("{symbol}{index}")
    }
}

/// Computes the figure from its parameters.
pub fn data(params: &TpParams) -> TpData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let arch = scenario.arch();
    let t = params.tp.max(1);
    let tokens = f64::from(arch.seq);
    let cost = layer_cost(
        &arch,
        t,
        tokens,
        scenario.sustained(),
        params.link.bandwidth(&gpu),
    );
    let state = TrainingState::per_gpu(
        scenario.params(),
        scenario.state_bytes(),
        ZeroStage::None,
        1,
        t,
        1,
    )
    .total();
    let ratio = cost.comm_over_compute();
    let longer = cost.comm.value().max(cost.compute.value());
    let seq = group_thousands(tokens);
    let summary = if t == 1 {
        format!(
            "With one GPU nothing is split: it holds all {} weights of each layer and computes a layer for one \
             {seq}-token sequence in {}, with nothing to send.",
            cost.weights, cost.compute
        )
    } else {
        format!(
            "Each of the {t} GPUs multiplies by 1/{t} of every matrix, {} weights a layer, and the partial results are \
             summed by 4 all-reduces a layer: {} sent per GPU for one {seq}-token sequence. Over {} that takes {} \
             against {} of computation, a ratio of {ratio:.2}.",
            cost.weights,
            cost.sent,
            params.link.phrase(),
            cost.comm,
            cost.compute,
        )
    };
    let sent_per_gpu_layer =
        ReadoutData::bytes("sent-per-gpu-layer", "Sent per GPU, per layer", cost.sent);
    TpData {
        equations: vec![mlp_sum(t), traffic(t, &arch, &sent_per_gpu_layer)],
        gpus: t,
        columns: columns(),
        comm_percent: cost.comm.value() / longer * 100.0,
        compute_percent: cost.compute.value() / longer * 100.0,
        weights_per_gpu_layer: ReadoutData::new(
            "weights-per-gpu-layer",
            "Weights per GPU, one layer",
            cost.weights.value(),
            cost.weights.to_string(),
            Unit::Count,
        ),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        sent_per_gpu_layer,
        comm_time: ReadoutData::seconds("comm-time", "Communication, per layer", cost.comm)
            .with_note(format!("at {}", params.link.bandwidth(&gpu))),
        compute_time: ReadoutData::seconds("compute-time", "Computation, per layer", cost.compute)
            .with_note(shared::rate_note(scenario)),
        comm_over_compute: ReadoutData::ratio("comm-over-compute", "Comm ÷ compute", ratio, 2),
        caption: format!(
            "One MLP block split {t} ways: tall blocks hold columns of W₁, wide ones rows of W₂. Attention splits the \
             same way, by heads. Σ is the all-reduce."
        ),
        summary,
    }
}

/// Where splitting a layer more ways stops paying over `link`: the chart of
/// its compute on one GPU and each link's four all-reduces against t, the
/// reader's t marked, and in words where they meet (below), which t does
/// not change.
pub fn crossover((scenario, link, t): &(Scenario, Link, u32)) -> Explained {
    let gpu = scenario.gpu();
    let arch = scenario.arch();
    let tokens = f64::from(arch.seq);
    let rate = scenario.sustained();
    let at = |t: u32, link: Link| layer_cost(&arch, t, tokens, rate, link.bandwidth(&gpu));
    let meeting =
        |link: Link| allreduces_meet_compute_at(&arch, tokens, rate, link.bandwidth(&gpu));
    Explained {
        chart: crossover::chart(&Crossover {
            title: "A layer's compute and all-reduces, against t".to_string(),
            x_desc: "GPUs t (log scale)",
            y_desc: "time a layer (log scale)",
            top: f64::from(arch.heads),
            link: *link,
            meeting: meeting(*link),
            at: *t,
            time: &|t, link| {
                let cost = at(t, link);
                (cost.compute, cost.comm)
            },
        }),
        words: crossover_words(*link, &arch, &at, &meeting),
    }
}

/// Where splitting a layer more ways stops paying, in words: t = 1 + C₁/(2A)
/// for the reader's link and the other (`allreduces_meet_compute_at`), as
/// far as the attention heads allow.
fn crossover_words(
    link: Link,
    arch: &Architecture,
    at: &dyn Fn(u32, Link) -> tensor::LayerCost,
    meeting: &dyn Fn(Link) -> f64,
) -> String {
    let other = link.other();
    let heads = f64::from(arch.heads);
    let within = |link: Link| crossover::rounded(meeting(link), heads).1;
    let (first, _) = crossover::rounded(meeting(link), heads);
    // Split two ways, the four all-reduces take 2(2 − 1)/2 × A = A.
    let (whole, four) = crossover::operands(at(1, link).compute, at(2, link).comm);
    format!(
        "For one {seq}-token sequence a layer is C₁ = {whole} of compute on one GPU, and sending its four \
         hidden states once over {link_phrase} takes A = {four}. Split t ways, the compute falls as C₁/t while \
         the four all-reduces grow as 2(t − 1)/t × A: they meet at t = 1 + C₁/(2A). Over {link_phrase} that \
         is t = {here}{verdict} Over {other_phrase} it is {there}{other_verdict}.",
        seq = group_thousands(f64::from(arch.seq)),
        link_phrase = link.phrase(),
        here = crossover::exact(meeting(link)),
        verdict = if within(link) {
            format!(": from t = {first} on, each GPU waits on the all-reduces longer than it computes.")
        } else {
            format!(
                ", more ways than the {} attention heads of a layer split: the heads run out before the link does.",
                arch.heads
            )
        },
        other_phrase = other.phrase(),
        there = crossover::exact(meeting(other)),
        other_verdict = crossover::other_beyond(within(other), within(link), "the heads"),
    )
}

impl Params for TpParams {
    type Data = TpData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::choice(
            "tp",
            "Tensor-parallel GPUs t",
            || plain_options(tensor::DEGREES),
            |p| number_id(tensor::DEGREES, p.tp),
            |p, id| p.tp = id.parse().unwrap_or(p.tp),
        )
        .toggle()
        .help("The tensor-parallel degree: GPUs splitting every matrix."),
        Param::<Self>::choice(
            "link",
            "Link between them",
            options::<Link>,
            |p| p.link.id(),
            |p, id| set_option(&mut p.link, id),
        )
        .toggle()
        .help("The link the four all-reduces a layer cross."),
        shared::model().assumed(),
        shared::gpu().assumed(),
        shared::busy().assumed(),
        shared::software().assumed(),
    ];

    fn data(&self) -> TpData {
        data(self)
    }

    fn readouts(d: &TpData) -> Vec<ReadoutData> {
        vec![
            d.weights_per_gpu_layer.clone(),
            d.state_per_gpu.clone(),
            d.sent_per_gpu_layer.clone(),
            d.comm_time.clone(),
            d.compute_time.clone(),
            d.comm_over_compute.clone(),
        ]
    }

    fn summary(d: &TpData) -> String {
        d.summary.clone()
    }

    fn equations(d: &TpData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    fn diagram(params: Cells<Self>, data: Memo<TpData>) -> AnyView {
        // The block diagram depends on t alone: rebuilt when it changes, not on every input.
        let layout = Memo::new(move |_| data.with(|d| (d.gpus, d.columns.clone())));
        view! {
            <div class="figure__diagram fig-tp">
                <div class="fig-tp__scroll">{move || layout.with(|(rows, columns)| split_diagram(*rows, columns))}</div>
                <p class="fig-tp__caption">{move || data.with(|d| d.caption.clone())}</p>
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
            {crossover::view(Memo::new(move |_| params.with(|p| (p.scenario.clone(), p.link, p.tp.max(1)))), crossover)}
        }
        .into_any()
    }
}

/// Height of one GPU row in the diagram, in CSS pixels.
const ROW_PX: u32 = 30;
const HEAD_PX: u32 = 34;

/// The MLP split over `rows` GPUs: a row of blocks per GPU, then the sum.
fn split_diagram(rows: u32, columns: &[Column]) -> impl IntoView {
    let height = HEAD_PX + rows * ROW_PX + 8;
    let middle = f64::from(HEAD_PX + rows * ROW_PX / 2);
    let class = |block: Block| match block {
        Block::Input => "fig-tp__block fig-tp__block--shared",
        Block::Columns => "fig-tp__block fig-tp__block--columns",
        Block::Activation => "fig-tp__block fig-tp__block--activation",
        Block::Rows => "fig-tp__block fig-tp__block--rows",
        Block::Partial => "fig-tp__block fig-tp__block--partial",
    };
    // Column blocks tall and narrow, row blocks short and wide, as the matrices are cut.
    let shape = |block: Block| match block {
        Block::Columns => (BLOCK_WIDTH_PERCENT * 0.8, 0.0),
        Block::Rows => (BLOCK_WIDTH_PERCENT, 5.0),
        _ => (BLOCK_WIDTH_PERCENT, 0.0),
    };
    view! {
        <svg
            class="fig-tp__svg"
            width="100%"
            height=height
            role="img"
            aria-label=format!(
                "One MLP block split {rows} ways: each GPU multiplies the input x by its block of columns of W₁, applies the activation to its slice, multiplies by its block of rows of W₂, and an all-reduce sums the partial results into Z"
            )
        >
            {columns.iter().map(|c| {
                let x = format!("{:.2}%", c.x_percent + BLOCK_WIDTH_PERCENT / 2.0);
                view! {
                    <text class="fig-tp__heading" x=x.clone() y="12">{c.heading.0}</text>
                    <text class="fig-tp__heading" x=x y="26">{c.heading.1}</text>
                }
            }).collect_view()}
            {(0..rows).map(|i| {
                let y = HEAD_PX + i * ROW_PX;
                view! {
                    <text class="fig-tp__gpu" x="0" y=y + 19>{format!("GPU {i}")}</text>
                    {columns.iter().map(|c| {
                        let (width, inset) = shape(c.block);
                        let label = if c.block == Block::Input { c.symbol.to_string() } else { block_label(c.symbol, i) };
                        view! {
                            <rect
                                class=class(c.block)
                                x=format!("{:.2}%", c.x_percent + (BLOCK_WIDTH_PERCENT - width) / 2.0)
                                y=f64::from(y + 3) + inset
                                width=format!("{width}%")
                                height=f64::from(ROW_PX - 6) - 2.0 * inset
                                rx="3"
                            ></rect>
                            <text class="fig-tp__block-label" x=format!("{:.2}%", c.x_percent + BLOCK_WIDTH_PERCENT / 2.0) y=y + 19>{label}</text>
                        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over the network (50 GB/s against NVLink's 450) the same bytes take 9
    /// times as long; 8 GPUs send 2 × 7/8 of each all-reduce where 4 send
    /// 2 × 3/4, so 7/6 as much.
    #[test]
    fn the_network_costs_nine_times_nvlink() {
        let nvlink = data(&TpParams::default());
        let network = data(&TpParams {
            link: Link::Network,
            ..TpParams::default()
        });
        assert!((network.comm_time.value / nvlink.comm_time.value - 9.0).abs() < 1e-9);
        let eight = data(&TpParams {
            tp: 8,
            ..TpParams::default()
        });
        assert!(
            (eight.sent_per_gpu_layer.value / nvlink.sent_per_gpu_layer.value - 7.0 / 6.0).abs()
                < 1e-12
        );
        assert!((eight.compute_time.value / nvlink.compute_time.value - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_crossover_says_where_a_layer_stops_paying_to_split() {
        // Llama 2 7B's layer (model::tensor's test): 6 × 202,383,360 × 4,096
        // / 1.5e14 = 33.16 ms of compute on one GPU against 4 × 4,096² × 2 B
        // = 134 MB, 0.298 ms over 450 GB/s and 2.68 ms over 50 GB/s; they
        // meet at t = 1 + 33.16/0.597 = 56.6 and 1 + 33.16/5.37 = 7.18, so
        // from t = 8 on over the network; 32 heads split. The words write C₁
        // and A to the fewest figures that give the same tenth: over NVLink,
        // three give 1 + 33.2/(2 × 0.298) = 56.7, four 1 + 33.16/(2 × 0.2983)
        // = 56.58; over the network three do, 1 + 33.2/(2 × 2.68) = 7.19.
        let nvlink = crossover(&(Scenario::default(), Link::NvLink, 4));
        for part in [
            "a layer is C₁ = 33.16 ms of compute on one GPU, and sending its four hidden states once over NVLink takes A = 0.2983 ms",
            "Over NVLink that is t = 56.6, more ways than the 32 attention heads of a layer split",
            "Over the network it is 7.2.",
        ] {
            assert!(nvlink.words.contains(part), "{part:?} not in {}", nvlink.words);
        }
        assert_eq!(nvlink.chart.rule, None);
        assert_eq!(nvlink.chart.x_range, (0.0, 5.0));
        // The reader's t = 4, marked on the compute curve: 33.16 ms / 4.
        let (x, y) = nvlink.chart.marker.unwrap();
        assert_eq!(x, 2.0);
        assert!((10f64.powf(y) - 0.03316 / 4.0).abs() < 1e-5, "{y}");
        let network = crossover(&(Scenario::default(), Link::Network, 4));
        assert!(network
            .words
            .contains("C₁ = 33.2 ms of compute on one GPU, and sending its four hidden states once over the network takes A = 2.68 ms"));
        assert!(network.words.contains(
            "Over the network that is t = 7.2: from t = 8 on, each GPU waits on the all-reduces longer than it computes. Over NVLink it is 56.6, beyond the heads."
        ));
        // The rule stands where the lines cross, log₂ 7.18.
        let (x, label) = network.chart.rule.unwrap();
        assert!((x - 7.18f64.log2()).abs() < 0.01, "{x}");
        assert_eq!(label, "network all-reduce overtakes compute");
    }

    #[test]
    fn one_gpu_splits_nothing() {
        let d = data(&TpParams {
            tp: 1,
            ..TpParams::default()
        });
        assert_eq!(d.sent_per_gpu_layer.value, 0.0);
        assert_eq!(d.state_per_gpu.value, 16.0 * 6.74e9);
        assert!(d.summary.contains("nothing is split"));
    }

    #[test]
    fn blocks_carry_their_gpu_as_a_subscript() {
        assert_eq!(block_label("W₁", 3), "W₁,₃");
        assert_eq!(block_label("Y", 12), "Y₁₂");
    }

    #[test]
    fn a_degree_outside_the_choices_falls_back_with_a_notice() {
        let mut notices = Vec::new();
        let params = TpParams::from_query(
            &crate::model::query::Query::parse("tp=3&link=carrier-pigeon"),
            &mut notices,
        );
        // 3 is not a degree: the nearer of 2 and 4, the lower (issue 37); a link has no nearest.
        assert_eq!((params.tp, params.link), (2, Link::NvLink));
        assert_eq!(notices.len(), 2);
    }
}
