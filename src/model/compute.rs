//! Training compute and time.
//!
//! - C ≈ 6ND: about 2 FLOP per parameter per token forward and 4 backward
//!   (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1).
//! - With the attention term (Narayanan et al. 2021, section 5.1, eq. 3):
//!   per token 6 × (parameters in matrix multiplications, the output layer's
//!   included) + 12·L·h·s, the scores QKᵀ and their product with V; for
//!   GPT-3 that is 72·L·h²(1 + s/6h + V/12hL). Recomputing every layer's
//!   forward adds a third of it (their 96 in place of 72).
//! - Time on n GPUs, each sustaining a fraction u of its peak X while it
//!   computes (the `busy-util` key: FLOP the GPU runs, recomputation's
//!   included, over its peak, while busy): busy time C/(nX·u); a pipeline
//!   bubble b idles every GPU for a share b of the step, so the step takes
//!   busy/(1 − b). Model FLOPs utilisation (MFU, Chowdhery et al. 2022,
//!   PaLM, appendix B) is the model's FLOP over n·X·step: the planner's
//!   `mfu` readout, below u by the bubble and by recomputation.

use super::activations::Recompute;
use super::choice::Choice;
use super::presets::Architecture;
use super::units::{Flop, FlopPerSecond, Seconds};

/// How training FLOP are counted (`flop=6nd|6nd-attn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FlopCount {
    /// 6 × parameters × tokens: the explainer's count.
    #[default]
    SixNd,
    /// 6 × matmul parameters (output layer included) + 12·L·h·s, per token.
    SixNdAttention,
}

impl Choice for FlopCount {
    const ALL: &'static [Self] = &[FlopCount::SixNd, FlopCount::SixNdAttention];

    fn id(self) -> &'static str {
        match self {
            FlopCount::SixNd => "6nd",
            FlopCount::SixNdAttention => "6nd-attn",
        }
    }

    fn label(self) -> &'static str {
        match self {
            FlopCount::SixNd => "6ΨD",
            FlopCount::SixNdAttention => "6ΨD + attention",
        }
    }
}

/// The FLOP one token costs in a training step (forward and backward) for a
/// model of `params` parameters shaped like `arch`, at sequence length `seq`.
pub fn flop_per_token(count: FlopCount, params: f64, arch: &Architecture, seq: f64) -> f64 {
    match count {
        FlopCount::SixNd => 6.0 * params,
        FlopCount::SixNdAttention => 6.0 * matmul_params(arch) + attention_flop(arch, seq),
    }
}

/// Parameters in matrix multiplications: every layer's, and the output
/// layer's even when it shares the embedding's matrix (Narayanan et al. 2021, eq. 3's V/12hL term).
pub fn matmul_params(arch: &Architecture) -> f64 {
    f64::from(arch.layers) * arch.layer_active_matrix_params()
        + f64::from(arch.vocab) * f64::from(arch.hidden)
}

/// The attention scores' FLOP per token, forward and backward: QKᵀ and
/// their product with V, 2·2·s·h forward a layer, thrice that in all:
/// 12·L·h·s (MLA's heads are wider than h/a: `Architecture::attention_width`).
pub fn attention_flop(arch: &Architecture, seq: f64) -> f64 {
    12.0 * f64::from(arch.layers) * arch.attention_width() * seq
}

/// How much longer the slowest pipeline stage computes than the mean of
/// the stages `ranges` (each stage's layers): p × its work over all of it,
/// 1 with one stage. A stage's work a token is its layers' matrix
/// multiplies and attention scores, 6 FLOP a matrix parameter and 12·h·s a
/// layer (Narayanan et al. 2021, eq. 3); the last stage also runs the
/// output layer, 6·V·h, and the loss, which is negligible beside it; the
/// first only looks the embedding up. GPT-3's 96 layers on 32 stages: the
/// last's 3 layers and the output layer are 1.107 times the mean (issue
/// 36); the stage that takes longest sets the pipeline's pace.
pub fn slowest_stage(arch: &Architecture, ranges: &[std::ops::Range<u32>], seq: f64) -> f64 {
    let stages = ranges.len();
    if stages <= 1 {
        return 1.0;
    }
    let layer = 6.0 * arch.layer_active_matrix_params()
        + attention_flop(arch, seq) / f64::from(arch.layers.max(1));
    let output = 6.0 * f64::from(arch.vocab) * f64::from(arch.hidden);
    // One pass (the layout search calls this for every layout it tries):
    // the work of all stages and of the slowest.
    let (total, slowest) =
        ranges
            .iter()
            .enumerate()
            .fold((0.0, 0.0_f64), |(total, slowest), (i, range)| {
                let work = f64::from(range.end - range.start) * layer
                    + if i + 1 == stages { output } else { 0.0 };
                (total + work, slowest.max(work))
            });
    stages as f64 * slowest / f64::max(total, f64::MIN_POSITIVE)
}

/// The FLOP recomputation adds per token: every layer's forward again
/// (a third of its matmul and attention FLOP) for full recomputation; the
/// attention core's forward for selective recomputation; for torchtitan's
/// op-level checkpointing the three matrix multiplies it does not keep
/// ([`op_level_recomputed_params`]), 2 FLOP a parameter.
pub fn recompute_flop_per_token(recompute: Recompute, arch: &Architecture, seq: f64) -> f64 {
    let layers = f64::from(arch.layers);
    match recompute {
        Recompute::None => 0.0,
        Recompute::Selective => attention_flop(arch, seq) / 3.0,
        Recompute::Op => 2.0 * layers * op_level_recomputed_params(arch),
        Recompute::Full => {
            2.0 * layers * arch.layer_active_matrix_params() + attention_flop(arch, seq) / 3.0
        }
    }
}

/// The FLOP a token spends in the layers' matrix multiplies, the part FP8
/// runs (`precision.rs`): 6 a matrix parameter, and 2 more when full
/// recomputation runs each layer's forward again; attention's scores and
/// the output layer stay in BF16, as TransformerEngine runs them.
pub fn fp8_flop_per_token(arch: &Architecture, recompute: Recompute) -> f64 {
    let layers = 2.0 * f64::from(arch.layers);
    let per_pass = layers * arch.layer_active_matrix_params();
    match recompute {
        Recompute::Full => 4.0 * per_pass,
        Recompute::Op => 3.0 * per_pass + layers * op_level_recomputed_params(arch),
        Recompute::None | Recompute::Selective => 3.0 * per_pass,
    }
}

/// The matrix parameters a token meets, a layer, in the multiplies
/// torchtitan's op-level checkpointing runs again (`activations::op_level_kept`
/// keeps the others): the key projection (h × kv), attention's output
/// (h × h) and the MLP's up projection (h × f, for each expert the token
/// is routed to; a GELU MLP's second matrix, of the same size).
pub fn op_level_recomputed_params(arch: &Architecture) -> f64 {
    let h = f64::from(arch.hidden);
    h * arch.kv_heads_width() + h * h + h * f64::from(arch.ffn) * arch.experts_used()
}

/// Training compute for `params` parameters on `tokens` tokens: 6ND.
pub fn training_flop(params: f64, tokens: f64) -> Flop {
    Flop(6.0 * params * tokens)
}

/// Which rate a training time is quoted at (the first figure's `rate`):
/// the GPUs' while they compute, or what whole runs sustained over their
/// calendar time (`GpuPreset::whole_run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pace {
    #[default]
    Busy,
    WholeRun,
}

impl Choice for Pace {
    const ALL: &'static [Self] = &[Self::Busy, Self::WholeRun];

    fn id(self) -> &'static str {
        match self {
            Self::Busy => "busy",
            Self::WholeRun => "run",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Busy => "While computing",
            Self::WholeRun => "Over a whole run",
        }
    }
}

/// What a GPU computes at: its dense peak and the fraction of it sustained while busy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub peak: FlopPerSecond,
    /// The fraction of the peak sustained while computing, 0 to 1.
    pub busy: f64,
}

impl Rate {
    /// The rate sustained while busy: peak × busy.
    pub fn sustained(&self) -> FlopPerSecond {
        self.peak * self.busy
    }
}

/// Wall time for `flop` on `gpus` GPUs each sustaining `rate`, with a pipeline
/// `bubble` (the idle share of the timeline, 0 when there is no pipeline).
pub fn training_time(flop: Flop, gpus: u32, rate: FlopPerSecond, bubble: f64) -> Seconds {
    let busy = (1.0 - bubble).max(f64::MIN_POSITIVE);
    flop.at(rate * f64::from(gpus.max(1)) * busy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;

    #[test]
    fn six_nd() {
        assert_eq!(training_flop(1e9, 1e12), Flop(6e21));
    }

    #[test]
    fn time_divides_by_gpus_and_grows_with_the_bubble() {
        assert_eq!(
            training_time(Flop(1e18), 1, FlopPerSecond(1e15), 0.0),
            Seconds(1000.0)
        );
        assert_eq!(
            training_time(Flop(1e18), 10, FlopPerSecond(1e15), 0.0),
            Seconds(100.0)
        );
        assert_eq!(
            training_time(Flop(1e18), 1, FlopPerSecond(1e15), 0.5),
            Seconds(2000.0)
        );
    }

    /// The last stage also runs the output layer (Narayanan et al. 2021,
    /// eq. 3's V/12hL term, per stage): GPT-3 (vocabulary 50,257, sequence
    /// 2,048) on 32 stages of 3 layers, a layer 72h² + 12hs FLOP a token and
    /// the output layer 6Vh, the last stage's work over the mean is
    /// 32(3·layer + out)/(96·layer + out) ≈ 1.107; on one stage nothing
    /// waits, and 126 layers on 16 (7, fourteen of 8, 7) leave the last
    /// stage's 7 layers and output layer under a middle stage's 8.
    #[test]
    fn the_slowest_stage_sets_the_pace() {
        let arch = model_preset("gpt3-175b").unwrap().arch;
        let (h, s, v) = (12288.0, 2048.0, 50257.0);
        let (layer, out) = (72.0 * h * h + 12.0 * h * s, 6.0 * v * h);
        let ranges: Vec<_> = (0..32).map(|i| 3 * i..3 * i + 3).collect();
        let expected = 32.0 * (3.0 * layer + out) / (96.0 * layer + out);
        let ours = slowest_stage(&arch, &ranges, s);
        assert!(
            (ours / expected - 1.0).abs() < 1e-12,
            "{ours} vs {expected}"
        );
        assert!((expected - 1.107).abs() < 0.001, "{expected}");
        assert_eq!(
            slowest_stage(&arch, &crate::model::pipeline::stage_layers(96, 1), s),
            1.0
        );
        let llama = model_preset("llama3-405b").unwrap().arch;
        let uneven = crate::model::pipeline::stage_layers(126, 16);
        let layer = 6.0 * llama.layer_active_matrix_params() + 12.0 * 16384.0 * 8192.0;
        let total = 126.0 * layer + 6.0 * 128256.0 * 16384.0;
        let ours = slowest_stage(&llama, &uneven, 8192.0);
        assert!(
            (ours / (16.0 * 8.0 * layer / total) - 1.0).abs() < 1e-12,
            "{ours}"
        );
    }

    /// Narayanan et al. 2021, eq. 3 without recomputation, per token:
    /// 72·L·h²·(1 + s/6h + V/12hL), for GPT-3's shape (its biases aside, which
    /// the equation leaves out: 12h² a layer of matrices).
    #[test]
    fn the_attention_count_is_narayanans_equation_3() {
        let arch = model_preset("gpt3-175b").unwrap().arch;
        let (l, h, s, v) = (96.0, 12288.0, 2048.0, 50257.0);
        let eq3 = 72.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * h * l));
        let ours = flop_per_token(FlopCount::SixNdAttention, 0.0, &arch, s);
        assert!((ours / eq3 - 1.0).abs() < 1e-12, "{ours} vs {eq3}");
        // Recomputing every layer's forward: their 96 in place of 72, on the layers' part.
        let recomputed = ours + recompute_flop_per_token(Recompute::Full, &arch, s);
        let eq3_recompute =
            96.0 * l * h * h * (1.0 + s / (6.0 * h)) + 72.0 * l * h * h * v / (12.0 * h * l);
        assert!((recomputed / eq3_recompute - 1.0).abs() < 1e-12);
    }
}
