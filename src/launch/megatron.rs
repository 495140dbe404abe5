//! Megatron-LM's command line, and the Megatron-Core settings it shares
//! with Megatron-Bridge (`bridge.rs`), read at NVIDIA/Megatron-LM 43af4b4
//! (2026): `megatron/training/arguments.py` makes a flag of each field of
//! Megatron-Core's dataclasses, `"--" + name.replace("_", "-")` unless the
//! field names its own (`megatron/training/argument_utils.py`); Bridge
//! overrides the same fields as `section.field=value`. The fields are in
//! `megatron/core/model_parallel_config.py` (the parallel sizes,
//! `sequence_parallel`, `bf16`), `megatron/core/transformer/transformer_config.py`
//! (the shape, recomputation, `--fp8-format`) and
//! `megatron/training/config/training_config.py` (the batch).

use super::{grouped, uneven_split, Command, Launch, Layout, Part};
use crate::model::activations::Recompute;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::precision::Precision;
use crate::model::presets::{Mlp, Norm};

const WRITTEN_FOR: &str =
    "Megatron-LM as of 2026 (megatron/training/arguments.py at NVIDIA/Megatron-LM 43af4b4)";

/// One Megatron-Core setting: Megatron-LM's flag (with its value, or a
/// switch, `None` where it writes nothing for this value) and Bridge's key
/// and value (`None` where a recipe's model sets it).
pub(super) struct Setting {
    pub flag: Option<(&'static str, Option<String>)>,
    pub key: Option<(&'static str, String)>,
}

/// A setting both spell with a value.
fn valued(flag: &'static str, key: &'static str, value: impl ToString) -> Setting {
    let value = value.to_string();
    Setting {
        flag: Some((flag, Some(value.clone()))),
        key: Some((key, value)),
    }
}

/// A boolean: Megatron-LM's switch is written when it is `on`, Bridge's key always.
fn switch(flag: &'static str, key: &'static str, on: bool) -> Setting {
    Setting {
        flag: on.then_some((flag, None)),
        key: Some((key, on.to_string())),
    }
}

/// A moment's format: Megatron-LM reads `bf16` (`arguments.py`'s
/// `dtype_map`); Bridge sets the field's `torch.dtype` by its name in
/// torch, and keeps any other word as a string (`omegaconf_utils.py`).
fn bf16_dtype(flag: &'static str, key: &'static str) -> Setting {
    Setting {
        flag: Some((flag, Some("bf16".into()))),
        key: Some((key, "torch.bfloat16".into())),
    }
}

/// A flag Megatron-LM alone has.
fn flag(flag: &'static str, value: Option<String>) -> Setting {
    Setting {
        flag: Some((flag, value)),
        key: None,
    }
}

/// A key Bridge alone writes.
fn key(key: &'static str, value: impl ToString) -> Setting {
    Setting {
        flag: None,
        key: Some((key, value.to_string())),
    }
}

/// The plan's Megatron-Core settings, in the order a reader checks them:
/// the model's shape, the parallel sizes, the batch, recomputation, the
/// sharding and the number formats.
pub(super) fn settings(layout: &Layout) -> Vec<Setting> {
    let arch = layout.plan().arch;
    let mut all = vec![
        valued("--num-layers", "model.num_layers", arch.layers),
        valued("--hidden-size", "model.hidden_size", arch.hidden),
        valued(
            "--ffn-hidden-size",
            "model.ffn_hidden_size",
            if arch.dense_layers > 0 {
                arch.dense_ffn
            } else {
                arch.ffn
            },
        ),
        valued(
            "--num-attention-heads",
            "model.num_attention_heads",
            arch.heads,
        ),
    ];
    if arch.mla.is_none() && arch.kv_heads < arch.heads {
        all.push(flag("--group-query-attention", None));
        all.push(valued(
            "--num-query-groups",
            "model.num_query_groups",
            arch.kv_heads,
        ));
    }
    if arch.experts > 1 {
        all.push(valued(
            "--num-experts",
            "model.num_moe_experts",
            arch.experts,
        ));
        all.push(valued(
            "--moe-router-topk",
            "model.moe_router_topk",
            arch.top_k,
        ));
        all.push(valued(
            "--moe-ffn-hidden-size",
            "model.moe_ffn_hidden_size",
            arch.ffn,
        ));
    }
    // What a recipe's model sets for Bridge, Megatron-LM takes as flags:
    // its defaults are GPT's (GELU, LayerNorm, biases, tied embeddings,
    // learned positions, dropout 0.1).
    if arch.mlp == Mlp::SwiGlu {
        all.push(flag("--swiglu", None));
    }
    if arch.norm == Norm::RmsNorm {
        all.push(flag("--normalization", Some("RMSNorm".into())));
    }
    if !arch.biases {
        all.push(flag("--disable-bias-linear", None));
    }
    if !arch.tied_embeddings {
        all.push(flag("--untie-embeddings-and-output-weights", None));
    }
    if !arch.learned_positions {
        all.push(flag("--position-embedding-type", Some("rope".into())));
    }
    if !arch.dropout {
        all.push(flag("--attention-dropout", Some("0.0".into())));
        all.push(flag("--hidden-dropout", Some("0.0".into())));
    }
    all.extend([
        valued("--seq-length", "model.seq_length", layout.seq),
        // Bridge checks that the dataset's length is the model's.
        key("dataset.seq_length", layout.seq),
        flag("--max-position-embeddings", Some(layout.seq.to_string())),
        valued(
            "--tensor-model-parallel-size",
            "model.tensor_model_parallel_size",
            layout.t,
        ),
        valued(
            "--pipeline-model-parallel-size",
            "model.pipeline_model_parallel_size",
            layout.p,
        ),
    ]);
    // Megatron-LM has no flag for the field itself: it derives it from one
    // of three spellings, of which chunks a GPU is the one uneven stages need.
    all.push(Setting {
        flag: (layout.chunks > 1).then(|| {
            (
                "--num-virtual-stages-per-pipeline-rank",
                Some(layout.chunks.to_string()),
            )
        }),
        key: Some((
            "model.virtual_pipeline_model_parallel_size",
            if layout.chunks > 1 {
                layout.chunks.to_string()
            } else {
                "null".into()
            },
        )),
    });
    all.push(valued(
        "--context-parallel-size",
        "model.context_parallel_size",
        layout.cp,
    ));
    if arch.experts > 1 {
        all.push(valued(
            "--expert-model-parallel-size",
            "model.expert_model_parallel_size",
            layout.ep,
        ));
        all.push(valued(
            "--expert-tensor-parallel-size",
            "model.expert_tensor_parallel_size",
            layout.plan().expert_tensor(),
        ));
    }
    all.push(switch(
        "--sequence-parallel",
        "model.sequence_parallel",
        layout.sequence_parallel(),
    ));
    all.push(valued(
        "--micro-batch-size",
        "train.micro_batch_size",
        layout.micro_batch,
    ));
    all.push(valued(
        "--global-batch-size",
        "train.global_batch_size",
        layout.global_batch,
    ));
    all.extend(recomputation(layout.recompute()));
    all.extend(sharding(layout));
    all.push(flag("--bf16", None));
    if matches!(layout.precision(), Precision::Fp8 | Precision::Fp8Primary) {
        all.push(flag("--fp8-format", Some("hybrid".into())));
    }
    if layout.precision() == Precision::Fp8Primary {
        all.push(flag("--fp8-param-gather", None));
    }
    if layout.bf16_moments() {
        all.extend([
            switch(
                "--use-precision-aware-optimizer",
                "optimizer.use_precision_aware_optimizer",
                true,
            ),
            bf16_dtype("--exp-avg-dtype", "optimizer.exp_avg_dtype"),
            bf16_dtype("--exp-avg-sq-dtype", "optimizer.exp_avg_sq_dtype"),
        ]);
    }
    all
}

/// Recomputation as Megatron-Core names it: each layer whole (`full`,
/// `uniform` over groups of 1 layer), or the attention core (`selective`,
/// whose modules default to `core_attn`). torchtitan's op-level policy has
/// no spelling here ([`unsaid`]).
fn recomputation(recompute: Recompute) -> Vec<Setting> {
    match recompute {
        Recompute::Full => vec![
            valued(
                "--recompute-granularity",
                "model.recompute_granularity",
                "full",
            ),
            valued("--recompute-method", "model.recompute_method", "uniform"),
            valued("--recompute-num-layers", "model.recompute_num_layers", 1),
        ],
        Recompute::Selective => vec![
            valued(
                "--recompute-granularity",
                "model.recompute_granularity",
                "selective",
            ),
            key("model.recompute_method", "null"),
            key("model.recompute_num_layers", "null"),
        ],
        Recompute::None | Recompute::Op => vec![
            key("model.recompute_granularity", "null"),
            key("model.recompute_method", "null"),
            key("model.recompute_num_layers", "null"),
        ],
    }
}

/// The ZeRO stage as Megatron-LM shards: the distributed optimizer for
/// ZeRO-1, Megatron-FSDP's strategies for 2 and 3, with the settings its
/// guide requires (`docs/discussions/megatron-fsdp-user-guide`; the code
/// asserts the checkpoint format, `arguments.py`); the gradients'
/// reduction overlapped with the backward pass and the weights' gathers
/// with the forward pass, as the planner's step assumes.
fn sharding(layout: &Layout) -> Vec<Setting> {
    let strategy = match layout.stage() {
        ZeroStage::None => None,
        ZeroStage::One => Some("optim"),
        ZeroStage::Two => Some("optim_grads"),
        ZeroStage::Three => Some("optim_grads_params"),
    };
    let fsdp = matches!(layout.stage(), ZeroStage::Two | ZeroStage::Three);
    let mut all = vec![
        switch(
            "--use-distributed-optimizer",
            "ddp.use_distributed_optimizer",
            strategy.is_some(),
        ),
        key("optimizer.use_distributed_optimizer", strategy.is_some()),
        switch("--use-megatron-fsdp", "ddp.use_megatron_fsdp", fsdp),
    ];
    if fsdp {
        all.extend([
            valued(
                "--data-parallel-sharding-strategy",
                "ddp.data_parallel_sharding_strategy",
                strategy.unwrap_or_default(),
            ),
            flag("--no-gradient-accumulation-fusion", None),
            valued("--ckpt-format", "checkpoint.ckpt_format", "fsdp_dtensor"),
        ]);
    }
    let data_parallel = layout.d > 1;
    all.push(switch(
        "--overlap-grad-reduce",
        "ddp.overlap_grad_reduce",
        data_parallel,
    ));
    all.push(switch(
        "--overlap-param-gather",
        "ddp.overlap_param_gather",
        data_parallel && strategy.is_some(),
    ));
    all
}

/// What of the plan Megatron-Core cannot take, in words.
pub(super) fn unsaid(layout: &Layout) -> Vec<String> {
    let arch = layout.plan().arch;
    let mut unsaid = Vec::new();
    match layout.schedule() {
        Schedule::GPipe => unsaid.push(
            "Megatron-Core runs a pipeline as 1F1B (or interleaved): GPipe's schedule has no setting, and 1F1B is what it will run.".to_string(),
        ),
        Schedule::ZeroBubbleH1 | Schedule::DualPipe | Schedule::DualPipeV => unsaid.push(format!(
            "Megatron-Core has no {} schedule: it will run 1F1B.",
            crate::model::choice::Choice::label(layout.schedule())
        )),
        Schedule::OneFOneB | Schedule::Interleaved => {}
    }
    if layout.recompute() == Recompute::Op {
        unsaid.push("torchtitan's op-level recomputation has no Megatron-Core setting: nothing is recomputed as written; choose selective or full.".to_string());
    }
    if arch.mla.is_some() || arch.dense_layers > 0 || arch.shared_experts > 0 {
        unsaid.push("Multi-head latent attention, shared experts and the leading dense layers are not written: take them from the tool's own DeepSeek-V3 example; the flags here are the layout's.".to_string());
    }
    unsaid
}

/// Megatron-Core's own checks that the plan fails, in its words
/// (`arguments.py`'s `validate_args`, `transformer_config.py`'s
/// `__post_init__`), with the plan's numbers.
pub(super) fn refusals(layout: &Layout) -> Vec<String> {
    let plan = layout.plan();
    let arch = plan.arch;
    let mut refusals = Vec::new();
    if !arch.heads.is_multiple_of(layout.t) {
        refusals.push(format!(
            "num_attention_heads ({}) must be a multiple of tensor_model_parallel_size ({}).",
            arch.heads, layout.t
        ));
    }
    if arch.mla.is_none()
        && !(arch.kv_heads.is_multiple_of(layout.t)
            || layout.t.is_multiple_of(arch.kv_heads.max(1)))
    {
        refusals.push(format!(
            "num_query_groups ({}) must be a multiple or divisor of tensor_model_parallel_size ({}).",
            arch.kv_heads, layout.t
        ));
    }
    if !arch.layers.is_multiple_of(layout.p * layout.chunks) {
        refusals.push(if layout.chunks > 1 {
            format!(
                "{} layers do not split into {} stages of {} chunks each: Megatron-LM needs --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers for the planner's split ({} layers a stage), which are not written.",
                arch.layers,
                layout.p,
                layout.chunks,
                uneven_split(arch.layers, layout.p)
            )
        } else {
            format!(
                "Number of layers should be divisible by the pipeline-model-parallel size ({} layers, size {}; the planner's split, {} layers a stage, needs --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers, which are not written).",
                arch.layers,
                layout.p,
                uneven_split(arch.layers, layout.p)
            )
        });
    }
    if layout.chunks > 1 && layout.p <= 2 {
        refusals.push("When interleaved schedule is used and p2p communication overlap is disabled, pipeline-model-parallel size should be greater than 2 to avoid having multiple p2p sends and recvs between same 2 ranks per communication batch".to_string());
    }
    if layout.cp > 1 && !layout.seq.is_multiple_of(2 * layout.cp) {
        refusals.push(
            "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1."
                .to_string(),
        );
    }
    if arch.experts > 1 && !arch.experts.is_multiple_of(layout.ep) {
        refusals.push(
            "Number of experts should be a multiple of expert model parallel_size.".to_string(),
        );
    }
    if layout.precision() == Precision::Fp8Primary && layout.stage() == ZeroStage::None {
        refusals.push("--fp8-param-gather only supported with distributed optimizer, torch fsdp2, megatron fsdp, or inference mode".to_string());
    }
    refusals
}

/// Megatron-LM's command line for the plan.
pub(super) fn write(layout: &Layout, launch: &mut Launch) {
    let mut command = Command::new("pretrain_gpt.py");
    for setting in settings(layout) {
        if let Some((flag, value)) = setting.flag {
            command.push(match value {
                Some(value) => format!("{flag} {value}"),
                None => flag.to_string(),
            });
        }
    }
    launch.written_for = WRITTEN_FOR;
    launch.parts.push(Part {
        name: "pretrain_gpt.py's flags",
        text: command.text(),
    });
    launch.unsaid.push(format!(
        "Launch it on {} GPUs: torchrun's --nnodes times --nproc-per-node. The tokenizer's flags are yours to add (this model's vocabulary has {} entries).",
        grouped(layout.world),
        grouped(layout.plan().arch.vocab)
    ));
    if matches!(layout.stage(), ZeroStage::Two | ZeroStage::Three) {
        launch.unsaid.push("Megatron-FSDP also asks that CUDA_DEVICE_MAX_CONNECTIONS be unset (or above 1), though Megatron-LM's examples set it to 1.".to_string());
    }
    launch.unsaid.extend(unsaid(layout));
    launch.refusals.extend(refusals(layout));
}
