//! Number formats: the weights' precision in the passes (`precision`) and
//! Adam's moments' (`moments`), and what each adds to or removes from a
//! GPU's memory, its weight gathers and its arithmetic's time.
//!
//! - FP8 beside BF16 weights (`fp8`, TransformerEngine's default): the
//!   16-bit weights stay, and each is cast to FP8 for the matrix
//!   multiplies, the cast kept between the passes: memory goes up
//!   (NVIDIA/TransformerEngine#1429, #1261). On Hopper an FP8 matrix
//!   multiply takes its operands in one layout only ("TN"), so the
//!   backward pass needs a transposed copy too, also kept: 2 bytes a
//!   parameter (#1261); Blackwell multiplies either layout, 1 byte with
//!   per-tensor scaling (#1880; Megatron-LM's default `--fp8-recipe
//!   delayed`; TransformerEngine's MXFP8 recipe keeps both layouts, 2).
//!   Only the layers' matrices take FP8: the embedding, the output layer
//!   and the norms keep their BF16 bytes.
//! - FP8 primary weights (`fp8-primary`, TransformerEngine's
//!   `fp8_model_init`, Megatron-LM's `--fp8-param-gather`): the FP8 copy is
//!   the only one the passes keep, cast from the FP32 master weights, and
//!   ZeRO's gathers move 1 byte a parameter, not 2.
//! - BF16 moments (`moments=bf16`): Adam's two moments in 2 bytes each, not
//!   4, as DeepSeek-V3 kept them (DeepSeek-AI 2024, section 3.3.3, its
//!   master weights and gradients FP32: `bytes=18` becomes 14) and
//!   Megatron-LM's precision-aware optimizer offers (`--exp-avg-dtype`,
//!   `--exp-avg-sq-dtype`): 16 bytes a parameter become 12. (That
//!   optimizer can also keep the master weights as 2-byte remainders of
//!   the BF16 weights, `store_param_remainders`, not modelled here.)
//!
//! Time: the FP8 share of the arithmetic, the layers' matrix multiplies
//! (attention's scores, the output layer and the norms stay in BF16, as
//! TransformerEngine runs them), goes a share of the way from the BF16
//! peak to the GPU's dense FP8 peak that depends on the software
//! (`Software::fp8_gain_share`, fitted to measured runs).

use super::choice::Choice;
use super::memory::BytesPerParam;
use super::units::FlopPerSecond;

/// The weights' format in the forward and backward passes (`precision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Precision {
    #[default]
    Bf16,
    /// FP8 matrix multiplies, the BF16 weights kept beside their FP8 casts.
    Fp8,
    /// FP8 weights only, cast from the master copy after each update.
    Fp8Primary,
}

impl Choice for Precision {
    const ALL: &'static [Self] = &[Self::Bf16, Self::Fp8, Self::Fp8Primary];

    fn id(self) -> &'static str {
        match self {
            Self::Bf16 => "bf16",
            Self::Fp8 => "fp8",
            Self::Fp8Primary => "fp8-primary",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Bf16 => "BF16",
            Self::Fp8 => "FP8 beside BF16",
            Self::Fp8Primary => "FP8 weights",
        }
    }
}

/// Adam's moments' format (`moments`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Moments {
    #[default]
    Fp32,
    Bf16,
}

impl Choice for Moments {
    const ALL: &'static [Self] = &[Self::Fp32, Self::Bf16];

    fn id(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Bf16 => "bf16",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32 moments",
            Self::Bf16 => "BF16 moments",
        }
    }
}

/// What a GPU does in FP8, from its datasheet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fp8 {
    /// Dense FP8 peak (without sparsity).
    pub peak: FlopPerSecond,
    /// Bytes a parameter of the FP8 weights the passes keep: 2 where the
    /// backward pass needs a transposed copy (Hopper, and ROCm's
    /// TransformerEngine, which keeps it by default), 1 where it does not.
    pub weight_bytes: f64,
}

/// Precision and moments together, with the GPU's FP8 abilities.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Numerics {
    pub precision: Precision,
    pub moments: Moments,
    /// The GPU's FP8 peak and weight bytes; `None` where it has no FP8
    /// (then `precision` is BF16: the scenario refuses FP8 with a notice).
    pub fp8: Option<Fp8>,
    /// The GPU's dense BF16 peak, which the FP8 peak is measured against.
    pub bf16_peak: FlopPerSecond,
    /// The share of the parameters in the layers' matrices, which
    /// TransformerEngine's linear layers hold and FP8 casts; the embedding,
    /// the output layer (Megatron-LM's own linear layer) and the norms stay BF16.
    pub matrix_share: f64,
    /// The share of the way from the BF16 peak to the FP8 peak that FP8
    /// matrix multiplies go (`Software::fp8_gain_share`).
    pub fp8_gain_share: f64,
    /// Whether FP8 casts of the BF16 weights stay in memory between passes
    /// (`Software::keeps_fp8_weights`).
    pub keeps_fp8_casts: bool,
}

impl Numerics {
    /// The training state's bytes a parameter under these formats, from
    /// the convention `bytes` (16, 18 or 20, all with BF16 weights and FP32 moments).
    pub fn state_bytes(&self, bytes: BytesPerParam) -> BytesPerParam {
        let fp8_weights = self.fp8.map_or(0.0, |f| f.weight_bytes);
        let moments = match self.moments {
            Moments::Fp32 => bytes.moments,
            Moments::Bf16 => bytes.moments / 2.0,
        };
        // Averaged over the parameters: only the layers' matrices take FP8.
        let share = self.matrix_share.clamp(0.0, 1.0);
        let (weights, fp8_copies, gathered_weights) = match (self.precision, self.fp8) {
            (Precision::Fp8, Some(_)) if self.keeps_fp8_casts => {
                (bytes.weights, fp8_weights * share, bytes.gathered_weights)
            }
            (Precision::Fp8Primary, Some(_)) => (
                bytes.weights * (1.0 - share),
                fp8_weights * share,
                share + bytes.gathered_weights * (1.0 - share),
            ),
            _ => (bytes.weights, 0.0, bytes.gathered_weights),
        };
        BytesPerParam {
            weights,
            fp8_copies,
            gathered_weights,
            moments,
            ..bytes
        }
    }

    /// Whether the passes run FP8 matrix multiplies.
    pub fn fp8(&self) -> bool {
        self.precision != Precision::Bf16 && self.fp8.is_some()
    }

    /// Bytes an FP8 weight takes on this GPU (with its transpose where it
    /// needs one), when the passes run FP8.
    pub fn fp8_weight_bytes(&self) -> Option<f64> {
        self.fp8
            .filter(|_| self.fp8() && self.keeps_fp8_weights())
            .map(|f| f.weight_bytes)
    }

    /// Whether FP8 weights stay in memory between passes: always for FP8
    /// primary weights, beside BF16 ones where the software keeps its casts.
    fn keeps_fp8_weights(&self) -> bool {
        self.precision == Precision::Fp8Primary || self.keeps_fp8_casts
    }

    /// Whether the linear layers keep their inputs as FP8 casts for the
    /// backward pass (`ActivationSetup::fp8_inputs`): whenever the passes
    /// run FP8, in all three softwares. TransformerEngine's `Linear`,
    /// `LayerNormLinear` and `LayerNormMLP` save the casts they multiplied;
    /// torchao's Float8 of December 2024 does too (tensorwise scaling's
    /// `manual_float8_matmul_with_args_in_float8` saves the FP8 input and
    /// weight); DeepSeek-V3 caches them so (section 3.3.2).
    pub fn fp8_inputs(&self) -> bool {
        self.fp8()
    }

    /// What the weights the passes keep are, for labels.
    pub fn weights_label(&self) -> &'static str {
        match (self.fp8(), self.precision) {
            (true, Precision::Fp8) if self.keeps_fp8_weights() => {
                "bf16 weights and their FP8 casts"
            }
            (true, Precision::Fp8) => "bf16 weights, cast to FP8 as they are used",
            (true, _) => "FP8 weights in the layers' matrices, bf16 elsewhere",
            (false, _) => "bf16 weights",
        }
    }

    /// The GPU's FP8 peak over its BF16 one (1 without FP8).
    pub fn peaks_ratio(&self) -> f64 {
        self.fp8.map_or(1.0, |fp8| {
            fp8.peak.value() / self.bf16_peak.value().max(f64::MIN_POSITIVE)
        })
    }

    /// How much faster the FP8 matrix multiplies run than at BF16: 1 in
    /// BF16 or without FP8.
    pub fn matmul_gain(&self) -> f64 {
        if self.fp8() {
            1.0 + self.fp8_gain_share * (self.peaks_ratio() - 1.0).max(0.0)
        } else {
            1.0
        }
    }

    /// The arithmetic's time under these formats over its time in BF16,
    /// when `fp8_flop` of its `flop` run `matmul_gain` times faster.
    pub fn time_share(&self, flop: f64, fp8_flop: f64) -> f64 {
        let gain = self.matmul_gain();
        if flop <= 0.0 || gain == 1.0 {
            return 1.0;
        }
        let fp8 = (fp8_flop / flop).clamp(0.0, 1.0);
        1.0 - fp8 + fp8 / gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::software::Software;

    const HOPPER: Fp8 = Fp8 {
        peak: FlopPerSecond(1979e12),
        weight_bytes: 2.0,
    };
    const BLACKWELL: Fp8 = Fp8 {
        peak: FlopPerSecond(4500e12),
        weight_bytes: 1.0,
    };

    fn numerics(precision: Precision, moments: Moments, fp8: Fp8) -> Numerics {
        Numerics {
            precision,
            moments,
            fp8: Some(fp8),
            bf16_peak: FlopPerSecond(if fp8.weight_bytes == 1.0 {
                2250e12
            } else {
                989e12
            }),
            // Every parameter in a layer's matrices: the per-parameter arithmetic alone.
            matrix_share: 1.0,
            fp8_gain_share: Software::Megatron.fp8_gain_share(),
            keeps_fp8_casts: true,
        }
    }

    /// The arithmetic: BF16 moments take 16 bytes a parameter to
    /// 12 (2 + 2 + 4 + 2 + 2); FP8 beside BF16 adds the cast and its
    /// transpose on Hopper (16 + 2 = 18), the cast alone on Blackwell (17);
    /// FP8 primary weights replace the 2 BF16 bytes: 16 on Hopper, 15 on
    /// Blackwell (TransformerEngine#1261, #1880).
    #[test]
    fn bytes_a_parameter_under_each_format() {
        let adam = BytesPerParam::MIXED_PRECISION_ADAM;
        let total =
            |precision, moments, fp8| numerics(precision, moments, fp8).state_bytes(adam).total();
        assert_eq!(total(Precision::Bf16, Moments::Fp32, HOPPER), 16.0);
        assert_eq!(total(Precision::Bf16, Moments::Bf16, HOPPER), 12.0);
        assert_eq!(total(Precision::Fp8, Moments::Fp32, HOPPER), 18.0);
        assert_eq!(total(Precision::Fp8, Moments::Fp32, BLACKWELL), 17.0);
        assert_eq!(total(Precision::Fp8Primary, Moments::Fp32, HOPPER), 16.0);
        assert_eq!(total(Precision::Fp8Primary, Moments::Bf16, BLACKWELL), 11.0);
        // ZeRO's gathers move FP8 weights only when they are the primary copy.
        let gathered = |precision| {
            numerics(precision, Moments::Fp32, HOPPER)
                .state_bytes(adam)
                .gathered_weights
        };
        assert_eq!(
            [Precision::Bf16, Precision::Fp8, Precision::Fp8Primary].map(gathered),
            [2.0, 2.0, 1.0]
        );
    }

    /// A GPU without FP8 keeps BF16 whatever is asked.
    #[test]
    fn no_fp8_without_the_hardware() {
        let none = Numerics {
            precision: Precision::Fp8,
            fp8: None,
            ..Default::default()
        };
        assert_eq!(
            none.state_bytes(BytesPerParam::MIXED_PRECISION_ADAM)
                .total(),
            16.0
        );
        assert_eq!(none.matmul_gain(), 1.0);
    }

    /// H100: FP8 1,979 against BF16 989 TFLOP/s, 2.001 times; 0.4 of the way
    /// is 1.40 faster on the FP8 share; all of the FLOP in FP8 then takes
    /// 1/1.40 of the time, half of them 0.5 + 0.5/1.40.
    #[test]
    fn the_fp8_share_runs_faster() {
        let h100 = numerics(Precision::Fp8, Moments::Fp32, HOPPER);
        let gain = 1.0 + Software::Megatron.fp8_gain_share() * (1979.0 / 989.0 - 1.0);
        assert!((h100.matmul_gain() - gain).abs() < 1e-12);
        assert!((h100.time_share(10.0, 10.0) - 1.0 / gain).abs() < 1e-12);
        assert!((h100.time_share(10.0, 5.0) - (0.5 + 0.5 / gain)).abs() < 1e-12);
        let bf16 = numerics(Precision::Bf16, Moments::Fp32, HOPPER);
        assert_eq!(bf16.time_share(10.0, 10.0), 1.0);
    }
}
