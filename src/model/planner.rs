//! The parallelism planner: one GPU's memory, traffic and time for a model
//! on N GPUs with tensor degree t, pipeline degree p, context-parallel
//! degree cp, data-parallel degree d = N/(t·p·cp) (the experts regrouped
//! into expert-tensor degree etp × expert-parallel ep × the rest) and a ZeRO
//! stage on d; and the smallest change that makes it fit.
//!
//! Memory is the most loaded GPU's, as Megatron-LM's theoretical memory
//! report counts it (`megatron/training/theoretical_memory_usage.py`): the
//! training state of the largest pipeline stage's slice (the first holds the
//! input embedding, the last the final norm and the output layer), split t
//! ways (experts etp·ep ways) and sharded by ZeRO over the GPUs holding the
//! same slice (Rajbhandari et al. 2020); plus each stage's activations for
//! the micro-batches its schedule keeps in flight (`activations.rs`), each
//! 1/cp of the sequence, checked stage by stage, since stages that do not
//! divide the layers leave the ends lighter (`pipeline::stage_layers`); a
//! GPU keeps `reserve` of its memory back. Traffic a step: the data-parallel
//! synchronisation, four tensor-parallel all-reduces a layer a micro-batch,
//! each pipeline boundary's activations forward and gradients back, the
//! experts' all-to-alls and the context ring, each group on the link its
//! ranks sit on ([`Group`]). Time, one step ([`StepBreakdown`]): the
//! step's FLOP (and recomputation's), at the pace of the stage with the
//! most (the last runs the output layer too), at the GPU's peak × its share while
//! busy (`busy-util`, or what gives a published `step-mfu` over the whole
//! step), plus the communication on the critical path, both stretched by
//! the bubble, plus the data-parallel traffic its passes do not hide
//! ([`exposed_reduction`]). Every other time (the run, MFU, tokens a second, the search, the
//! comparison) derives from that one step.

use super::activations::{hidden_state, stage_activations, ActivationSetup, Recompute};
use super::choice::Choice;
use super::comm::{context_ring_sent, data_parallel_sent, expert_all_to_all_sent, Link, Links};
use super::compute::{
    flop_per_token, fp8_flop_per_token, recompute_flop_per_token, slowest_stage, FlopCount, Rate,
};
use super::memory::{fits, BytesPerParam, TrainingState, ZeroStage};
use super::pipeline::{
    bubble, layers_per_stage, parameter_copies, runnable_micro_batches, stage_layers, Schedule,
};
use super::precision::Numerics;
use super::presets::Architecture;
use super::query::NumberSpec;
use super::tensor::sent_per_gpu_per_layer;
use super::units::{Bytes, Flop, Seconds};

/// Everything the planner needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Ψ, the parameter count behind the training state.
    pub params: f64,
    /// The architecture behind the activations and the stages' shares.
    pub arch: Architecture,
    pub gpus: u32,
    pub stage: ZeroStage,
    pub tensor: u32,
    pub pipeline: u32,
    /// Context-parallel degree: GPUs sharing one sequence.
    pub context: u32,
    /// Expert-parallel degree: GPUs the experts are spread over.
    pub experts: u32,
    /// Expert-tensor-parallel degree: GPUs that split each expert's
    /// matrices; `None` for t, as Megatron-LM does unless
    /// `--expert-tensor-parallel-size` says otherwise ([`Plan::expert_tensor`]).
    pub expert_tensor: Option<u32>,
    pub schedule: Schedule,
    /// Model chunks per GPU for the interleaved schedule.
    pub chunks: u32,
    pub activations: ActivationSetup,
    /// Global batch, in sequences.
    pub batch: f64,
    /// Memory of one GPU, as the device reports it.
    pub capacity: Bytes,
    /// Memory each GPU keeps out of the training's reach: the CUDA context,
    /// communication buffers and fragmentation (`reserve`, [`DEFAULT_RESERVE`]).
    pub reserve: Bytes,
    /// The training state's convention (16, 18 or 20 bytes a parameter).
    pub bytes: BytesPerParam,
    /// The weights' and moments' formats, and the GPU's FP8 (`precision.rs`).
    pub numerics: Numerics,
    /// How tokens reach their experts: capacity and load imbalance.
    pub routing: Routing,
    pub rate: Rate,
    /// Model FLOPs utilisation over the whole step, when given (`step-mfu`):
    /// the rate while busy is then whatever gives it (at most the peak).
    pub step_mfu: Option<f64>,
    pub flop: FlopCount,
    /// Training tokens, for the whole run's time.
    pub tokens: f64,
    pub links: Links,
}

/// How tokens reach their experts. An expert's capacity is the tokens it
/// takes, a `capacity_factor` times the mean of tokens ÷ experts (Fedus et
/// al. 2021, Switch Transformer, section 2.2): those beyond it are dropped,
/// passing the layer by its residual. Without one (dropless, as Megatron-LM
/// runs by default) every token is computed. Either way the busiest expert,
/// `imbalance` times the mean, capped at the capacity, sets the pace of its
/// layer, the all-to-all into its GPU too (Megatron-LM pads the experts'
/// inputs to the capacity only when asked, `--moe-pad-expert-input-to-capacity`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Routing {
    pub capacity_factor: Option<f64>,
    /// The busiest expert's tokens over the mean, at least 1.
    pub imbalance: f64,
}

/// An expert's capacity over the mean of its tokens (Fedus et al. 2021,
/// section 2.2's capacity factor), the planner's `capacity-factor`; 0, the
/// default, for none: dropless.
pub const CAPACITY_FACTOR: NumberSpec = NumberSpec {
    key: "capacity-factor",
    min: 0.0,
    max: 16.0,
    integer: false,
    suffixed: false,
    lowered_by: None,
};
/// The busiest expert's tokens over the mean, 1 (even) to 16: `imbalance`.
pub const IMBALANCE: NumberSpec = NumberSpec {
    key: "imbalance",
    min: 1.0,
    max: 16.0,
    integer: false,
    suffixed: false,
    lowered_by: None,
};

impl Routing {
    /// Every token computed, spread evenly: what the planner assumed before.
    pub const EVEN: Self = Self {
        capacity_factor: None,
        imbalance: 1.0,
    };

    /// The experts' work and exchange on the critical path over an even
    /// split's: the busiest expert's load, capped at the capacity.
    pub fn pace(&self) -> f64 {
        let load = self.imbalance.max(1.0);
        self.capacity_factor
            .map_or(load, |c| c.min(load))
            .max(f64::MIN_POSITIVE)
    }

    /// The share of the busiest expert's tokens dropped: those past its
    /// capacity, 1 − c/imbalance when its load passes it.
    pub fn dropped(&self) -> f64 {
        self.capacity_factor
            .map_or(0.0, |c| (1.0 - c / self.imbalance.max(1.0)).max(0.0))
    }
}

/// Why a layout cannot run as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutProblem {
    /// t·p·cp is more than the GPUs: this many more are needed.
    ShortOfGpus(u32),
    /// The experts' grid, etp × ep, does not divide the GPUs of a pipeline
    /// stage, t·cp·d, over which Megatron-LM regroups them.
    ExpertsDoNotDivide { grid: u32, stage_gpus: u32 },
    /// DualPipe pairs each stage with its mirror: it needs an even p.
    DualPipeOddStages(u32),
}

/// Where a step's time goes, in seconds: each term from the estimator,
/// each kind of traffic on its group's link ([`Group`]); [`total`](Self::total)
/// is the step (`PlanEstimate::step_time`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StepBreakdown {
    /// The model's FLOP at the sustained rate, at the slowest stage's pace
    /// ([`slowest_stage`]).
    pub compute: f64,
    /// Recomputation's extra forward passes.
    pub recompute: f64,
    /// Tensor-parallel all-reduces, on the critical path: each layer waits
    /// for its own (Shoeybi et al. 2019, section 3).
    pub tensor: f64,
    /// The experts' all-to-alls, the context ring's K/V exchange and the
    /// pipeline's sends between stages, on the critical path as the planner
    /// counts them (none overlapped, as Megatron-LM's 2021 schedules ran);
    /// under DualPipe and DualPipeV the all-to-alls and the pipeline's sends
    /// run beside the overlapped pairs' arithmetic ("both all-to-all and PP
    /// communication can be fully hidden", DeepSeek-V3, section 3.2.1), and
    /// only what outlasts the arithmetic counts.
    pub exchange: f64,
    /// Idle pipeline stages: the arithmetic and the critical communication
    /// times b/(1 − b) (a stage idles for its neighbours' whole slots).
    pub bubble: f64,
    /// Data-parallel traffic that outlasts the passes it overlaps
    /// ([`exposed_reduction`]).
    pub data: f64,
}

impl StepBreakdown {
    pub fn total(&self) -> f64 {
        self.compute + self.recompute + self.tensor + self.exchange + self.bubble + self.data
    }
}

/// One GPU's memory, traffic and time under a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanEstimate {
    /// Data-parallel degree d = N/(t·p·cp), at least 1.
    pub data: u32,
    /// Micro-batches each pipeline runs a step, m = B/(d·b), as the schedule runs them.
    pub micro_batches: u32,
    /// The most loaded GPU's training state.
    pub state: TrainingState,
    /// The first stage's activations.
    pub activations: Bytes,
    /// State and activations of the GPU that holds the most (any stage).
    pub total: Bytes,
    /// Its stage, from 0: the first unless the ends are lighter.
    pub peak_stage: u32,
    /// The arithmetic's time under the number formats over its time in
    /// BF16: below 1 with FP8 (`precision.rs`), else 1.
    pub time_share: f64,
    /// Whether the training state alone fits the capacity less the reserve.
    pub state_fits: bool,
    /// Whether every stage's state and activations fit it.
    pub fits: bool,
    /// Everything one GPU sends a step: `nvlink_traffic` + `network_traffic`.
    pub traffic: Bytes,
    /// What it sends over NVLink, inside its node.
    pub nvlink_traffic: Bytes,
    /// What it sends over the network, to other nodes.
    pub network_traffic: Bytes,
    /// Each group's traffic and link, in [`Group`]'s order.
    pub groups: [GroupTraffic; 5],
    /// The experts' all-to-alls among it: dispatch and combine, forward and backward.
    pub all_to_all: Bytes,
    /// The context ring's K and V exchange among it.
    pub context_traffic: Bytes,
    pub bubble: f64,
    /// The arithmetic of one step on all GPUs, recomputation included.
    pub step_flop: Flop,
    /// One global batch: `breakdown.total()`.
    pub step_time: Seconds,
    /// Where the step's time goes.
    pub breakdown: StepBreakdown,
    pub tokens_per_gpu_per_second: f64,
    /// `tokens` of training.
    pub train_time: Seconds,
    /// Model FLOPs utilisation over the whole step, bubble included.
    pub mfu: f64,
    /// The fraction of the peak sustained while computing, as used.
    pub busy: f64,
    /// The slowest stage's work over the mean stage's ([`slowest_stage`]): 1 without a pipeline.
    pub pace: f64,
}

/// The groups a GPU talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Tensor,
    Context,
    Experts,
    Pipeline,
    Data,
}

impl Group {
    /// What the group's traffic is, in words.
    pub fn traffic(self) -> &'static str {
        match self {
            Group::Tensor => "the tensor-parallel all-reduces",
            Group::Context => "the context ring",
            Group::Experts => "the experts' all-to-alls",
            Group::Pipeline => "the pipeline's sends",
            Group::Data => "the data-parallel reduction",
        }
    }
}

impl PlanEstimate {
    /// What one GPU sends `group` a step, and over which link.
    pub fn group(&self, group: Group) -> GroupTraffic {
        self.groups[group as usize]
    }
}

/// What one GPU sends a step to one group, and over which link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupTraffic {
    pub group: Group,
    pub sent: Bytes,
    pub link: Link,
}

/// The link a group of `size` ranks, `stride` apart, runs over (ranks in
/// Megatron-LM's default order, tensor fastest, then context, data,
/// pipeline, `order="tp-cp-ep-dp-pp"` in `megatron/core/parallel_state.py`;
/// the experts' groups come from a second grid over the same ranks, expert
/// tensor fastest, then experts, with cp = 1): NVLink when every such group lies within one
/// NVLink domain (the node on HGX boards; the rack of 72 on GB200 NVL72,
/// where NVLink switches join every GPU), the network otherwise. A group
/// spans a block of stride × size consecutive ranks, and the blocks tile
/// the job's `ranks` from 0, so all of them lie within domains when the
/// block divides the domain, or when the whole job fits in one; otherwise
/// the block around the first domain's edge crosses it. On an NVL72, a
/// block of 8 × 9 = 72 stays inside, one of 16 does not (ranks 64–79 cross
/// from one rack to the next) once the job has more than 72 GPUs.
pub fn link_of(links: &Links, ranks: u32, (stride, size): (u32, u32)) -> Link {
    let (span, domain) = (stride.saturating_mul(size), links.domain.max(1));
    if size <= 1 || domain.is_multiple_of(span.max(1)) || ranks <= domain {
        Link::NvLink
    } else {
        Link::Network
    }
}

/// One GPU's parameters on a pipeline stage: those every expert-parallel
/// rank keeps (attention, router, norms, embeddings) and its share of the experts.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StageShare {
    pub dense: f64,
    pub experts: f64,
}

impl StageShare {
    pub fn total(&self) -> f64 {
        self.dense + self.experts
    }
}

impl std::ops::Add for StageShare {
    type Output = Self;

    /// Two stages one GPU holds (DualPipe's stage of each direction).
    fn add(self, other: Self) -> Self {
        Self {
            dense: self.dense + other.dense,
            experts: self.experts + other.experts,
        }
    }
}

/// Parameters on one GPU of pipeline stage `stage` of p, for `params`
/// parameters shaped like `arch`: the dense ones split `split.0` ways (t),
/// the experts `split.1` ways (etp·ep).
/// The first stage holds the input embedding (and learned positions), the
/// last the final norm and the output layer (a copy of a tied embedding's,
/// as Megatron-LM keeps); one stage holds all of them. Matrices and the
/// vocabulary are split t ways; norms and row-parallel biases are whole.
/// `ranges` are the stages' layers as [`stage_layers`] gives them.
pub fn stage_share(
    params: f64,
    arch: &Architecture,
    split: (u32, u32),
    ranges: &[std::ops::Range<u32>],
    stage: u32,
) -> StageShare {
    let (t, experts_split) = (f64::from(split.0.max(1)), f64::from(split.1.max(1)));
    let stages = ranges.len() as u32;
    if stages <= 1 && t <= 1.0 && experts_split <= 1.0 {
        // The whole model: exactly Ψ when nothing is split.
        return StageShare {
            dense: params,
            experts: 0.0,
        };
    }
    let range = ranges.get(stage as usize).cloned().unwrap_or(0..0);
    // Leading dense layers (DeepSeek-V3's first three) hold no experts.
    let leading = f64::from(arch.dense_layers_in(&range));
    let layers = f64::from(range.end - range.start) - leading;
    let expert_layer = arch.experts() * arch.expert_params();
    let whole = arch.layer_replicated_params();
    let dense_layer = arch.expert_layer_params() - expert_layer;
    let mut outside = 0.0;
    if stage == 0 {
        outside += arch.input_embedding_params() / t;
    }
    if stage + 1 >= stages {
        outside += arch.output_params(stages) / t + arch.final_norm_params();
    }
    // A custom size keeps the architecture's proportions.
    let scale = params / arch.exact_parameter_count();
    let leading_layer = arch.leading_dense_layer_params();
    StageShare {
        dense: (layers * ((dense_layer - whole) / t + whole)
            + leading * ((leading_layer - whole) / t + whole)
            + outside)
            * scale,
        experts: layers * expert_layer / experts_split * scale,
    }
}

impl Plan {
    /// The training state's bytes a parameter: the convention under the formats.
    pub fn state_bytes(&self) -> BytesPerParam {
        self.numerics.state_bytes(self.bytes)
    }

    /// GPUs that hold one copy of the model between them: t·p·cp.
    pub fn model_group(&self) -> u32 {
        self.tensor.max(1) * self.pipeline.max(1) * self.context.max(1)
    }

    /// What the training may use of a GPU: its capacity less the reserve.
    pub fn usable_memory(&self) -> Bytes {
        Bytes((self.capacity.value() - self.reserve.value()).max(0.0))
    }

    /// d = ⌊N/(t·p·cp)⌋, at least 1.
    pub fn data_parallel(&self) -> u32 {
        (self.gpus / self.model_group()).max(1)
    }

    /// GPUs at work: t·p·cp·d (the rest of N, if any, idle).
    pub fn gpus_used(&self) -> u32 {
        self.model_group() * self.data_parallel()
    }

    /// GPUs left idle: N − t·p·cp·d (0 when the layout is short of GPUs).
    pub fn idle_gpus(&self) -> u32 {
        self.gpus.saturating_sub(self.gpus_used())
    }

    /// What a GPU's usable memory leaves after `total` (negative when over).
    pub fn spare_memory(&self, total: Bytes) -> Bytes {
        Bytes(self.usable_memory().value() - total.value())
    }

    /// Tokens of a sequence each context-parallel rank keeps: s/cp.
    pub fn tokens_per_context_rank(&self) -> f64 {
        self.activations.seq / f64::from(self.context.max(1))
    }

    /// GPU-hours of `estimate`'s training: its time × the GPUs at work.
    pub fn gpu_hours(&self, estimate: &PlanEstimate) -> f64 {
        estimate.train_time.value() * f64::from(self.gpus_used()) / Seconds::HOUR
    }

    /// Why the layout cannot run as given, if it cannot.
    pub fn problem(&self) -> Option<LayoutProblem> {
        let group = self.model_group();
        if group > self.gpus {
            return Some(LayoutProblem::ShortOfGpus(group - self.gpus));
        }
        if self.schedule == Schedule::DualPipe && !self.pipeline.max(1).is_multiple_of(2) {
            return Some(LayoutProblem::DualPipeOddStages(self.pipeline.max(1)));
        }
        let grid = self.expert_tensor() * self.experts.max(1);
        let stage_gpus = self.tensor.max(1) * self.context.max(1) * self.data_parallel();
        (!stage_gpus.is_multiple_of(grid))
            .then_some(LayoutProblem::ExpertsDoNotDivide { grid, stage_gpus })
    }

    /// Expert-tensor-parallel degree etp: as given, or t (Megatron-LM's
    /// default, `megatron/core/parallel_state.py`).
    pub fn expert_tensor(&self) -> u32 {
        self.expert_tensor.unwrap_or(self.tensor).max(1)
    }

    /// Sequences in a micro-batch as run: b, but no more than each
    /// data-parallel replica's share of the batch, B/d (at least one).
    pub fn micro_batch(&self) -> f64 {
        let share = (self.batch / f64::from(self.data_parallel()))
            .floor()
            .max(1.0);
        self.activations.micro_batch.max(1.0).min(share)
    }

    /// The activations as one GPU keeps them: its t, the micro-batch as run,
    /// and its 1/cp of the sequence.
    pub fn activation_setup(&self) -> ActivationSetup {
        ActivationSetup {
            tensor_parallel: self.tensor.max(1),
            micro_batch: self.micro_batch(),
            seq: self.activations.seq / f64::from(self.context.max(1)),
            ..self.activations
        }
    }

    /// Each pipeline stage's layers ([`stage_layers`]).
    pub fn stage_ranges(&self) -> Vec<std::ops::Range<u32>> {
        stage_layers(self.arch.layers, self.pipeline)
    }

    /// Parameters on one GPU of pipeline stage `stage`, of `ranges`; under
    /// DualPipe, with the stage of the other direction it also holds, p − 1 − stage.
    pub fn stage_share(&self, ranges: &[std::ops::Range<u32>], stage: u32) -> StageShare {
        let share = |stage| {
            stage_share(
                self.params,
                &self.arch,
                (self.tensor, self.expert_tensor() * self.experts.max(1)),
                ranges,
                stage,
            )
        };
        let mirror = (ranges.len() as u32).saturating_sub(1 + stage);
        match parameter_copies(self.schedule) {
            2 => share(stage) + share(mirror),
            _ => share(stage),
        }
    }

    /// Parameters on one GPU of the stage that holds the most.
    pub fn loaded_stage(&self) -> StageShare {
        let ranges = self.stage_ranges();
        (0..ranges.len() as u32)
            .map(|stage| self.stage_share(&ranges, stage))
            .max_by(|a, b| a.total().total_cmp(&b.total()))
            .unwrap_or_default()
    }

    /// GPUs holding the same dense slice, over which ZeRO shards it (d·cp),
    /// and the same experts: a stage's t·cp·d GPUs over etp·ep (Megatron-LM's
    /// expert data-parallel size).
    pub fn shards(&self) -> (u32, u32) {
        let replicas = self.data_parallel() * self.context.max(1);
        let grid = self.expert_tensor() * self.experts.max(1);
        (replicas, (replicas * self.tensor.max(1) / grid).max(1))
    }

    /// Micro-batches each pipeline runs a step: B/(d·b), at least 1, as the schedule runs them.
    pub fn micro_batches(&self) -> u32 {
        let per_pipeline = self.batch / f64::from(self.data_parallel()) / self.micro_batch();
        runnable_micro_batches(
            self.schedule,
            self.pipeline,
            (per_pipeline.floor() as u32).max(1),
        )
    }

    /// Sequences a step actually runs: m micro-batches of b on each of d
    /// replicas. It differs from the batch asked for when the batch does not
    /// divide into whole micro-batches a replica (the rest wait for a later
    /// step), or when the schedule or a batch smaller than d needs more.
    pub fn sequences_run(&self) -> f64 {
        f64::from(self.micro_batches()) * self.micro_batch() * f64::from(self.data_parallel())
    }

    pub fn estimate(&self) -> PlanEstimate {
        let (t, p, cp, ep) = (
            self.tensor.max(1),
            self.pipeline.max(1),
            self.context.max(1),
            self.experts.max(1),
        );
        let d = self.data_parallel();
        // ZeRO shards each slice over the GPUs holding the same one: d·cp
        // for the dense part, t·cp·d/(etp·ep) for the experts.
        let (replicas, expert_replicas) = self.shards();
        let bytes = self.state_bytes();
        let state_of = |share: StageShare| {
            TrainingState::zero(share.dense, bytes, self.stage, replicas)
                + TrainingState::zero(share.experts, bytes, self.stage, expert_replicas)
        };
        let setup = self.activation_setup();
        let m = self.micro_batches();
        let ranges = self.stage_ranges();
        // Each stage's parameters and activations, once: the most loaded GPU
        // may be on any stage when the ends are lighter, or hold more
        // micro-batches in flight.
        let stages: Vec<(StageShare, Bytes)> = ranges
            .iter()
            .zip(0..)
            .map(|(range, stage)| {
                let held = stage_activations(
                    &self.arch,
                    &setup,
                    (p, stage),
                    self.schedule,
                    m,
                    self.chunks,
                    range.end - range.start,
                );
                (self.stage_share(&ranges, stage), held)
            })
            .collect();
        let (peak_stage, total) = stages
            .iter()
            .zip(0..)
            .map(|(&(share, held), stage)| (stage, state_of(share).total() + held))
            .fold((0, Bytes(0.0)), |a, b| {
                if b.1.value() > a.1.value() {
                    b
                } else {
                    a
                }
            });
        // The training state of the stage with the most parameters, as `loaded_stage`.
        let loaded = stages
            .iter()
            .map(|&(share, _)| share)
            .max_by(|a, b| a.total().total_cmp(&b.total()))
            .unwrap_or_default();
        let state = state_of(loaded);
        // The first stage's, as the `activations` readout.
        let activations = stages.first().map_or(Bytes(0.0), |&(_, held)| held);
        let tokens = setup.seq * setup.micro_batch;
        let data_traffic = data_parallel_sent(bytes, loaded.dense, replicas, self.stage, m)
            + data_parallel_sent(bytes, loaded.experts, expert_replicas, self.stage, m);
        // The busiest stage's layers set the pace: ⌈L/p⌉.
        let per_stage = f64::from(layers_per_stage(self.arch.layers, p)) * f64::from(m);
        // Full recomputation runs each layer's forward again, its two
        // all-reduces with it: six a layer, not four.
        let recomputed = if setup.recompute == Recompute::Full {
            1.5
        } else {
            1.0
        };
        // With sequence parallelism each tensor-parallel GPU holds, and sends, 1/t of the tokens.
        let split = if setup.sequence_parallel {
            f64::from(t)
        } else {
            1.0
        };
        // A dense layer's four all-reduces run over its t GPUs. In an experts'
        // layer the attention's two (and a shared expert's MLP's two) still
        // do; the routed experts' tensor group, etp GPUs, instead gathers the
        // tokens routed to it after the all-to-all and reduce-scatters them
        // before the one back, and the backward pass does the same
        // (Megatron-LM's MoEAlltoAllTokenDispatcher, "A2A(EP) -> AG(TP)" and
        // "RS(TP) -> A2A(EP)"): four collectives, each sending etp − 1
        // chunks of this GPU's k routes, at the busiest expert's pace; none
        // at etp 1, whole experts.
        let etp = self.expert_tensor();
        let expert_layers = if self.arch.experts > 1 {
            1.0 - f64::from(self.arch.dense_layers_in(&(0..self.arch.layers)))
                / f64::from(self.arch.layers.max(1))
        } else {
            0.0
        };
        let dense_layer = sent_per_gpu_per_layer(&self.arch, t, tokens);
        let attention_share = if self.arch.shared_experts > 0 {
            1.0
        } else {
            0.5
        };
        let routed_gathers = hidden_state(&self.arch, tokens / split)
            * (4.0 * f64::from(etp - 1) * self.arch.experts_used() * self.routing.pace());
        let expert_layer = dense_layer * attention_share + routed_gathers;
        let tensor_traffic = (dense_layer * (1.0 - expert_layers) + expert_layer * expert_layers)
            * (per_stage * recomputed);
        // A middle stage sends activations forward and gradients back, once
        // for each of its chunks under the interleaved schedule (each chunk
        // hands its output to the next GPU: v times 1F1B's, Narayanan et al.
        // 2021, section 2.2.2).
        let chunks = if self.schedule == Schedule::Interleaved {
            f64::from(self.chunks.max(1))
        } else {
            1.0
        };
        let boundary = if p > 1 {
            hidden_state(&self.arch, tokens) * (2.0 * f64::from(m) * chunks / split)
        } else {
            Bytes(0.0)
        };
        // Dispatch and combine, forward and backward (`comm.rs`), in every layer when there are experts.
        let all_to_all = if self.arch.experts > 1 {
            expert_all_to_all_sent(
                tokens / split,
                f64::from(self.arch.hidden),
                self.arch.experts_used() as u32,
                ep,
            ) * (2.0 * per_stage * self.routing.pace())
        } else {
            Bytes(0.0)
        };
        let context_traffic = context_ring_sent(
            tokens * f64::from(cp),
            self.arch.kv_heads_width() / f64::from(t),
            cp,
        ) * per_stage;
        let bubble = bubble(self.schedule, p, m, self.chunks);
        let seq = self.activations.seq;
        let step_tokens = self.sequences_run() * seq;
        let active = self.params * self.arch.active_share();
        let model_token = flop_per_token(self.flop, active, &self.arch, seq);
        let recompute_run = setup.recompute_run();
        let recompute_token = recompute_flop_per_token(recompute_run, &self.arch, seq);
        let model_flop = model_token * step_tokens;
        // The routed experts' arithmetic, padded to capacity or waiting for
        // the busiest expert (`Routing`), beyond an even split's.
        let routed = if self.arch.experts > 1 {
            let per_pass = 2.0
                * f64::from(self.arch.layers)
                * self.arch.layer_expert_params()
                * self.arch.experts_used()
                / self.arch.experts();
            let passes = if recompute_run == Recompute::Full {
                4.0
            } else {
                3.0
            };
            passes * per_pass * (self.routing.pace() - 1.0) * step_tokens
        } else {
            0.0
        };
        let hardware_flop = model_flop + recompute_token * step_tokens + routed;
        // FP8 runs the layers' matrix multiplies faster (`precision.rs`):
        // the arithmetic takes this share of its BF16 time.
        let fp8_share = self.numerics.time_share(
            model_token + recompute_token,
            fp8_flop_per_token(&self.arch, recompute_run).min(model_token + recompute_token),
        );
        let gpus = f64::from(self.gpus_used());
        let stretch = 1.0 / (1.0 - bubble).max(f64::MIN_POSITIVE);
        let links = &self.links;
        let ranks = self.gpus_used();
        let groups = [
            (
                Group::Tensor,
                tensor_traffic,
                link_of(links, ranks, (1, t.max(etp))),
            ),
            (
                Group::Context,
                context_traffic,
                link_of(links, ranks, (t, cp)),
            ),
            (Group::Experts, all_to_all, link_of(links, ranks, (etp, ep))),
            (
                Group::Pipeline,
                boundary,
                link_of(links, ranks, (t * cp * d, p)),
            ),
            (
                Group::Data,
                data_traffic,
                link_of(links, ranks, (t * cp, d)),
            ),
        ]
        .map(|(group, sent, link)| GroupTraffic { group, sent, link });
        let on = |link: Link| {
            groups
                .iter()
                .filter(|g| g.link == link)
                .fold(Bytes(0.0), |sum, g| sum + g.sent)
        };
        let seconds = |g: &GroupTraffic| g.sent.over(links.bandwidth(g.link)).value();
        let [tensor_group, context_group, experts_group, pipeline_group, data_group] = &groups;
        let beside = seconds(experts_group) + seconds(pipeline_group);
        let overlapped = matches!(self.schedule, Schedule::DualPipe | Schedule::DualPipeV);
        let exchange = |computing: f64| {
            let beside = if overlapped {
                (beside - computing).max(0.0)
            } else {
                beside
            };
            seconds(context_group) + beside
        };
        let reduction = seconds(data_group);
        let exposed =
            |computing: f64| exposed_reduction(self.stage, bytes, m, reduction, computing);
        let peak = gpus * self.rate.peak.value();
        // The slowest stage sets the pace: its share of the FLOP over the mean's.
        let pace = slowest_stage(&self.arch, &ranges, seq);
        // The step at `sustained` FLOP/s while computing: the one formula of
        // a step, which the rate for a published MFU is solved against too.
        // Each part is its FLOP over the rate, so that without recomputation
        // its part is exactly 0 (a split of the seconds left a part of 1e-16 s,
        // drawn in the bar and counted as DOM nodes).
        let breakdown_at = |sustained: f64| {
            let sustained = sustained.max(f64::MIN_POSITIVE) / fp8_share;
            // The model's FLOP and the experts' padding or wait, not recomputation.
            let compute = (model_flop + routed) * pace / sustained;
            let recompute = hardware_flop * pace / sustained - compute;
            let exchange = exchange(compute + recompute);
            let critical = seconds(tensor_group) + exchange;
            StepBreakdown {
                compute,
                recompute,
                tensor: seconds(tensor_group),
                exchange,
                bubble: (compute + recompute + critical) * (stretch - 1.0),
                data: exposed(compute + recompute),
            }
        };
        // Given the MFU over whole steps, the rate while busy is the one for
        // which the whole step, communication included, gives it.
        let busy_share = match self.step_mfu {
            Some(mfu) => {
                let step = model_flop / (peak * mfu.max(f64::MIN_POSITIVE));
                // The arithmetic's seconds at the rate asked, FP8 included.
                let work = hardware_flop * pace * fp8_share;
                let computing = computing_for_step(step, |c| {
                    breakdown_at(work / c.max(f64::MIN_POSITIVE)).total()
                });
                if computing > 0.0 {
                    (work / (peak * computing)).min(1.0)
                } else {
                    1.0
                }
            }
            None => self.rate.busy,
        };
        let breakdown = breakdown_at(peak * busy_share);
        let step = breakdown.total();
        let usable = self.problem().is_none();
        PlanEstimate {
            data: d,
            micro_batches: m,
            state,
            activations,
            total,
            peak_stage,
            // A layout that cannot run fits nowhere.
            state_fits: usable && fits(state.total(), self.usable_memory()),
            fits: usable && fits(total, self.usable_memory()),
            traffic: on(Link::NvLink) + on(Link::Network),
            nvlink_traffic: on(Link::NvLink),
            network_traffic: on(Link::Network),
            groups,
            all_to_all,
            context_traffic,
            bubble,
            step_flop: Flop(hardware_flop),
            step_time: Seconds(step),
            breakdown,
            tokens_per_gpu_per_second: step_tokens / step / gpus,
            train_time: Seconds(self.tokens / step_tokens * step),
            mfu: model_flop / (peak * step),
            busy: busy_share,
            pace,
            time_share: fp8_share,
        }
    }
}

/// The seconds of a step's data-parallel traffic (`reduction` seconds in
/// all, `micro_batches` m) that the arithmetic (`computing` seconds, its
/// backward pass two thirds of it) does not hide, by ZeRO stage:
///
/// - plain data parallelism and ZeRO-1 reduce once a step, in the last
///   micro-batch's backward pass (Megatron-LM's schedules keep gradient
///   synchronisation off until then, `schedules.py`; PyTorch DDP's
///   `no_sync`), bucket by bucket as it goes (Li et al. 2020, section
///   3.2.3): only that backward pass, 2/3 × computing / m, hides it;
/// - ZeRO-2 reduce-scatters each micro-batch's gradients during its own
///   backward pass: the whole backward pass hides them;
/// - ZeRO-3 also gathers the weights ahead of each forward pass (the
///   forward, a third of the arithmetic, hides that share, w/(2w + g) of
///   its bytes) and again in the backward pass with the gradients' reduction.
pub fn exposed_reduction(
    stage: ZeroStage,
    bytes: BytesPerParam,
    micro_batches: u32,
    reduction: f64,
    computing: f64,
) -> f64 {
    let backward = 2.0 / 3.0 * computing;
    match stage {
        ZeroStage::None | ZeroStage::One => {
            (reduction - backward / f64::from(micro_batches.max(1))).max(0.0)
        }
        ZeroStage::Two => (reduction - backward).max(0.0),
        ZeroStage::Three => {
            let w = bytes.gathered_weights;
            let forward = w / (2.0 * w + bytes.gradients);
            (reduction * forward - computing / 3.0).max(0.0)
                + (reduction * (1.0 - forward) - backward).max(0.0)
        }
    }
}

/// The arithmetic's seconds (`computing`) for which a step is `step`
/// seconds, `step_at(computing)` being the step ([`StepBreakdown::total`]);
/// 0 when the communication alone takes longer. The step never shrinks as
/// the arithmetic grows (the bubble's stretch is at least 1 and the hidden
/// traffic grows at most as fast), and it is at least the arithmetic, so
/// bisection on [0, step] finds it (to 2⁻⁶⁰ of the step).
pub fn computing_for_step(step: f64, step_at: impl Fn(f64) -> f64) -> f64 {
    if step_at(0.0) >= step {
        return 0.0;
    }
    let (mut low, mut high) = (0.0, step);
    for _ in 0..60 {
        let middle = 0.5 * (low + high);
        if step_at(middle) < step {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

/// A single change that would make a plan fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fix {
    /// Turn on selective or full recomputation.
    Recompute(Recompute),
    /// Move to this ZeRO stage.
    Stage(ZeroStage),
    /// Use this many GPUs (a multiple of t·p).
    Gpus(u32),
    /// Split each layer over this many GPUs of a node.
    Tensor(u32),
}

/// Memory a GPU keeps back from the training by default, 3 GB: the CUDA
/// context with PyTorch's kernels loaded (about 1 GB on an H100) and
/// NCCL's buffers (NCCL_BUFFSIZE, 4 MiB a channel a peer, a few hundred MB
/// across the communicators of a 3D layout), the rest for the caching
/// allocator's fragmentation. The seeds' verdicts hold with it: 70 GB of
/// ZeRO-3 state on 16 GPUs still fits 80 GB.
pub const DEFAULT_RESERVE: Bytes = Bytes(3e9);

/// The most GPUs the planner considers.
pub const MAX_GPUS: u32 = 65_536;

/// Each single change that makes a plan fit, smallest first: recomputation
/// (selective before full), then each later ZeRO stage, then the fewest GPUs.
pub fn fixes(plan: &Plan) -> Vec<Fix> {
    if plan.estimate().fits {
        return Vec::new();
    }
    let mut found = Vec::new();
    for recompute in [Recompute::Selective, Recompute::Full] {
        if recompute != plan.activations.recompute
            && more_recompute(recompute, plan.activations.recompute)
        {
            let changed = Plan {
                activations: ActivationSetup {
                    recompute,
                    ..plan.activations
                },
                ..*plan
            };
            if changed.estimate().fits {
                found.push(Fix::Recompute(recompute));
                break;
            }
        }
    }
    if let Some(stage) = ZeroStage::ALL
        .iter()
        .copied()
        .filter(|&s| s > plan.stage)
        .find(|&stage| Plan { stage, ..*plan }.estimate().fits)
    {
        found.push(Fix::Stage(stage));
    }
    if let Some(tensor) = [2, 4, 8]
        .into_iter()
        .filter(|&t| t > plan.tensor && Plan { tensor: t, ..*plan }.problem().is_none())
        .find(|&tensor| Plan { tensor, ..*plan }.estimate().fits)
    {
        found.push(Fix::Tensor(tensor));
    }
    if let Some(gpus) = fewest_gpus(plan) {
        found.push(Fix::Gpus(gpus));
    }
    found
}

fn more_recompute(candidate: Recompute, current: Recompute) -> bool {
    let rank = |r| match r {
        Recompute::None => 0,
        Recompute::Selective => 1,
        Recompute::Full => 2,
    };
    rank(candidate) > rank(current)
}

/// The fewest GPUs (a multiple of t·p, at most [`MAX_GPUS`]) at which the
/// plan fits, if any, with a data-parallel degree d that divides the batch
/// into whole micro-batches (B/b a multiple of d): a layout a run could use.
/// Memory a GPU never grows with d, so the first such d that fits is the answer.
pub fn fewest_gpus(plan: &Plan) -> Option<u32> {
    let group = plan.model_group();
    let max_data = (MAX_GPUS / group).max(1);
    let micro_batches = (plan.batch / plan.activations.micro_batch.max(1.0))
        .floor()
        .max(1.0) as u32;
    (1..=max_data.min(micro_batches))
        .filter(|d| {
            let stage_gpus = d * plan.tensor.max(1) * plan.context.max(1);
            micro_batches.is_multiple_of(*d)
                && stage_gpus.is_multiple_of(plan.expert_tensor() * plan.experts.max(1))
        })
        .map(|d| d * group)
        .find(|&gpus| Plan { gpus, ..*plan }.estimate().fits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;

    fn course_plan(stage: ZeroStage, gpus: u32) -> Plan {
        let arch = model_preset("llama2-70b").unwrap().arch;
        Plan {
            params: 70e9,
            arch,
            gpus,
            stage,
            tensor: 1,
            pipeline: 1,
            schedule: Schedule::OneFOneB,
            chunks: 1,
            activations: ActivationSetup {
                seq: f64::from(arch.seq),
                micro_batch: 1.0,
                tensor_parallel: 1,
                sequence_parallel: false,
                recompute: Recompute::None,
                attention: crate::model::activations::Attention::Flash,
            },
            batch: 1024.0,
            capacity: Bytes(80e9),
            reserve: DEFAULT_RESERVE,
            bytes: BytesPerParam::MIXED_PRECISION_ADAM,
            numerics: Numerics::default(),
            routing: Routing::EVEN,
            rate: Rate {
                peak: crate::model::units::FlopPerSecond(150e12),
                busy: 1.0,
            },
            step_mfu: None,
            flop: FlopCount::SixNd,
            tokens: 2e12,
            context: 1,
            experts: 1,
            expert_tensor: None,
            links: Links::of(&crate::model::presets::GPUS[0]),
        }
    }

    #[test]
    fn the_course_module_numbers() {
        assert_eq!(
            course_plan(ZeroStage::None, 8).estimate().state.total(),
            Bytes(1120e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 8).estimate().state.total(),
            Bytes(140e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 16).estimate().state.total(),
            Bytes(70e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 64).estimate().state.total(),
            Bytes(17.5e9)
        );
    }

    /// Without recomputation a step has no recomputation part, at any rate
    /// (a split of the seconds left one of about 1e-16 s at some rates, which
    /// the bar drew): each part is its own FLOP over the rate.
    #[test]
    fn no_recomputation_part_without_recomputation() {
        let plan = course_plan(ZeroStage::Three, 64);
        assert_eq!(plan.activations.recompute, Recompute::None);
        for hundredths in 1..=100 {
            let busy = f64::from(hundredths) / 100.0;
            let estimate = Plan {
                rate: Rate { busy, ..plan.rate },
                ..plan
            }
            .estimate();
            assert_eq!(estimate.breakdown.recompute, 0.0, "busy {busy}");
            let published = Plan {
                step_mfu: Some(busy),
                ..plan
            }
            .estimate();
            assert_eq!(published.breakdown.recompute, 0.0, "step-mfu {busy}");
        }
    }

    #[test]
    fn plain_data_parallelism_never_fits_and_zero_3_needs_more_gpus() {
        let plan = course_plan(ZeroStage::None, 8);
        // No single change rescues 1,120 GB: not recomputation, not ZeRO-3 at 8 GPUs, not more GPUs at stage 0.
        assert_eq!(fixes(&plan), []);
        assert_eq!(fewest_gpus(&plan), None);
        let zero3 = Plan {
            activations: ActivationSetup {
                recompute: Recompute::Full,
                ..plan.activations
            },
            ..course_plan(ZeroStage::Three, 8)
        };
        assert_eq!(fixes(&zero3), [Fix::Gpus(fewest_gpus(&zero3).unwrap())]);
        let fewest = fewest_gpus(&zero3).unwrap();
        assert!(
            Plan {
                gpus: fewest,
                ..zero3
            }
            .estimate()
            .fits
        );
        assert!(
            !Plan {
                gpus: fewest - 1,
                ..zero3
            }
            .estimate()
            .fits
        );
    }
}
