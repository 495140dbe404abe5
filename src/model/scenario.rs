//! The shared parameters every figure reads: model, GPU, the rate it is
//! assumed to sustain, how FLOP and activations are counted, tokens and
//! batch, and the training state's bytes a parameter, with their URL form
//! (the README's "Figures and URLs" documents every key).

use super::activations::{Attention, Recompute};
use super::choice::Choice;
use super::compute::{flop_per_token, fp8_flop_per_token, FlopCount, Rate};
use super::memory::BytesPerParam;
use super::precision::{Moments, Numerics, Precision};
use super::presets::{
    gpu_preset, model_preset, Architecture, GpuPreset, ModelPreset, DEFAULT_GPU, DEFAULT_MODEL,
    GPUS, MODELS,
};
use super::query::{read_choice, read_option, url_number, Notice, NumberSpec, Query};
use super::software::Software;
use super::units::{Flop, FlopPerSecond};

/// Training tokens: 1B to 1,000T (Llama 3 took 15.6T), on one log-scale slider over the whole range.
pub const TOKENS: NumberSpec = NumberSpec::count("tokens", 1e9, 1e15);
/// The fraction of the dense peak a GPU sustains while it computes
/// (recomputation's FLOP included). Called `mfu` until issue 19, a name
/// that is read still (`MFU_BEFORE`): the MFU papers publish is over the
/// whole step (the planner's `mfu` readout and `step-mfu` key).
pub const BUSY: NumberSpec = NumberSpec {
    key: "busy-util",
    min: 0.01,
    max: 1.0,
    integer: false,
    suffixed: false,
    lowered_by: None,
};
/// Global batch in sequences.
/// Model FLOPs utilisation over whole steps, as runs publish it (PaLM's
/// definition): the planner's `step-mfu`, which derives the rate while busy from it.
pub const STEP_MFU: NumberSpec = NumberSpec {
    key: "step-mfu",
    ..BUSY
};
/// The name `busy-util` had before.
const MFU_BEFORE: &str = "mfu";
pub const BATCH: NumberSpec = NumberSpec::whole("batch", 1.0, 1e7);
/// Parameter count overriding the model's.
pub const PARAMS: NumberSpec = NumberSpec::count("params", 1e6, 1e15);
/// Sustained TFLOP/s per GPU overriding the preset.
pub const TFLOPS: NumberSpec = NumberSpec {
    key: "tflops",
    min: 0.1,
    max: 1e6,
    integer: false,
    suffixed: false,
    lowered_by: None,
};

/// Sequence length in tokens, overriding the model's.
pub const SEQ: NumberSpec = NumberSpec::whole("seq", 1.0, 10_000_000.0);

pub const DEFAULT_TOKENS: f64 = 2e12;
pub const DEFAULT_BATCH: f64 = 1024.0;
/// The shared keys every figure reads, documented (the embed page and the
/// README are generated from this list and the figures' tables).
pub const SHARED_KEYS: [(&str, &str); 14] = [
    (
        "model",
        "model preset, by id; it brings its architecture and parameter count",
    ),
    (
        "gpu",
        "GPU preset, by id; it brings memory, speed and links",
    ),
    (
        "params",
        "parameter count behind the training state, overriding the model's (`6.74B`, `70B`)",
    ),
    (
        "layers, hidden, ffn, heads, kv-heads, vocab, seq, experts, top-k",
        "one field of the model's architecture, overridden (`experts`: experts a layer, 1 for a dense model; `top-k`: experts a token uses)",
    ),
    (
        "tflops",
        "sustained TFLOP/s a GPU, overriding the GPU preset's",
    ),
    (
        "busy-util",
        "the fraction of the GPU's dense peak sustained while it computes, recomputation included, 0.01 to 1 (default: the GPU's, fitted to the published runs whose layout and MFU are given, 0.64 on the A100 and 0.73 on the H100 and later GPUs, times the software's share; 1 for `illustrative`); ignored when `tflops` is given; `mfu`, its name before, is read with a notice",
    ),
    (
        "software",
        "the training software, which sets the defaults of the rate: `megatron` (default: Megatron-LM and NeMo, with TransformerEngine), `torchtitan` (December 2024, with torch.compile: 0.58 of the GPU's rate while computing and 0.85 of the activations' memory, both fitted to its measured runs, and its Float8 keeping no FP8 copies), `torchtitan-eager` (the same without torch.compile: 0.50 of the GPU's rate, every activation kept) or `deepseek` (DeepSeek-V3's: Megatron's rate, FP8 quantized online with the linear layers' inputs kept in FP8)",
    ),
    (
        "flop",
        "how training FLOP are counted: `6nd` (default, 6 × parameters × tokens) or `6nd-attn` (6 × matmul parameters + 12·L·h·s a token)",
    ),
    (
        "attention",
        "the attention kernel: `flash` (scores never stored) or `standard` (scores stored); default as the model was trained (Llama `flash`, GPT-3 `standard`)",
    ),
    ("tokens", "training tokens, 1B to 1,000T (default 2T)"),
    ("batch", "global batch, in sequences (default 1,024); `dp` runs at most one GPU a sequence"),
    (
        "bytes",
        "the training state's bytes a parameter: `16` (default), `18` or `20`",
    ),
    (
        "precision",
        "the weights' format in the passes: `bf16` (default), `fp8` (FP8 matrix multiplies, the BF16 weights kept beside their FP8 casts: memory goes up) or `fp8-primary` (FP8 weights only: memory and ZeRO's weight gathers go down); refused with a notice on a GPU without FP8",
    ),
    (
        "moments",
        "Adam's moments: `fp32` (default) or `bf16` (4 bytes a parameter, not 8)",
    ),
];

/// Reads `bytes` (16, 18 or 20; `default` when absent, with a notice when not one of them).
pub fn read_bytes_per_param(
    query: &Query,
    default: BytesPerParam,
    notices: &mut Vec<Notice>,
) -> BytesPerParam {
    read_option(query, "bytes", notices).unwrap_or(default)
}

/// Reaches one field of an architecture.
type Field = fn(&mut Architecture) -> &mut u32;

/// Architecture fields a URL may override, with their ranges.
const ARCH_FIELDS: [(NumberSpec, Field); 9] = [
    (NumberSpec::whole("layers", 1.0, 1000.0), |a| &mut a.layers),
    (NumberSpec::whole("hidden", 1.0, 1_000_000.0), |a| {
        &mut a.hidden
    }),
    (NumberSpec::whole("ffn", 1.0, 10_000_000.0), |a| &mut a.ffn),
    (NumberSpec::whole("heads", 1.0, 10_000.0), |a| &mut a.heads),
    (NumberSpec::whole("kv-heads", 1.0, 10_000.0), |a| {
        &mut a.kv_heads
    }),
    (NumberSpec::whole("vocab", 1.0, 10_000_000.0), |a| {
        &mut a.vocab
    }),
    (SEQ, |a| &mut a.seq),
    (EXPERTS, |a| &mut a.experts),
    (TOP_K, |a| &mut a.top_k),
];

/// Experts in each layer's MLP (1: dense).
pub const EXPERTS: NumberSpec = NumberSpec::whole("experts", 1.0, 256.0);
/// Experts each token is routed to.
pub const TOP_K: NumberSpec = NumberSpec::whole("top-k", 1.0, 16.0);

/// Model, GPU and run size, as the reader chose them.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub model: &'static ModelPreset,
    /// Architecture fields set in the URL, by key.
    pub arch_overrides: Vec<(&'static str, u32)>,
    /// Parameter count set in the URL (`params`).
    pub params_override: Option<f64>,
    pub gpu: &'static GpuPreset,
    /// Sustained TFLOP/s set in the URL (`tflops`).
    pub tflops_override: Option<f64>,
    /// The fraction of the peak sustained while busy, set in the URL (`busy-util`).
    pub busy_override: Option<f64>,
    /// MFU over whole steps, which the planner reads (`step-mfu`) and turns
    /// into the rate while busy, in place of `busy-util`.
    pub step_mfu: Option<f64>,
    /// How training FLOP are counted (`flop`).
    pub flop: FlopCount,
    /// The attention kernel set in the URL (`attention`); else the model's own.
    pub attention_override: Option<Attention>,
    /// Training tokens D.
    pub tokens: f64,
    /// Global batch, in sequences.
    pub batch: f64,
    /// The training state's convention: 16 (default), 18 or 20 bytes a parameter (`bytes`).
    pub bytes_per_param: BytesPerParam,
    /// The weights' format in the passes (`precision`).
    pub precision: Precision,
    /// Adam's moments' format (`moments`).
    pub moments: Moments,
    /// The training software, which sets the rate's defaults (`software`).
    pub software: Software,
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            model: DEFAULT_MODEL,
            arch_overrides: Vec::new(),
            params_override: None,
            gpu: DEFAULT_GPU,
            tflops_override: None,
            busy_override: None,
            step_mfu: None,
            flop: FlopCount::SixNd,
            attention_override: None,
            tokens: DEFAULT_TOKENS,
            batch: DEFAULT_BATCH,
            bytes_per_param: BytesPerParam::MIXED_PRECISION_ADAM,
            precision: Precision::Bf16,
            moments: Moments::Fp32,
            software: Software::Megatron,
        }
    }
}

impl Scenario {
    /// Reads the shared parameters, noting every bad value.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        Self::read(query, &Self::default(), notices)
    }

    /// Reads the shared parameters, each falling back to `defaults`' value
    /// (a figure may start elsewhere than the seeds' 7B model). A `model` in
    /// the query brings its own parameter count; without one, `defaults`'
    /// count stands unless `params` is given.
    pub fn read(query: &Query, defaults: &Self, notices: &mut Vec<Notice>) -> Self {
        let model_ids: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
        let gpu_ids: Vec<&str> = GPUS.iter().map(|g| g.id).collect();
        let chosen = read_choice(query, "model", &model_ids, notices).and_then(model_preset);
        let model = chosen.unwrap_or(defaults.model);
        let gpu = read_choice(query, "gpu", &gpu_ids, notices)
            .and_then(gpu_preset)
            .unwrap_or(defaults.gpu);
        let arch_overrides = ARCH_FIELDS
            .iter()
            .filter_map(|(spec, field)| {
                let default = f64::from(*field(&mut model.arch.clone()));
                spec.read_optional(query, default, notices)
                    .map(|v| (spec.key, v as u32))
            })
            .collect();
        let (params_default, params_kept) = match chosen {
            Some(model) => (model.params(), None),
            None => (defaults.params(), defaults.params_override),
        };
        let software = read_option(query, "software", notices).unwrap_or(defaults.software);
        let busy = gpu.busy * software.busy_share();
        let mut scenario = Self {
            model,
            arch_overrides,
            params_override: PARAMS
                .read_optional(query, params_default, notices)
                .or(params_kept),
            gpu,
            tflops_override: TFLOPS
                .read_optional(query, gpu.peak.value() * busy / 1e12, notices)
                .or(defaults.tflops_override),
            busy_override: BUSY
                .read_renamed(MFU_BEFORE, query, busy, notices)
                .or(defaults.busy_override),
            step_mfu: defaults.step_mfu,
            flop: read_option(query, "flop", notices).unwrap_or(defaults.flop),
            attention_override: read_option(query, "attention", notices)
                .or(defaults.attention_override),
            tokens: TOKENS.read(query, defaults.tokens, notices),
            batch: BATCH.read(query, defaults.batch, notices),
            bytes_per_param: read_bytes_per_param(query, defaults.bytes_per_param, notices),
            precision: read_option(query, "precision", notices).unwrap_or(defaults.precision),
            moments: read_option(query, "moments", notices).unwrap_or(defaults.moments),
            software,
        };
        scenario.limit_top_k_to_experts(notices);
        scenario.keep_fp8_to_gpus_with_it(notices);
        scenario
    }

    /// FP8 on a GPU without FP8 matrix multiplies (the A100) is refused:
    /// BF16 stands, and the reader is told.
    fn keep_fp8_to_gpus_with_it(&mut self, notices: &mut Vec<Notice>) {
        if self.precision != Precision::Bf16 && self.gpu.fp8.is_none() {
            notices.push(Notice {
                key: "precision".to_string(),
                message: format!(
                    "The {} has no FP8 matrix multiplies; using BF16.",
                    self.gpu.name
                ),
            });
            self.precision = Precision::Bf16;
        }
    }

    /// The formats as this GPU runs them: FP8 only where it has FP8.
    pub fn numerics(&self) -> Numerics {
        Numerics {
            precision: self.precision,
            moments: self.moments,
            fp8: self.gpu.fp8,
            bf16_peak: self.gpu.peak,
            matrix_share: self.arch().matrix_share(),
            fp8_gain_share: self.software.fp8_gain_share(),
            keeps_fp8_casts: self.software.keeps_fp8_weights(),
        }
    }

    /// The training state's bytes a parameter: the convention (`bytes`)
    /// under the formats (`precision`, `moments`).
    pub fn state_bytes(&self) -> BytesPerParam {
        self.numerics().state_bytes(self.bytes_per_param)
    }

    /// A token cannot use more experts than its layer has: an asked top-k
    /// beyond them becomes all of them, the reader is told, and the scenario
    /// keeps the value it uses (so its URL reads back without the notice).
    fn limit_top_k_to_experts(&mut self, notices: &mut Vec<Notice>) {
        let experts = self.arch().experts;
        let Some(asked) = self
            .arch_overrides
            .iter_mut()
            .find(|(key, value)| *key == TOP_K.key && *value > experts)
        else {
            return;
        };
        notices.push(Notice {
            key: TOP_K.key.to_string(),
            message: format!(
                "A token cannot use {} experts when each layer has {experts}; using all {experts}.",
                asked.1
            ),
        });
        asked.1 = experts;
        let model_top_k = self.model.arch.top_k;
        self.arch_overrides
            .retain(|(key, value)| *key != TOP_K.key || *value != model_top_k);
    }

    /// Appends the parameters that differ from the seeds' defaults.
    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        self.write_against(&Self::default(), pairs);
    }

    /// Appends the parameters that differ from `defaults`, so that
    /// [`Scenario::read`] with the same defaults gives this scenario back.
    pub fn write_against(&self, defaults: &Self, pairs: &mut Vec<(String, String)>) {
        let mut put = |key: &str, value: String| pairs.push((key.to_string(), value));
        if self.model.id != defaults.model.id {
            put("model", self.model.id.to_string());
        }
        if let Some(params) = self.params_override {
            if self.params_override != defaults.params_override
                || self.model.id != defaults.model.id
            {
                put("params", url_number(params));
            }
        }
        for (key, value) in &self.arch_overrides {
            put(key, value.to_string());
        }
        if self.gpu.id != defaults.gpu.id {
            put("gpu", self.gpu.id.to_string());
        }
        if let Some(tflops) = self.tflops_override {
            put("tflops", url_number(tflops));
        }
        if let Some(busy) = self
            .busy_override
            .filter(|_| self.busy_override != defaults.busy_override)
        {
            put(BUSY.key, url_number(busy));
        }
        if self.flop != defaults.flop {
            put("flop", self.flop.id().to_string());
        }
        if let Some(attention) = self
            .attention_override
            .filter(|_| self.attention_override != defaults.attention_override)
        {
            put("attention", attention.id().to_string());
        }
        if self.tokens != defaults.tokens {
            put("tokens", url_number(self.tokens));
        }
        if self.batch != defaults.batch {
            put("batch", BATCH.url_text(self.batch));
        }
        if self.bytes_per_param != defaults.bytes_per_param {
            put("bytes", self.bytes_per_param.id().to_string());
        }
        if self.precision != defaults.precision {
            put("precision", self.precision.id().to_string());
        }
        if self.moments != defaults.moments {
            put("moments", self.moments.id().to_string());
        }
        if self.software != defaults.software {
            put("software", self.software.id().to_string());
        }
    }

    /// Overrides one architecture field (`layers`, `hidden`, ..., `seq`) if
    /// the value is in its range (dropping the override when it equals the
    /// model's own value); returns whether it was taken.
    pub fn set_arch_field(&mut self, key: &str, value: f64) -> bool {
        let Some((spec, field)) = ARCH_FIELDS.iter().find(|(spec, _)| spec.key == key) else {
            return false;
        };
        let Ok(value) = spec.validate(value) else {
            return false;
        };
        self.arch_overrides.retain(|(k, _)| *k != spec.key);
        if value as u32 != *field(&mut self.model.arch.clone()) {
            self.arch_overrides.push((spec.key, value as u32));
        }
        true
    }

    /// The rate a GPU's passes run at, FLOP a second, as every figure
    /// takes it: [`Scenario::rate`]'s, with the arithmetic's time cut where
    /// FP8 runs the layers' matrix multiplies ([`Numerics::time_share`],
    /// which the planner's step applies too), nothing recomputed.
    pub fn sustained(&self) -> FlopPerSecond {
        self.rate().sustained() * self.fp8_speedup()
    }

    /// What whole runs on this GPU sustained, FLOP a second: the preset's
    /// whole-run share of its peak (`GpuPreset::whole_run`), the software's
    /// share of it, and FP8's speed-up as [`Scenario::sustained`] takes it;
    /// `None` where no run's hours are published or `tflops` sets the rate.
    pub fn whole_run_sustained(&self) -> Option<FlopPerSecond> {
        let share = self
            .gpu
            .whole_run
            .filter(|_| self.tflops_override.is_none())?;
        Some(self.gpu.peak * (share * self.software.busy_share() * self.fp8_speedup()))
    }

    /// How many times faster the arithmetic runs under the formats than in
    /// BF16 ([`Numerics::time_share`], which the planner's step applies
    /// too), nothing recomputed.
    fn fp8_speedup(&self) -> f64 {
        let flop = self.flop_per_token();
        let fp8 = fp8_flop_per_token(&self.arch(), Recompute::None).min(flop);
        1.0 / self.numerics().time_share(flop, fp8)
    }

    /// The model's architecture with the URL's overrides applied. A model
    /// with a K/V head for every head (GPT-3) keeps one when `heads` alone
    /// changes; `kv-heads` is never more than `heads`.
    pub fn arch(&self) -> Architecture {
        let mut arch = self.model.arch;
        for (key, value) in &self.arch_overrides {
            if let Some((_, field)) = ARCH_FIELDS.iter().find(|(spec, _)| spec.key == *key) {
                *field(&mut arch) = *value;
            }
        }
        let kv_set = self
            .arch_overrides
            .iter()
            .any(|(key, _)| *key == "kv-heads");
        if !kv_set && self.model.arch.kv_heads == self.model.arch.heads {
            arch.kv_heads = arch.heads;
        }
        arch.kv_heads = arch.kv_heads.min(arch.heads);
        arch.top_k = arch.top_k.min(arch.experts);
        arch
    }

    /// Whether the URL changes the preset's weights: a field other than the
    /// sequence (which sets the activations, not the parameters) set to a
    /// value of its own.
    pub fn reshaped(&self) -> bool {
        let mut preset = self.model.arch;
        self.arch_overrides.iter().any(|&(key, value)| {
            key != SEQ.key
                && ARCH_FIELDS
                    .iter()
                    .find(|(spec, _)| spec.key == key)
                    .is_some_and(|(_, field)| *field(&mut preset) != value)
        })
    }

    /// Ψ: the parameter count behind the training state: the URL's, else
    /// the model's (its quoted count unless the URL reshapes it).
    pub fn params(&self) -> f64 {
        self.params_override.unwrap_or_else(|| {
            if !self.reshaped() {
                self.model.params()
            } else {
                self.arch().exact_parameter_count()
            }
        })
    }

    /// The GPU.
    pub fn gpu(&self) -> GpuPreset {
        *self.gpu
    }

    /// What a GPU computes at: `tflops` as a sustained rate when the URL
    /// gives one; else the preset's peak at `busy-util` (the URL's, or the preset's).
    pub fn rate(&self) -> Rate {
        match self.tflops_override {
            Some(tflops) => Rate {
                peak: FlopPerSecond(tflops * 1e12),
                busy: 1.0,
            },
            None => Rate {
                peak: self.gpu.peak,
                busy: self
                    .busy_override
                    .unwrap_or(self.gpu.busy * self.software.busy_share()),
            },
        }
    }

    /// The attention kernel: the URL's, or the one the model was trained with.
    pub fn attention(&self) -> Attention {
        self.attention_override.unwrap_or(self.model.attention)
    }

    /// FLOP a token costs in training, counted as `flop` says, at the model's
    /// sequence length: for a mixture of experts, 6 × the parameters a token uses.
    pub fn flop_per_token(&self) -> f64 {
        let arch = self.arch();
        flop_per_token(
            self.flop,
            self.params() * arch.active_share(),
            &arch,
            f64::from(arch.seq),
        )
    }

    /// The whole run's training compute: FLOP a token × `tokens`.
    pub fn training_flop(&self) -> Flop {
        Flop(self.flop_per_token() * self.tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(search: &str) -> (Scenario, Vec<Notice>) {
        let mut notices = Vec::new();
        (
            Scenario::from_query(&Query::parse(search), &mut notices),
            notices,
        )
    }

    /// The keys' table states the fitted defaults it documents.
    #[test]
    fn the_keys_table_states_the_fitted_rates() {
        let busy = SHARED_KEYS
            .iter()
            .find(|(key, _)| *key == "busy-util")
            .unwrap()
            .1;
        for id in ["a100-80gb", "h100-sxm"] {
            let gpu = gpu_preset(id).unwrap();
            assert!(busy.contains(&gpu.busy.to_string()), "{id}: {busy}");
        }
        let software = SHARED_KEYS
            .iter()
            .find(|(key, _)| *key == "software")
            .unwrap()
            .1;
        for share in [
            Software::Torchtitan.busy_share(),
            Software::Torchtitan.kept_activation_share(),
            Software::TorchtitanEager.busy_share(),
        ] {
            assert!(software.contains(&format!("{share:.2}")), "{software}");
        }
        for option in Software::ALL {
            assert!(
                software.contains(&format!("`{}`", option.id())),
                "{software}"
            );
        }
    }

    #[test]
    fn defaults_are_the_seeds() {
        let (scenario, notices) = read("");
        assert!(notices.is_empty());
        assert_eq!(scenario, Scenario::default());
        assert_eq!(scenario.params(), 6.74e9);
        assert_eq!(scenario.rate().sustained(), FlopPerSecond(150e12));
    }

    #[test]
    fn bytes_per_parameter_is_read_checked_and_written() {
        let (scenario, notices) = read("?bytes=18");
        assert!(notices.is_empty());
        assert_eq!(scenario.bytes_per_param, BytesPerParam::FP32_GRADIENTS);
        let mut pairs = Vec::new();
        scenario.write(&mut pairs);
        assert_eq!(pairs, [("bytes".to_string(), "18".to_string())]);
        let (fallback, notices) = read("?bytes=17");
        assert_eq!(
            fallback.bytes_per_param,
            BytesPerParam::MIXED_PRECISION_ADAM
        );
        assert_eq!(notices[0].key, "bytes");
    }

    #[test]
    fn overrides_and_round_trip() {
        let search =
            "?model=llama3-8b&layers=40&gpu=h100-sxm&tflops=400&tokens=1.5T&batch=512&params=9B";
        let (scenario, notices) = read(search);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(scenario.arch().layers, 40);
        assert_eq!(scenario.params(), 9e9);
        assert_eq!(scenario.rate().sustained(), FlopPerSecond(400e12));
        let mut pairs = Vec::new();
        scenario.write(&mut pairs);
        let (again, _) = read(&super::super::query::to_search(&pairs));
        assert_eq!(again, scenario);
    }

    #[test]
    fn a_token_uses_at_most_every_expert() {
        // Mixtral 8x7B: 8 experts a layer, 2 a token (Jiang et al. 2024).
        let (mixtral, notices) = read("?model=mixtral-8x7b&top-k=12");
        assert_eq!(mixtral.arch().top_k, 8);
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].key, "top-k");
        // Its URL says what it uses, so it reads back with no notice (found by fuzzing).
        let mut pairs = Vec::new();
        mixtral.write(&mut pairs);
        let (again, notices) = read(&super::super::query::to_search(&pairs));
        assert!(notices.is_empty(), "{pairs:?}: {notices:?}");
        assert_eq!((again.arch().top_k, again), (8, mixtral));
        let (dense, notices) = read("?top-k=16");
        assert_eq!((dense.arch().top_k, notices.len()), (1, 1));
        let mut pairs = Vec::new();
        dense.write(&mut pairs);
        assert!(pairs.iter().all(|(key, _)| key != "top-k"), "{pairs:?}");
        let (dense, notices) = read("?model=mixtral-8x7b&experts=1");
        assert_eq!((dense.arch().experts, dense.arch().top_k), (1, 1));
        assert!(notices.is_empty(), "{notices:?}");
    }

    #[test]
    fn architecture_fields_can_be_set() {
        let mut scenario = Scenario::default();
        assert!(scenario.set_arch_field("seq", 8192.0));
        assert!(scenario.set_arch_field("seq", 2048.0));
        assert_eq!(scenario.arch().seq, 2048);
        assert_eq!(scenario.arch_overrides.len(), 1);
        assert!(scenario.set_arch_field("seq", 4096.0));
        assert!(scenario.arch_overrides.is_empty());
        assert!(!scenario.set_arch_field("seq", 0.0));
        assert!(!scenario.set_arch_field("colour", 1.0));
    }

    #[test]
    fn unknown_presets_fall_back() {
        let (scenario, notices) = read("model=gpt5&gpu=tpu");
        assert_eq!(scenario.model.id, "llama2-7b");
        assert_eq!(scenario.gpu.id, "illustrative");
        let keys: Vec<&str> = notices.iter().map(|n| n.key.as_str()).collect();
        assert_eq!(keys, ["model", "gpu"]);
    }
}
