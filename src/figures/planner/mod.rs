//! Will it fit, and how long will it take? The planner stacks the most
//! loaded GPU's memory (weights, gradients, master weights, optimizer
//! state, activations) against its capacity for a model on N GPUs with
//! ZeRO, tensor and pipeline parallelism, gives two verdicts (the training
//! state alone, and with activations) and the smallest change that fits,
//! the traffic each GPU sends a step, and the step's and the run's time.
//!
//! This file holds its parameters, their table and the view's parts;
//! `data.rs` what it computes through the model's plan, `words.rs` its
//! sentences, `formulas.rs` its equations, `questions.rs` its "Try". The
//! imports below serve those files too (each reads `use super::*`).

use leptos::prelude::*;

use crate::figures::cells::Cells;

use super::equations::{self, var};
use super::figure::{About, Figure, Params, Part};
use super::launch::{export_param, Exports, LaunchData, RunItWith};
use super::layouts::{search_data, step_parts, LayoutTable, SearchData, StepBar, StepPart};
use super::memory_bar::{MemoryBar, MemoryBarData};
use super::param::{self, number_id, plain_options, set_option, Opt, Param};
use super::shared;
use crate::launch::{Reading, Run, Tool};
use crate::model::activations::{
    embedding, in_flight, output_layer, per_layer, ActivationSetup, Recompute,
};
use crate::model::choice::{options, Choice};
use crate::model::comm::Links;
use crate::model::memory::{fewest_gpus, fits, BytesPerParam, TrainingState, ZeroStage};
use crate::model::pipeline::{layers_per_stage, Schedule};
use crate::model::planner::{
    fixes, Fix, LayoutProblem, Plan, PlanEstimate, Routing, CAPACITY_FACTOR, DEFAULT_RESERVE,
    IMBALANCE, MAX_GPUS,
};
use crate::model::presets::{model_preset, model_sources, nearest_model, Mlp, MODELS};
use crate::model::query::{Notice, NumberSpec, Pairs, Query};
use crate::model::scenario::{Scenario, EXPERTS, PARAMS, SEQ, STEP_MFU, TOP_K};
use crate::model::tensor;
use crate::model::units::{
    counted, group_thousands, significant, within, Bytes, Count, Fraction, Seconds,
};
use crate::widgets::{num, Better, Equation, Piece, Prediction, ReadoutData, Unit};

mod data;
mod formulas;
mod questions;
mod words;

pub use data::{data, PlannerData};
pub use questions::{try_answers, TryAnswers};
pub use words::{peak_stage, room};

pub const FIGURE: Figure = Figure::of::<PlannerParams>(
    About {
        slug: "planner",
        title: "The parallelism planner",
        subtitle: "Will it fit? One GPU's memory and traffic for any model and layout",
        part: Part::Course,
        example: "params=175B&gpus=1024&stage=1&tp=8&pp=8&recompute=selective",
    },
    true,
);

pub const GPUS: NumberSpec = NumberSpec::whole("gpus", 1.0, MAX_GPUS as f64);
pub const MICRO_BATCH: NumberSpec = NumberSpec::whole("micro-batch", 1.0, 1024.0);
/// Model chunks per GPU for the interleaved schedule: at least 2 (one chunk
/// is 1F1B), at most the layers the busiest stage holds (⌈L/p⌉: one layer a
/// chunk, as Llama 3 ran, section 3.3.2).
pub const CHUNKS: NumberSpec = NumberSpec::whole("chunks", 2.0, 64.0);
/// Context-parallel degree.
pub const CONTEXT: NumberSpec = NumberSpec::whole("cp", 1.0, 64.0);
/// Expert-parallel degree.
pub const EXPERT_PARALLEL: NumberSpec = NumberSpec::whole("ep", 1.0, 256.0);
/// The schedules a planned run may use, as the URL contract lists them (ZB-H1
/// is the `pp` figure's to explore).
const SCHEDULES: [Schedule; 5] = [
    Schedule::OneFOneB,
    Schedule::GPipe,
    Schedule::Interleaved,
    Schedule::DualPipe,
    Schedule::DualPipeV,
];
/// Pipeline stages: any count up to 512 (Narayanan et al.'s 530B model ran 35).
pub const STAGES: NumberSpec = NumberSpec::whole("pp", 1.0, 512.0);
/// Memory a GPU keeps back, in GB: 0 to a whole B200's.
pub const RESERVE: NumberSpec = NumberSpec {
    key: "reserve",
    min: 0.0,
    max: 200.0,
    integer: false,
    suffixed: false,
    lowered_by: None,
};
const ON_OFF: &[Opt] = &[("0", "Off"), ("1", "On")];
/// The module's example: a 70-billion-parameter model.
pub const DEFAULT_PARAMS: f64 = 70e9;
/// The "Try" asks about 8 GPUs.
const TRY_GPUS: u32 = 8;

/// The figure's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerParams {
    /// Model (preset or nearest to `params`), GPU and batch.
    pub scenario: Scenario,
    /// Whether the reader chose a model preset (else the architecture is the nearest preset).
    pub model_chosen: bool,
    pub gpus: u32,
    pub stage: ZeroStage,
    pub tensor: u32,
    pub pipeline: u32,
    pub micro_batch: u32,
    pub sequence_parallel: bool,
    pub recompute: Recompute,
    pub schedule: Schedule,
    pub chunks: u32,
    /// Context-parallel degree cp.
    pub context: u32,
    /// Expert-parallel degree ep.
    pub experts_parallel: u32,
    /// Expert-tensor-parallel degree etp; `None` for t.
    pub expert_tensor: Option<u32>,
    /// An expert's capacity over the mean of its tokens; 0 for none (dropless).
    pub capacity_factor: f64,
    /// The busiest expert's tokens over the mean.
    pub imbalance: f64,
    /// Whether the layout search is open.
    pub search: bool,
    /// The launch tool whose "Run it with" tab is open; `None` while the part is closed.
    pub export: Option<Tool>,
    /// Memory a GPU keeps back from the training, in GB (10⁹ bytes).
    pub reserve: f64,
}

impl Default for PlannerParams {
    /// The module's example: 70B parameters (Llama 2 70B's shape) on 8 GPUs, plain data parallelism.
    fn default() -> Self {
        Self {
            scenario: Scenario {
                model: nearest_model(DEFAULT_PARAMS),
                params_override: Some(DEFAULT_PARAMS),
                ..Scenario::default()
            },
            model_chosen: false,
            gpus: 8,
            stage: ZeroStage::None,
            tensor: 1,
            pipeline: 1,
            micro_batch: 1,
            sequence_parallel: false,
            recompute: Recompute::None,
            schedule: Schedule::OneFOneB,
            chunks: 2,
            context: 1,
            experts_parallel: 1,
            expert_tensor: None,
            capacity_factor: 0.0,
            imbalance: 1.0,
            search: false,
            export: None,
            reserve: DEFAULT_RESERVE.value() / 1e9,
        }
    }
}

impl Exports for PlannerParams {
    fn export(&self) -> Option<Tool> {
        self.export
    }

    fn set_export(&mut self, tool: Option<Tool>) {
        self.export = tool;
    }
}

impl PlannerParams {
    /// These parameters as the planner's URL query writes them
    /// (`?gpus=64&tp=8…`): what the launch worker reads the plan from.
    pub fn to_query(&self) -> String {
        let mut pairs = Pairs::new();
        self.write(&mut pairs);
        crate::model::query::to_search(&pairs)
    }

    /// `plan` to launch, with the software and the preset it is of: a
    /// chosen model whose shape and size the URL leaves as published.
    pub fn launch_run<'a>(&self, plan: &'a Plan) -> Run<'a> {
        // The context length is the run's, not the model's: a tool names
        // the model and takes the length apart (torchtitan's --config and
        // seq_len, Bridge's recipe and its sequence override).
        let as_published = self.model_chosen
            && !self.scenario.reshaped()
            && self.scenario.params_override.is_none();
        Run {
            plan,
            software: self.scenario.software,
            preset: as_published.then_some(self.scenario.model.id),
        }
    }

    /// These parameters with a launch configuration read over them
    /// (`launch::read`), and what the URL reader said of them. A batch the
    /// text gives per data-parallel rank (torchtitan's `-1`) is multiplied
    /// by the plan's own d; a d the text implies without a world size
    /// (DeepSpeed's three batch sizes) sets the GPUs to d·t·p·cp.
    pub fn with_reading(&self, reading: &Reading) -> (Self, Vec<Notice>) {
        let mut pairs = reading.pairs.clone();
        let mut read = self.with_pairs(&pairs);
        if let Some(d) = reading.data_parallel {
            let model_group = read.0.plan().model_group();
            pairs.retain(|(k, _)| k != "gpus");
            pairs.push((
                "gpus".to_string(),
                d.saturating_mul(model_group).to_string(),
            ));
            read = self.with_pairs(&pairs);
        }
        if let Some(per_replica) = reading.batch_per_replica {
            let d = read.0.plan().data_parallel();
            pairs.retain(|(k, _)| k != "batch");
            pairs.push((
                "batch".to_string(),
                per_replica.saturating_mul(d).to_string(),
            ));
            read = self.with_pairs(&pairs);
        }
        read
    }

    /// These parameters with a launch configuration's URL `pairs` over
    /// them: a model named drops a size and shape set before.
    fn with_pairs(&self, pairs: &[(String, String)]) -> (Self, Vec<Notice>) {
        let mut written = Pairs::new();
        self.write(&mut written);
        // A shape two presets share (Llama 2 and 3 70B differ only in the
        // vocabulary, which Megatron-LM takes from the tokenizer) keeps the
        // model on screen when it is one of them.
        let current = self.scenario.model;
        let same_shape = |id: &str| {
            model_preset(id).is_some_and(|m| {
                let (a, b) = (m.arch, current.arch);
                (a.layers, a.hidden, a.ffn, a.heads, a.kv_heads)
                    == (b.layers, b.hidden, b.ffn, b.heads, b.kv_heads)
            })
        };
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| match k.as_str() {
                "model" if self.model_chosen && same_shape(v) => {
                    (k.clone(), current.id.to_string())
                }
                _ => (k.clone(), v.clone()),
            })
            .collect();
        let names_model = pairs.iter().any(|(k, _)| k == "model");
        written.retain(|(key, _)| {
            let set_again = pairs.iter().any(|(k, _)| k == key);
            let a_size = matches!(
                key.as_str(),
                "params" | "layers" | "hidden" | "ffn" | "heads" | "kv-heads"
            );
            !(set_again || names_model && a_size)
        });
        written.extend(pairs);
        let mut notices = Vec::new();
        let read = Self::from_query(&Query::from_pairs(written), &mut notices);
        (read, notices)
    }

    /// The plan the estimator evaluates.
    pub fn plan(&self) -> Plan {
        let arch = self.scenario.arch();
        let gpu = self.scenario.gpu();
        Plan {
            params: self.scenario.params(),
            arch,
            gpus: self.gpus,
            stage: self.stage,
            tensor: self.tensor,
            pipeline: self.pipeline,
            schedule: self.schedule,
            chunks: self.chunks,
            activations: ActivationSetup {
                seq: f64::from(arch.seq),
                micro_batch: f64::from(self.micro_batch),
                tensor_parallel: self.tensor,
                sequence_parallel: self.sequence_parallel,
                recompute: self.recompute,
                attention: self.scenario.attention(),
                fp8_inputs: self.scenario.numerics().fp8_inputs(),
                kept_share: self.scenario.software.kept_activation_share(),
            },
            pipeline_runtime: self.scenario.software.pipeline_runtime(),
            batch: self.scenario.batch,
            capacity: gpu.memory,
            reserve: Bytes(self.reserve * 1e9),
            bytes: self.scenario.bytes_per_param,
            numerics: self.scenario.numerics(),
            rate: self.scenario.rate(),
            step_mfu: self.scenario.step_mfu,
            flop: self.scenario.flop,
            tokens: self.scenario.tokens,
            context: self.context,
            experts: self.experts_parallel,
            expert_tensor: self.expert_tensor,
            routing: Routing {
                capacity_factor: (self.capacity_factor > 0.0).then_some(self.capacity_factor),
                imbalance: self.imbalance.max(1.0),
            },
            links: Links::of(&gpu),
        }
    }

    /// A layout the search found, applied: its degrees and settings, the
    /// model, GPUs and batch unchanged.
    fn apply(&mut self, plan: &Plan) {
        self.tensor = plan.tensor;
        self.pipeline = plan.pipeline;
        self.context = plan.context;
        self.experts_parallel = plan.experts;
        self.expert_tensor = plan.expert_tensor;
        self.stage = plan.stage;
        self.schedule = plan.schedule;
        // The search's plans carry 1 chunk but for the interleaved
        // schedule, a value the `chunks` key does not take.
        if plan.schedule == Schedule::Interleaved {
            self.chunks = plan.chunks;
        }
        self.micro_batch = plan.activations.micro_batch as u32;
        self.sequence_parallel = plan.activations.sequence_parallel;
        self.recompute = plan.activations.recompute;
    }

    /// A size typed in: the architecture follows it unless a model was chosen.
    fn set_size(&mut self, params: f64) {
        self.scenario.params_override = Some(params);
        if !self.model_chosen {
            self.scenario.model = nearest_model(params);
        }
    }

    /// A model picked: its own size, or back to "by size" with the current size.
    fn set_model(&mut self, id: &str) {
        match model_preset(id) {
            Some(model) => {
                self.scenario.model = model;
                self.scenario.params_override = None;
                self.model_chosen = true;
            }
            None => {
                self.scenario.params_override = Some(self.scenario.params());
                self.model_chosen = false;
            }
        }
    }
}

fn schedule_options() -> Vec<Opt> {
    SCHEDULES.iter().map(|s| (s.id(), s.label())).collect()
}

/// The expert-tensor degrees: as t (`t`, the default), or one of t's.
fn expert_tensor_options() -> Vec<Opt> {
    let mut options = vec![("t", "As t")];
    options.extend(plain_options(tensor::DEGREES));
    options
}

fn model_options() -> Vec<Opt> {
    let mut options = vec![("custom", "Custom size")];
    options.extend(MODELS.iter().map(|m| (m.id, m.name)));
    options
}

impl Params for PlannerParams {
    type Data = PlannerData;

    const TABLE: &'static [Param<Self>] = &[
        Param::<Self>::number(
            "Model size (parameters)",
            PARAMS,
            |p| p.scenario.params(),
            |p, v| p.set_size(v),
        )
        .text_box()
        .shared(),
        Param::<Self>::choice(
            "model",
            "Model",
            model_options,
            |p| {
                if p.model_chosen {
                    p.scenario.model.id
                } else {
                    "custom"
                }
            },
            |p, id| p.set_model(id),
        )
        .select(Some(model_sources))
        .shared(),
        Param::<Self>::number(
            "GPUs",
            GPUS,
            |p| f64::from(p.gpus),
            |p, v| p.gpus = v as u32,
        )
        .text_box()
        .help("GPUs in all, up to 65,536."),
        shared::gpu(),
        Param::<Self>::number(
            "Memory kept in reserve (GB)",
            RESERVE,
            |p| p.reserve,
            |p, v| p.reserve = v,
        )
        .text_box()
        .limited_by(|p| p.scenario.gpu().memory.value() / 1e9, "set by the GPU's memory")
        .help("GB of each GPU the training cannot use: the CUDA context, communication buffers and fragmentation."),
        Param::<Self>::choice(
            "stage",
            "ZeRO stage",
            options::<ZeroStage>,
            |p| p.stage.id(),
            |p, id| set_option(&mut p.stage, id),
        )
        .toggle()
        .help("ZeRO stage over the data-parallel GPUs."),
        shared::precision(),
        shared::moments(),
        Param::<Self>::choice(
            "tp",
            "Tensor parallel",
            || plain_options(tensor::DEGREES),
            |p| number_id(tensor::DEGREES, p.tensor),
            |p, id| p.tensor = id.parse().unwrap_or(p.tensor),
        )
        .toggle()
        .help("Tensor-parallel degree t."),
        Param::<Self>::number(
            "Pipeline stages",
            STAGES,
            |p| f64::from(p.pipeline),
            |p, v| p.pipeline = v as u32,
        )
        .text_box()
        .limited_by(|p| f64::from(p.scenario.arch().layers), "set by the model's layers, one stage a layer")
        .help("Pipeline stages p, 1 to 512 and at most one a layer."),
        Param::<Self>::choice(
            "schedule",
            "Pipeline schedule",
            schedule_options,
            |p| p.schedule.id(),
            |p, id| {
                if let Some(schedule) = SCHEDULES.iter().find(|s| s.id() == id) {
                    p.schedule = *schedule;
                }
            },
        )
        .toggle()
        .shown_when(|p| p.pipeline > 1)
        .help("How the pipeline orders its micro-batches."),
        Param::<Self>::number(
            "Model chunks per GPU",
            CHUNKS,
            |p| f64::from(p.chunks),
            |p, v| p.chunks = v as u32,
        )
        .text_box()
        .limited_by(|p| f64::from(layers_per_stage(p.scenario.arch().layers, p.pipeline)).max(2.0), "set by the layers a stage holds")
        .shown_when(|p| p.pipeline > 1 && p.schedule == Schedule::Interleaved)
        .help("Model chunks per GPU under the interleaved schedule."),
        Param::<Self>::number("Context parallel", CONTEXT, |p| f64::from(p.context), |p, v| p.context = v as u32)
            .text_box()
            .help("Context-parallel degree cp: GPUs sharing each sequence."),
        Param::<Self>::number("Experts a layer", EXPERTS, |p| f64::from(p.scenario.arch().experts), |p, v| {
            _ = p.scenario.set_arch_field("experts", v)
        })
        .text_box()
        .shared(),
        Param::<Self>::number("Experts a token uses (top-k)", TOP_K, |p| f64::from(p.scenario.arch().top_k), |p, v| {
            _ = p.scenario.set_arch_field("top-k", v)
        })
        .text_box()
        .limited_by(|p| f64::from(p.scenario.arch().experts), "set by the model's experts")
        .shown_when(|p| p.scenario.arch().experts > 1)
        .shared(),
        Param::<Self>::number("Expert parallel", EXPERT_PARALLEL, |p| f64::from(p.experts_parallel), |p, v| {
            p.experts_parallel = v as u32
        })
        .text_box()
        .limited_by(|p| f64::from(p.scenario.arch().experts), "set by the model's experts")
        .shown_when(|p| p.scenario.arch().experts > 1)
        .help("Expert-parallel degree ep: GPUs the experts are spread over (1 to the experts)."),
        Param::<Self>::choice(
            "etp",
            "Expert tensor parallel",
            expert_tensor_options,
            |p| p.expert_tensor.map_or("t", |etp| number_id(tensor::DEGREES, etp)),
            |p, id| p.expert_tensor = id.parse().ok(),
        )
        .toggle()
        .shown_when(|p| p.scenario.arch().experts > 1)
        .help("Expert-tensor-parallel degree etp: GPUs that split each expert's matrices. As t is Megatron-LM's default; 1 keeps each expert whole, with no tensor traffic in its MLP."),
        Param::<Self>::number("Expert capacity factor (0: none)", CAPACITY_FACTOR, |p| p.capacity_factor, |p, v| {
            p.capacity_factor = v
        })
        .text_box()
        .shown_when(|p| p.scenario.arch().experts > 1)
        .help("An expert's capacity over the mean of its tokens: tokens beyond it are dropped; 0 (the default) for none, every token computed."),
        Param::<Self>::number("Busiest expert's load over the mean", IMBALANCE, |p| p.imbalance, |p, v| {
            p.imbalance = v
        })
        .text_box()
        .shown_when(|p| p.scenario.arch().experts > 1)
        .help("The busiest expert's tokens over the mean (1: an even split): without a capacity it sets its layer's pace."),
        shared::batch(),
        Param::<Self>::number(
            "Sequence length (tokens)",
            SEQ,
            |p| f64::from(p.scenario.arch().seq),
            |p, v| _ = p.scenario.set_arch_field("seq", v),
        )
        .text_box()
        .shared(),
        Param::<Self>::number(
            "Micro-batch (sequences)",
            MICRO_BATCH,
            |p| f64::from(p.micro_batch),
            |p, v| p.micro_batch = v as u32,
        )
        .text_box()
        // A link's micro-batch past a replica's share of the batch is
        // brought down to it, with a notice (issue 37: it was silent).
        .limited_by(
            |p| {
                let plan = p.plan();
                (plan.batch / f64::from(plan.data_parallel())).floor().max(1.0)
            },
            "a replica's share of the batch",
        )
        .help("Sequences in one micro-batch."),
        Param::<Self>::choice(
            "sp",
            "Sequence parallelism",
            || ON_OFF.to_vec(),
            |p| if p.sequence_parallel { "1" } else { "0" },
            |p, id| p.sequence_parallel = id == "1",
        )
        .toggle()
        .help(
            "Split the norms and dropouts of a tensor-parallel group along the sequence.",
        ),
        shared::attention(),
        Param::<Self>::choice(
            "recompute",
            "Recomputation",
            options::<Recompute>,
            |p| p.recompute.id(),
            |p, id| set_option(&mut p.recompute, id),
        )
        .toggle()
        .help(
            "Activation recomputation: none, selective (the attention core's stored scores; with FlashAttention there are none, so it changes nothing), op-level (torchtitan's: every other matrix multiply's output is kept) or full (each layer).",
        ),
        shared::tokens_typed("Training tokens"),
        shared::busy(),
        shared::software(),
        // Shown in place of the share while computing when a link gives a
        // published MFU; 0 stands for none given.
        Param::<Self>::number(
            "MFU over the step (published)",
            STEP_MFU,
            |p| p.scenario.step_mfu.unwrap_or(0.0),
            |p, v| p.scenario.step_mfu = (v >= STEP_MFU.min).then_some(v),
        )
        .slider(STEP_MFU.min, |_| STEP_MFU.max, 0.01, shared::percent)
        .shown_when(|p| p.scenario.step_mfu.is_some())
        .help("A published MFU, model FLOP over whole steps: the step follows from it, and the share of the peak while computing is worked out."),
        shared::flop(),
        Param::<Self>::choice(
            "search",
            "Layout search",
            || ON_OFF.to_vec(),
            |p| if p.search { "1" } else { "0" },
            |p, id| p.search = id == "1",
        )
        .toggle()
        .help("Find the layouts that fit this model on these GPUs, fastest first."),
        export_param::<Self>(),
    ];

    fn data(&self) -> PlannerData {
        data(self)
    }

    fn readouts(d: &PlannerData) -> Vec<ReadoutData> {
        let mut all = vec![d.state_per_gpu.clone()];
        all.extend(d.memory.segments.iter().map(|s| s.readout.clone()));
        all.extend(Self::panel(d).into_iter().skip(1));
        all
    }

    fn panel(d: &PlannerData) -> Vec<ReadoutData> {
        vec![
            d.state_per_gpu.clone(),
            d.peak_memory.clone(),
            d.reserved_memory.clone(),
            d.capacity.clone(),
            d.reserve.clone(),
            d.state_fits.clone(),
            d.fits.clone(),
            d.traffic.clone(),
            d.nvlink_traffic.clone(),
            d.network_traffic.clone(),
            d.micro_batches.clone(),
            d.bubble.clone(),
            d.step_time.clone(),
            d.tokens_per_gpu_per_second.clone(),
            d.train_time.clone(),
            d.mfu.clone(),
            d.params.clone(),
            d.active_params.clone(),
            d.all_to_all.clone(),
            d.cp_traffic.clone(),
        ]
        .into_iter()
        .chain(d.search.iter().flat_map(|s| s.readouts.clone()))
        .collect()
    }

    fn summary(d: &PlannerData) -> String {
        d.summary.clone()
    }

    fn equations(d: &PlannerData) -> Vec<Equation> {
        d.equations.clone()
    }

    const COMPARE: bool = true;

    fn memory(d: &PlannerData) -> Option<MemoryBarData> {
        Some(d.memory.clone())
    }

    fn scenario(&self) -> Option<&Scenario> {
        Some(&self.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        Some(&mut self.scenario)
    }

    /// `params` alone picks the nearest preset's architecture; `model` gives
    /// both architecture and parameter count unless `params` is also given.
    fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let defaults = Self::default();
        let mut scenario = Scenario::read(query, &defaults.scenario, notices);
        let model_chosen = query
            .get("model")
            .is_some_and(|id| model_preset(id).is_some());
        if !model_chosen {
            scenario.params_override = Some(scenario.params());
            scenario.model = nearest_model(scenario.params());
        }
        param::read(
            Self::TABLE,
            Self {
                scenario,
                model_chosen,
                ..defaults
            },
            query,
            notices,
        )
    }

    /// A chosen model is always written (the planner's own default is the
    /// 70B example, not the shared default); otherwise the size is, and the
    /// architecture follows from it.
    fn write(&self, pairs: &mut Pairs) {
        let defaults = Self::default();
        let mut scenario = self.scenario.clone();
        let reference = if self.model_chosen {
            pairs.push(("model".to_string(), scenario.model.id.to_string()));
            Scenario {
                model: scenario.model,
                params_override: None,
                ..defaults.scenario.clone()
            }
        } else {
            scenario.model = defaults.scenario.model;
            defaults.scenario.clone()
        };
        scenario.write_against(&reference, pairs);
        param::write(Self::TABLE, self, &defaults, pairs);
    }

    fn diagram(params: Cells<Self>, data: Memo<PlannerData>) -> AnyView {
        let apply = Callback::new(move |plan: Plan| params.update(|p| p.apply(&plan)));
        view! {
            // The answer in one line: a sibling of the controls in the
            // figure's body, so that it can stay in view while any control
            // is on screen, beside them on a wide screen and at the window's
            // bottom on a narrow one (style/figures.css; issue 37: it was
            // 1,266 px under the GPUs box).
            <p class="fig-planner__answer" class:fig-planner__answer--over=move || data.with(|d| d.fits.value == 0.0)>
                <span class="fig-planner__fit">{move || data.with(|d| d.answer_fit.clone())}</span>
                {move || data.with(|d| d.answer_time.clone())}
            </p>
            <div class="figure__diagram fig-planner">
                <p class="fig-planner__caption">{move || data.with(|d| d.layout.clone())}</p>
                <p class="fig-planner__shape">{move || data.with(|d| d.shape.clone())}</p>
                <MemoryBar data=Memo::new(move |_| data.with(|d| d.memory.clone()))/>
                <p class="fig-planner__verdict" class:fig-planner__verdict--over=move || data.with(|d| d.fits.value == 0.0)>
                    {move || data.with(|d| d.verdict.clone())}
                </p>
                <p class="fig-planner__timing">{move || data.with(|d| d.timing.clone())}</p>
                {move || data.with(|d| d.caveat.clone()).map(|caveat| view! { <p class="fig-planner__caveat">{caveat}</p> })}
                <StepBar
                    parts=Signal::derive(move || data.with(|d| d.step.clone()))
                    total=Signal::derive(move || data.with(|d| d.step_total.clone()))
                />
                <Show when=move || data.with(|d| d.search.is_some())>
                    <LayoutTable data=Signal::derive(move || data.with(|d| d.search.clone())) apply=apply/>
                </Show>
                <Show when=move || data.with(|d| d.launch.is_some())>
                    <RunItWith
                        data=Signal::derive(move || data.with(|d| d.launch.clone()))
                        read=Callback::new(move |reading: Reading| {
                            let (read, notices) = params.with_untracked(|p| p.with_reading(&reading));
                            params.update(|p| *p = read);
                            notices.into_iter().map(|n| n.message).collect()
                        })
                    />
                </Show>
            </div>
        }
        .into_any()
    }

    /// The module's "Try": predict, then reveal the computed answer. It
    /// asks about a 70B model on 8 GPUs, so it folds away once the planner
    /// shows anything else: a link or card that sets it, or a control moved
    /// (issue 37); the reader may open it again.
    fn questions(params: Cells<Self>, _data: Memo<PlannerData>) -> Option<AnyView> {
        let defaults = Self::default();
        let folded = Memo::new(move |before: Option<&bool>| {
            before == Some(&true) || params.with(|p| *p != defaults)
        });
        Some(questions::view(folded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The planner's parameters for a query, its notices dropped.
    fn params_for(query: &str) -> PlannerParams {
        PlannerParams::from_query(&Query::parse(query), &mut Vec::new())
    }

    /// What the planner shows for a query.
    fn read(query: &str) -> PlannerData {
        data(&params_for(query))
    }

    /// Found by the full-page controls test: choosing Llama 2 7B (the shared
    /// default model, not the planner's) wrote no `model`, and the link
    /// opened on the 70B example.
    #[test]
    fn a_chosen_model_is_kept_in_the_url() {
        for search in [
            "model=llama2-7b",
            "model=llama2-70b",
            "model=llama3-8b&params=9B",
            "params=175B",
            "",
        ] {
            let mut notices = Vec::new();
            let chosen = PlannerParams::from_query(&Query::parse(search), &mut notices);
            let mut pairs = Vec::new();
            chosen.write(&mut pairs);
            let again = PlannerParams::from_query(
                &Query::parse(&crate::model::query::to_search(&pairs)),
                &mut notices,
            );
            assert_eq!(again, chosen, "{search}");
            assert!(notices.is_empty());
        }
    }

    /// A model preset brings its own size (Llama 3 8B's shape adds up to
    /// 8,030,261,248: 32 × 218,112,000 in its layers, 2 × 525,336,576 in
    /// its untied embedding and output layer, 4,096 in its final norm)
    /// unless `params` is given; `params` alone picks the nearest shape.
    #[test]
    fn a_model_preset_brings_its_own_size_unless_params_is_given() {
        let mut notices = Vec::new();
        assert_eq!(
            params_for("model=llama3-8b").scenario.params(),
            8_030_261_248.0
        );
        assert_eq!(
            params_for("model=llama3-8b&params=9B").scenario.params(),
            9e9
        );
        let p = params_for("params=175B");
        assert_eq!(p.scenario.model.id, "gpt3-175b");
        let mut pairs = Vec::new();
        p.write(&mut pairs);
        assert_eq!(pairs, [("params".to_string(), "175B".to_string())]);
        let banana = PlannerParams::from_query(&Query::parse("params=banana"), &mut notices);
        assert_eq!(banana.scenario.params(), DEFAULT_PARAMS);
        assert!(
            notices[0].message.contains("the default, 70.0B"),
            "{}",
            notices[0].message
        );
    }

    /// A size typed over a chosen preset keeps the preset's layers and
    /// width (Llama 3 70B: 80 layers, width 8,192) and says so.
    #[test]
    fn a_typed_size_over_a_preset_says_whose_shape_it_has() {
        let shape = read("model=llama3-70b&params=13B").shape;
        assert!(
            shape.starts_with("13.0B parameters in Llama 3 70B's shape (its size is 70.6B): 80 layers, width 8,192"),
            "{shape}"
        );
        assert!(read("model=llama3-70b")
            .shape
            .starts_with("Llama 3 70B: 80 layers"));
        // A sequence length, even the preset's own, reshapes no weight (a newcomer's pass
        // found "resized by the link" and Llama 2 7B's 6.74B become 6.738B).
        for query in ["model=gpt3-175b&seq=2048", "model=llama2-7b&seq=8192"] {
            assert!(!read(query).shape.contains("resized"), "{query}");
        }
        assert_eq!(
            params_for("model=llama2-7b&seq=8192").scenario.params(),
            6.74e9
        );
        assert!(read("model=llama2-7b&layers=40")
            .shape
            .contains("resized by the link"));
    }

    /// Issue 21's case: 1,536 sequences over 1,024 data-parallel replicas
    /// (t = p = 1) of micro-batch 1 is one micro-batch each, 1,024 sequences
    /// a step; the step's FLOP are for those, 6 × 175e9 × 1,024 × 2,048 =
    /// 2.20e18 (not 3.30e18), and the words say so.
    #[test]
    fn a_batch_that_does_not_divide_runs_what_divides_and_says_so() {
        let query = "model=gpt3-175b&gpu=a100-80gb&gpus=1024&batch=1536&seq=2048&tp=1&pp=1";
        let params = params_for(query);
        let plan = params.plan();
        assert_eq!(plan.sequences_run(), 1024.0);
        let flop = plan.estimate().step_flop.value();
        assert!(
            (flop / (6.0 * plan.params * 1024.0 * 2048.0) - 1.0).abs() < 0.02,
            "{flop}"
        );
        let d = data(&params);
        for part in [
            "A step of 1,024 sequences",
            "The batch asked for, 1,536 sequences, does not divide into whole micro-batches of 1 on each of the 1,024 replicas: each runs 1 micro-batch, so a step runs 1,024",
            "(512 sequences wait for a later step)",
        ] {
            assert!(d.timing.contains(part), "{part}: {}", d.timing);
        }
        // A batch that divides says nothing of it.
        assert!(!read("model=gpt3-175b&gpus=1024&batch=2048&tp=1&pp=1")
            .timing
            .contains("batch asked for"));
    }

    /// The module's "Try": 16 × 70e9 = 1,120 GB on each of 8 GPUs; ZeRO-3
    /// divides it by 8 (140 GB); 80 GB needs 1,120/80 = 14 GPUs, 16 in powers of two.
    #[test]
    fn the_try_answers_are_computed() {
        let answers = try_answers(Bytes(80e9));
        assert_eq!(
            (answers.plain, answers.zero3),
            (Bytes(1120e9), Bytes(140e9))
        );
        assert!(!answers.plain_fits && !answers.zero3_fits);
        assert_eq!((answers.fewest, answers.power_of_two), (Some(14), Some(16)));
    }

    /// The module's "Try" asks whether the training state fits: 16 × 70e9
    /// / 16 = 70 GB of the 77 GB that 80 GB leaves after the 3 GB reserve,
    /// at `stage=3&gpus=16`. With Llama 2 70B's activations at sequence
    /// 4,096 (FlashAttention, nothing recomputed, no dropout masks:
    /// (12.5h + 6·ffn)·s = 1.13 GB a layer, 80 layers) it does not; full
    /// recomputation keeps 2sbh a layer, 5.4 GB, the token ids and the output
    /// layer's 0.7 GB: 76.1 GB of state and activations. At its peak the
    /// GPU holds more, at the busiest of three moments: the loss's (its FP32
    /// gradients, 8sV, beside the root and the last layer FSDP keeps
    /// gathered), a layer's backward (the layer recomputed whole, two layers
    /// and the root gathered, 2 B each, the layer's gradients whole in 2 B
    /// and an FP32 copy; the loss's log-probabilities gone) or the
    /// optimizer's step (its square roots, 4 B a parameter of its shard,
    /// 17.5 GB): over 77 GB, so no single change is enough.
    #[test]
    fn two_verdicts_for_the_modules_try() {
        let params = params_for("stage=3&gpus=16");
        let d = data(&params);
        assert_eq!((d.state_fits.value, d.fits.value), (1.0, 0.0));
        assert!(
            d.verdict.starts_with("The training state fits, 70.0 GB within the 77.0 GB of 80 GB left after 3.00 GB kept in reserve; with the activations at sequence 4,096 and the buffers of its peak the fullest GPU needs"),
            "{}",
            d.verdict
        );
        let recomputed = data(&PlannerParams {
            recompute: Recompute::Full,
            ..params
        });
        let (s, h, f, v, a) = (4096.0, 8192.0, 28672.0, 32000.0, 64.0);
        let held = 80.0 * 2.0 * s * h + 4.0 * s * (h + v) + s * 8.0;
        let expected = 70e9 + held;
        let state_and_activations: f64 = recomputed
            .memory
            .segments
            .iter()
            .filter(|s| !s.readout.id.starts_with("peak-"))
            .map(|s| s.readout.value)
            .sum();
        assert!(
            (state_and_activations / expected - 1.0).abs() < 1e-9,
            "{state_and_activations} vs {expected}"
        );
        // The three moments, from Llama 2 70B's shape (params 70e9 over its
        // exact count scales each part): the loss, a layer's backward, the
        // optimizer's step.
        let arch = crate::model::presets::model_preset("llama2-70b")
            .unwrap()
            .arch;
        let scale = 70e9 / arch.exact_parameter_count();
        let root = 2.0 * v * h * scale;
        let layer = (70e9 - root) / 80.0;
        let at_loss = held + 8.0 * s * v + 2.0 * (layer + root);
        let in_a_layer = held - 4.0 * s * v
            + ((12.5 * h + 6.0 * f) * s + 4.0 * a * s - 2.0 * s * h)
            + 2.0 * (2.0 * layer + root)
            + 6.0 * layer;
        let step: f64 = 4.0 * 70e9 / 16.0;
        let peak = readout_of(&recomputed, "peak-memory");
        let expected_peak = 70e9 + step.max(at_loss).max(in_a_layer);
        assert!(
            (peak / expected_peak - 1.0).abs() < 1e-9,
            "{peak} vs {expected_peak}"
        );
        assert_eq!(recomputed.fits.value, 0.0);
    }

    fn readout_of(d: &PlannerData, id: &str) -> f64 {
        PlannerParams::readouts(d)
            .into_iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("no readout {id}"))
            .value
    }

    /// Mixtral on 64 GPUs with its 8 experts over 8 of them: each GPU routes
    /// its 4,096 tokens to 2 experts and back, forward and backward, 7/8 of
    /// them away: 4,096 × 2 × 4,096 values × 2 B × 2 (dispatch, combine) ×
    /// 7/8 × 2 (forward, backward) in each of 32 layers, one micro-batch.
    #[test]
    fn mixtral_with_expert_parallelism() {
        let d = data(&PlannerParams::from_query(
            &Query::parse("model=mixtral-8x7b&gpus=64&ep=8&batch=64&seq=4096&gpu=h100-sxm"),
            &mut Vec::new(),
        ));
        assert_eq!(
            (d.params.value, d.active_params.value),
            (46_702_792_704.0, 12_879_925_248.0)
        );
        let expected = 4096.0 * 2.0 * 4096.0 * 2.0 * 2.0 * (7.0 / 8.0) * 2.0 * 32.0;
        assert!(
            (d.all_to_all.value / expected - 1.0).abs() < 1e-12,
            "{} vs {expected}",
            d.all_to_all.value
        );
        assert_eq!(d.cp_traffic.value, 0.0);
    }

    /// Llama 3 8B at 131,072 tokens over 4 context-parallel GPUs: K and V
    /// chunks of 32,768 tokens × 2 × 1,024 × 2 B, 3 hops forward and 6 back,
    /// in each of 32 layers; and each GPU's activations are a quarter of cp = 1's.
    #[test]
    fn context_parallelism() {
        let d = read("model=llama3-8b&gpus=64&cp=4&seq=131072&batch=16&recompute=selective");
        let expected = 9.0 * 32768.0 * 2.0 * 1024.0 * 2.0 * 32.0;
        assert_eq!(d.cp_traffic.value, expected);
        let whole = read("model=llama3-8b&gpus=64&cp=1&seq=131072&batch=16&recompute=selective");
        let activations = |d: &PlannerData| {
            d.memory
                .segments
                .iter()
                .find(|s| s.readout.id == "activations")
                .unwrap()
                .readout
                .value
        };
        // The layers' share divides by 4; the output layer's (one stage) too.
        assert!((activations(&d) / activations(&whole) - 0.25).abs() < 1e-9);
    }

    /// Llama 2 7B on 64 GPUs under ZeRO-3 with the attention scores stored
    /// fits its training state but not its activations; selective
    /// recomputation is the smallest fix.
    #[test]
    fn the_smallest_fix_is_named() {
        let tight = PlannerParams::from_query(
            &Query::parse("model=llama2-7b&gpus=64&stage=3&attention=standard"),
            &mut Vec::new(),
        );
        let d = data(&tight);
        assert_eq!(d.fits.value, 0.0);
        assert!(
            d.verdict.contains("turn on selective recomputation"),
            "{}",
            d.verdict
        );
        let relaxed = data(&PlannerParams {
            recompute: Recompute::Selective,
            ..tight
        });
        assert_eq!(relaxed.fits.text, "Yes");
        assert!(relaxed.verdict.starts_with("Fits"));
    }
}
