//! The shared parameters every figure reads: model, GPU, tokens and batch
//! (`shared/spec/figures.md`, "Shared parameters"), with their URL form, and
//! the training state's bytes a parameter (`bytes`, an addition to the spec).

use super::memory::BytesPerParam;
use super::presets::{
    gpu_preset, model_preset, Architecture, GpuPreset, ModelPreset, DEFAULT_GPU, DEFAULT_MODEL,
    GPUS, MODELS,
};
use super::query::{read_choice, url_number, Notice, NumberSpec, Query};
use super::units::FlopPerSecond;

/// Training tokens: the `why` slider's range, 50B to 2T.
pub const TOKENS: NumberSpec = NumberSpec::count("tokens", 50e9, 2e12);
/// Global batch in sequences.
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
};

/// Sequence length in tokens, overriding the model's.
pub const SEQ: NumberSpec = NumberSpec::whole("seq", 1.0, 10_000_000.0);

pub const DEFAULT_TOKENS: f64 = 2e12;
pub const DEFAULT_BATCH: f64 = 1024.0;
/// The values of `bytes`: the training state's bytes a parameter.
pub const BYTES_CHOICES: [&str; 3] = ["16", "18", "20"];

/// Reads `bytes` (16 when absent; a notice and 16 when not one of [`BYTES_CHOICES`]).
pub fn read_bytes_per_param(query: &Query, notices: &mut Vec<Notice>) -> BytesPerParam {
    read_choice(query, "bytes", &BYTES_CHOICES, notices)
        .and_then(|total| total.parse().ok())
        .and_then(BytesPerParam::from_total)
        .unwrap_or(BytesPerParam::MIXED_PRECISION_ADAM)
}

/// Reaches one field of an architecture.
type Field = fn(&mut Architecture) -> &mut u32;

/// Architecture fields a URL may override, with their ranges.
const ARCH_FIELDS: [(NumberSpec, Field); 7] = [
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
];

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
    /// Training tokens D.
    pub tokens: f64,
    /// Global batch, in sequences.
    pub batch: f64,
    /// The training state's convention: 16 (default), 18 or 20 bytes a parameter (`bytes`).
    pub bytes_per_param: BytesPerParam,
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            model: DEFAULT_MODEL,
            arch_overrides: Vec::new(),
            params_override: None,
            gpu: DEFAULT_GPU,
            tflops_override: None,
            tokens: DEFAULT_TOKENS,
            batch: DEFAULT_BATCH,
            bytes_per_param: BytesPerParam::MIXED_PRECISION_ADAM,
        }
    }
}

impl Scenario {
    /// Reads the shared parameters, noting every bad value.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let model_ids: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
        let gpu_ids: Vec<&str> = GPUS.iter().map(|g| g.id).collect();
        let model = read_choice(query, "model", &model_ids, notices)
            .and_then(model_preset)
            .unwrap_or(DEFAULT_MODEL);
        let gpu = read_choice(query, "gpu", &gpu_ids, notices)
            .and_then(gpu_preset)
            .unwrap_or(DEFAULT_GPU);
        let arch_overrides = ARCH_FIELDS
            .iter()
            .filter_map(|(spec, field)| {
                let default = f64::from(*field(&mut model.arch.clone()));
                spec.read_optional(query, default, notices)
                    .map(|v| (spec.key, v as u32))
            })
            .collect();
        Self {
            model,
            arch_overrides,
            params_override: PARAMS.read_optional(query, model.arch.parameter_count(), notices),
            gpu,
            tflops_override: TFLOPS.read_optional(query, gpu.sustained().value() / 1e12, notices),
            tokens: TOKENS.read(query, DEFAULT_TOKENS, notices),
            batch: BATCH.read(query, DEFAULT_BATCH, notices),
            bytes_per_param: read_bytes_per_param(query, notices),
        }
    }

    /// Appends the parameters that differ from the defaults.
    pub fn write(&self, pairs: &mut Vec<(String, String)>) {
        let mut put = |key: &str, value: String| pairs.push((key.to_string(), value));
        if self.model.id != DEFAULT_MODEL.id {
            put("model", self.model.id.to_string());
        }
        if let Some(params) = self.params_override {
            put("params", url_number(params));
        }
        for (key, value) in &self.arch_overrides {
            put(key, value.to_string());
        }
        if self.gpu.id != DEFAULT_GPU.id {
            put("gpu", self.gpu.id.to_string());
        }
        if let Some(tflops) = self.tflops_override {
            put("tflops", url_number(tflops));
        }
        if self.tokens != DEFAULT_TOKENS {
            put("tokens", url_number(self.tokens));
        }
        if self.batch != DEFAULT_BATCH {
            put("batch", url_number(self.batch));
        }
        if self.bytes_per_param != BytesPerParam::MIXED_PRECISION_ADAM {
            put("bytes", self.bytes_per_param.total().to_string());
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

    /// The model's architecture with the URL's overrides applied.
    pub fn arch(&self) -> Architecture {
        let mut arch = self.model.arch;
        for (key, value) in &self.arch_overrides {
            if let Some((_, field)) = ARCH_FIELDS.iter().find(|(spec, _)| spec.key == *key) {
                *field(&mut arch) = *value;
            }
        }
        arch.kv_heads = arch.kv_heads.min(arch.heads);
        arch
    }

    /// Ψ: the parameter count behind the training state.
    pub fn params(&self) -> f64 {
        self.params_override
            .unwrap_or_else(|| self.arch().parameter_count())
    }

    /// The GPU with the URL's sustained rate, if any.
    pub fn gpu(&self) -> GpuPreset {
        match self.tflops_override {
            Some(tflops) => GpuPreset {
                peak: FlopPerSecond(tflops * 1e12),
                sustained_fraction: 1.0,
                ..*self.gpu
            },
            None => *self.gpu,
        }
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

    #[test]
    fn defaults_are_the_seeds() {
        let (scenario, notices) = read("");
        assert!(notices.is_empty());
        assert_eq!(scenario, Scenario::default());
        assert_eq!(scenario.params(), 6.74e9);
        assert_eq!(scenario.gpu().sustained(), FlopPerSecond(150e12));
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
        assert_eq!(scenario.gpu().sustained(), FlopPerSecond(400e12));
        let mut pairs = Vec::new();
        scenario.write(&mut pairs);
        let (again, _) = read(&super::super::query::to_search(&pairs));
        assert_eq!(again, scenario);
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
