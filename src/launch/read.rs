//! A launch configuration read back into the planner. A command line
//! (Megatron-LM's, Megatron-DeepSpeed's, torchtitan's) or Megatron-Bridge's
//! overrides are split into words as a POSIX shell splits them (the
//! `shlex` crate); a torchtitan TOML and a DeepSpeed JSON are parsed by the
//! `toml` and `serde_json` crates and read as dotted keys (`flat`). What a
//! text sets becomes the planner's URL pairs, so that the plan read is an
//! ordinary planner state. Megatron's numbers are read by the names the
//! export writes them with (`megatron::NUMBERS`), and its checks are
//! Megatron-Core's (`megatron::refusals`), on the numbers as given;
//! torchtitan's and DeepSpeed's are in their own modules.

mod deepspeed;
mod flat;
mod torchtitan;

use super::megatron::{self, Checked, Name, NUMBERS};
use super::{bridge, Tool};
use crate::model::choice::Choice;
use crate::model::memory::ZeroStage;

/// The longest text read, in bytes: a launch configuration is a few
/// kilobytes; megabytes pasted are refused before any is split.
pub const LONGEST: usize = 64 * 1024;

/// What a text sets, and what of it was read, ignored and broken.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// The tool whose settings these are.
    pub tool: Option<Tool>,
    /// What was read, in words: the tool and, for torchtitan, the era of
    /// its configuration ("torchtitan's TOML of 2025").
    pub format: String,
    /// The global batch, in sequences a data-parallel rank, where the text
    /// gives it so (torchtitan's `global_batch_size = -1`): the planner
    /// multiplies it by its own d.
    pub batch_per_replica: Option<u32>,
    /// The data-parallel size the text implies where it gives no world
    /// size (DeepSpeed's three batch sizes): the planner's GPUs become d
    /// times its t·p·cp.
    pub data_parallel: Option<u32>,
    /// The planner's URL keys and values the text sets.
    pub pairs: Vec<(String, String)>,
    /// What was read, each with the words it came from.
    pub read: Vec<String>,
    /// What was left out, and why.
    pub ignored: Vec<String>,
    /// The tool's own checks the text fails, in its words with its numbers.
    pub broken: Vec<String>,
}

/// Why a text was not read, in plain words: nothing of it is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// The line (from 1) where a quote opens and is never closed, as a shell reads quotes.
fn unclosed_quote_line(text: &str) -> usize {
    let (mut open, mut line, mut opened_at, mut escaped) = (None, 1, 1, false);
    for c in text.chars() {
        match (open, c) {
            (_, '\n') => line += 1,
            (None, '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (None, '\'' | '"') if !escaped => {
                open = Some(c);
                opened_at = line;
            }
            (Some(q), c) if c == q => open = None,
            _ => {}
        }
        escaped = false;
    }
    opened_at
}

/// The largest size read: 16 times the planner's most GPUs, so that the
/// products of sizes the checks form stay far from overflowing.
const LARGEST: u32 = 1 << 20;

/// A size a flag or key gives: a whole number from 1 to [`LARGEST`].
fn size(name: &str, value: &str) -> Result<u32, Unreadable> {
    value
        .parse::<u32>()
        .ok()
        .filter(|v| (1..=LARGEST).contains(v))
        .ok_or_else(|| {
            Unreadable(format!(
                "{name} {value}: a size is a whole number from 1 to 1,048,576. Nothing was changed."
            ))
        })
}

/// The text's words, as `(name, value)`: `--flag value`, `--flag=value`,
/// `key=value`, a switch with no value, or a word alone (a program's name).
fn settings(words: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        if let Some((name, value)) = word.split_once('=') {
            out.push((name.to_string(), Some(value.to_string())));
        } else if word.starts_with("--") {
            let value = words
                .get(i + 1)
                .filter(|next| !next.starts_with("--") && !next.contains('='));
            out.push((word.clone(), value.cloned()));
            if value.is_some() {
                i += 1;
            }
        } else {
            out.push((word.clone(), None));
        }
        i += 1;
    }
    out
}

/// Whether a text is a TOML file by its look: a line that opens a table.
fn looks_like_toml(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        l.starts_with('[') && l.ends_with(']') && !l.starts_with("[\"")
    })
}

/// Whether a command line's settings are torchtitan's: its program, or a
/// `--section.option` of a section only torchtitan has.
fn is_torchtitan(settings: &[(String, Option<String>)]) -> bool {
    settings.iter().any(|(name, value)| {
        name == "torchtitan.train"
            || value.as_deref() == Some("torchtitan.train")
            || [
                "--parallelism.",
                "--training.",
                "--job.",
                "--activation_checkpoint.",
                "--activation-checkpoint.",
            ]
            .iter()
            .any(|section| name.starts_with(section))
    })
}

/// Refuses a text longer than [`LONGEST`] before any of it is parsed.
fn not_too_long(text: &str) -> Result<(), Unreadable> {
    if text.len() > LONGEST {
        return Err(Unreadable(format!(
            "The text is {} bytes long: a launch configuration is at most 65,536. Nothing was changed.",
            crate::model::units::group_thousands(text.len() as f64)
        )));
    }
    Ok(())
}

/// The text's settings, read into the planner's terms.
pub fn read(text: &str) -> Result<Reading, Unreadable> {
    not_too_long(text)?;
    if text.trim_start().starts_with('{') {
        return deepspeed::read(&flat::json(text)?);
    }
    if looks_like_toml(text) {
        return torchtitan::read(&flat::toml(text)?, None, torchtitan::Spelling::Toml);
    }
    let Some(words) = shlex::split(&text.replace("\\\n", " ")) else {
        return Err(Unreadable(format!(
            "Line {}: a quote opens and is never closed. Nothing was changed.",
            unclosed_quote_line(text)
        )));
    };
    let settings = settings(&words);
    if settings
        .iter()
        .all(|(name, _)| !name.starts_with("--") && !name.contains('.'))
    {
        return Err(Unreadable(
            "No flag (--name value) or override (section.key=value) was found. Nothing was changed."
                .to_string(),
        ));
    }
    if is_torchtitan(&settings) {
        return torchtitan::read_command(&settings);
    }
    let bridge = settings
        .iter()
        .any(|(name, _)| name.starts_with("model.") || name.starts_with("train."));
    // Megatron-DeepSpeed, a fork of Megatron-LM: its flags and DeepSpeed's.
    let deepspeed = settings.iter().any(|(name, _)| {
        matches!(
            name.as_str(),
            "--deepspeed" | "--deepspeed_config" | "--zero-stage"
        )
    });
    let (tool, format) = match (bridge, deepspeed) {
        (true, _) => (Tool::MegatronBridge, "Megatron-Bridge's overrides"),
        (false, true) => (Tool::DeepSpeed, "Megatron-DeepSpeed's command line"),
        (false, false) => (Tool::MegatronLm, "Megatron-LM's command line"),
    };
    let mut reading = Reading {
        tool: Some(tool),
        format: format.to_string(),
        ..Reading::default()
    };
    let mut numbers = Vec::<(Name, u32)>::new();
    let mut switches = Switches::default();
    let mut ignored = Vec::new();
    for (name, value) in &settings {
        let value_text = value.as_deref().unwrap_or("");
        if let Some(found) = NUMBERS.iter().find(|n| n.flag == name || n.key == name) {
            if value_text == "null" {
                continue;
            }
            numbers.push((*found, size(name, value_text)?));
            reading.read.push(format!("{name} {value_text}"));
        } else if switches.take(name, value_text) {
            reading
                .read
                .push(format!("{name} {value_text}").trim_end().to_string());
        } else if name == "--recipe" {
            match bridge::RECIPES.iter().find(|(_, recipe)| *recipe == value_text) {
                Some((model, _)) => {
                    push(&mut reading.pairs, "model", model.to_string());
                    reading.read.push(format!("{name} {value_text}"));
                }
                None => reading.ignored.push(format!(
                    "The recipe {value_text} is not one of the planner's models: the model on screen is kept."
                )),
            }
        } else if let Some(read_as) = deepspeed_number(name) {
            // Megatron-DeepSpeed names the key-value heads without a switch.
            switches.grouped_query |= read_as.flag == megatron::QUERY_GROUPS.flag;
            numbers.push((read_as, size(name, value_text)?));
            reading.read.push(format!("{name} {value_text}"));
        } else if let Some(gpus) = world_size(name, value_text) {
            switches.world.push(gpus?);
            reading.read.push(format!("{name} {value_text}"));
        } else if name.starts_with("--") || value.is_some() {
            // A word alone that is no flag is a program (torchrun, a script).
            ignored.push(name.clone());
        }
    }
    reading.ignored.extend(left_as_they_are(&ignored));
    let number = |name: Name| {
        numbers
            .iter()
            .rev()
            .find(|(n, _)| n.flag == name.flag)
            .map(|(_, v)| *v)
    };
    for (name, value) in &numbers {
        // The experts' width is the planner's `ffn` under a mixture of experts.
        if name.flag == megatron::FFN.flag && number(megatron::EXPERT_FFN).is_some() {
            continue;
        }
        // Megatron-LM reads the query groups only with grouped-query attention.
        if name.flag == megatron::QUERY_GROUPS.flag && !bridge && !switches.grouped_query {
            continue;
        }
        push(&mut reading.pairs, name.planner, value.to_string());
    }
    switches.write(&mut reading, bridge);
    reading.ignored.extend(name_the_preset(&mut reading.pairs));
    if let Some(stage) = switches
        .zero_stage
        .as_deref()
        .filter(|s| !matches!(*s, "0" | "1" | "2" | "3"))
    {
        return Err(Unreadable(format!(
            "--zero-stage {stage}: DeepSpeed's ZeRO stage is 0, 1, 2 or 3. Nothing was changed."
        )));
    }
    let t = number(megatron::TP).unwrap_or(1);
    let p = number(megatron::PP).unwrap_or(1);
    let cp = number(megatron::CP).unwrap_or(1);
    let chunks = number(megatron::CHUNKS).unwrap_or(1);
    if chunks > 1 {
        push(&mut reading.pairs, "schedule", "interleaved".to_string());
    }
    // A command line not giving a size means Megatron-LM's default (1,
    // `model_parallel_config.py`); Bridge's overrides leave a recipe's own.
    if !bridge {
        for name in [
            megatron::TP,
            megatron::PP,
            megatron::CP,
            megatron::EP,
            megatron::MICRO_BATCH,
        ] {
            if number(name).is_none() {
                push(&mut reading.pairs, name.planner, "1".to_string());
            }
        }
        if switches.zero_bubble {
            push(&mut reading.pairs, "schedule", "zb-h1".to_string());
        } else if chunks <= 1 {
            push(&mut reading.pairs, "schedule", "1f1b".to_string());
        }
    }
    let world = world_of(&switches.world);
    if switches.world.is_empty() {
        reading.ignored.push("No world size was given (torchrun's --nnodes and --nproc-per-node, or WORLD_SIZE): the planner's GPU count is kept.".to_string());
    } else {
        push(&mut reading.pairs, "gpus", world.to_string());
        let global = number(megatron::GLOBAL_BATCH);
        let micro = number(megatron::MICRO_BATCH).unwrap_or(1);
        let checked = Checked {
            world,
            t,
            p,
            cp,
            chunks,
            micro_batch: micro,
            // Without one, Megatron-LM takes micro-batch × d (`arguments.py`).
            global_batch: global.unwrap_or(
                micro.saturating_mul((world / t.saturating_mul(p).saturating_mul(cp)).max(1)),
            ),
            // Not given: the model on screen's, which the planner checks
            // itself; a count every stage divides is no false refusal.
            layers: number(megatron::LAYERS).unwrap_or(p.saturating_mul(chunks)),
            heads: number(megatron::HEADS).unwrap_or(t),
            query_groups: number(megatron::QUERY_GROUPS)
                .filter(|_| switches.grouped_query || bridge),
            seq: number(megatron::SEQ).unwrap_or(2 * cp),
            experts: number(megatron::EXPERTS).unwrap_or(1),
            ep: number(megatron::EP).unwrap_or(1),
            fp8_gather_unsharded: switches.fp8_gather && !switches.sharded(),
            uneven_ends_given: switches.uneven_ends,
        };
        if global.is_none() && !bridge {
            push(
                &mut reading.pairs,
                "batch",
                checked.global_batch.to_string(),
            );
        }
        reading.broken = if deepspeed {
            let stage = ZeroStage::from_id(switches.stage()).unwrap_or(ZeroStage::None);
            let mut broken = super::deepspeed::refusals(!switches.no_pipeline, stage);
            // Megatron-DeepSpeed's own check (`megatron/arguments.py`).
            if switches.no_pipeline && number(megatron::PP).is_some_and(|p| p > 1) {
                broken.push(
                    "pipeline_model_parallel_size must be 1 if pipeline parallel is disabled"
                        .to_string(),
                );
            }
            broken
        } else {
            megatron::refusals(&checked)
        };
    }
    Ok(reading)
}

/// The model preset whose shape the pairs give, in place of the shape:
/// layers, width, heads and key-value heads alike (and the feed-forward
/// width where given). Where the shape is several presets' (Llama 2 and 3
/// 70B differ in the vocabulary, which no layout flag gives), the one
/// whose context length the text gives is taken, and the reader is told
/// which was taken of which.
fn name_the_preset(pairs: &mut Vec<(String, String)>) -> Option<String> {
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse::<u32>().ok())
    };
    let (layers, hidden, heads) = (get("layers")?, get("hidden")?, get("heads")?);
    let kv = get("kv-heads").unwrap_or(heads);
    let ffn = get("ffn");
    let found: Vec<_> = crate::model::presets::MODELS
        .iter()
        .filter(|m| {
            let a = m.arch;
            (a.layers, a.hidden, a.heads, a.kv_heads) == (layers, hidden, heads, kv)
                && ffn.is_none_or(|f| f == a.ffn)
        })
        .collect();
    let seq = get("seq");
    let model = *found
        .iter()
        .find(|m| seq == Some(m.arch.seq))
        .or(found.first())?;
    pairs.retain(|(k, _)| {
        !matches!(
            k.as_str(),
            "layers" | "hidden" | "heads" | "kv-heads" | "ffn"
        )
    });
    push(pairs, "model", model.id.to_string());
    (found.len() > 1).then(|| {
        let names: Vec<&str> = found.iter().map(|m| m.name).collect();
        format!(
            "The shape given is that of {}, which differ in what no layout setting gives (the vocabulary): read as {}{}; choose the other in the model list if it is yours.",
            names.join(" and "),
            model.name,
            if seq == Some(model.arch.seq) { ", whose context length is the one given" } else { "" }
        )
    })
}

/// Sets `key` in `pairs`, the last word given winning.
fn push(pairs: &mut Vec<(String, String)>, key: &str, value: String) {
    pairs.retain(|(k, _)| k != key);
    pairs.push((key.to_string(), value));
}

/// Megatron-DeepSpeed's spellings of Megatron's numbers: Ulysses' degree
/// for the context's (as the export writes it, `deepspeed.rs`) and the
/// key-value heads.
fn deepspeed_number(name: &str) -> Option<Name> {
    match name {
        "--ds-sequence-parallel-size" => Some(megatron::CP),
        "--num-key-value-heads" => Some(megatron::QUERY_GROUPS),
        _ => None,
    }
}

/// The line naming the settings a reader left alone, if any.
fn left_as_they_are(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| {
        format!(
            "Not part of a layout, left as they are: {}.",
            names.join(", ")
        )
    })
}

/// The world size of the GPU counts a text gives (torchrun's nodes and
/// GPUs a node): their product, saturating.
fn world_of(counts: &[u32]) -> u32 {
    counts.iter().fold(1u32, |all, n| all.saturating_mul(*n))
}

/// torchrun's and the environment's counts of GPUs: their product is the world.
fn world_size(name: &str, value: &str) -> Option<Result<u32, Unreadable>> {
    matches!(
        name,
        "--nnodes" | "--nproc-per-node" | "--nproc_per_node" | "NGPU" | "WORLD_SIZE"
    )
    .then(|| size(name, value))
}

/// The settings that are not numbers, as read.
#[derive(Default)]
struct Switches {
    sequence_parallel: Option<bool>,
    grouped_query: bool,
    distributed_optimizer: bool,
    megatron_fsdp: bool,
    strategy: Option<String>,
    recompute: Option<&'static str>,
    fp8: bool,
    fp8_gather: bool,
    bf16_moments: u8,
    /// The first or last stage's layers given: the planner splits the
    /// layers itself, the first and last stages lightest.
    uneven_ends: bool,
    /// Megatron-DeepSpeed's `--zero-stage`, as given.
    zero_stage: Option<String>,
    /// Megatron-DeepSpeed's `--no-pipeline-parallel`, `--enable-zbh1-pipeline`.
    no_pipeline: bool,
    zero_bubble: bool,
    world: Vec<u32>,
}

impl Switches {
    /// Takes a setting it knows; `false` for one it does not.
    fn take(&mut self, name: &str, value: &str) -> bool {
        let on = value.is_empty() || value == "true";
        match name {
            "--sequence-parallel" | "model.sequence_parallel" => self.sequence_parallel = Some(on),
            "--group-query-attention" => self.grouped_query = true,
            "--use-distributed-optimizer"
            | "ddp.use_distributed_optimizer"
            | "optimizer.use_distributed_optimizer" => self.distributed_optimizer |= on,
            "--use-megatron-fsdp" | "ddp.use_megatron_fsdp" => self.megatron_fsdp = on,
            "--data-parallel-sharding-strategy" | "ddp.data_parallel_sharding_strategy" => {
                self.strategy = Some(value.to_string())
            }
            "--recompute-granularity" | "model.recompute_granularity" => {
                self.recompute = match value {
                    "full" => Some("full"),
                    "selective" => Some("selective"),
                    _ => Some("none"),
                }
            }
            "--recompute-activations" => self.recompute = Some("selective"),
            "--checkpoint-activations" => self.recompute = Some("full"),
            "--zero-stage" => self.zero_stage = Some(value.to_string()),
            "--no-pipeline-parallel" => self.no_pipeline = true,
            "--enable-zbh1-pipeline" => self.zero_bubble = true,
            "--fp8-format" => self.fp8 = !value.is_empty(),
            "--fp8-param-gather" | "mixed_precision.fp8_param_gather" => self.fp8_gather = on,
            "mixed_precision" => {
                self.fp8 = value.contains("fp8");
                // Bridge's FP8 presets but the sub-channel one gather FP8 weights.
                self.fp8_gather = self.fp8 && !value.contains("subchannel");
            }
            "--exp-avg-dtype"
            | "--exp-avg-sq-dtype"
            | "optimizer.exp_avg_dtype"
            | "optimizer.exp_avg_sq_dtype" => {
                if matches!(value, "bf16" | "bfloat16" | "torch.bfloat16") {
                    self.bf16_moments += 1;
                }
            }
            "--decoder-first-pipeline-num-layers"
            | "--decoder-last-pipeline-num-layers"
            | "model.num_layers_in_first_pipeline_stage"
            | "model.num_layers_in_last_pipeline_stage" => self.uneven_ends = value != "null",
            "--bf16"
            | "--deepspeed"
            | "--deepspeed_config"
            | "--moe-token-dispatcher-type"
            | "model.moe_token_dispatcher_type"
            | "--use-precision-aware-optimizer"
            | "optimizer.use_precision_aware_optimizer" => {}
            _ => return false,
        }
        true
    }

    /// Whether the optimizer's state is sharded: the distributed optimizer or Megatron-FSDP.
    fn sharded(&self) -> bool {
        self.distributed_optimizer || self.megatron_fsdp
    }

    /// The ZeRO stage: Megatron-FSDP's strategy (`optim_grads_params`
    /// when none is given, `arguments.py`'s default), else the distributed
    /// optimizer's ZeRO-1, else none.
    fn stage(&self) -> &'static str {
        if let Some(stage) = self.zero_stage.as_deref() {
            match stage {
                "1" => "1",
                "2" => "2",
                "3" => "3",
                _ => "0",
            }
        } else if self.megatron_fsdp {
            match self.strategy.as_deref() {
                Some("no_shard") => "0",
                Some("optim") => "1",
                Some("optim_grads") => "2",
                _ => "3",
            }
        } else if self.distributed_optimizer {
            "1"
        } else {
            "0"
        }
    }

    fn write(&self, reading: &mut Reading, bridge: bool) {
        let pairs = &mut reading.pairs;
        push(pairs, "stage", self.stage().to_string());
        if let Some(on) = self.sequence_parallel {
            push(pairs, "sp", u8::from(on).to_string());
        } else if !bridge {
            push(pairs, "sp", "0".to_string());
        }
        if let Some(recompute) = self.recompute {
            push(pairs, "recompute", recompute.to_string());
        } else if !bridge {
            push(pairs, "recompute", "none".to_string());
        }
        let precision = match (self.fp8, self.fp8_gather) {
            (true, true) => "fp8-primary",
            (true, false) => "fp8",
            (false, _) => "bf16",
        };
        push(pairs, "precision", precision.to_string());
        push(
            pairs,
            "moments",
            if self.bf16_moments >= 2 {
                "bf16"
            } else {
                "fp32"
            }
            .to_string(),
        );
    }
}
