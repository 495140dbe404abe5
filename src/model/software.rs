//! The software a run trains with (`software`): how much of a GPU's peak
//! its kernels sustain while busy, how far FP8 takes its matrix
//! multiplies, whether its FP8 weights stay in memory between passes, and
//! how much of what a layer saves its compiler's fusions leave out.
//!
//! The same layout on the same GPUs runs at different speeds under
//! different software: Megatron-Bridge's Llama 3 8B on 8 H100s in FP8
//! makes 14,451 tokens a second a GPU (its 25.11 performance summary),
//! torchtitan's, with torch.compile and torchao's Float8, 8,532 (its
//! December 2024 benchmark, Table 1). The planner keeps one model of a
//! step (`planner/step.rs`) and gives each software its own two fitted
//! numbers; `tests/measured_runs.rs` and `tests/published_runs.rs` hold
//! the fits and show every run's residual.

use super::choice::Choice;
use super::peak_memory::PipelineRuntime;

/// A training framework, as far as the planner's rate can tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Software {
    /// Megatron-LM and what runs on it (NeMo, Megatron-Bridge), with
    /// TransformerEngine's fused kernels, and the tuned stacks whose runs
    /// the default rate is fitted to (Llama 3's, MLPerf's).
    #[default]
    Megatron,
    /// torchtitan as its December 2024 benchmark ran it (commit 9dec370):
    /// FSDP2, torch.compile, torchao's Float8 linear layers, on H100s with
    /// 96 GB of HBM2e held to 500 W.
    Torchtitan,
    /// The same torchtitan without torch.compile (`--training.compile`
    /// off): eager PyTorch, one kernel an operation, as the benchmark's
    /// first rows ran it.
    TorchtitanEager,
    /// DeepSeek's HAI-LLM as its V3 report describes it (DeepSeek-AI 2024,
    /// section 3.3): FP8 multiplies whose operands are quantized online,
    /// tile by tile, and linear inputs cached in FP8. Its speed has no log
    /// to fit a rate to: it takes Megatron's, and its one run's GPU-hours
    /// check it (`tests/published_runs.rs`, `deepseek_v3_gpu_hours`).
    DeepSeek,
}

impl Choice for Software {
    const ALL: &'static [Self] = &[
        Self::Megatron,
        Self::Torchtitan,
        Self::TorchtitanEager,
        Self::DeepSeek,
    ];

    fn id(self) -> &'static str {
        match self {
            Self::Megatron => "megatron",
            Self::Torchtitan => "torchtitan",
            Self::TorchtitanEager => "torchtitan-eager",
            Self::DeepSeek => "deepseek",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Megatron => "Megatron-LM / NeMo",
            Self::Torchtitan => "torchtitan (Dec 2024)",
            Self::TorchtitanEager => "torchtitan (Dec 2024), no torch.compile",
            Self::DeepSeek => "DeepSeek (HAI-LLM)",
        }
    }
}

impl Software {
    /// Whose runs its rate is fitted to, for the words beside a rate.
    pub fn fitted_to(self) -> &'static str {
        match self {
            Self::Megatron => "Megatron-LM's runs",
            Self::Torchtitan => "torchtitan's runs",
            Self::TorchtitanEager => "torchtitan's runs without torch.compile",
            // No log of its own: Megatron's fit stands in.
            Self::DeepSeek => "Megatron-LM's runs, which DeepSeek's takes",
        }
    }

    /// Its rate while busy as a share of the GPU preset's (which is
    /// Megatron's): 1 for Megatron; for torchtitan the least-squares fit
    /// to its BF16 rows with torch.compile (8B on 8 and on 128 GPUs, 6,667
    /// and 6,514 tokens a second), taken with the preset's peak, as
    /// torchtitan's own MFU is (its footnote 2: their 500 W GPUs peak
    /// somewhere between the SXM's and the NVL's, number unknown); without
    /// torch.compile the fit to its two BF16 rows without it (5,762 and
    /// 5,605 tokens a second).
    pub fn busy_share(self) -> f64 {
        match self {
            Self::Megatron | Self::DeepSeek => 1.0,
            Self::Torchtitan => TORCHTITAN_BUSY_SHARE,
            Self::TorchtitanEager => TORCHTITAN_EAGER_BUSY_SHARE,
        }
    }

    /// The share of the way from the BF16 peak to the FP8 peak that its
    /// FP8 matrix multiplies go over a whole step (`precision.rs`), each
    /// the least-squares fit to its own FP8 runs given its BF16 rate:
    /// TransformerEngine's to MLPerf Training v4.0's two GPT-3 runs and
    /// Megatron-Bridge's Llama 3 70B and 405B; torchao's Float8 to
    /// torchtitan's FP8 rows, which all ran with torch.compile: without it
    /// no row measures Float8, and the compiled share stands in, likely
    /// above what eager Float8 gets (torchtitan's `float8.py` means it to
    /// run under torch.compile).
    pub fn fp8_gain_share(self) -> f64 {
        match self {
            Self::Megatron | Self::DeepSeek => MEGATRON_FP8_GAIN_SHARE,
            Self::Torchtitan | Self::TorchtitanEager => TORCHTITAN_FP8_GAIN_SHARE,
        }
    }

    /// Whether its FP8 casts of the BF16 weights stay in memory from one
    /// micro-batch to the next: TransformerEngine keeps them (with a
    /// transposed copy on Hopper, TransformerEngine#1261); torchao's Float8
    /// linear layer casts the weight each time it multiplies (tensorwise
    /// dynamic scaling, `torchao/float8/float8_linear.py`), and the cast it
    /// saves goes with the layer's activations, which recomputation
    /// discards; DeepSeek's quantizes each 128 × 128 block online as it
    /// multiplies (section 3.3.2), which we read as keeping no FP8 copy
    /// (the report does not say).
    pub fn keeps_fp8_weights(self) -> bool {
        matches!(self, Self::Megatron)
    }

    /// Whose pipeline runtime it runs ([`PipelineRuntime`]): torchtitan
    /// pipelines with torch's own (`torch.distributed.pipelining`), which
    /// as of its December 2024 benchmark made a receive buffer for every
    /// micro-batch and kept every stage's outputs for the whole step;
    /// DeepSeek's DualPipe, we assume, holds no more than Megatron-LM's.
    pub fn pipeline_runtime(self) -> PipelineRuntime {
        match self {
            Self::Torchtitan | Self::TorchtitanEager => PipelineRuntime::Torch,
            Self::Megatron | Self::DeepSeek => PipelineRuntime::Megatron,
        }
    }

    /// The share of a layer's activations, as the planner counts them for
    /// eager PyTorch (`activations.rs`), that the software's run costs: 1
    /// but under torch.compile. torchtitan's table measures the compiler's
    /// saving in pairs, the same run with and without it (Llama 3.1 8B on 8
    /// H100s: 82.4 GiB eager, 77.0 compiled; on 128: 67.0 and 62.0), and
    /// does not say where it comes from. Not from the tensors its op-level
    /// checkpointing marks to save: PyTorch's partitioner may not drop
    /// those (`should_ban_recomputation`, `torch/_functorch/partitioners.py`),
    /// so most likely from the fused kernels' fewer temporaries in the
    /// backward pass and what the allocator caches around them. The share
    /// is a fit to the pairs, stated as such (`tests/measured_runs.rs`,
    /// `the_compilers_saving_is_fitted_to_the_pairs`), and laid on the
    /// activations only because they scale with the same tokens and layers.
    /// Under full recomputation a layer keeps only its input, and the share
    /// is not laid on it; the layer recomputed whole in its backward pass
    /// (`peak_memory::recomputed_layer`) takes it, though no pair measures
    /// that case.
    pub fn kept_activation_share(self) -> f64 {
        match self {
            Self::Torchtitan => COMPILED_ACTIVATION_SHARE,
            Self::Megatron | Self::TorchtitanEager | Self::DeepSeek => 1.0,
        }
    }
}

/// torchtitan's rate while busy over the preset's: fitted in
/// `tests/measured_runs.rs` (`torchtitans_rate_is_fitted_to_its_rows`).
const TORCHTITAN_BUSY_SHARE: f64 = 0.58;

/// torchtitan's rate while busy without torch.compile, over the preset's:
/// fitted in `tests/measured_runs.rs` (`torchtitans_rate_is_fitted_to_its_rows`).
const TORCHTITAN_EAGER_BUSY_SHARE: f64 = 0.50;

/// Fitted in `tests/measured_runs.rs` (`the_compilers_saving_is_fitted_to_the_pairs`).
const COMPILED_ACTIVATION_SHARE: f64 = 0.85;

/// Fitted in `tests/published_runs.rs` (`the_fp8_gain_is_fitted_to_the_fp8_runs`).
const MEGATRON_FP8_GAIN_SHARE: f64 = 0.64;

/// Fitted in `tests/measured_runs.rs` (`torchtitans_rate_is_fitted_to_its_rows`).
const TORCHTITAN_FP8_GAIN_SHARE: f64 = 0.62;
