//! Training state: the bytes a GPU keeps for weights, gradients and the
//! optimizer, and how ZeRO shards them.
//!
//! Source: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
//! Trillion Parameter Models" (arXiv:1910.02054), section 3.1 and Figure 1:
//! mixed-precision Adam keeps 2Ψ bytes of fp16 weights, 2Ψ of fp16 gradients
//! and KΨ of fp32 optimizer state (master weights, momentum, variance), K = 12.

use super::units::Bytes;

/// Bytes per parameter for each part of mixed-precision Adam training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BytesPerParam {
    /// fp16/bf16 weights used in the forward and backward passes.
    pub weights: f64,
    /// fp16/bf16 gradients.
    pub gradients: f64,
    /// fp32 master copy of the weights.
    pub master_weights: f64,
    /// Adam's fp32 momentum and variance.
    pub moments: f64,
}

impl BytesPerParam {
    /// ZeRO's accounting: 2 + 2 + (4 + 8) = 16 bytes, K = 12.
    pub const MIXED_PRECISION_ADAM: Self = Self {
        weights: 2.0,
        gradients: 2.0,
        master_weights: 4.0,
        moments: 8.0,
    };

    /// K: the optimizer's bytes per parameter (master weights and moments).
    pub fn k(&self) -> f64 {
        self.master_weights + self.moments
    }

    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.k()
    }
}

/// A ZeRO stage (Rajbhandari et al. 2020, section 5): what is sharded across
/// the N data-parallel GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ZeroStage {
    /// Plain data parallelism: every GPU keeps everything.
    None = 0,
    /// P_os: optimizer states sharded.
    One = 1,
    /// P_os+g: optimizer states and gradients sharded.
    Two = 2,
    /// P_os+g+p: weights sharded too (what PyTorch FSDP implements).
    Three = 3,
}

impl ZeroStage {
    pub const ALL: [ZeroStage; 4] = [
        ZeroStage::None,
        ZeroStage::One,
        ZeroStage::Two,
        ZeroStage::Three,
    ];

    pub fn from_index(index: u32) -> Option<Self> {
        Self::ALL.get(index as usize).copied()
    }

    pub fn index(self) -> u32 {
        self as u32
    }

    pub fn label(self) -> &'static str {
        match self {
            ZeroStage::None => "None",
            ZeroStage::One => "ZeRO-1",
            ZeroStage::Two => "ZeRO-2",
            ZeroStage::Three => "ZeRO-3",
        }
    }
}

/// The training state one GPU holds, by group.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TrainingState {
    pub weights: Bytes,
    pub gradients: Bytes,
    pub master_weights: Bytes,
    pub moments: Bytes,
}

impl TrainingState {
    /// The optimizer's share, KΨ: master weights plus Adam moments.
    pub fn optimizer(&self) -> Bytes {
        self.master_weights + self.moments
    }

    pub fn total(&self) -> Bytes {
        self.weights + self.gradients + self.optimizer()
    }

    /// The full, unsharded state of `params` parameters: 16Ψ bytes.
    pub fn full(params: f64, bytes: BytesPerParam) -> Self {
        Self {
            weights: Bytes(bytes.weights * params),
            gradients: Bytes(bytes.gradients * params),
            master_weights: Bytes(bytes.master_weights * params),
            moments: Bytes(bytes.moments * params),
        }
    }

    /// What one of `gpus` data-parallel GPUs keeps under a ZeRO stage.
    ///
    /// Rajbhandari et al. 2020, section 5.1 and Figure 1:
    /// stage 1 keeps (4 + K/N)Ψ, stage 2 (2 + (2 + K)/N)Ψ, stage 3 (4 + K)Ψ/N.
    pub fn zero(params: f64, bytes: BytesPerParam, stage: ZeroStage, gpus: u32) -> Self {
        let full = Self::full(params, bytes);
        let shards = f64::from(gpus.max(1));
        let shard = |part: Bytes, sharded: bool| if sharded { part / shards } else { part };
        Self {
            weights: shard(full.weights, stage >= ZeroStage::Three),
            gradients: shard(full.gradients, stage >= ZeroStage::Two),
            master_weights: shard(full.master_weights, stage >= ZeroStage::One),
            moments: shard(full.moments, stage >= ZeroStage::One),
        }
    }
}

/// Whether `state` fits in a GPU's `memory`.
pub fn fits(state: Bytes, memory: Bytes) -> bool {
    state.value() <= memory.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PSI: f64 = 7.5e9;
    const ADAM: BytesPerParam = BytesPerParam::MIXED_PRECISION_ADAM;

    #[test]
    fn sixteen_bytes_per_parameter() {
        assert_eq!(ADAM.total(), 16.0);
        assert_eq!(ADAM.k(), 12.0);
        assert_eq!(TrainingState::full(PSI, ADAM).total(), Bytes(120e9));
    }

    /// ZeRO paper, Figure 1: Ψ = 7.5B, N = 64, K = 12.
    #[test]
    fn zero_paper_figure_1() {
        let per_gpu = |stage| TrainingState::zero(PSI, ADAM, stage, 64).total().value() / 1e9;
        assert_eq!(per_gpu(ZeroStage::None), 120.0);
        assert!((per_gpu(ZeroStage::One) - 31.4).abs() < 0.05);
        assert!((per_gpu(ZeroStage::Two) - 16.6).abs() < 0.05);
        assert!((per_gpu(ZeroStage::Three) - 1.9).abs() < 0.05);
    }

    #[test]
    fn one_gpu_shards_nothing() {
        for stage in ZeroStage::ALL {
            assert_eq!(
                TrainingState::zero(PSI, ADAM, stage, 1),
                TrainingState::full(PSI, ADAM)
            );
        }
    }
}
