//! torchtitan's settings read back, in each of the three spellings it has
//! had (pytorch/torchtitan):
//!
//! - the TOML of 2024 to March 2025: `[training]` holds the batch, the
//!   sequence and the data and tensor degrees, `[experimental]` the
//!   pipeline and context degrees (`train_configs/llama3_8b.toml` at 9dec370);
//! - the TOML of March 2025 to February 2026, with `[parallelism]`,
//!   `[activation_checkpoint]` and `[compile]` sections and the batch in
//!   sequences (`torchtitan/config/job_config.py` at 038d5fd), and the
//!   `--section.option` overrides that command line took over it;
//! - the command line of 2026 over a configuration function (`--module`,
//!   `--config`), its batch counted in tokens (`torchtitan/config/training.py`
//!   at f204eb6).
//!
//! The checks quoted are torchtitan's: `parallel_dims.py`'s on the degrees'
//! product and on expert-tensor parallelism, and `train.py`'s on the batch
//! (its assertion messages, with the numbers).

use super::flat::Flat;
use super::{
    left_as_they_are, name_the_preset, push, size, world_of, world_size, Reading, Unreadable,
    LARGEST,
};
use crate::launch::torchtitan::SHIPPED;
use crate::launch::Tool;

/// How the settings were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::launch) enum Spelling {
    Toml,
    Command,
}

/// The eras the survey lists, as the report names them.
const TOML_2024: &str = "torchtitan's TOML of 2024 to March 2025";
const TOML_2025: &str = "torchtitan's TOML of March 2025 to February 2026";
const COMMAND_2025: &str = "torchtitan's --section.option overrides of 2025";
const COMMAND_2026: &str = "torchtitan's command line of 2026";

/// Each setting's names, newest first: where it has lived in each era.
const TP: &[&str] = &[
    "parallelism.tensor_parallel_degree",
    "training.tensor_parallel_degree",
];
const SHARD: &[&str] = &[
    "parallelism.data_parallel_shard_degree",
    "training.data_parallel_shard_degree",
];
const REPLICATE: &[&str] = &[
    "parallelism.data_parallel_replicate_degree",
    "training.data_parallel_replicate_degree",
];
const PP: &[&str] = &[
    "parallelism.pipeline_parallel_degree",
    "experimental.pipeline_parallel_degree",
];
const CP: &[&str] = &[
    "parallelism.context_parallel_degree",
    "experimental.context_parallel_degree",
];
const EP: &[&str] = &["parallelism.expert_parallel_degree"];
const ETP: &[&str] = &["parallelism.expert_tensor_parallel_degree"];
const SCHEDULE: &[&str] = &[
    "parallelism.pipeline_parallel_schedule",
    "experimental.pipeline_parallel_schedule",
];
const LAYERS_PER_STAGE: &[&str] = &["parallelism.pipeline_parallel_layers_per_stage"];
const PP_MICRO_SIZE: &[&str] = &["parallelism.pipeline_parallel_microbatch_size"];
const PP_MICRO_COUNT: &[&str] = &[
    "parallelism.num_pp_microbatches",
    "experimental.pipeline_parallel_microbatches",
];
const RESHARD: &[&str] = &["parallelism.fsdp_reshard_after_forward"];
const SEQUENCE_PARALLEL: &[&str] = &["parallelism.enable_sequence_parallel"];
const SEQ: &[&str] = &["training.max_context_length", "training.seq_len"];
const LOCAL_BATCH: &[&str] = &["training.local_batch_size", "training.batch_size"];
const GLOBAL_BATCH: &[&str] = &["training.global_batch_size"];
const MICRO_TOKENS: &[&str] = &["training.num_tokens_per_microbatch_per_dp_rank"];
const STEP_TOKENS: &[&str] = &["training.num_tokens_per_train_step"];
const AC_MODE: &[&str] = &["activation_checkpoint.mode"];
const AC_OPTION: &[&str] = &["activation_checkpoint.selective_ac_option"];
const COMPILE: &[&str] = &["compile.enable", "training.compile"];
const CONVERTERS: &[&str] = &["model.converters"];
const FP8_GATHER: &[&str] = &[
    "quantize.linear.float8.enable_fsdp_float8_all_gather",
    "float8.enable_fsdp_float8_all_gather",
];
const OPTIMIZER: &[&str] = &["optimizer.implementation"];
const MODEL: &[&str] = &["model.name", "module"];
const FLAVOR: &[&str] = &["model.flavor", "config"];

/// The settings, each marked when read, so that the rest can be named.
struct Settings {
    all: Vec<(String, String, bool)>,
    read: Vec<String>,
}

impl Settings {
    fn new(flat: &Flat) -> Self {
        Self {
            all: flat
                .iter()
                .map(|(k, v)| (k.clone(), v.clone(), false))
                .collect(),
            read: Vec::new(),
        }
    }

    fn has(&self, names: &[&str]) -> bool {
        self.all.iter().any(|(k, ..)| names.contains(&k.as_str()))
    }

    /// The value given under any of `names`, the last given winning.
    fn text(&mut self, names: &[&str]) -> Option<String> {
        let mut found = None;
        for (key, value, used) in &mut self.all {
            if names.contains(&key.as_str()) {
                *used = true;
                found = Some((key.clone(), value.clone()));
            }
        }
        let (key, value) = found?;
        self.read.push(format!("{key} {value}"));
        Some(value)
    }

    /// A size under `names`; torchtitan's −1, "what is left", as `None`
    /// where `leftover` allows it.
    fn number(&mut self, names: &[&str], leftover: bool) -> Result<Option<u32>, Unreadable> {
        match self.text(names) {
            None => Ok(None),
            Some(v) if leftover && v == "-1" => Ok(None),
            Some(v) => size(names[0], &v).map(Some),
        }
    }

    /// A count of tokens under `names` (a step's may be millions): at most
    /// [`LARGEST`] sequences of [`LARGEST`] tokens; −1 as for [`Self::number`].
    fn tokens(&mut self, names: &[&str], leftover: bool) -> Result<Option<u64>, Unreadable> {
        let most = u64::from(LARGEST) * u64::from(LARGEST);
        match self.text(names) {
            None => Ok(None),
            Some(v) if leftover && v == "-1" => Ok(None),
            Some(v) => match v.parse::<u64>() {
                Ok(n) if (1..=most).contains(&n) => Ok(Some(n)),
                _ => Err(Unreadable(format!(
                    "{} {v}: a count of tokens is a whole number from 1 to {}. Nothing was changed.",
                    names[0],
                    crate::model::units::group_thousands(most as f64)
                ))),
            },
        }
    }

    fn switch(&mut self, names: &[&str]) -> Option<bool> {
        self.text(names).map(|v| v.is_empty() || v == "true")
    }

    /// The settings no part of a layout reads.
    fn unread(&self) -> Vec<String> {
        self.all
            .iter()
            .filter(|(.., used)| !used)
            .map(|(k, ..)| k.clone())
            .collect()
    }
}

/// A torchtitan command line's words: `--section.option value` with
/// torchtitan's hyphens read as underscores, torchrun's and the
/// environment's counts of GPUs, and the program.
pub(super) fn read_command(settings: &[(String, Option<String>)]) -> Result<Reading, Unreadable> {
    let mut flat = Flat::new();
    let mut world = Vec::new();
    for (name, value) in settings {
        let value = value.clone().unwrap_or_default();
        if let Some(gpus) = world_size(name, &value) {
            world.push(gpus?);
        } else if let Some(option) = name.strip_prefix("--") {
            flat.push((option.replace('-', "_"), value));
        }
    }
    let world = (!world.is_empty()).then(|| world_of(&world));
    read(&flat, world, Spelling::Command)
}

/// torchtitan's schedules as the planner names them (`torch.distributed.pipelining`'s
/// `get_schedule_class` reads them in any case).
fn schedule(name: &str) -> Option<&'static str> {
    // 2024's names have underscores (`interleaved_1f1b`, `flexible_interleaved_1f1b`).
    match name.to_ascii_lowercase().replace('_', "").as_str() {
        "gpipe" => Some("gpipe"),
        "1f1b" => Some("1f1b"),
        "interleaved1f1b" | "flexibleinterleaved1f1b" => Some("interleaved"),
        "dualpipev" => Some("dualpipev"),
        _ => None,
    }
}

/// The settings read into the planner's terms; `world` is the GPUs a
/// command line starts, where it says.
pub(in crate::launch) fn read(
    flat: &Flat,
    world: Option<u32>,
    spelling: Spelling,
) -> Result<Reading, Unreadable> {
    let mut s = Settings::new(flat);
    let era = match spelling {
        Spelling::Toml
            if s.has(&[
                "training.batch_size",
                "experimental.pipeline_parallel_degree",
                "experimental.context_parallel_degree",
            ]) =>
        {
            TOML_2024
        }
        Spelling::Toml => TOML_2025,
        Spelling::Command
            if s.has(MICRO_TOKENS)
                || s.has(STEP_TOKENS)
                || s.has(&["module", "config"])
                || !s.has(&["job.config_file"]) =>
        {
            COMMAND_2026
        }
        Spelling::Command => COMMAND_2025,
    };
    let mut pairs = Vec::new();
    let pairs = &mut pairs;
    let (mut ignored, mut broken) = (Vec::new(), Vec::new());
    let mut batch_per_replica = None;
    // The model: a configuration torchtitan ships, by its module and name.
    let layers = match (s.text(MODEL), s.text(FLAVOR)) {
        (Some(module), Some(flavor)) => {
            match SHIPPED
                .iter()
                .find(|(_, m, config, name)| *m == module && (*config == flavor || *name == flavor))
            {
                Some((id, ..)) => {
                    push(pairs, "model", id.to_string());
                    crate::model::presets::model_preset(id).map(|m| m.arch.layers)
                }
                None => {
                    ignored.push(format!("torchtitan's {module} {flavor} is not one of the planner's models: the model on screen is kept."));
                    None
                }
            }
        }
        _ => None,
    };
    let t = s.number(TP, false)?.unwrap_or(1);
    let p = s.number(PP, false)?.unwrap_or(1);
    let cp = s.number(CP, false)?.unwrap_or(1);
    let replicate = s.number(REPLICATE, false)?.unwrap_or(1);
    let shard = s.number(SHARD, true)?;
    for (key, value) in [("tp", t), ("pp", p), ("cp", cp)] {
        push(pairs, key, value.to_string());
    }
    let ep = s.number(EP, false)?;
    if let Some(ep) = ep {
        push(pairs, "ep", ep.to_string());
    }
    let etp = s.number(ETP, false)?;
    if let Some(etp) = etp {
        push(pairs, "etp", etp.to_string());
    }
    // torchtitan splits the norms along the sequence whenever t > 1
    // (`enable_sequence_parallel`, true unless turned off, 2026).
    let sequence_parallel = t > 1 && s.switch(SEQUENCE_PARALLEL) != Some(false);
    push(pairs, "sp", u8::from(sequence_parallel).to_string());
    // FSDP shards all of the state unless it keeps the weights gathered
    // after the forward pass ("never", and "default" under a pipeline:
    // `parallelize.py`'s `reshard_after_forward = not pp_enabled`): then
    // ZeRO-2's.
    let reshard = s.text(RESHARD);
    let stage = match (shard, reshard.as_deref()) {
        (Some(1), _) => "0",
        (_, Some("never")) => "2",
        (_, Some("always")) => "3",
        _ if p > 1 => "2",
        _ => "3",
    };
    push(pairs, "stage", stage.to_string());
    if replicate > 1 && shard != Some(1) {
        ignored.push(format!("HSDP, {replicate} replicas of FSDP groups: the planner shards the state over all the data-parallel GPUs."));
    }
    let given_world = shard.map(|shard| {
        replicate
            .saturating_mul(shard)
            .saturating_mul(cp)
            .saturating_mul(t)
            .saturating_mul(p)
    });
    match (world, given_world) {
        (Some(world), Some(product)) if world != product => broken.push(format!(
            "Invalid parallel dims: dp_replicate({replicate}) * dp_shard({}) * cp({cp}) * tp({t}) * pp({p}) != WORLD_SIZE({world})",
            shard.unwrap_or(1)
        )),
        _ => {}
    }
    match world.or(given_world) {
        Some(gpus) => push(pairs, "gpus", gpus.to_string()),
        None => ignored.push("No world size is given (the data-parallel shard degree is -1, what is left, and NGPU is run_train.sh's): the planner's GPU count is kept.".to_string()),
    }
    let data_parallel = given_world.map(|_| replicate.saturating_mul(shard.unwrap_or(1)));
    if ep.is_some_and(|ep| ep > 1) && etp.is_some_and(|etp| etp != 1 && etp != t) {
        broken.push("Currently we only support ETP=TP or ETP=1".to_string());
    }
    // The schedule, and the chunks a GPU: torchtitan counts the embedding
    // and the output layer as a layer each (`pipeline_parallel_first_stage_less_layers`).
    if p > 1 {
        let named = s.text(SCHEDULE);
        let schedule = match named.as_deref() {
            None => Some("1f1b"),
            Some(name) => schedule(name),
        };
        match schedule {
            Some(id) => push(pairs, "schedule", id.to_string()),
            None => ignored.push(format!(
                "The schedule {} has no counterpart in the planner: its schedule is kept.",
                named.unwrap_or_default()
            )),
        }
        if schedule == Some("interleaved") {
            let per_stage = s.number(LAYERS_PER_STAGE, false)?;
            let chunks = match (per_stage, layers) {
                (Some(k), Some(layers)) => (layers + 2).div_ceil(k.saturating_mul(p)).max(1),
                _ => 2,
            };
            push(pairs, "chunks", chunks.to_string());
        }
    }
    // The batch: in sequences (2024, 2025) or in tokens (2026).
    let seq = s.number(SEQ, false)?;
    if let Some(seq) = seq {
        push(pairs, "seq", seq.to_string());
    }
    let pp_micro_count = s.number(PP_MICRO_COUNT, false)?;
    if s.has(MICRO_TOKENS) || s.has(STEP_TOKENS) {
        let micro_tokens = s.tokens(MICRO_TOKENS, false)?.unwrap_or(16_384);
        let step_tokens = s.tokens(STEP_TOKENS, true)?;
        match seq.map(u64::from) {
            Some(seq) if micro_tokens.is_multiple_of(seq) && step_tokens.is_none_or(|n| n.is_multiple_of(seq)) => {
                let micro = size(MICRO_TOKENS[0], &(micro_tokens / seq).to_string())?;
                push(pairs, "micro-batch", micro.to_string());
                match step_tokens {
                    Some(tokens) => push(pairs, "batch", size(STEP_TOKENS[0], &(tokens / seq).to_string())?.to_string()),
                    // torchtitan's default: micro × num_pp_microbatches (1 unless given) × d.
                    None => batch_per_replica = Some(micro.saturating_mul(if p > 1 { pp_micro_count.unwrap_or(1) } else { 1 })),
                }
            }
            Some(seq) => ignored.push(format!("The tokens a micro-batch or a step ({micro_tokens}, {}) are not whole sequences of {seq}: the planner's batch is kept.", step_tokens.map_or("-1".to_string(), |n| n.to_string()))),
            None => ignored.push("No sequence length is given (training.max_context_length): the tokens cannot be counted in sequences, and the planner's batch is kept.".to_string()),
        }
    } else if let Some(local) = s.number(LOCAL_BATCH, false)? {
        // A rank's batch; under a pipeline, its micro-batches together.
        let micro = if p > 1 {
            match (s.number(PP_MICRO_SIZE, false)?, pp_micro_count) {
                (Some(size), _) => size,
                (None, Some(count)) => (local / count).max(1),
                // 2024: as many micro-batches as stages unless given; 2025: micro-batches of 1.
                (None, None) if era == TOML_2024 => (local / p).max(1),
                (None, None) => 1,
            }
        } else {
            local
        };
        push(pairs, "micro-batch", micro.to_string());
        match s.number(GLOBAL_BATCH, true)? {
            Some(global) => {
                push(pairs, "batch", global.to_string());
                if let Some(dp) = data_parallel {
                    if !global.is_multiple_of(local.saturating_mul(dp)) {
                        broken.push(format!(
                            "global batch size must be multiple of local batch size times data-parallel degree ({global} % ({local} * {dp}) != 0)"
                        ));
                    }
                }
            }
            None => batch_per_replica = Some(local),
        }
    }
    // Recomputation: none, full, or selective of the operators ("op");
    // selective every k-th layer has no planner counterpart.
    match (s.text(AC_MODE).as_deref(), s.text(AC_OPTION).as_deref()) {
        (Some("none"), _) => push(pairs, "recompute", "none".to_string()),
        (Some("full"), _) => push(pairs, "recompute", "full".to_string()),
        (Some("selective"), Some("op")) => push(pairs, "recompute", "op".to_string()),
        // torchtitan's default option is "2": every second layer in full.
        (Some("selective"), None) => ignored.push("Recomputation selective, with torchtitan's default selective_ac_option \"2\" (every second layer in full): the planner has no such setting, and keeps its own.".to_string()),
        (Some(mode), option) => ignored.push(format!(
            "Recomputation {mode}{}: the planner has no such setting, and keeps its own.",
            option.map(|o| format!(" ({o})")).unwrap_or_default()
        )),
        (None, _) => {}
    }
    // FP8 of the linear layers: a "float8" converter (2025, 2026; not the
    // experts' grouped one), or 2024's `enable_float8_linear`.
    let fp8 = s.text(CONVERTERS).is_some_and(|c| {
        c.split(',')
            .any(|c| matches!(c.trim(), "float8" | "quantize.linear.float8"))
    }) || s.switch(&["float8.enable_float8_linear"]) == Some(true);
    let fp8_gather = s.switch(FP8_GATHER) == Some(true);
    let precision = match (fp8, fp8_gather) {
        (true, true) => "fp8-primary",
        (true, false) => "fp8",
        (false, _) => "bf16",
    };
    push(pairs, "precision", precision.to_string());
    let moments = s
        .text(OPTIMIZER)
        .is_some_and(|o| o == "fused_opt_states_bf16");
    push(
        pairs,
        "moments",
        if moments { "bf16" } else { "fp32" }.to_string(),
    );
    // torch.compile: off unless turned on in a TOML (`compile.enable`,
    // false by default); the 2026 command line leaves it to the configuration.
    match s.switch(COMPILE) {
        Some(true) => push(pairs, "software", "torchtitan".to_string()),
        Some(false) => push(pairs, "software", "torchtitan-eager".to_string()),
        None if spelling == Spelling::Toml => {
            push(pairs, "software", "torchtitan-eager".to_string())
        }
        None => {}
    }
    ignored.extend(name_the_preset(pairs));
    let unread = s.unread();
    ignored.extend(left_as_they_are(&unread));
    Ok(Reading {
        tool: Some(Tool::Torchtitan),
        format: era.to_string(),
        pairs: std::mem::take(pairs),
        read: s.read,
        ignored,
        broken,
        batch_per_replica,
        data_parallel: None,
    })
}
