//! A GPU's whole memory at its peak: beyond the training state and the
//! activations a schedule holds (Megatron-LM's theoretical count), the
//! buffers alive at that moment, what the caching allocator reserves over
//! what it hands out, and what lives outside the allocator.
//!
//! Two numbers come of it, as a run reports them: the bytes allocated at
//! the peak (`torch.cuda.max_memory_allocated`) and the bytes reserved
//! (`torch.cuda.max_memory_reserved`, torchtitan's "Memory (GiB)", read
//! from `reserved_bytes.all.peak` in `torchtitan/metrics.py`), to which
//! `nvidia-smi` adds the CUDA context and NCCL's buffers. The peak is the
//! busiest of its moments ([`Moment`]), each buffer counted at the moment
//! it is alive, not all at once. Each buffer is
//! sized from the framework that allocates it; the allocator's share is a
//! factor fitted to torchtitan's measured runs (`measured.rs`).

use super::activations::{per_layer, ActivationSetup, Recompute, ACTIVATION_BYTES};
use super::memory::{BytesPerParam, ZeroStage};
use super::presets::Architecture;
use super::units::Bytes;

/// The buffers alive at a GPU's peak beside its state and its held
/// activations, at the busiest of its moments ([`Moment`]): those of the
/// other moments are 0.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Transients {
    /// The loss's FP32 buffers (the last stage only).
    pub loss: Bytes,
    /// The layer being recomputed, whole, under recomputation.
    pub recompute: Bytes,
    /// ZeRO-3's gathered weights, and ZeRO-2's and 3's gradients not yet reduce-scattered.
    pub sharding: Bytes,
    /// Sequence parallelism's gathered input to a layer's first matrices.
    pub sequence_gather: Bytes,
    /// The optimizer step's temporaries.
    pub optimizer: Bytes,
    /// What the pipeline's runtime keeps between stages at that moment
    /// ([`pipeline_buffers`]).
    pub pipeline: Bytes,
}

/// When a GPU's memory peaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Moment {
    /// The loss's backward pass, on the last stage: every held activation
    /// and the loss's FP32 buffers.
    #[default]
    Loss,
    /// A layer's backward pass: the layer recomputed, its gathers and its
    /// gradients whole.
    Layer,
    /// The optimizer's step: the activations gone, its temporaries made.
    OptimizerStep,
    /// The pipeline schedule's end, under torch's pipelining: the last
    /// stage's outputs copied into one to be returned ([`PipelineBuffers::merged`]).
    ScheduleEnd,
}

impl Transients {
    pub fn total(&self) -> Bytes {
        self.loss
            + self.recompute
            + self.sharding
            + self.sequence_gather
            + self.optimizer
            + self.pipeline
    }
}

/// How a pipeline's runtime holds what passes between its stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PipelineRuntime {
    /// Megatron-LM's schedules allocate a receive buffer as each tensor
    /// arrives (`p2p_communication.py`), pop each output at its backward
    /// pass and can free its data as soon as it is sent
    /// (`deallocate_output_tensor`, `megatron/core/pipeline_parallel/schedules.py`):
    /// nothing beyond the micro-batches in flight, which the activations count.
    #[default]
    Megatron,
    /// torch's pipelining (`torch.distributed.pipelining`) as of December
    /// 2024: each stage makes, once, a receive buffer for every
    /// micro-batch's input and another for its output's gradient
    /// (`_prepare_forward_infra`, `_prepare_backward_infra`: one
    /// `_make_tensor_from_meta` a micro-batch), and appends every forward's
    /// output to `output_chunks`, to merge the last stage's, clearing them
    /// only as the next step begins (`clear_runtime_states`,
    /// `torch/distributed/pipelining/stage.py`; pytorch/pytorch#153383,
    /// May 2025, kept only the last stage's outputs).
    Torch,
}

/// Where a GPU sits in its pipeline, for [`pipeline_buffers`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineSeat {
    /// Stages p, and micro-batches m a step.
    pub stages: u32,
    pub micro_batches: u32,
    /// The model's slices this GPU holds: v under the interleaved schedule, else 1.
    pub chunks: u32,
    /// It holds the slice that starts the model (the first GPU) or ends it (the last).
    pub first: bool,
    pub last: bool,
    /// Slices' micro-batches in flight at its peak, whose inputs the
    /// activations already count.
    pub in_flight: f64,
}

/// What a GPU keeps for what passes between pipeline stages, under one
/// runtime, at the moments of its peak ([`pipeline_buffers`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PipelineBuffers {
    /// Through the backward passes, beside the activations in flight.
    pub during: Bytes,
    /// Once every backward pass has run: the optimizer's step.
    pub after: Bytes,
    /// The copy the schedule's end makes of the last stage's outputs, to
    /// return them merged, beside `after`, before the optimizer runs.
    pub merged: Bytes,
}

/// What a GPU keeps for what passes between pipeline stages, under
/// `runtime` (nothing without a pipeline, or under Megatron-LM's). Under
/// torch's, for each slice and micro-batch: a receive buffer for its input
/// (but on the slice that starts the model) and, once its backward pass
/// has run, that buffer's gradient, which `torch.autograd.backward` leaves
/// on it until the next step (`stage_backward`, no `inputs=`;
/// pytorch/pytorch#164329, October 2025, frees it); a receive buffer for
/// its output's gradient (but on the slice that ends the model); and the
/// output itself. Through the backward passes the inputs of the
/// micro-batches in flight are the activations' own and their gradients
/// are not made yet (the slices' share of those in flight that receive
/// their input is taken as even). At the schedule's end the last stage
/// concatenates its outputs to return them (`merge_chunks`, a
/// `torch.cat`), which torchtitan drops at once. A hidden state between
/// stages is 2sbh bytes in BF16, split t ways under sequence parallelism
/// (torchtitan's tensor parallelism leaves a block's output sharded along
/// the sequence, `output_layouts=Shard(1)`); the output of the slice that
/// ends the model is the output layer's BF16 logits, 2sbV/t (the
/// vocabulary split t ways by its loss parallelism; BF16 since torchtitan
/// moved the upcast into the loss, pytorch/torchtitan#642).
pub fn pipeline_buffers(
    arch: &Architecture,
    setup: &ActivationSetup,
    runtime: PipelineRuntime,
    seat: PipelineSeat,
) -> PipelineBuffers {
    if runtime == PipelineRuntime::Megatron || seat.stages <= 1 {
        return PipelineBuffers::default();
    }
    let tokens = setup.seq * setup.micro_batch;
    let hidden = 2.0 * tokens * f64::from(arch.hidden) / setup.whole_divisor();
    let logits = 2.0 * tokens * f64::from(arch.vocab) / f64::from(setup.tensor_parallel.max(1));
    let (m, slices) = (
        f64::from(seat.micro_batches.max(1)),
        f64::from(seat.chunks.max(1)),
    );
    let end = |at_the_end: bool| if at_the_end { 1.0 } else { 0.0 };
    let receiving = slices - end(seat.first);
    let in_flight = seat.in_flight * receiving / slices;
    // Each slice but the model's last: its outputs and its output
    // gradients' buffers; the last: its logits.
    let always = (slices - end(seat.last)) * m * 2.0 * hidden + end(seat.last) * m * logits;
    let inputs_and_gradients = |in_flight: f64| 2.0 * (receiving * m - in_flight).max(0.0) * hidden;
    let after = Bytes(always + inputs_and_gradients(0.0));
    PipelineBuffers {
        during: Bytes(always + inputs_and_gradients(in_flight)),
        after,
        merged: Bytes(end(seat.last) * m * logits),
    }
}

/// The loss's buffers at its busiest moment, its backward pass, beyond the
/// FP32 log-probabilities the forward keeps
/// ([`loss_log_probabilities`](super::activations::loss_log_probabilities),
/// 4sbV/t), as torchtitan computes it: PyTorch's cross-entropy on the
/// logits upcast to FP32 (`pred.flatten(0, 1).float()`). With one GPU a
/// layer the backward writes the gradient of the log-probabilities and then
/// that of their input, each a new FP32 tensor of the logits' size
/// (`nll_loss_backward`, `_log_softmax_backward_data`): 8 bytes a logit.
/// Split over t GPUs (loss parallelism), DTensor's fused backward
/// (`_nll_loss_and_log_softmax_backward` in
/// `torch/distributed/tensor/parallel/loss.py`) computes `(grad_input +
/// exp(x)) * grad_output`: three FP32 tensors beside the kept one, 12
/// bytes. The vocabulary is split t ways. Megatron-LM's
/// vocabulary-parallel cross-entropy works in place and needs less; the
/// planner counts PyTorch's, the larger.
pub fn loss_buffers(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let t = f64::from(setup.tensor_parallel.max(1));
    let per_logit = if t > 1.0 { 12.0 } else { 8.0 };
    Bytes(per_logit * setup.seq * setup.micro_batch * f64::from(arch.vocab) / t)
}

/// The layer whose backward pass is running, its forward recomputed: its
/// whole activations less what recomputation kept of it (Korthikanti et
/// al. 2022, section 5: one layer's worth at a time). Nothing without
/// recomputation, which keeps them all already. Under sequence
/// parallelism the inputs of the attention's and the MLP's first matrices
/// are kept as gathered, the whole sequence (PyTorch's tensor parallelism
/// saves a matrix multiply's DTensor input as it ran, where Megatron-LM
/// saves the 1/t shard and gathers again): 2 × 2sbh less their shards.
pub fn recomputed_layer(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let whole = per_layer(
        arch,
        &ActivationSetup {
            recompute: Recompute::None,
            ..*setup
        },
    );
    let t = f64::from(setup.tensor_parallel.max(1));
    let gathered = if setup.sequence_parallel && t > 1.0 {
        2.0 * ACTIVATION_BYTES
            * setup.seq
            * setup.micro_batch
            * f64::from(arch.hidden)
            * (1.0 - 1.0 / t)
    } else {
        0.0
    };
    Bytes((whole.value() - per_layer(arch, setup).value()).max(0.0) + gathered)
}

/// Sequence parallelism's all-gather of a layer's normalised input before
/// its column-parallel matrices, the whole sequence in 2 bytes a value
/// (Korthikanti et al. 2022, section 4.2.2; Megatron-LM gathers into one
/// global buffer it reuses, `get_global_memory_buffer`): 2sbh, with t > 1.
pub fn sequence_gather(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    if setup.sequence_parallel && setup.tensor_parallel > 1 {
        Bytes(ACTIVATION_BYTES * setup.seq * setup.micro_batch * f64::from(arch.hidden))
    } else {
        Bytes(0.0)
    }
}

/// What the sharding of a GPU's slice holds whole while the loss runs, by
/// ZeRO stage, as PyTorch FSDP2 runs it (each layer a unit, the embedding,
/// final norm and output layer the root's; torchtitan's `apply_fsdp` in
/// `torchtitan/models/llama3/infra/parallelize.py`): under ZeRO-3 the root
/// stays gathered after the forward pass (FSDP2 never reshards the root
/// there) and so does the last layer (`reshard_after_forward` is off for
/// it), in the weights' format; no gradient exists yet. `layer` and `root`
/// are parameters on this GPU, after tensor parallelism.
pub fn sharding_at_the_loss(
    stage: ZeroStage,
    bytes: BytesPerParam,
    layer: f64,
    root: f64,
) -> Bytes {
    match stage {
        ZeroStage::Three => Bytes(bytes.gathered_weights * (layer + root)),
        _ => Bytes(0.0),
    }
}

/// What the sharding holds whole during a layer's backward pass: under
/// ZeRO-3 that layer's weights and the next one's, prefetched, beside the
/// root's, still gathered; under ZeRO-2 and 3 the layer's gradients whole
/// until they are reduce-scattered, in their own format and in FP32 for the
/// reduction (torchtitan's `mixed_precision_reduce` default; no copy when
/// they are written in FP32). Plain data parallelism and ZeRO-1 keep whole
/// gradients in the state already, and the distributed optimizer gathers
/// weights in place.
pub fn sharding_in_a_layer(stage: ZeroStage, bytes: BytesPerParam, layer: f64, root: f64) -> Bytes {
    let reduced_copy = if bytes.gradients < 4.0 { 4.0 } else { 0.0 };
    let unreduced = (bytes.gradients + reduced_copy) * layer;
    match stage {
        ZeroStage::None | ZeroStage::One => Bytes(0.0),
        ZeroStage::Two => Bytes(unreduced),
        ZeroStage::Three => Bytes(bytes.gathered_weights * (2.0 * layer + root) + unreduced),
    }
}

/// PyTorch's AdamW with `foreach` (its default on CUDA, and torchtitan's)
/// works on whole lists of tensors: the step's square root of the second
/// moments is a new FP32 list the size of the GPU's shard
/// (`_multi_tensor_adamw`, `torch._foreach_sqrt`), alive while the
/// activations are gone: 4 bytes for each parameter the GPU updates.
pub fn optimizer_temporaries(updated_params: f64) -> Bytes {
    Bytes(4.0 * updated_params)
}

/// The CUDA context of a process with PyTorch's kernels loaded lazily
/// (`CUDA_MODULE_LOADING=LAZY`, PyTorch's default since CUDA 11.7): an
/// allowance of 600 MB, outside the caching allocator, so in `nvidia-smi`
/// and not in `torch.cuda.memory_reserved`.
pub const CUDA_CONTEXT: Bytes = Bytes(600e6);

/// NCCL's buffers for one communicator: `NCCL_BUFFSIZE` (4 MiB by default,
/// NCCL's environment-variable documentation) for each of its channels, up
/// to 32 on Hopper's NVLink (`NCCL_MAX_NCHANNELS`), taken at 32: 128 MiB,
/// outside the caching allocator.
pub const NCCL_PER_COMMUNICATOR: Bytes = Bytes(32.0 * 4.0 * 1_048_576.0);

/// What lives outside the caching allocator on a GPU that belongs to
/// `communicators` NCCL communicators: the CUDA context and their buffers.
pub fn outside_allocator(communicators: u32) -> Bytes {
    CUDA_CONTEXT + NCCL_PER_COMMUNICATOR * f64::from(communicators)
}

/// What the caching allocator reserves over the peak allocation we count:
/// blocks split and cached for reuse, never returned mid-run (PyTorch's
/// CUDA caching allocator, "Memory management" in its CUDA semantics
/// notes), and with them what the planner does not count one tensor at a
/// time (the backward pass's gradient temporaries, eager PyTorch's extra
/// saved tensors). Fitted: 15%, the mean of measured over ours on
/// torchtitan's two runs whose setting the planner expresses whole, Llama
/// 3.1 8B on 8 and on 128 H100s (82.4 GiB against our 72.1, 67.0 against
/// 58.1: `measured.rs`, tested in `tests/measured_runs.rs`).
pub const ALLOCATOR_OVERHEAD: f64 = 0.15;

/// What the allocator reserves for a peak allocation of `peak`.
pub fn reserved_by_allocator(peak: Bytes) -> Bytes {
    peak * (1.0 + ALLOCATOR_OVERHEAD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::activations::{op_level_kept, Attention};
    use crate::model::presets::model_preset;

    fn setup(t: u32, sp: bool, recompute: Recompute, seq: f64, b: f64) -> ActivationSetup {
        ActivationSetup {
            seq,
            micro_batch: b,
            tensor_parallel: t,
            sequence_parallel: sp,
            recompute,
            attention: Attention::Flash,
            fp8_inputs: false,
            kept_share: 1.0,
        }
    }

    /// torchtitan's Llama 3.1 405B row on 8 stages, 1F1B, 8 micro-batches
    /// of 4 sequences of 8,192 over t = 8 with sequence parallelism: a
    /// hidden state between stages is 2 × 32,768 × 16,384 / 8 =
    /// 134,217,728 bytes, the logits 2 × 32,768 × 128,256 / 8 =
    /// 1,050,673,152. Stage 1, 7 micro-batches in flight: 8 outputs and 8
    /// output-gradient buffers, and one input buffer beyond those in
    /// flight with its gradient, 18 hidden states; after the backward
    /// passes all 8 inputs and their gradients, 32. The last stage, one in
    /// flight: 8 micro-batches' logits, 7 inputs and their gradients; after,
    /// 8 of each, and at the schedule's end the logits once more, merged.
    #[test]
    fn torchs_pipeline_keeps_a_buffer_a_micro_batch() {
        let arch = model_preset("llama3-405b").unwrap().arch;
        let setup = setup(8, true, Recompute::Full, 8192.0, 4.0);
        let seat = |first, last, in_flight| PipelineSeat {
            stages: 8,
            micro_batches: 8,
            chunks: 1,
            first,
            last,
            in_flight,
        };
        let (hidden, logits) = (134_217_728.0, 1_050_673_152.0);
        let torch = |seat| pipeline_buffers(&arch, &setup, PipelineRuntime::Torch, seat);
        let middle = torch(seat(false, false, 7.0));
        assert_eq!(
            (middle.during.value(), middle.after.value()),
            (18.0 * hidden, 32.0 * hidden)
        );
        assert_eq!(middle.merged.value(), 0.0);
        let last = torch(seat(false, true, 1.0));
        assert_eq!(last.during.value(), 8.0 * logits + 14.0 * hidden);
        assert_eq!(last.after.value(), 8.0 * logits + 16.0 * hidden);
        assert_eq!(last.merged.value(), 8.0 * logits);
        // The first stage receives no input: 8 outputs and 8 gradient buffers.
        assert_eq!(torch(seat(true, false, 8.0)).after.value(), 16.0 * hidden);
        // Megatron-LM's schedules keep none of it, and one stage is no pipeline.
        let megatron = pipeline_buffers(
            &arch,
            &setup,
            PipelineRuntime::Megatron,
            seat(false, false, 7.0),
        );
        assert_eq!(megatron, PipelineBuffers::default());
        let alone = PipelineSeat {
            stages: 1,
            ..seat(true, true, 1.0)
        };
        assert_eq!(torch(alone), PipelineBuffers::default());
    }

    /// Llama 3 70B's loss at torchtitan's local batch of 16 sequences of
    /// 8,192 over t = 8: 2.1e9 logits a GPU (16 × 8,192 × 128,256 / 8),
    /// 8.4 GB a FP32 copy; DTensor's fused backward holds three more FP32
    /// tensors beside the kept one, 12 bytes a logit, 25.2 GB. With one GPU a
    /// layer, the backward pass's two FP32 gradients, 8 bytes.
    #[test]
    fn the_loss_buffers_follow_pytorchs_cross_entropy() {
        let arch = model_preset("llama3-70b").unwrap().arch;
        let logits = 16.0 * 8192.0 * 128256.0 / 8.0;
        let split = loss_buffers(&arch, &setup(8, true, Recompute::Full, 8192.0, 16.0));
        assert_eq!(split.value(), 12.0 * logits);
        let whole = loss_buffers(&arch, &setup(1, false, Recompute::Full, 8192.0, 16.0));
        assert_eq!(whole.value(), 8.0 * logits * 8.0);
    }

    /// torchtitan's op-level policy on Llama 3 8B (h 4,096, 8 K/V heads of
    /// 128, f 14,336, 32 heads): the input, the query, the value, the
    /// attention output, the gate and the down projection, 2 bytes each,
    /// and the log-sum-exp, 4 bytes a head: 2(4h + 1,024 + f) + 4·32 =
    /// 63,616 bytes a token a layer.
    #[test]
    fn op_level_checkpointing_keeps_every_other_matrix_multiply() {
        let arch = model_preset("llama3-8b").unwrap().arch;
        let kept = op_level_kept(&arch, &setup(1, false, Recompute::Op, 8192.0, 2.0));
        assert_eq!(kept.value(), 63_616.0 * 8192.0 * 2.0);
        assert_eq!(
            per_layer(&arch, &setup(1, false, Recompute::Op, 8192.0, 2.0)),
            kept
        );
    }

    /// Full recomputation's layer in its backward pass: whole again, less
    /// the 2sbh input it kept; under sequence parallelism its two gathered
    /// inputs too, 2 × 2sbh × (1 − 1/t).
    #[test]
    fn the_recomputed_layer_is_whole_again() {
        let arch = model_preset("llama3-70b").unwrap().arch;
        let (s, b, h) = (8192.0, 1.0, 8192.0);
        let plain = setup(1, false, Recompute::Full, s, b);
        let whole = per_layer(
            &arch,
            &ActivationSetup {
                recompute: Recompute::None,
                ..plain
            },
        );
        assert_eq!(
            recomputed_layer(&arch, &plain).value(),
            whole.value() - 2.0 * s * b * h
        );
        let split = setup(8, true, Recompute::Full, s, b);
        let whole = per_layer(
            &arch,
            &ActivationSetup {
                recompute: Recompute::None,
                ..split
            },
        );
        let expected = whole.value() - 2.0 * s * b * h / 8.0 + 4.0 * s * b * h * (7.0 / 8.0);
        assert!((recomputed_layer(&arch, &split).value() / expected - 1.0).abs() < 1e-12);
        assert_eq!(
            recomputed_layer(&arch, &setup(1, false, Recompute::None, s, b)).value(),
            0.0
        );
    }

    /// ZeRO-3 at 16 bytes a parameter (2-byte weights and gradients): at
    /// the loss the root and the last layer gathered, 2(R + L); in a layer's
    /// backward two layers and the root gathered, 2(2L + R), and the layer's
    /// gradients whole with their FP32 copy, 6L; ZeRO-2 only the latter; 18
    /// bytes (FP32 gradients) need no copy; ZeRO-1 nothing.
    #[test]
    fn sharding_holds_units_whole_for_a_moment() {
        let adam = BytesPerParam::MIXED_PRECISION_ADAM;
        let (layer, root) = (218e6, 1.05e9);
        assert_eq!(
            sharding_at_the_loss(ZeroStage::Three, adam, layer, root).value(),
            2.0 * (layer + root)
        );
        assert_eq!(
            sharding_at_the_loss(ZeroStage::Two, adam, layer, root).value(),
            0.0
        );
        assert_eq!(
            sharding_in_a_layer(ZeroStage::Three, adam, layer, root).value(),
            2.0 * (2.0 * layer + root) + 6.0 * layer
        );
        assert_eq!(
            sharding_in_a_layer(ZeroStage::Two, adam, layer, root).value(),
            6.0 * layer
        );
        let fp32 = BytesPerParam {
            gradients: 4.0,
            ..adam
        };
        assert_eq!(
            sharding_in_a_layer(ZeroStage::Two, fp32, layer, root).value(),
            4.0 * layer
        );
        assert_eq!(
            sharding_in_a_layer(ZeroStage::One, adam, layer, root).value(),
            0.0
        );
    }

    /// Outside the allocator: the 600 MB context and 32 channels of 4 MiB
    /// a communicator.
    #[test]
    fn nccl_buffers_count_by_communicator() {
        assert_eq!(outside_allocator(0), CUDA_CONTEXT);
        assert_eq!(
            outside_allocator(3).value(),
            600e6 + 3.0 * 32.0 * 4.0 * 1_048_576.0
        );
    }
}
