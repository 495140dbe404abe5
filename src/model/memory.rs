//! Training state: the bytes a GPU keeps for weights, gradients and the
//! optimizer, and how ZeRO shards them.
//!
//! Source: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
//! Trillion Parameter Models" (arXiv:1910.02054), section 3.1 and Figure 1:
//! mixed-precision Adam keeps 2Ψ bytes of 16-bit (bf16) weights, 2Ψ of 16-bit gradients
//! and KΨ of fp32 optimizer state (master weights, momentum, variance), K = 12.

use super::choice::Choice;
use super::units::Bytes;

/// Bytes per parameter for each part of mixed-precision Adam training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BytesPerParam {
    /// fp16/bf16 weights used in the forward and backward passes (none
    /// when FP8 weights are the primary copy, `precision.rs`).
    pub weights: f64,
    /// FP8 weights the passes keep, beside the 16-bit ones or in their
    /// place, with a transposed copy where the GPU needs one (`precision.rs`).
    pub fp8_copies: f64,
    /// Bytes a parameter ZeRO's weight gathers send: the 16-bit weights,
    /// or 1 when FP8 weights are the primary copy.
    pub gathered_weights: f64,
    /// Gradients as the backward pass writes them, kept whole until ZeRO-2.
    pub gradients: f64,
    /// An fp32 copy the gradients are accumulated into, which the optimizer
    /// keeps with its state (sharded from ZeRO-1 on).
    pub main_gradients: f64,
    /// fp32 master copy of the weights.
    pub master_weights: f64,
    /// Adam's fp32 momentum and variance.
    pub moments: f64,
    /// Bytes per parameter of the gradient the data-parallel all-reduce sends.
    pub reduced_gradient: f64,
    /// What the gradients are, for labels.
    pub gradients_label: &'static str,
}

impl BytesPerParam {
    /// ZeRO's accounting: 2 + 2 + (4 + 8) = 16 bytes, K = 12 (Rajbhandari
    /// et al. 2020, section 3.1); the seeds use it.
    pub const MIXED_PRECISION_ADAM: Self = Self {
        weights: 2.0,
        fp8_copies: 0.0,
        gathered_weights: 2.0,
        gradients: 2.0,
        main_gradients: 0.0,
        master_weights: 4.0,
        moments: 8.0,
        reduced_gradient: 2.0,
        gradients_label: "bf16 gradients",
    };

    /// bf16 weights with gradients kept (and reduced) in fp32, as Megatron-LM
    /// and DeepSpeed's bf16 optimizer do: 2 + 4 + 12 = 18 bytes (Megatron-LM's
    /// distributed-optimizer documentation, "bf16 param, fp32 grads").
    pub const FP32_GRADIENTS: Self = Self {
        gradients: 4.0,
        reduced_gradient: 4.0,
        gradients_label: "fp32 gradients",
        ..Self::MIXED_PRECISION_ADAM
    };

    /// fp16 gradients accumulated into an fp32 copy: 2 + (2 + 4) + 12 = 20
    /// bytes; the fp32 copy sits with the optimizer's state, so ZeRO-1 keeps
    /// 4 + 16/d (the same documentation, "fp16 param, fp16 grads"). The
    /// data-parallel reduction sends the fp16 gradients as written
    /// (Megatron-LM's `DistributedDataParallelConfig.grad_reduce_in_fp32`
    /// defaults to false), so plain data parallelism all-reduces 2 bytes a
    /// parameter, as much as ZeRO-1's reduce-scatter and gather.
    pub const FP32_ACCUMULATION: Self = Self {
        main_gradients: 4.0,
        reduced_gradient: 2.0,
        gradients_label: "fp16 + fp32 gradients",
        ..Self::MIXED_PRECISION_ADAM
    };

    /// K: the optimizer's bytes per parameter (master weights and moments).
    pub fn k(&self) -> f64 {
        self.master_weights + self.moments
    }

    /// Every gradient byte a parameter: as written, and any fp32 copy.
    pub fn all_gradients(&self) -> f64 {
        self.gradients + self.main_gradients
    }

    /// What Adam's moments are, for labels: 8 bytes a parameter in fp32, 4 in bf16.
    pub fn moments_label(&self) -> &'static str {
        if self.moments < 8.0 {
            "Adam's bf16 moments"
        } else {
            "Adam's fp32 moments"
        }
    }

    /// The weights the passes keep, 16-bit and FP8: what ZeRO-3 shards with them.
    pub fn all_weights(&self) -> f64 {
        self.weights + self.fp8_copies
    }

    pub fn total(&self) -> f64 {
        self.all_weights() + self.all_gradients() + self.k()
    }

    /// The gradient of `params` parameters as the data-parallel all-reduce sends it.
    pub fn reduced_gradient_of(&self, params: f64) -> Bytes {
        Bytes(self.reduced_gradient * params)
    }
}

/// The conventions a reader may choose, by their total (`bytes=16|18|20`).
impl Choice for BytesPerParam {
    const ALL: &'static [Self] = &[
        Self::MIXED_PRECISION_ADAM,
        Self::FP32_GRADIENTS,
        Self::FP32_ACCUMULATION,
    ];

    fn id(self) -> &'static str {
        match self.total() as u32 {
            16 => "16",
            18 => "18",
            _ => "20",
        }
    }

    fn label(self) -> &'static str {
        match self.total() as u32 {
            16 => "16 B",
            18 => "18 B",
            _ => "20 B",
        }
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

impl Choice for ZeroStage {
    const ALL: &'static [Self] = &[
        ZeroStage::None,
        ZeroStage::One,
        ZeroStage::Two,
        ZeroStage::Three,
    ];

    /// The stage's number, as URLs write it.
    fn id(self) -> &'static str {
        ["0", "1", "2", "3"][self as usize]
    }

    fn label(self) -> &'static str {
        match self {
            ZeroStage::None => "No ZeRO",
            ZeroStage::One => "ZeRO-1",
            ZeroStage::Two => "ZeRO-2",
            ZeroStage::Three => "ZeRO-3",
        }
    }
}

impl ZeroStage {
    pub fn from_index(index: u32) -> Option<Self> {
        Self::ALL.get(index as usize).copied()
    }

    pub fn index(self) -> u32 {
        self as u32
    }
}

/// The training state one GPU holds, by group.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TrainingState {
    pub weights: Bytes,
    /// FP8 weights kept beside the 16-bit ones, or in their place.
    pub fp8_copies: Bytes,
    pub gradients: Bytes,
    /// The fp32 gradient copy of the 20-byte convention.
    pub main_gradients: Bytes,
    pub master_weights: Bytes,
    pub moments: Bytes,
}

impl std::ops::Add for TrainingState {
    type Output = Self;

    /// Two parts of one GPU's state (its dense weights' and its experts').
    fn add(self, other: Self) -> Self {
        Self {
            weights: self.weights + other.weights,
            fp8_copies: self.fp8_copies + other.fp8_copies,
            gradients: self.gradients + other.gradients,
            main_gradients: self.main_gradients + other.main_gradients,
            master_weights: self.master_weights + other.master_weights,
            moments: self.moments + other.moments,
        }
    }
}

impl TrainingState {
    /// The optimizer's share, KΨ: master weights plus Adam moments.
    pub fn optimizer(&self) -> Bytes {
        self.master_weights + self.moments
    }

    /// Every gradient byte: as written, and any fp32 copy.
    pub fn all_gradients(&self) -> Bytes {
        self.gradients + self.main_gradients
    }

    pub fn total(&self) -> Bytes {
        self.weights + self.fp8_copies + self.all_gradients() + self.optimizer()
    }

    /// How many times larger `self` is than `kept`, by total: what sharding saves.
    pub fn times_larger_than(&self, kept: &TrainingState) -> f64 {
        self.total().value() / kept.total().value().max(f64::MIN_POSITIVE)
    }

    /// The full, unsharded state of `params` parameters: 16Ψ bytes by ZeRO's accounting.
    pub fn full(params: f64, bytes: BytesPerParam) -> Self {
        Self {
            weights: Bytes(bytes.weights * params),
            fp8_copies: Bytes(bytes.fp8_copies * params),
            gradients: Bytes(bytes.gradients * params),
            main_gradients: Bytes(bytes.main_gradients * params),
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
            fp8_copies: shard(full.fp8_copies, stage >= ZeroStage::Three),
            gradients: shard(full.gradients, stage >= ZeroStage::Two),
            main_gradients: shard(full.main_gradients, stage >= ZeroStage::One),
            master_weights: shard(full.master_weights, stage >= ZeroStage::One),
            moments: shard(full.moments, stage >= ZeroStage::One),
        }
    }
}

impl TrainingState {
    /// What one GPU holds when tensor and pipeline parallelism split the
    /// model `tensor` × `pipeline` ways and ZeRO shards that slice over the
    /// `data` data-parallel GPUs: the state of Ψ/(t·p) parameters, sharded
    /// (Narayanan et al. 2021, section 3; Rajbhandari et al. 2020, section 5).
    /// The even split the seeds use; the planner places the embeddings
    /// where they sit.
    pub fn per_gpu(
        params: f64,
        bytes: BytesPerParam,
        stage: ZeroStage,
        data: u32,
        tensor: u32,
        pipeline: u32,
    ) -> Self {
        let model_parallel = f64::from(tensor.max(1)) * f64::from(pipeline.max(1));
        Self::zero(params / model_parallel, bytes, stage, data)
    }
}

/// How many GPUs' memories `state` fills: 1.35 for Llama 2 7B's 107.8 GB on 80 GB.
pub fn fill(state: Bytes, memory: Bytes) -> f64 {
    state.value() / memory.value()
}

/// The fewest data-parallel GPUs over which `stage` brings one GPU's share
/// of the training state of `params` parameters within `memory`, if any
/// (more GPUs never raise the share, so a binary search finds it).
pub fn fewest_gpus(
    params: f64,
    bytes: BytesPerParam,
    stage: ZeroStage,
    memory: Bytes,
    most: u32,
) -> Option<u32> {
    let fits_on = |gpus| {
        fits(
            TrainingState::zero(params, bytes, stage, gpus).total(),
            memory,
        )
    };
    if !fits_on(most) {
        return None;
    }
    let (mut low, mut high) = (1, most);
    while low < high {
        let mid = low + (high - low) / 2;
        if fits_on(mid) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    Some(low)
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
    fn conventions_by_total() {
        let totals: Vec<f64> = BytesPerParam::ALL.iter().map(|c| c.total()).collect();
        assert_eq!(totals, [16.0, 18.0, 20.0]);
        assert_eq!(
            BytesPerParam::from_id("18"),
            Some(BytesPerParam::FP32_GRADIENTS)
        );
        assert_eq!(BytesPerParam::from_id("17"), None);
        for c in BytesPerParam::ALL {
            assert_eq!(c.k(), 12.0);
        }
    }

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

    /// Megatron-LM's distributed-optimizer table (docs/source/api-guide/
    /// dist_optimizer.md): with ZeRO-1 over d GPUs, 18 bytes keep 6 + 12/d and
    /// 20 bytes keep 4 + 16/d.
    #[test]
    fn zero_1_as_megatrons_distributed_optimizer() {
        let per_param = |bytes, d| {
            TrainingState::zero(1.0, bytes, ZeroStage::One, d)
                .total()
                .value()
        };
        assert_eq!(
            per_param(BytesPerParam::FP32_GRADIENTS, 8),
            6.0 + 12.0 / 8.0
        );
        assert_eq!(
            per_param(BytesPerParam::FP32_ACCUMULATION, 8),
            4.0 + 16.0 / 8.0
        );
    }

    /// The course module: 70B under ZeRO-3 fits 80 GB from 14 GPUs on
    /// (16 × 70e9 / 14 = 80e9, exactly); plain data parallelism never does.
    #[test]
    fn fewest_gpus_for_the_state() {
        let at = |stage| fewest_gpus(70e9, ADAM, stage, Bytes(80e9), 65_536);
        assert_eq!(at(ZeroStage::Three), Some(14));
        assert_eq!(at(ZeroStage::None), None);
        assert!((fill(Bytes(107.84e9), Bytes(80e9)) - 1.348).abs() < 1e-12);
    }

    #[test]
    fn one_gpu_shards_nothing() {
        for &stage in ZeroStage::ALL {
            assert_eq!(
                TrainingState::zero(PSI, ADAM, stage, 1),
                TrainingState::full(PSI, ADAM)
            );
        }
    }
}
