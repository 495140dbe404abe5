//! DeepSpeed's `ds_config` JSON (`docs/_pages/config-json.md` and
//! `deepspeed/runtime/config.py` in deepspeedai/DeepSpeed), with the
//! flags Megatron-DeepSpeed takes the tensor and pipeline degrees by
//! (deepspeedai/Megatron-DeepSpeed, `megatron/arguments.py`): DeepSpeed's
//! JSON has no key for either.
//!
//! DeepSpeed checks `train_batch_size = train_micro_batch_size_per_gpu ×
//! gradient_accumulation_steps × the data-parallel size` (`config.py`),
//! and its pipeline engine runs `gradient_accumulation_steps` micro-batches
//! a step: the planner's m. Megatron-DeepSpeed checks the zero-bubble
//! schedule's flag and the pipeline's in `validate_args` (read at
//! deepspeedai/Megatron-DeepSpeed 207b2d5).

use super::{torchrun, Command, Launch, Layout, Part};
use crate::model::activations::Recompute;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::precision::Precision;
use crate::model::presets::{Mlp, Norm};

const WRITTEN_FOR: &str =
    "DeepSpeed 0.18 (docs/_pages/config-json.md) with Megatron-DeepSpeed's flags";

/// The JSON, indented as DeepSpeed's documentation writes it.
fn config(layout: &Layout) -> String {
    let stage = layout.stage() as u8;
    let mut zero = format!("\"stage\": {stage}");
    if stage > 0 {
        zero.push_str(", \"overlap_comm\": true");
    }
    format!(
        "{{\n  \"train_batch_size\": {},\n  \"train_micro_batch_size_per_gpu\": {},\n  \"gradient_accumulation_steps\": {},\n  \"bf16\": {{ \"enabled\": true }},\n  \"zero_optimization\": {{ {zero} }}\n}}",
        layout.global_batch, layout.micro_batch, layout.micro_batches
    )
}

/// The ds_config and Megatron-DeepSpeed's flags for the plan.
pub(super) fn write(layout: &Layout, launch: &mut Launch) {
    launch.written_for = WRITTEN_FOR.to_string();
    launch.parts.push(Part {
        name: "ds_config.json".to_string(),
        text: config(layout),
    });
    let mut command = Command::new(torchrun(layout.world, "pretrain_gpt.py"));
    for flag in shape(layout) {
        command.push(flag);
    }
    command.push(format!("--tensor-model-parallel-size {}", layout.t));
    if layout.p > 1 {
        command.push(format!("--pipeline-model-parallel-size {}", layout.p));
    } else {
        command.push("--no-pipeline-parallel");
    }
    command.push(format!("--micro-batch-size {}", layout.micro_batch));
    command.push(format!("--global-batch-size {}", layout.global_batch));
    command.push(format!("--seq-length {}", layout.seq));
    // DeepSpeed's sequence parallelism is Ulysses' (`--ds-sequence-parallel-size`,
    // which "cannot be combined with --sequence-parallel"): the plan's cp
    // GPUs a sequence, so that the data-parallel size, world / (t·p·cp), is
    // the one the JSON's batch is for.
    if layout.cp > 1 {
        command.push(format!("--ds-sequence-parallel-size {}", layout.cp));
    } else if layout.sequence_parallel() {
        command.push("--sequence-parallel");
    }
    // DeepSpeed's recomputation still reads the older flag (`arguments.py`:
    // "DeepSpeed still relies on the old activation checkpointing mechanism").
    if layout.recompute() == Recompute::Full {
        command.push("--checkpoint-activations");
    }
    let zero_bubble = layout.schedule() == Schedule::ZeroBubbleH1;
    if zero_bubble {
        command.push("--enable-zbh1-pipeline");
    }
    command.push(format!("--zero-stage {}", layout.stage() as u8));
    command.push("--bf16");
    command.push("--deepspeed");
    command.push("--deepspeed_config ds_config.json");
    launch.parts.push(Part {
        name: "Megatron-DeepSpeed's command line".to_string(),
        text: command.text(),
    });
    launch.unsaid.extend(unsaid(layout));
    // p = 1 is written as --no-pipeline-parallel: no pipeline engine.
    launch
        .refusals
        .extend(refusals(layout.p > 1, layout.stage()));
    if zero_bubble && layout.sequence_parallel() {
        launch.refusals.push(
            "Sequence Parallel not tested, proceed at own will by removing this line".to_string(),
        );
    }
}

/// DeepSpeed's refusal of a ZeRO `stage` under its pipeline engine
/// (`runtime/pipe/engine.py`), which Megatron-DeepSpeed runs whenever
/// `--no-pipeline-parallel` is not given, one stage or many
/// (`pretrain_gpt.py`: `GPTModelPipe` unless `args.no_pipeline_parallel`).
pub(super) fn refusals(pipeline_engine: bool, stage: ZeroStage) -> Vec<String> {
    if pipeline_engine && matches!(stage, ZeroStage::Two | ZeroStage::Three) {
        vec!["ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism".to_string()]
    } else {
        Vec::new()
    }
}

/// The model's shape in Megatron-DeepSpeed's flags (`_add_network_size_args`
/// and `_add_regularization_args` of its `megatron/arguments.py`, which
/// require the layers, width, heads and positions).
fn shape(layout: &Layout) -> Vec<String> {
    let arch = layout.plan().arch;
    let mut flags = vec![
        format!("--num-layers {}", arch.layers),
        format!("--hidden-size {}", arch.hidden),
        format!("--ffn-hidden-size {}", arch.ffn),
        format!("--num-attention-heads {}", arch.heads),
    ];
    if arch.kv_heads < arch.heads {
        flags.push(format!("--num-key-value-heads {}", arch.kv_heads));
    }
    flags.push(format!("--max-position-embeddings {}", layout.seq));
    if arch.mlp == Mlp::SwiGlu {
        flags.push("--swiglu".into());
    }
    if arch.norm == Norm::RmsNorm {
        flags.push("--normalization rmsnorm".into());
    }
    if !arch.biases {
        flags.push("--disable-bias-linear".into());
    }
    if !arch.tied_embeddings {
        flags.push("--untie-embeddings-and-output-weights".into());
    }
    if !arch.learned_positions {
        flags.push("--use-rotary-position-embeddings".into());
        flags.push("--no-position-embedding".into());
    }
    if !arch.dropout {
        flags.push("--attention-dropout 0".into());
        flags.push("--hidden-dropout 0".into());
    }
    flags
}

/// What of the plan DeepSpeed cannot take, in words.
fn unsaid(layout: &Layout) -> Vec<String> {
    let mut unsaid = Vec::new();
    if layout.cp > 1 {
        unsaid.push(format!(
            "DeepSpeed has no ring context parallelism: the sequence over {} GPUs is written as Ulysses' (--ds-sequence-parallel-size), which splits each sequence as the ring does but exchanges it by all-to-alls over the attention heads, not by passing K and V around a ring: the planner's traffic is not its.",
            layout.cp
        ));
    }
    if layout.experts() > 1 {
        unsaid.push("DeepSpeed's experts are laid out in the model's code (its MoE layer's ep_size), not in this JSON.".to_string());
    }
    if !matches!(
        layout.schedule(),
        Schedule::OneFOneB | Schedule::ZeroBubbleH1
    ) {
        unsaid.push(format!(
            "DeepSpeed's pipeline runs its own 1F1B-like schedule: {} is not written.",
            crate::model::choice::Choice::label(layout.schedule())
        ));
    }
    if matches!(layout.precision(), Precision::Fp8 | Precision::Fp8Primary) {
        unsaid.push("DeepSpeed's JSON has no FP8: it comes from TransformerEngine's layers in the model's code.".to_string());
    }
    if layout.bf16_moments() {
        unsaid.push("BF16 moments are not written: DeepSpeed's bf16_optimizer_states also keeps the master weights in BF16, a smaller state than the planner's FP32 master weights.".to_string());
    }
    match layout.recompute() {
        Recompute::Selective | Recompute::Op => unsaid.push(
            "Only full recomputation is written: which parts of a layer DeepSpeed recomputes is the model's code.".to_string(),
        ),
        Recompute::None | Recompute::Full => {}
    }
    unsaid
}
