//! How do the three splits combine? Tensor parallelism inside a node,
//! pipeline stages across nodes, data parallelism (with ZeRO) on top:
//! t × p × d GPUs.

use leptos::prelude::*;

use super::cells::Cells;
use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::launch::{export_param, Exports, LaunchData, RunItWith};
use super::param::{number_id, plain_options, set_option, whole, Opt, Param};
use super::planner::PlannerParams;
use super::shared;
use crate::launch::{Reading, Tool};
use crate::model::choice::{options, Choice};
use crate::model::memory::ZeroStage;
use crate::model::pipeline::stage_layers;
use crate::model::query::NumberSpec;
use crate::model::scenario::Scenario;
use crate::model::tensor;
use crate::model::three_d::{estimate, Layout};
use crate::model::units::{counted, group_thousands, Count, Fraction};
use crate::widgets::{num, rows, Better, Equation, Piece, ReadoutData};

pub const FIGURE: Figure = Figure::of::<ThreeDParams>(
    About {
        slug: "3d",
        title: "3D parallelism",
        subtitle: "Tensor inside a node, pipeline across nodes, data parallelism over it all",
        part: Part::Explainer,
        example: "tp=8&pp=8&dp=16&zero=1",
    },
    true,
);

pub const PIPELINE_DEGREES: &[&str] = &["1", "2", "4", "8", "16"];
/// Data-parallel replicas: the slider shows 1 to 64, a URL may ask for up to 1,024.
pub const REPLICAS: NumberSpec = NumberSpec::whole("dp", 1.0, 1024.0);
/// Replica rows drawn before the grid summarises the rest.
pub const ROWS_DRAWN: u32 = 6;

/// A named layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub layout: Layout,
}

const fn layout(tensor: u32, pipeline: u32, data: u32, zero: ZeroStage) -> Layout {
    Layout {
        tensor,
        pipeline,
        data,
        zero,
    }
}

/// The named layouts, the explainer's default first.
pub const PRESETS: [Preset; 4] = [
    Preset {
        id: "explainer",
        label: "8 × 4 × 8",
        layout: layout(8, 4, 8, ZeroStage::One),
    },
    Preset {
        id: "course",
        label: "1,024 GPUs",
        layout: layout(8, 4, 32, ZeroStage::One),
    },
    Preset {
        id: "fsdp",
        label: "FSDP only",
        layout: layout(1, 1, 64, ZeroStage::Three),
    },
    Preset {
        id: "one-node",
        label: "One node",
        layout: layout(8, 1, 1, ZeroStage::None),
    },
];

fn presets() -> Vec<Opt> {
    PRESETS.iter().map(|p| (p.id, p.label)).collect()
}

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreeDParams {
    pub scenario: Scenario,
    pub layout: Layout,
    /// The selected GPU's global rank.
    pub rank: u32,
    /// The launch tool whose "Run it with" tab is open; `None` while the part is closed.
    pub export: Option<Tool>,
}

impl ThreeDParams {
    /// After a new layout: a rank it no longer has becomes its last GPU,
    /// so that the rank box, the URL and the words name one GPU.
    fn fit_rank(&mut self) {
        self.rank = self.layout.existing_rank(self.rank);
    }

    /// The layout as the planner runs it, on t·p·d GPUs, everything the
    /// figure does not set at the planner's defaults: what "Run it with"
    /// writes for it.
    pub fn planner(&self) -> PlannerParams {
        PlannerParams {
            scenario: self.scenario.clone(),
            model_chosen: true,
            gpus: self.layout.gpus(),
            tensor: self.layout.tensor,
            pipeline: self.layout.pipeline,
            stage: self.layout.zero,
            sequence_parallel: self.layout.tensor > 1,
            ..PlannerParams::default()
        }
    }

    /// These parameters with a launch configuration read over them: its t,
    /// p, d and ZeRO stage where the figure draws them, its model and GPU;
    /// what the figure does not draw is said, with the planner's notices.
    pub fn with_reading(&self, reading: &Reading) -> (Self, Vec<String>) {
        let (planner, notices) = self.planner().with_reading(reading);
        let plan = planner.plan();
        let mut said: Vec<String> = notices.into_iter().map(|n| n.message).collect();
        let mut next = self.clone();
        next.scenario = planner.scenario.clone();
        next.layout.zero = planner.stage;
        let offered = |degrees: &[&str], value: u32| degrees.contains(&value.to_string().as_str());
        if offered(tensor::DEGREES, planner.tensor) {
            next.layout.tensor = planner.tensor;
        } else {
            said.push(format!(
                "The figure draws t of {}: t {} is left at {}.",
                tensor::DEGREES.join(", "),
                planner.tensor,
                next.layout.tensor
            ));
        }
        if offered(PIPELINE_DEGREES, planner.pipeline) {
            next.layout.pipeline = planner.pipeline;
        } else {
            said.push(format!(
                "The figure draws p of {}: p {} is left at {}.",
                PIPELINE_DEGREES.join(", "),
                planner.pipeline,
                next.layout.pipeline
            ));
        }
        next.layout.data = plan.data_parallel().min(REPLICAS.max as u32);
        if planner.context > 1 || planner.experts_parallel > 1 {
            said.push(format!(
                "The figure has no context or expert parallelism: cp {} and ep {} are the planner's to show.",
                planner.context, planner.experts_parallel
            ));
        }
        next.fit_rank();
        (next, said)
    }
}

impl Exports for ThreeDParams {
    fn export(&self) -> Option<Tool> {
        self.export
    }

    fn set_export(&mut self, tool: Option<Tool>) {
        self.export = tool;
    }
}

impl Default for ThreeDParams {
    fn default() -> Self {
        Self {
            scenario: Scenario::default(),
            layout: PRESETS[0].layout,
            rank: 0,
            export: None,
        }
    }
}

/// Global ranks: 0 to n − 1.
pub const RANK: NumberSpec = NumberSpec::whole("rank", 0.0, 1_048_575.0);

/// How a group of the grid stands to the selected rank's groups.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    None,
    /// The selected rank's own tensor group.
    Selected,
    /// In its pipeline group: its row.
    Pipeline,
    /// In its data-parallel group: its column.
    Data,
}

impl Mark {
    /// The box's classes: its mark's, and the domain's edge where it starts one.
    fn classes(self, starts: bool) -> String {
        let mark = match self {
            Mark::None => "",
            Mark::Selected => " fig-3d__group--selected",
            Mark::Pipeline => " fig-3d__group--pipeline",
            Mark::Data => " fig-3d__group--data",
        };
        let edge = if starts {
            " fig-3d__group--domain-start"
        } else {
            ""
        };
        format!("fig-3d__group{mark}{edge}")
    }
}

/// One tensor-parallel group in the grid, with everything its box shows: a
/// box reads only its own (`widgets::rows`), so a new degree adds or drops
/// boxes and GPUs and rewrites only the words and marks that changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub replica: u32,
    pub stage: u32,
    /// The NVLink domain (node or rack) that holds this group.
    pub domain: u32,
    pub domain_name: &'static str,
    /// The first group of a domain that holds several ([`Domains::starts`]).
    pub starts: bool,
    pub mark: Mark,
    /// The GPU marked in it: the selected rank's tensor index, in the
    /// selected rank's row and column.
    pub gpu: Option<u32>,
}

/// A drawn replica: its groups, one a stage.
#[derive(Clone, Debug, PartialEq)]
pub struct GridRow {
    pub replica: u32,
    pub cells: Vec<Cell>,
}

/// How the grid numbers its cells' NVLink domains: the layout's rank order
/// cut into domains of `size` GPUs, each called `name` (`GpuPreset::domain_name`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domains {
    pub layout: Layout,
    pub size: u32,
    pub name: &'static str,
}

impl Domains {
    /// The domain of the group of (replica, stage): its first rank's.
    pub fn of(&self, replica: u32, stage: u32) -> u32 {
        self.layout.node_of(replica, stage, self.size)
    }

    /// Whether that group is the first of a domain that holds several: where
    /// the grid draws the domain's edge (a rack of 72 holds 9 groups of 8;
    /// a node of 8, one, and its box is its edge).
    pub fn starts(&self, replica: u32, stage: u32) -> bool {
        let size = self.size.max(1);
        size > self.layout.tensor.max(1) && self.layout.rank(0, replica, stage).is_multiple_of(size)
    }
}

/// Everything the `3d` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreeDData {
    /// Column headings: stage and its layers.
    pub stages: Vec<String>,
    /// Drawn replica rows (at most `ROWS_DRAWN`).
    pub rows: Vec<GridRow>,
    /// Replicas not drawn.
    pub hidden_rows: u32,
    pub tensor: u32,
    /// N = t·p·d, the state per GPU and the time, with the current values.
    pub equations: Vec<Equation>,
    pub caption: String,
    pub more: Option<String>,
    pub gpus: ReadoutData,
    pub nodes: ReadoutData,
    pub state_per_gpu: ReadoutData,
    pub bubble: ReadoutData,
    pub train_time: ReadoutData,
    /// The selected rank's groups in words.
    pub rank_words: String,
    pub rank_tp: ReadoutData,
    pub rank_dp: ReadoutData,
    pub rank_pp: ReadoutData,
    pub summary: String,
    /// The layout as each launch tool takes it, while "Run it with" is open.
    pub launch: Option<LaunchData>,
}

/// The tensor index of the GPU a click landed on inside a cell (its place
/// among the cell's GPUs), if it landed on one.
fn gpu_clicked(event: &web_sys::MouseEvent) -> Option<u32> {
    use wasm_bindgen::JsCast;
    let target = event.target()?.dyn_into::<web_sys::Element>().ok()?;
    let mut gpu = target.closest(".fig-3d__gpus > span").ok()??;
    let mut index = 0;
    while let Some(previous) = gpu.previous_element_sibling() {
        index += 1;
        gpu = previous;
    }
    Some(index)
}

/// The replicas of `0..d` that `drawn` (ascending) leaves out, as ranges:
/// "DP 6–63", or "DP 5–12 and DP 14–63" when the selected replica is drawn
/// last, further down.
fn not_drawn(drawn: &[u32], d: u32) -> String {
    let mut ranges = Vec::new();
    let mut from = 0;
    for &replica in drawn.iter().chain([&d]) {
        if replica > from {
            let to = replica - 1;
            ranges.push(if to == from {
                format!("DP {}", group_thousands(f64::from(from)))
            } else {
                format!(
                    "DP {}–{}",
                    group_thousands(f64::from(from)),
                    group_thousands(f64::from(to))
                )
            });
        }
        from = replica + 1;
    }
    ranges.join(" and ")
}

/// The selected rank's groups in words: which talk over NVLink, which over the network.
fn rank_words(layout: &Layout, rank: u32, domains: (u32, &str)) -> String {
    // A rank beyond the layout's GPUs (a URL's) is its last GPU, as the grid marks it.
    let rank = layout.existing_rank(rank);
    let (tp, dp, pp) = layout.coordinates(rank);
    let (t, p, d) = (
        layout.tensor.max(1),
        layout.pipeline.max(1),
        layout.data.max(1),
    );
    let (size, name) = domains;
    let domain = |rank: u32| rank / size.max(1);
    let span = |ranks: &[u32]| {
        let mut domains: Vec<u32> = ranks.iter().map(|&r| domain(r)).collect();
        domains.dedup();
        match domains.as_slice() {
            [one] => format!("inside {name} {one}: NVLink"),
            few if few.len() <= 8 => {
                let names: Vec<String> = few.iter().map(u32::to_string).collect();
                let (last, rest) = names
                    .split_last()
                    .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
                format!("across {name}s {} and {last}: the network", rest.join(", "))
            }
            many => format!(
                "across {} {name}s, {} to {}: the network",
                many.len(),
                many.first().copied().unwrap_or(0),
                many.last().copied().unwrap_or(0)
            ),
        }
    };
    let pipeline: Vec<u32> = (0..p).map(|stage| layout.rank(tp, dp, stage)).collect();
    let data: Vec<u32> = (0..d).map(|replica| layout.rank(tp, replica, pp)).collect();
    let (first, last) = (layout.rank(0, dp, pp), layout.rank(t - 1, dp, pp));
    format!(
        "Rank {rank} ({name} {}) is tensor index {tp} of replica {dp} on stage {pp}, marked in its group. Its tensor group of \
         {t} (shaded, solid) {}; its pipeline group of {p} (its row, dashed) {}; its data-parallel \
         group of {d} (its column, dotted) {}.",
        domain(rank),
        if t > 1 { format!("is ranks {first} to {last} and talks {}", span(&[first, last])) } else { "is itself".to_string() },
        if p > 1 { format!("talks {}", span(&pipeline)) } else { "is itself".to_string() },
        if d > 1 { format!("talks {}", span(&data)) } else { "is itself".to_string() },
    )
}

/// Computes the figure from its parameters.
pub fn data(params: &ThreeDParams) -> ThreeDData {
    let scenario = &params.scenario;
    let gpu = scenario.gpu();
    let layout = params.layout;
    let result = estimate(
        &layout,
        scenario.params(),
        scenario.training_flop(),
        scenario.batch.max(1.0) as u32,
        scenario.sustained(),
        gpu.gpus_per_node,
        scenario.state_bytes(),
    );
    let (t, p, d) = (
        layout.tensor.max(1),
        layout.pipeline.max(1),
        layout.data.max(1),
    );
    let stages = stage_layers(scenario.arch().layers, p)
        .into_iter()
        .enumerate()
        .map(|(stage, layers)| {
            format!(
                "stage {stage}, L{}–{}",
                layers.start,
                layers.end.saturating_sub(1)
            )
        })
        .collect();
    // The first replicas, and the selected rank's in the last row when it is further down.
    let (selected_tp, selected_replica, selected_stage) = layout.coordinates(params.rank);
    let mut replicas: Vec<u32> = (0..d.min(ROWS_DRAWN)).collect();
    if selected_replica >= ROWS_DRAWN {
        replicas[ROWS_DRAWN as usize - 1] = selected_replica;
    }
    let domains = Domains {
        layout,
        size: gpu.nvlink_domain,
        name: gpu.domain_name(),
    };
    let rows = replicas
        .iter()
        .map(|&replica| GridRow {
            replica,
            cells: (0..p)
                .map(|stage| {
                    let (row, column) = (replica == selected_replica, stage == selected_stage);
                    Cell {
                        replica,
                        stage,
                        domain: domains.of(replica, stage),
                        domain_name: domains.name,
                        starts: domains.starts(replica, stage),
                        mark: match (row, column) {
                            (true, true) => Mark::Selected,
                            (true, false) => Mark::Pipeline,
                            (false, true) => Mark::Data,
                            (false, false) => Mark::None,
                        },
                        gpu: (row || column).then_some(selected_tp),
                    }
                })
                .collect(),
        })
        .collect();
    let state = result.state.total();
    let zero = if layout.zero == ZeroStage::None {
        "no ZeRO".to_string()
    } else {
        format!("{} on data parallelism", layout.zero.label())
    };
    let summary = format!(
        "{t} tensor-parallel × {p} pipeline × {d} data-parallel GPUs make {gpus_counted} on {nodes_counted}. With {zero}, \
         each GPU holds {state} of training state. Each pipeline gets {m} micro-batches of the {batch}-sequence batch, \
         so the bubble is {bubble}, and {tokens} tokens take about {time} with ideal scaling, bubble included.",
        gpus_counted = counted(f64::from(result.gpus), "GPU", "GPUs"),
        nodes_counted = counted(f64::from(result.nodes), "node", "nodes"),
        d = group_thousands(f64::from(d)),
        m = group_thousands(f64::from(result.micro_batches)),
        batch = group_thousands(scenario.batch),
        bubble = Fraction(result.bubble),
        tokens = Count(scenario.tokens),
        time = result.time,
    );
    let hidden_rows = d.saturating_sub(ROWS_DRAWN);
    let more = (hidden_rows > 0).then(|| {
        format!(
            "… and {} more {} like these, not drawn: {}",
            group_thousands(f64::from(hidden_rows)),
            if hidden_rows == 1 {
                "replica"
            } else {
                "replicas"
            },
            not_drawn(&replicas, d)
        )
    });
    let mut figure = ThreeDData {
        stages,
        rows,
        hidden_rows,
        tensor: t,
        equations: Vec::new(),
        caption: format!(
            "Data-parallel replicas run down, pipeline stages across. Each box is one tensor-parallel group of {}, kept inside \
             one {name}, whose NVLink joins its {} GPUs{}",
            counted(f64::from(t), "GPU", "GPUs"),
            domains.size,
            if domains.size > t {
                // Where a domain holds several groups, the grid marks where each begins.
                format!("; a thick top edge marks the first group of each {}.", domains.name)
            } else {
                ".".to_string()
            },
            name = domains.name,
        ),
        more,
        gpus: ReadoutData::count("gpus", "GPUs", f64::from(result.gpus)),
        nodes: ReadoutData::count("nodes", "Nodes", f64::from(result.nodes)),
        state_per_gpu: ReadoutData::bytes("state-per-gpu", "State per GPU", state),
        bubble: ReadoutData::fraction("bubble", "Pipeline bubble", result.bubble),
        train_time: ReadoutData::seconds(
            "train-time",
            format!("{} tokens take", Count(scenario.tokens)),
            result.time,
        )
        .with_note(shared::rate_note(scenario)),
        rank_words: rank_words(&layout, params.rank, (domains.size, domains.name)),
        rank_tp: ReadoutData::count(
            "rank-tp",
            "Selected rank: tensor index",
            f64::from(layout.coordinates(params.rank).0),
        )
        .better(Better::NotCompared),
        rank_dp: ReadoutData::count(
            "rank-dp",
            "Selected rank: data index",
            f64::from(layout.coordinates(params.rank).1),
        )
        .better(Better::NotCompared),
        rank_pp: ReadoutData::count(
            "rank-pp",
            "Selected rank: pipeline index",
            f64::from(layout.coordinates(params.rank).2),
        )
        .better(Better::NotCompared),
        summary,
        launch: params.export.map(|shown| LaunchData {
            shown,
            query: params.planner().to_query(),
        }),
    };
    figure.equations = equations(params, &figure);
    figure
}

/// N = t × p × d; the state per GPU, Ψ/(t·p) sharded over d; and the time,
/// C/(n·X) stretched by the bubble (Narayanan et al. 2021, sections 2.3 and 3).
fn equations(params: &ThreeDParams, d: &ThreeDData) -> Vec<Equation> {
    let scenario = &params.scenario;
    let layout = params.layout;
    let (t, p, dp) = (
        layout.tensor.max(1),
        layout.pipeline.max(1),
        layout.data.max(1),
    );
    let times = || Piece::Op("×");
    let split = |top: Piece, t: Piece, p: Piece| vec![Piece::Frac(vec![top], vec![t, times(), p])];
    let rate = scenario.sustained();
    vec![
        Equation {
            words: format!("GPUs N equals t times p times d: {}", d.gpus.text),
            left: vec![var("N", "gpus")],
            rows: vec![
                vec![var("t", "tp"), times(), var("p", "pp"), times(), var("d", "dp")],
                vec![num(t), times(), num(p), times(), num(dp)],
                equations::result(&d.gpus),
            ],
        },
        equations::state(
            scenario.state_bytes(),
            layout.zero,
            ("d", "dp", dp),
            split(var("Ψ", "model"), var("t", "tp"), var("p", "pp")),
            split(Piece::Sci(scenario.params()), num(t), num(p)),
            &d.state_per_gpu,
        ),
        Equation {
            words: format!(
                "Time T equals the compute C over N GPUs at rate X, divided by one minus the bubble b: {}",
                d.train_time.text
            ),
            left: vec![var("T", "train-time")],
            rows: vec![
                vec![Piece::Frac(
                    vec![var("C", "")],
                    vec![var("N", "gpus"), var("X", "gpu busy-util"), Piece::Group(vec![num(1), Piece::Op("−"), var("b", "bubble")])],
                )],
                vec![Piece::Frac(
                    vec![Piece::Sci(scenario.training_flop().value()), Piece::Unit("FLOP")],
                    vec![
                        num(group_thousands(f64::from(t * p * dp))),
                        times(),
                        Piece::Sci(rate.value()),
                        Piece::Unit("FLOP/s"),
                        times(),
                        Piece::Group(vec![num(1), Piece::Op("−"), Piece::Value(d.bubble.text.clone(), "bubble")]),
                    ],
                )],
                equations::result(&d.train_time),
            ],
        },
    ]
}

impl Params for ThreeDParams {
    type Data = ThreeDData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::choice(
            "preset",
            "Presets",
            presets,
            |p| {
                PRESETS
                    .iter()
                    .find(|preset| preset.layout == p.layout)
                    .map_or("", |preset| preset.id)
            },
            |p, id| {
                if let Some(preset) = PRESETS.iter().find(|preset| preset.id == id) {
                    p.layout = preset.layout;
                    p.fit_rank();
                }
            },
        )
        .buttons()
        .not_written()
        .help("A named layout; tp, pp, dp and zero then change its parts."),
        Param::<Self>::choice(
            "tp",
            "Tensor parallel",
            || plain_options(tensor::DEGREES),
            |p| number_id(tensor::DEGREES, p.layout.tensor),
            |p, id| {
                p.layout.tensor = id.parse().unwrap_or(p.layout.tensor);
                p.fit_rank();
            },
        )
        .toggle()
        .help("Tensor-parallel degree t, inside a node."),
        Param::<Self>::choice(
            "pp",
            "Pipeline stages",
            || plain_options(PIPELINE_DEGREES),
            |p| number_id(PIPELINE_DEGREES, p.layout.pipeline),
            |p, id| {
                p.layout.pipeline = id.parse().unwrap_or(p.layout.pipeline);
                p.fit_rank();
            },
        )
        .toggle()
        .help("Pipeline stages p."),
        Param::<Self>::choice(
            "zero",
            "ZeRO on data parallelism",
            options::<ZeroStage>,
            |p| p.layout.zero.id(),
            |p, id| set_option(&mut p.layout.zero, id),
        )
        .toggle()
        .help("The ZeRO stage applied over the data-parallel replicas."),
        Param::<Self>::number(
            "Data-parallel replicas",
            REPLICAS,
            |p| f64::from(p.layout.data),
            |p, v| {
                p.layout.data = v as u32;
                p.fit_rank();
            },
        )
        .slider(1.0, |_| 64.0, 1.0, whole)
        .help("Data-parallel replicas d; a URL may go beyond the slider's 64."),
        shared::model().assumed(),
        shared::gpu().assumed(),
        shared::busy().assumed(),
        shared::software().assumed(),
        shared::flop().assumed(),
        Param::<Self>::number("Selected GPU (global rank)", RANK, |p| f64::from(p.rank), |p, v| p.rank = v as u32)
            .text_box()
            .limited_by(|p| f64::from(p.layout.gpus().saturating_sub(1)), "set by the layout's last GPU")
            .help("A GPU by global rank, in Megatron-LM's order (tensor fastest, then data, then pipeline): its groups are marked."),
        export_param::<Self>(),
    ];

    fn data(&self) -> ThreeDData {
        data(self)
    }

    fn readouts(d: &ThreeDData) -> Vec<ReadoutData> {
        vec![
            d.gpus.clone(),
            d.nodes.clone(),
            d.state_per_gpu.clone(),
            d.bubble.clone(),
            d.train_time.clone(),
            d.rank_tp.clone(),
            d.rank_dp.clone(),
            d.rank_pp.clone(),
        ]
    }

    fn summary(d: &ThreeDData) -> String {
        d.summary.clone()
    }

    fn equations(d: &ThreeDData) -> Vec<Equation> {
        d.equations.clone()
    }

    const COMPARE: bool = true;

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    fn diagram(params: Cells<Self>, data: Memo<ThreeDData>) -> AnyView {
        // A cell is the tensor group of (replica, stage): a click on one of
        // its GPUs selects that GPU; on the cell elsewhere, or by keyboard,
        // the selected tensor index is kept.
        let select = move |replica: u32, stage: u32, gpu: Option<u32>| {
            params.update(|p| {
                let (tp, _, _) = p.layout.coordinates(p.rank);
                p.rank = p.layout.rank(gpu.unwrap_or(tp), replica, stage);
            })
        };
        view! {
            <div class="figure__diagram fig-3d">
                <p class="fig-3d__caption">{move || data.with(|d| d.caption.clone())}</p>
                <div class="fig-3d__scroll" tabindex="0" role="region" aria-label="The grid of GPUs, scrolls sideways">
                    // Stage columns, replica rows and a group's GPUs come and go
                    // one by one, each built once; a box reads only its own cell,
                    // so a new degree renumbers the nodes and moves the marks
                    // without building the grid again (issue 39).
                    <table class="fig-3d__grid" data-t=move || data.with(|d| d.tensor)>
                        <thead>
                            <tr>
                                <th scope="col"><span class="visually-hidden">"Replica"</span></th>
                                {rows(data, |d| &d.stages, |stage| view! { <th scope="col">{move || stage.get()}</th> })}
                            </tr>
                        </thead>
                        <tbody>
                            {rows(data, |d| &d.rows, move |row| view! {
                                <tr>
                                    <th scope="row">{move || row.with(|r| format!("DP {}", r.replica))}</th>
                                    {rows(row, |r| &r.cells, move |cell| view! {
                                        <td>
                                            <button
                                                type="button"
                                                class=move || cell.with(|c| c.mark.classes(c.starts))
                                                aria-pressed=move || cell.with(|c| if c.mark == Mark::Selected { "true" } else { "false" })
                                                on:click=move |e| cell.with_untracked(|c| select(c.replica, c.stage, gpu_clicked(&e)))
                                            >
                                                // The button's name is its text: the node number, changed
                                                // by every new data-parallel degree, is written once.
                                                <span class="visually-hidden">{move || cell.with(|c| format!("Replica {}, stage {}, ", c.replica, c.stage))}</span>
                                                // Eight GPUs, as many shown as the table's data-t
                                                // asks and the one of data-gpu marked (style/figures.css):
                                                // a new degree or selection writes an attribute.
                                                <span class="fig-3d__gpus" aria-hidden="true" data-gpu=move || cell.with(|c| c.gpu)>
                                                    <span></span><span></span><span></span><span></span>
                                                    <span></span><span></span><span></span><span></span>
                                                </span>
                                                <span class="fig-3d__node">{move || cell.with(|c| format!("{} {}", c.domain_name, c.domain))}</span>
                                            </button>
                                        </td>
                                    })}
                                </tr>
                            })}
                        </tbody>
                    </table>
                </div>
                <p class="fig-3d__more">{move || data.with(|d| d.more.clone())}</p>
                <p class="fig-3d__rank">{move || data.with(|d| d.rank_words.clone())}</p>
                <p class="fig-3d__note">"Days: busy time = FLOP ÷ (GPUs × peak × its share while computing), divided by (1 − bubble); communication is assumed hidden behind computation."</p>
                <Show when=move || data.with(|d| d.launch.is_some())>
                    <RunItWith
                        data=Signal::derive(move || data.with(|d| d.launch.clone()))
                        read=Callback::new(move |reading: Reading| {
                            let (read, said) = params.with_untracked(|p| p.with_reading(&reading));
                            params.update(|p| *p = read);
                            said
                        })
                    />
                </Show>
            </div>
        }
        .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::param::Value;
    use crate::model::query::Query;

    /// The seed's 8 × 4 × 8 layout: stage columns of 32/4 = 8 layers, 6 of
    /// 8 replicas drawn; replica 1, stage 2 is ranks 8·(1 + 8·2) = 136..143
    /// in Megatron-LM's order, node 17.
    /// Six rows are drawn: the first six replicas, or the first five and
    /// the selected one last. The ones left out are named as ranges, so a
    /// selected replica far down does not call those above it "below".
    #[test]
    fn the_replicas_not_drawn() {
        assert_eq!(not_drawn(&[0, 1, 2, 3, 4, 5], 8), "DP 6–7");
        assert_eq!(not_drawn(&[0, 1, 2, 3, 4, 5], 7), "DP 6");
        assert_eq!(not_drawn(&[0, 1, 2, 3, 4, 12], 64), "DP 5–11 and DP 13–63");
        assert_eq!(not_drawn(&[0, 1, 2, 3, 4, 1999], 2000), "DP 5–1,998");
    }

    /// A smaller layout keeps no rank it does not have: rank 34 of
    /// t 2 × p 8 × d 3 (48 GPUs), after t 4 × p 4 × d 2 (32 GPUs), is the
    /// last GPU, rank 31 (node 31/8 = 3, tensor index 3 of replica 1 on
    /// stage 3), in the field, the URL and the words alike. A group of one
    /// GPU talks to no one.
    #[test]
    fn a_layout_too_small_for_the_rank_selects_its_last_gpu() {
        let mut params = ThreeDParams::default();
        params.layout.tensor = 2;
        params.layout.pipeline = 8;
        params.layout.data = 3;
        params.rank = 34;
        // As the controls set them, through the figure's table.
        for param in ThreeDParams::TABLE {
            match (param.key, &param.value) {
                ("tp" | "pp", Value::Choice { set, .. }) => set(&mut params, "4"),
                ("dp", Value::Number { set, .. }) => set(&mut params, 2.0),
                _ => {}
            }
        }
        assert_eq!(params.rank, 31);
        let words = data(&params).rank_words;
        assert!(
            words.starts_with("Rank 31 (node 3) is tensor index 3 of replica 1 on stage 3"),
            "{words}"
        );
        params.layout.tensor = 1;
        assert!(rank_words(&params.layout, 5, (8, "node"))
            .contains("Its tensor group of 1 (shaded, solid) is itself;"));
    }

    #[test]
    fn the_grid_of_the_default_layout() {
        let d = data(&ThreeDParams::default());
        assert_eq!(
            d.stages,
            [
                "stage 0, L0–7",
                "stage 1, L8–15",
                "stage 2, L16–23",
                "stage 3, L24–31"
            ]
        );
        assert_eq!((d.rows.len(), d.hidden_rows), (6, 2));
        assert_eq!(d.rows[1].cells[2].domain, 17);
        // The grid numbers each node in Megatron-LM's order (tensor
        // fastest, then data, then pipeline), 8 GPUs a node: replica r,
        // stage s of 8 × 4 × 8 starts at rank 8·(r + 8·s), so replica 1,
        // stage 2 is on node 8·17 / 8 = 17, as drawn.
        let (layout, size) = (ThreeDParams::default().layout, 8);
        for row in &d.rows {
            let replica = row.replica;
            for (stage, cell) in row.cells.iter().enumerate() {
                let stage = stage as u32;
                assert_eq!((cell.replica, cell.stage), (replica, stage));
                assert_eq!(8 * (replica + 8 * stage) / 8, cell.domain);
                assert_eq!(layout.node_of(replica, stage, size), cell.domain);
                assert_eq!(cell.domain_name, "node");
                // A node of 8 holds one group of 8: its box is its edge.
                assert!(!cell.starts);
            }
        }
        // Rank 0 is tensor index 0 of replica 0 on stage 0: its group is
        // marked, its row (pipeline group) and its column (data-parallel
        // group) too, and in each of those the GPU of tensor index 0.
        let cell = |replica: usize, stage: usize| &d.rows[replica].cells[stage];
        assert_eq!((cell(0, 0).mark, cell(0, 0).gpu), (Mark::Selected, Some(0)));
        assert_eq!((cell(0, 3).mark, cell(0, 3).gpu), (Mark::Pipeline, Some(0)));
        assert_eq!((cell(5, 0).mark, cell(5, 0).gpu), (Mark::Data, Some(0)));
        assert_eq!((cell(1, 1).mark, cell(1, 1).gpu), (Mark::None, None));
        assert_eq!(
            Mark::Pipeline.classes(true),
            "fig-3d__group fig-3d__group--pipeline fig-3d__group--domain-start"
        );
    }

    /// On a GB200 NVL72 the NVLink domain is the rack of 72 GPUs (its
    /// datasheet), not the compute tray of 4. The default 8 × 4 × 8: the
    /// group of replica r, stage s starts at rank 8·(r + 8s), in rack
    /// 8·(r + 8s)/72, and starts a rack where r + 8s is a multiple of 9:
    /// (0, 0), (1, 1), (2, 2) among those drawn. Rank 0's data-parallel group
    /// (ranks 0, 8, … 56) stays in rack 0; its pipeline group (ranks 0, 64,
    /// 128, 192) spans racks 0, 1 and 2.
    #[test]
    fn the_grid_on_a_rack_of_72() {
        let params = ThreeDParams::from_query(&Query::parse("gpu=gb200-nvl72"), &mut Vec::new());
        let d = data(&params);
        for row in &d.rows {
            for (stage, cell) in row.cells.iter().enumerate() {
                let first = 8 * (row.replica + 8 * stage as u32);
                assert_eq!((cell.domain, cell.domain_name), (first / 72, "rack"));
                assert_eq!(cell.starts, first.is_multiple_of(72));
            }
        }
        let starts = |replica: usize, stage: usize| d.rows[replica].cells[stage].starts;
        assert!(starts(1, 1) && starts(2, 2) && !starts(1, 0));
        assert!(
            d.rank_words
                .starts_with("Rank 0 (rack 0) is tensor index 0"),
            "{}",
            d.rank_words
        );
        assert!(d.rank_words.contains("its pipeline group of 4 (its row, dashed) talks across racks 0, 1 and 2: the network"), "{}", d.rank_words);
        assert!(
            d.rank_words.contains(
                "data-parallel group of 8 (its column, dotted) talks inside rack 0: NVLink"
            ),
            "{}",
            d.rank_words
        );
        assert!(
            d.caption.contains("one rack, whose NVLink joins its 72 GPUs; a thick top edge marks the first group of each rack."),
            "{}",
            d.caption
        );
    }

    #[test]
    fn a_preset_then_overrides_from_the_url() {
        let mut notices = Vec::new();
        let params =
            ThreeDParams::from_query(&Query::parse("preset=fsdp&dp=128&tp=3"), &mut notices);
        assert_eq!(
            params.layout,
            Layout {
                data: 128,
                // 3 is not a degree: the nearest, 2 (issue 37).
                tensor: 2,
                ..PRESETS[2].layout
            }
        );
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].key, "tp");
        let mut pairs = Vec::new();
        params.write(&mut pairs);
        assert_eq!(
            pairs,
            [("tp", "2"), ("pp", "1"), ("zero", "3"), ("dp", "128")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
    }
}
