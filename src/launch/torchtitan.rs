//! torchtitan's two spellings of a run (pytorch/torchtitan):
//!
//! - the `--section.option` command line of 2026, over a configuration
//!   function chosen by `--module` and `--config`
//!   (`torchtitan/config/README.md`: frozen, to be deleted one day, and
//!   still taking precedence), its batch counted in tokens
//!   (`torchtitan/config/training.py` at f204eb6, `parallelism.py` at
//!   15e2431);
//! - the TOML file of 2025 (`torchtitan/config/job_config.py` at 038d5fd),
//!   its batch counted in sequences: `local_batch_size` a data-parallel
//!   rank's, split into `pipeline_parallel_microbatch_size` under a pipeline.
//!
//! torchtitan's data-parallel degrees are `data_parallel_shard_degree`
//! (FSDP2, ZeRO-3 with the weights gathered again in the backward pass
//! unless `fsdp_reshard_after_forward = "never"`) and
//! `data_parallel_replicate_degree` (plain data parallelism, or HSDP's
//! replicas); their product with t, p and cp is the world size.

use super::{torchrun, Command, Launch, Layout, Part};
use crate::model::activations::Recompute;
use crate::model::memory::ZeroStage;
use crate::model::pipeline::Schedule;
use crate::model::precision::Precision;
use crate::model::software::Software;

const WRITTEN_FOR: &str = "torchtitan's command line of 2026 (torchtitan/config/training.py at f204eb6) and its TOML of 2025 (torchtitan/config/job_config.py at 038d5fd)";

/// torchtitan's configurations of the presets it ships: the planner's id,
/// the model's module, its configuration function (2026) and its flavor (2025).
pub(super) const SHIPPED: [(&str, &str, &str, &str); 4] = [
    ("llama3-8b", "llama3", "llama3_8b", "8B"),
    ("llama3-70b", "llama3", "llama3_70b", "70B"),
    ("llama3-405b", "llama3", "llama3_405b", "405B"),
    ("deepseek-v3", "deepseek_v3", "deepseek_v3_671b", "671B"),
];

/// The schedule's name in `torch.distributed.pipelining` (`get_schedule_class`),
/// `None` for one torch does not have.
fn schedule_name(schedule: Schedule) -> Option<&'static str> {
    match schedule {
        Schedule::GPipe => Some("GPipe"),
        Schedule::OneFOneB => Some("1F1B"),
        Schedule::Interleaved => Some("Interleaved1F1B"),
        Schedule::DualPipeV => Some("DualPipeV"),
        Schedule::ZeroBubbleH1 | Schedule::DualPipe => None,
    }
}

/// The data-parallel degrees, (replicate, shard), and FSDP's resharding:
/// its "default" reshards after the forward pass except under a pipeline
/// (`parallelize.py`: `reshard_after_forward = not pp_enabled`), so
/// ZeRO-3 with stages is written "always".
fn data_parallel(layout: &Layout) -> (u32, u32, Option<&'static str>) {
    match layout.stage() {
        ZeroStage::None => (layout.d, 1, None),
        ZeroStage::One | ZeroStage::Two => (1, layout.d, Some("never")),
        ZeroStage::Three if layout.p > 1 => (1, layout.d, Some("always")),
        ZeroStage::Three => (1, layout.d, None),
    }
}

/// Layers a virtual stage for `chunks` stages a GPU: torchtitan counts the
/// embedding and the output layer as one layer each
/// (`pipeline_parallel_first_stage_less_layers` and `_last_`, 1 by default),
/// so (L + 2) / (p·v), where that divides.
fn layers_per_stage(layout: &Layout) -> Option<u32> {
    let stages = layout.p * layout.chunks;
    let counted = layout.plan().arch.layers + 2;
    counted.is_multiple_of(stages).then(|| counted / stages)
}

/// The `--section.option` pairs both spellings share, as (section, option, value).
fn parallelism(layout: &Layout) -> Vec<(&'static str, &'static str, String)> {
    let (replicate, shard, reshard) = data_parallel(layout);
    let mut all = vec![
        (
            "parallelism",
            "data_parallel_replicate_degree",
            replicate.to_string(),
        ),
        (
            "parallelism",
            "data_parallel_shard_degree",
            shard.to_string(),
        ),
        (
            "parallelism",
            "tensor_parallel_degree",
            layout.t.to_string(),
        ),
        (
            "parallelism",
            "pipeline_parallel_degree",
            layout.p.to_string(),
        ),
        (
            "parallelism",
            "context_parallel_degree",
            layout.cp.to_string(),
        ),
    ];
    if let Some(reshard) = reshard {
        all.push((
            "parallelism",
            "fsdp_reshard_after_forward",
            format!("\"{reshard}\""),
        ));
    }
    if layout.experts() > 1 {
        all.push((
            "parallelism",
            "expert_parallel_degree",
            layout.ep.to_string(),
        ));
    }
    if layout.p > 1 {
        if let Some(name) = schedule_name(layout.schedule()) {
            all.push((
                "parallelism",
                "pipeline_parallel_schedule",
                format!("\"{name}\""),
            ));
        }
        if layout.chunks > 1 {
            if let Some(per_stage) = layers_per_stage(layout) {
                all.push((
                    "parallelism",
                    "pipeline_parallel_layers_per_stage",
                    per_stage.to_string(),
                ));
            }
        }
    }
    all
}

/// The command line of 2026.
fn command(layout: &Layout, shipped: Option<(&str, &str)>) -> String {
    // run_train.sh starts one node; torchrun starts them all.
    let mut head = torchrun(layout.world, "-m torchtitan.train");
    if let Some((module, config)) = shipped {
        head.push_str(&format!(" --module {module} --config {config}"));
    }
    let mut command = Command::new(head);
    for (section, option, value) in parallelism(layout) {
        command.push(format!("--{section}.{option} {}", value.trim_matches('"')));
    }
    let tokens = layout.micro_batch * layout.seq;
    command.push(format!("--training.max_context_length {}", layout.seq));
    command.push(format!(
        "--training.num_tokens_per_microbatch_per_dp_rank {tokens}"
    ));
    if layout.p > 1 {
        command.push(format!(
            "--parallelism.num_pp_microbatches {}",
            layout.micro_batches
        ));
    }
    command.push(format!(
        "--training.num_tokens_per_train_step {}",
        layout.global_batch * layout.seq
    ));
    if layout.bf16_moments() {
        command.push("--optimizer.implementation fused_opt_states_bf16");
    }
    command.text()
}

/// The TOML of 2025.
fn toml(layout: &Layout, run_software: Software, flavor: Option<(&str, &str)>) -> String {
    let mut lines = Vec::new();
    let fp8 = matches!(layout.precision(), Precision::Fp8 | Precision::Fp8Primary);
    if flavor.is_some() || fp8 {
        lines.push("[model]".to_string());
        if let Some((name, flavor)) = flavor {
            lines.push(format!("name = \"{name}\""));
            lines.push(format!("flavor = \"{flavor}\""));
        }
        if fp8 {
            lines.push("converters = [\"float8\"]".to_string());
        }
        lines.push(String::new());
    }
    // Without a pipeline a rank's local batch is one micro-batch and the
    // rest of the global batch is gradient accumulation; with one, the
    // local batch is the pipeline's micro-batches together.
    let local = if layout.p > 1 {
        layout.micro_batch * layout.micro_batches
    } else {
        layout.micro_batch
    };
    lines.push("[training]".to_string());
    lines.push(format!("local_batch_size = {local}"));
    lines.push(format!("global_batch_size = {}", layout.global_batch));
    lines.push(format!("seq_len = {}", layout.seq));
    lines.push(String::new());
    lines.push("[parallelism]".to_string());
    for (_, option, value) in parallelism(layout) {
        lines.push(format!("{option} = {value}"));
    }
    if layout.experts() > 1 {
        lines.push(format!(
            "expert_tensor_parallel_degree = {}",
            layout.plan().expert_tensor()
        ));
    }
    if layout.p > 1 {
        lines.push(format!(
            "pipeline_parallel_microbatch_size = {}",
            layout.micro_batch
        ));
    }
    lines.push(String::new());
    lines.push("[activation_checkpoint]".to_string());
    match layout.recompute() {
        Recompute::Full => lines.push("mode = \"full\"".to_string()),
        Recompute::Op => {
            lines.push("mode = \"selective\"".to_string());
            lines.push("selective_ac_option = \"op\"".to_string());
        }
        Recompute::None | Recompute::Selective => lines.push("mode = \"none\"".to_string()),
    }
    lines.push(String::new());
    lines.push("[compile]".to_string());
    lines.push(format!(
        "enable = {}",
        run_software != Software::TorchtitanEager
    ));
    if layout.precision() == Precision::Fp8Primary {
        lines.push(String::new());
        lines.push("[float8]".to_string());
        lines.push("enable_fsdp_float8_all_gather = true".to_string());
        lines.push("precompute_float8_dynamic_scale_for_fsdp = true".to_string());
    }
    lines.join("\n")
}

/// What of the plan torchtitan cannot take, or takes otherwise, in words.
fn unsaid(layout: &Layout, shipped: bool) -> Vec<String> {
    let mut unsaid = Vec::new();
    if !shipped {
        unsaid.push("torchtitan ships no configuration of this model: its shape goes in a model configuration of your own, named by --module and --config (2026) or [model] (2025).".to_string());
    }
    unsaid.push("On the 2026 command line, recomputation, torch.compile and FP8 are parts of the configuration function (FullAC or SelectiveAC, the compile configuration, torchao's Float8 converter): the TOML of 2025 writes them.".to_string());
    match layout.stage() {
        ZeroStage::One | ZeroStage::Two => unsaid.push(format!(
            "torchtitan shards with FSDP only: for ZeRO-{}, FSDP keeps the weights gathered after the forward pass (fsdp_reshard_after_forward \"never\"), which shards the optimizer's state and the gradients' reduction.",
            layout.stage() as u8
        )),
        ZeroStage::None | ZeroStage::Three => {}
    }
    if layout.p > 1 && schedule_name(layout.schedule()).is_none() {
        unsaid.push(format!(
            "torch's pipelining has no {} schedule: 1F1B is torchtitan's default.",
            crate::model::choice::Choice::label(layout.schedule())
        ));
    }
    if layout.chunks > 1 && layers_per_stage(layout).is_none() {
        unsaid.push(format!(
            "torchtitan counts the embedding and the output layer as a layer each: {} layers and 2 do not split into {} stages of {} chunks, so its default of 2 stages a GPU is left.",
            layout.plan().arch.layers,
            layout.p,
            layout.chunks
        ));
    }
    if layout.bf16_moments() {
        unsaid.push("BF16 moments are on the 2026 command line only (fused_opt_states_bf16, March 2026): the TOML of 2025 has none.".to_string());
    }
    if layout.recompute() == Recompute::Selective {
        unsaid.push("Megatron-LM's selective recomputation (the attention core) has no torchtitan setting: with FlashAttention it recomputes nothing, so none is written.".to_string());
    }
    if layout.t > 1 && !layout.sequence_parallel() {
        unsaid.push("torchtitan splits the norms along the sequence whenever t > 1: the plan without sequence parallelism is not what it runs.".to_string());
    }
    if layout.experts() > 1 && layout.plan().expert_tensor.is_some() {
        unsaid.push("The expert-tensor degree is written in the TOML only: torchtitan removed it in April 2026.".to_string());
    }
    unsaid
}

/// torchtitan's command line and TOML for the plan.
pub(super) fn write(layout: &Layout, launch: &mut Launch) {
    let shipped = layout
        .run
        .preset
        .and_then(|id| SHIPPED.iter().find(|(preset, ..)| *preset == id));
    launch.written_for = WRITTEN_FOR.to_string();
    launch.parts.push(Part {
        name: "torchtitan's command line (2026)".to_string(),
        text: command(layout, shipped.map(|s| (s.1, s.2))),
    });
    launch.parts.push(Part {
        name: "torchtitan's TOML (2025)".to_string(),
        text: toml(layout, layout.run.software, shipped.map(|s| (s.1, s.3))),
    });
    launch.unsaid.extend(unsaid(layout, shipped.is_some()));
}
