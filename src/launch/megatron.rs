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

use super::{grouped, torchrun, uneven_split, Command, Launch, Layout, Part};
use crate::model::activations::Recompute;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::precision::Precision;
use crate::model::presets::{Mlp, Norm};

const WRITTEN_FOR: &str =
    "Megatron-LM as of 2026 (megatron/training/arguments.py at NVIDIA/Megatron-LM 43af4b4)";

/// A Megatron-Core field whose value is one of the planner's numbers: its
/// Megatron-LM flag, its Bridge key and the planner's URL key, so that the
/// export writes it and the import (`read.rs`) reads it back by one name.
#[derive(Clone, Copy, Debug)]
pub(super) struct Name {
    pub flag: &'static str,
    pub key: &'static str,
    pub planner: &'static str,
}

pub(super) const LAYERS: Name = Name {
    flag: "--num-layers",
    key: "model.num_layers",
    planner: "layers",
};
pub(super) const HIDDEN: Name = Name {
    flag: "--hidden-size",
    key: "model.hidden_size",
    planner: "hidden",
};
pub(super) const FFN: Name = Name {
    flag: "--ffn-hidden-size",
    key: "model.ffn_hidden_size",
    planner: "ffn",
};
pub(super) const HEADS: Name = Name {
    flag: "--num-attention-heads",
    key: "model.num_attention_heads",
    planner: "heads",
};
pub(super) const QUERY_GROUPS: Name = Name {
    flag: "--num-query-groups",
    key: "model.num_query_groups",
    planner: "kv-heads",
};
pub(super) const EXPERTS: Name = Name {
    flag: "--num-experts",
    key: "model.num_moe_experts",
    planner: "experts",
};
pub(super) const TOP_K: Name = Name {
    flag: "--moe-router-topk",
    key: "model.moe_router_topk",
    planner: "top-k",
};
pub(super) const EXPERT_FFN: Name = Name {
    flag: "--moe-ffn-hidden-size",
    key: "model.moe_ffn_hidden_size",
    planner: "ffn",
};
pub(super) const SEQ: Name = Name {
    flag: "--seq-length",
    key: "model.seq_length",
    planner: "seq",
};
pub(super) const TP: Name = Name {
    flag: "--tensor-model-parallel-size",
    key: "model.tensor_model_parallel_size",
    planner: "tp",
};
pub(super) const PP: Name = Name {
    flag: "--pipeline-model-parallel-size",
    key: "model.pipeline_model_parallel_size",
    planner: "pp",
};
pub(super) const CHUNKS: Name = Name {
    flag: "--num-virtual-stages-per-pipeline-rank",
    key: "model.virtual_pipeline_model_parallel_size",
    planner: "chunks",
};
pub(super) const CP: Name = Name {
    flag: "--context-parallel-size",
    key: "model.context_parallel_size",
    planner: "cp",
};
pub(super) const EP: Name = Name {
    flag: "--expert-model-parallel-size",
    key: "model.expert_model_parallel_size",
    planner: "ep",
};
pub(super) const ETP: Name = Name {
    flag: "--expert-tensor-parallel-size",
    key: "model.expert_tensor_parallel_size",
    planner: "etp",
};
pub(super) const MICRO_BATCH: Name = Name {
    flag: "--micro-batch-size",
    key: "train.micro_batch_size",
    planner: "micro-batch",
};
pub(super) const GLOBAL_BATCH: Name = Name {
    flag: "--global-batch-size",
    key: "train.global_batch_size",
    planner: "batch",
};

/// Every number a launch gives the planner, in the order a reader checks them.
pub(super) const NUMBERS: [Name; 17] = [
    LAYERS,
    HIDDEN,
    FFN,
    HEADS,
    QUERY_GROUPS,
    EXPERTS,
    TOP_K,
    EXPERT_FFN,
    SEQ,
    TP,
    PP,
    CHUNKS,
    CP,
    EP,
    ETP,
    MICRO_BATCH,
    GLOBAL_BATCH,
];

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

/// One of the planner's numbers, as both spell it.
fn number(name: Name, value: u32) -> Setting {
    valued(name.flag, name.key, value)
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
        number(LAYERS, arch.layers),
        number(HIDDEN, arch.hidden),
        number(
            FFN,
            if arch.dense_layers > 0 {
                arch.dense_ffn
            } else {
                arch.ffn
            },
        ),
        number(HEADS, arch.heads),
    ];
    if arch.mla.is_none() && arch.kv_heads < arch.heads {
        all.push(flag("--group-query-attention", None));
        all.push(number(QUERY_GROUPS, arch.kv_heads));
    }
    if arch.experts > 1 {
        all.push(number(EXPERTS, arch.experts));
        all.push(number(TOP_K, arch.top_k));
        all.push(number(EXPERT_FFN, arch.ffn));
        // The planner counts the experts' exchange as all-to-alls;
        // Megatron-Core's default dispatcher gathers instead.
        all.push(valued(
            "--moe-token-dispatcher-type",
            "model.moe_token_dispatcher_type",
            "alltoall",
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
        number(SEQ, layout.seq),
        // Bridge checks that the dataset's length is the model's.
        key("dataset.seq_length", layout.seq),
        flag("--max-position-embeddings", Some(layout.seq.to_string())),
        number(TP, layout.t),
        number(PP, layout.p),
    ]);
    if let Some((first, last)) = layout.uneven_ends() {
        all.push(valued(
            "--decoder-first-pipeline-num-layers",
            "model.num_layers_in_first_pipeline_stage",
            first,
        ));
        all.push(valued(
            "--decoder-last-pipeline-num-layers",
            "model.num_layers_in_last_pipeline_stage",
            last,
        ));
    }
    // Megatron-LM has no flag for the field itself: it derives it from one
    // of three spellings, of which chunks a GPU is the one uneven stages need.
    all.push(Setting {
        flag: (layout.chunks > 1).then(|| (CHUNKS.flag, Some(layout.chunks.to_string()))),
        key: Some((
            CHUNKS.key,
            if layout.chunks > 1 {
                layout.chunks.to_string()
            } else {
                "null".into()
            },
        )),
    });
    all.push(number(CP, layout.cp));
    if arch.experts > 1 {
        all.push(number(EP, layout.ep));
        all.push(number(ETP, layout.plan().expert_tensor()));
    }
    all.push(switch(
        "--sequence-parallel",
        "model.sequence_parallel",
        layout.sequence_parallel(),
    ));
    all.push(number(MICRO_BATCH, layout.micro_batch));
    all.push(number(GLOBAL_BATCH, layout.global_batch));
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
    let layers = arch.layers;
    if layout.p > 1
        && !layers.is_multiple_of(layout.p * layout.chunks)
        && layout.uneven_ends().is_none()
    {
        unsaid.push(format!(
            "The planner splits the {layers} layers as {} a stage{}: Megatron-Core sets only the first and last stages' layers apart from the rest, so this split needs its pipeline layout (--pipeline-model-parallel-layout), which is not written.",
            uneven_split(layers, layout.p),
            if layout.chunks > 1 { format!(", in {} chunks each", layout.chunks) } else { String::new() }
        ));
    }
    if layout.recompute() == Recompute::Op {
        unsaid.push("torchtitan's op-level recomputation has no Megatron-Core setting: nothing is recomputed as written; choose selective or full.".to_string());
    }
    if arch.mla.is_some() || arch.dense_layers > 0 || arch.shared_experts > 0 {
        unsaid.push("Multi-head latent attention, shared experts and the leading dense layers are not written: take them from the tool's own DeepSeek-V3 example; the flags here are the layout's.".to_string());
    }
    unsaid
}

/// The numbers Megatron-Core's checks read, as a launch gives them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Checked {
    pub world: u32,
    pub t: u32,
    pub p: u32,
    pub cp: u32,
    pub chunks: u32,
    pub micro_batch: u32,
    pub global_batch: u32,
    pub layers: u32,
    pub heads: u32,
    /// Key-value heads; `None` under multi-head latent attention.
    pub query_groups: Option<u32>,
    pub seq: u32,
    pub experts: u32,
    pub ep: u32,
    /// FP8 weights gathered without a sharded optimizer to cast them.
    pub fp8_gather_unsharded: bool,
    /// Whether the first and last stages' layers are given
    /// (`--decoder-first-pipeline-num-layers` and `--decoder-last-`).
    pub uneven_ends_given: bool,
}

impl Checked {
    /// The numbers of the plan as the planner runs it.
    pub(super) fn of(layout: &Layout) -> Self {
        let arch = layout.plan().arch;
        Self {
            world: layout.world,
            t: layout.t,
            p: layout.p,
            cp: layout.cp,
            chunks: layout.chunks,
            micro_batch: layout.micro_batch,
            global_batch: layout.global_batch,
            layers: arch.layers,
            heads: arch.heads,
            query_groups: arch.mla.is_none().then_some(arch.kv_heads),
            seq: layout.seq,
            experts: arch.experts,
            ep: layout.ep,
            fp8_gather_unsharded: layout.precision() == Precision::Fp8Primary
                && layout.stage() == ZeroStage::None,
            uneven_ends_given: layout.uneven_ends().is_some(),
        }
    }
}

/// Megatron-Core's own checks that `numbers` fail, in its words
/// (`arguments.py`'s `validate_args`, `transformer_config.py`'s
/// `__post_init__`, `num_microbatches_calculator.py`), with the numbers.
pub(super) fn refusals(numbers: &Checked) -> Vec<String> {
    let Checked {
        world,
        t,
        p,
        cp,
        chunks,
        ..
    } = *numbers;
    let (t, p, cp, chunks) = (t.max(1), p.max(1), cp.max(1), chunks.max(1));
    let mut refusals = Vec::new();
    // Saturating: the sizes may come from a paste (`read.rs`).
    let model = t.saturating_mul(p).saturating_mul(cp);
    if !world.is_multiple_of(model) {
        refusals.push(format!(
            "world size ({world}) is not divisible by total_model_size (total_model_size={model})"
        ));
    }
    let data = (world / model).max(1);
    let per_step = numbers.micro_batch.max(1).saturating_mul(data);
    if !numbers.global_batch.is_multiple_of(per_step) {
        refusals.push(format!(
            "global batch size ({}) is not divisible by micro batch size ({}) times data parallel size ({data})",
            numbers.global_batch, numbers.micro_batch
        ));
    }
    if !numbers.heads.is_multiple_of(t) {
        refusals.push(format!(
            "num_attention_heads ({}) must be a multiple of tensor_model_parallel_size ({t}).",
            numbers.heads
        ));
    }
    if let Some(groups) = numbers.query_groups {
        if !(groups.is_multiple_of(t) || t.is_multiple_of(groups.max(1))) {
            refusals.push(format!(
                "num_query_groups ({groups}) must be a multiple or divisor of tensor_model_parallel_size ({t})."
            ));
        }
    }
    if chunks == 1 && !numbers.uneven_ends_given && !numbers.layers.is_multiple_of(p) {
        refusals.push(
            "Number of layers should be divisible by the pipeline-model-parallel size".to_string(),
        );
    }
    if chunks > 1 && p <= 2 {
        refusals.push("When interleaved schedule is used and p2p communication overlap is disabled, pipeline-model-parallel size should be greater than 2 to avoid having multiple p2p sends and recvs between same 2 ranks per communication batch".to_string());
    }
    if cp > 1 && !numbers.seq.is_multiple_of(cp.saturating_mul(2)) {
        refusals.push(
            "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1."
                .to_string(),
        );
    }
    if numbers.experts > 1 && !numbers.experts.is_multiple_of(numbers.ep.max(1)) {
        refusals.push(
            "Number of experts should be a multiple of expert model parallel_size.".to_string(),
        );
    }
    if numbers.fp8_gather_unsharded {
        refusals.push("--fp8-param-gather only supported with distributed optimizer, torch fsdp2, megatron fsdp, or inference mode".to_string());
    }
    refusals
}

/// Megatron-LM's command line for the plan.
pub(super) fn write(layout: &Layout, launch: &mut Launch) {
    let mut command = Command::new(torchrun(layout.world, "pretrain_gpt.py"));
    for setting in settings(layout) {
        if let Some((flag, value)) = setting.flag {
            command.push(match value {
                Some(value) => format!("{flag} {value}"),
                None => flag.to_string(),
            });
        }
    }
    launch.written_for = WRITTEN_FOR.to_string();
    launch.parts.push(Part {
        name: "the command line".to_string(),
        text: command.text(),
    });
    launch.unsaid.push(format!(
        "The tokenizer's and the data's flags are yours to add (this model's vocabulary has {} entries); torchrun also needs the first node's address on more than one node.",
        grouped(layout.plan().arch.vocab)
    ));
    if matches!(layout.stage(), ZeroStage::Two | ZeroStage::Three) {
        launch.unsaid.push("Megatron-FSDP also asks that CUDA_DEVICE_MAX_CONNECTIONS be unset (or above 1), though Megatron-LM's examples set it to 1.".to_string());
    }
    launch.unsaid.extend(unsaid(layout));
    launch.refusals.extend(refusals(&Checked::of(layout)));
}
