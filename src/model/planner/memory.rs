//! The planner's memory: the training state and the activations of each
//! pipeline stage's GPUs, and which of them holds the most.
//!
//! As Megatron-LM's theoretical memory report counts it
//! (`megatron/training/theoretical_memory_usage.py`): the training state of
//! a stage's slice (the first holds the input embedding, the last the final
//! norm and the output layer), split t ways (experts etp·ep ways) and
//! sharded by ZeRO over the GPUs holding the same slice (Rajbhandari et al.
//! 2020); plus the activations of the micro-batches its schedule keeps in
//! flight (`activations.rs`), each 1/cp of the sequence, checked stage by
//! stage, since stages that do not divide the layers leave the ends lighter
//! (`pipeline::stage_layers`). Beyond that count, each stage's GPU at its
//! peak also holds the buffers alive then, and the allocator reserves more
//! than it hands out (`peak_memory.rs`): [`PeakMemory`].

use super::Plan;
use crate::model::activations::{
    in_flight_at, loss_log_probabilities, stage_activations, ActivationSetup, Recompute,
};
use crate::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use crate::model::peak_memory::{
    loss_buffers, optimizer_temporaries, outside_allocator, pipeline_buffers, recomputed_layer,
    reserved_by_allocator, sequence_gather, sharding_at_the_loss, sharding_in_a_layer, Moment,
    PipelineSeat, Transients,
};
use crate::model::pipeline::{parameter_copies, Schedule};
use crate::model::presets::Architecture;
use crate::model::units::Bytes;

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

/// The fullest GPU's memory at its peak, part by part.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PeakMemory {
    /// Its pipeline stage, from 0.
    pub stage: u32,
    /// When its memory peaks.
    pub moment: Moment,
    pub state: TrainingState,
    /// The activations its schedule holds then.
    pub activations: Bytes,
    /// The buffers alive then.
    pub transients: Transients,
    /// Bytes allocated at the peak: the state, the activations and the
    /// buffers of the busiest moment (`peak-memory`).
    pub allocated: Bytes,
    /// What the caching allocator reserves beyond `allocated`.
    pub allocator: Bytes,
    /// The CUDA context and NCCL's buffers, outside the allocator.
    pub outside: Bytes,
}

impl PeakMemory {
    /// What the allocator reserves: what `torch.cuda.max_memory_reserved`
    /// reports, and torchtitan's logs.
    pub fn allocator_reserved(&self) -> Bytes {
        self.allocated + self.allocator
    }

    /// What `nvidia-smi` shows: the allocator's reservation and what lives
    /// outside it (`reserved-memory`).
    pub fn reserved(&self) -> Bytes {
        self.allocator_reserved() + self.outside
    }

    /// What the GPU must have for the run: the peak allocation and what
    /// lives outside the allocator. The allocator's cache is not needed:
    /// when an allocation fails it frees its cached blocks and tries again
    /// (`num_alloc_retries`, PyTorch's CUDA caching allocator), so a run
    /// whose reservation would pass the capacity on a roomy GPU still runs,
    /// more slowly; `reserve` is the margin kept for what cannot be freed.
    pub fn needed(&self) -> Bytes {
        self.allocated + self.outside
    }
}

/// The memory of a plan's GPUs: what the traffic and the step read next.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanMemory {
    /// The parameters on one GPU of the stage that holds the most.
    pub loaded: StageShare,
    /// The most loaded GPU's training state (that stage's).
    pub state: TrainingState,
    /// The first stage's activations.
    pub activations: Bytes,
    /// State and activations of the GPU that holds the most (any stage).
    pub total: Bytes,
    /// Its stage, from 0: the first unless the ends are lighter.
    pub peak_stage: u32,
    /// The GPU whose whole memory peaks highest, buffers included.
    pub peak: PeakMemory,
}

impl Plan {
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

    /// The training state of `share`, sharded by ZeRO over the GPUs holding
    /// the same slice: d·cp for the dense part, t·cp·d/(etp·ep) for the
    /// experts ([`Plan::shards`]).
    pub fn state_of(&self, share: StageShare) -> TrainingState {
        self.state_sharded(share, self.state_bytes(), self.shards())
    }

    /// [`Plan::state_of`] with the bytes a parameter and the shards given,
    /// as the memory's pass over the stages works them out once.
    fn state_sharded(
        &self,
        share: StageShare,
        bytes: BytesPerParam,
        (replicas, expert_replicas): (u32, u32),
    ) -> TrainingState {
        TrainingState::zero(share.dense, bytes, self.stage, replicas)
            + TrainingState::zero(share.experts, bytes, self.stage, expert_replicas)
    }

    /// Each stage's state and activations, and the GPU that holds the most.
    pub fn memory(&self) -> PlanMemory {
        let setup = self.activation_setup();
        let m = self.micro_batches();
        let p = self.pipeline.max(1);
        let ranges = self.stage_ranges();
        let whole_plan = WholePlan::of(self, setup);
        // Each stage's parameters and activations, in one pass with no list
        // kept (the layout search and the fixes run this thousands of times
        // a change): the most loaded GPU may be on any stage when the ends
        // are lighter, or hold more micro-batches in flight.
        let mut first = Bytes(0.0);
        let (mut peak_stage, mut total) = (0, Bytes(0.0));
        let mut loaded = StageShare::default();
        let mut peak = PeakMemory::default();
        for (range, stage) in ranges.iter().zip(0..) {
            let held = stage_activations(
                &self.arch,
                &setup,
                (p, stage),
                self.schedule,
                m,
                self.chunks,
                range.end - range.start,
            );
            let share = self.stage_share(&ranges, stage);
            if stage == 0 {
                first = held;
            }
            let state = self.state_sharded(share, whole_plan.bytes, whole_plan.shards);
            let whole = state.total() + held;
            if whole.value() > total.value() {
                (peak_stage, total) = (stage, whole);
            }
            // The stage with the most parameters, as `loaded_stage` finds it
            // (`max_by`: the last of equals).
            if share.total() >= loaded.total() {
                loaded = share;
            }
            let in_flight = in_flight_at(self.schedule, p, m, self.chunks, stage);
            let this = self.peak_of(
                &whole_plan,
                &ranges,
                (stage, share, state),
                (held, in_flight),
            );
            if this.needed().value() > peak.needed().value() {
                peak = this;
            }
        }
        PlanMemory {
            peak,
            loaded,
            state: self.state_of(loaded),
            // The first stage's, as the `activations` readout.
            activations: first,
            total,
            peak_stage,
        }
    }

    /// One stage's GPU at its peak: its parameters (`share`) and their
    /// `state`, the activations it holds (`held`, of `in_flight`
    /// micro-batches of its whole stage) and the buffers of `peak_memory.rs`.
    fn peak_of(
        &self,
        plan: &WholePlan,
        ranges: &[std::ops::Range<u32>],
        (stage, share, state): (u32, StageShare, TrainingState),
        (held, in_flight): (Bytes, f64),
    ) -> PeakMemory {
        let last = stage + 1 >= ranges.len() as u32;
        // The root's parameters on this GPU, and a layer's: the stage's less the root's, a layer each.
        let t = f64::from(self.tensor.max(1));
        let mut root = 0.0;
        if stage == 0 {
            root += self.arch.input_embedding_params() / t;
        }
        if last {
            root += self.arch.output_params(ranges.len() as u32) / t;
        }
        root *= plan.scale;
        let layers = ranges
            .get(stage as usize)
            .map_or(1, |range| (range.end - range.start).max(1));
        let layer = (share.total() - root).max(0.0) / f64::from(layers);
        let bytes = plan.bytes;
        // What the pipeline's runtime keeps between stages, through the
        // backward passes and after them.
        let chunks = plan.chunks_on_a_gpu;
        let pipeline = pipeline_buffers(
            &self.arch,
            &plan.setup,
            self.pipeline_runtime,
            PipelineSeat {
                stages: ranges.len() as u32,
                micro_batches: plan.micro_batches,
                chunks,
                first: stage == 0,
                last,
                in_flight: in_flight * f64::from(chunks),
            },
        );
        // Four moments, whichever holds the most (`peak_memory::Moment`).
        // The loss, on the last stage: every held activation and its buffers.
        let at_loss = last.then(|| Transients {
            loss: plan.loss,
            sharding: sharding_at_the_loss(self.stage, bytes, layer, root),
            pipeline: pipeline.during,
            ..Transients::default()
        });
        // A layer's backward pass: the loss's log-probabilities are gone.
        let in_a_layer = Transients {
            recompute: plan.recompute,
            sharding: sharding_in_a_layer(self.stage, bytes, layer, root),
            sequence_gather: plan.sequence_gather,
            pipeline: pipeline.during,
            ..Transients::default()
        };
        let layer_held = if last {
            Bytes((held.value() - plan.log_probabilities.value()).max(0.0))
        } else {
            held
        };
        // The optimizer updates the GPU's shard once ZeRO shards its state.
        let (replicas, expert_replicas) = plan.shards;
        let updated = if self.stage >= ZeroStage::One {
            share.dense / f64::from(replicas) + share.experts / f64::from(expert_replicas)
        } else {
            share.total()
        };
        let step = optimizer_temporaries(updated);
        let optimizer = Transients {
            optimizer: step,
            pipeline: pipeline.after,
            ..Transients::default()
        };
        // The schedule's end, before the optimizer: the outputs merged.
        let schedule_end = Transients {
            pipeline: pipeline.after + pipeline.merged,
            ..Transients::default()
        };
        let (moment, activations, transients) = [
            Some((Moment::Layer, layer_held, in_a_layer)),
            Some((Moment::OptimizerStep, Bytes(0.0), optimizer)),
            Some((Moment::ScheduleEnd, Bytes(0.0), schedule_end)),
            at_loss.map(|at_loss| (Moment::Loss, held, at_loss)),
        ]
        .into_iter()
        .flatten()
        .max_by(|a, b| {
            (a.1 + a.2.total())
                .value()
                .total_cmp(&(b.1 + b.2.total()).value())
        })
        .unwrap_or_default();
        let allocated = state.total() + activations + transients.total();
        PeakMemory {
            stage,
            moment,
            state,
            activations,
            transients,
            allocated,
            allocator: Bytes(reserved_by_allocator(allocated).value() - allocated.value()),
            outside: plan.outside,
        }
    }

    /// The NCCL communicators a GPU belongs to: one for each of its groups
    /// of more than one GPU (tensor, context, experts, pipeline, data).
    pub fn communicators(&self) -> u32 {
        [
            self.tensor,
            self.context,
            self.experts,
            self.pipeline,
            self.data_parallel(),
        ]
        .into_iter()
        .filter(|&size| size > 1)
        .count() as u32
    }
}

/// What every stage of a plan shares in its memory, worked out once for
/// the pass over the stages (the layout search runs it for each of
/// thousands of layouts): the bytes a parameter, ZeRO's shards, the
/// parameter count's scale to the architecture's, and the buffers that
/// depend only on the model and the micro-batch.
struct WholePlan {
    setup: ActivationSetup,
    micro_batches: u32,
    /// The model's slices a GPU holds: v under the interleaved schedule.
    chunks_on_a_gpu: u32,
    bytes: BytesPerParam,
    shards: (u32, u32),
    scale: f64,
    loss: Bytes,
    log_probabilities: Bytes,
    recompute: Bytes,
    sequence_gather: Bytes,
    outside: Bytes,
}

impl WholePlan {
    fn of(plan: &Plan, setup: ActivationSetup) -> Self {
        let arch = &plan.arch;
        Self {
            setup,
            micro_batches: plan.micro_batches(),
            chunks_on_a_gpu: if plan.schedule == Schedule::Interleaved {
                plan.chunks
            } else {
                parameter_copies(plan.schedule)
            },
            bytes: plan.state_bytes(),
            shards: plan.shards(),
            scale: plan.params / arch.exact_parameter_count(),
            loss: loss_buffers(arch, &setup),
            log_probabilities: loss_log_probabilities(arch, &setup),
            recompute: if setup.recompute_run() == Recompute::None {
                Bytes(0.0)
            } else {
                recomputed_layer(arch, &setup)
            },
            sequence_gather: sequence_gather(arch, &setup),
            outside: outside_allocator(plan.communicators()),
        }
    }
}
