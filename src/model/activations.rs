//! Activation memory: what the backward pass needs kept from the forward pass.
//!
//! Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
//! Transformer Models" (arXiv:2205.05198), section 4.1, count the bytes one
//! transformer layer stores, with sequence length s, micro-batch b, width h,
//! a heads, 16-bit activations and tensor-parallel degree t. For their GPT
//! block (a 4h GELU MLP, full K/V heads, attention scores stored, dropout
//! after attention and on both residual branches) that gives Table 2:
//!
//! | setting                                           | bytes per layer          |
//! |---------------------------------------------------|--------------------------|
//! | no parallelism (eq. 1)                            | sbh(34 + 5as/h)          |
//! | tensor parallel (eq. 2)                           | sbh(10 + 24/t + 5as/ht)  |
//! | tensor + sequence parallel (eq. 4)                | sbh(34/t + 5as/ht)       |
//! | tensor parallel, selective recompute              | sbh(10 + 24/t)           |
//! | tensor + sequence parallel, selective (eq. 6)     | sbh(34/t)                |
//! | full recompute                                    | 2sbh                     |
//!
//! Here each term is derived from the model's shape instead, so the same
//! count serves gated FFNs, grouped-query attention and FlashAttention; for
//! the GPT block it is exactly Table 2 (tested). Under full recomputation
//! only each layer's input is kept; with sequence parallelism that input is
//! the rank's 1/t slice of the sequence (Megatron-LM keeps it sharded).

use super::choice::Choice;
use super::pipeline::{runnable_stages, stage_layers, Schedule};
use super::presets::{Architecture, Mlp};
use super::units::Bytes;

/// Bytes of one activation value (fp16/bf16).
pub const ACTIVATION_BYTES: f64 = 2.0;

/// How much of the forward pass is recomputed in the backward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute only the attention core (softmax, dropout, QKᵀ, ×V): cheap
    /// to redo and, stored, the 5as/h term (Korthikanti et al., section 5).
    Selective,
    /// torchtitan's op-level selective checkpointing (`selective_ac_option
    /// = "op"`, its Llama configurations' default): a layer keeps the
    /// outputs of its attention kernel and of every other matrix multiply
    /// in the order they run (query, value, the MLP's gate and down
    /// projections), and recomputes the rest ([`op_level_kept`]).
    Op,
    /// Keep only each layer's input and recompute the whole layer.
    Full,
}

impl Choice for Recompute {
    const ALL: &'static [Self] = &[
        Recompute::None,
        Recompute::Selective,
        Recompute::Op,
        Recompute::Full,
    ];

    fn id(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Op => "op",
            Recompute::Full => "full",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Recompute::None => "None",
            Recompute::Selective => "Selective",
            Recompute::Op => "Op-level (torchtitan)",
            Recompute::Full => "Full",
        }
    }
}

/// How the attention core is computed, which decides what it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attention {
    /// Fused and tiled (Dao et al. 2022, FlashAttention, section 3.1): the
    /// s × s scores are never stored; the backward pass recomputes them from
    /// each row's softmax statistics, kept in fp32.
    Flash,
    /// Softmax output, its dropout mask and the dropout's output stored for
    /// every score: Korthikanti et al.'s 5as²b bytes.
    Standard,
}

impl Choice for Attention {
    const ALL: &'static [Self] = &[Attention::Flash, Attention::Standard];

    fn id(self) -> &'static str {
        match self {
            Attention::Flash => "flash",
            Attention::Standard => "standard",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Attention::Flash => "FlashAttention",
            Attention::Standard => "Scores stored",
        }
    }
}

/// The hidden state of `tokens` tokens (s·b of them): s·b·h values of 2 bytes.
/// It is what crosses a pipeline boundary and what a tensor-parallel
/// all-reduce sums.
pub fn hidden_state(arch: &Architecture, tokens: f64) -> Bytes {
    Bytes(tokens * f64::from(arch.hidden) * ACTIVATION_BYTES)
}

/// The settings that decide activation memory, besides the architecture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActivationSetup {
    /// Sequence length s, in tokens.
    pub seq: f64,
    /// Micro-batch size b, in sequences.
    pub micro_batch: f64,
    /// Tensor-parallel degree t.
    pub tensor_parallel: u32,
    /// Sequence parallelism (split the norms and dropouts along the sequence).
    pub sequence_parallel: bool,
    pub recompute: Recompute,
    pub attention: Attention,
    /// The linear layers keep their inputs as the FP8 casts they multiplied,
    /// 1 byte a value ([`Numerics::fp8_inputs`](super::precision::Numerics::fp8_inputs)).
    pub fp8_inputs: bool,
    /// The share of a layer's counted activations that the software's run
    /// costs, a fit to measured pairs
    /// ([`Software::kept_activation_share`](super::software::Software::kept_activation_share)):
    /// 1 as eager PyTorch and Megatron-LM run.
    pub kept_share: f64,
}

impl ActivationSetup {
    fn t(&self) -> f64 {
        f64::from(self.tensor_parallel.max(1))
    }

    /// The recomputation that runs. Selective recomputation keeps the
    /// attention core's inputs and recomputes its stored scores (Korthikanti
    /// et al. 2022, section 4.2), but FlashAttention stores no scores and
    /// recomputes them in its own backward pass (Dao et al. 2022, section
    /// 3.1): with it selective recomputation has nothing to do, as in
    /// Megatron-LM, which checkpoints the core attention only without flash
    /// attention (`ParallelAttention.forward`, `megatron/model/transformer.py`).
    pub fn recompute_run(&self) -> Recompute {
        match (self.recompute, self.attention) {
            (Recompute::Selective, Attention::Flash) => Recompute::None,
            (recompute, _) => recompute,
        }
    }

    /// What tensor parallelism leaves whole is split too when sequence parallelism is on.
    pub(crate) fn whole_divisor(&self) -> f64 {
        if self.sequence_parallel {
            self.t()
        } else {
            1.0
        }
    }
}

/// Bytes a value of a dropout mask keeps: one for a model trained with
/// dropout (Korthikanti et al., section 4.1), none without.
fn mask_bytes(arch: &Architecture) -> f64 {
    if arch.dropout {
        1.0
    } else {
        0.0
    }
}

/// One layer's stored bytes, by what tensor parallelism does to them.
///
/// With FP8 inputs kept (`ActivationSetup::fp8_inputs`), the three linear
/// inputs no other kernel keeps take 1 byte a value: attention's and the
/// MLP's (the norms' outputs) and the down projection's; the output
/// projection keeps its FP8 cast beside the attention kernel's BF16
/// output, which the kernel's own backward reads (TransformerEngine's
/// `Linear` and `LayerNormMLP` save the FP8 casts of their inputs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerTerms {
    /// Left whole by tensor parallelism (split by sequence parallelism): the
    /// two norms' inputs (2 × 2sbh), the inputs of attention and of the MLP
    /// (2sbh each, sbh each in FP8) and, for a model trained with dropout,
    /// the two residual dropout masks (sbh each): 10sbh, or 8sbh without dropout.
    pub whole: f64,
    /// Split t ways: Q (2sbh), K and V (2sb × their width each), the output
    /// projection's input (2sbh, and its FP8 cast, sbh) and the MLP's hidden
    /// values: a GELU MLP keeps its activation's input and output (2 × 2sbf);
    /// a gated one the gate's and the up projection's outputs and their
    /// product (3 × 2sbf); the down projection's input, the last of them,
    /// sbf in FP8; a mixture of experts those of each of a token's top-k experts.
    pub split: f64,
    /// The attention core, split t ways: 5as²b stored scores (4as²b without
    /// attention dropout's mask), or with FlashAttention the fp32 softmax
    /// statistics, 4asb.
    pub core: f64,
}

/// The terms of one layer's activations, no parallelism, no recomputation.
pub fn layer_terms(arch: &Architecture, setup: &ActivationSetup) -> LayerTerms {
    let (s, b) = (setup.seq, setup.micro_batch);
    let h = f64::from(arch.hidden);
    let a = f64::from(arch.heads);
    let f = f64::from(arch.ffn);
    let kv = arch.kv_heads_width();
    // Bytes a value of a linear layer's input that no other kernel keeps.
    let input = if setup.fp8_inputs {
        1.0
    } else {
        ACTIVATION_BYTES
    };
    let cast = ACTIVATION_BYTES - input;
    // A token routed to k experts keeps each one's hidden values; the last
    // of them is the down projection's input.
    let mlp = arch.experts_used()
        * s
        * b
        * f
        * match arch.mlp {
            Mlp::Gelu => 2.0 + input,
            Mlp::SwiGlu => 4.0 + input,
        };
    let mask = mask_bytes(arch);
    LayerTerms {
        whole: (4.0 + 2.0 * input + 2.0 * mask) * s * b * h,
        split: s * b * (2.0 * h + 4.0 * kv + (2.0 + cast) * h) + mlp,
        core: match setup.attention {
            Attention::Standard => (4.0 + mask) * a * s * s * b,
            Attention::Flash => 4.0 * a * s * b,
        },
    }
}

/// Activation bytes one GPU keeps for one layer: Korthikanti et al. 2022,
/// Table 2, with each term from the model's shape ([`layer_terms`]), times
/// the software's fitted share (`ActivationSetup::kept_share`); full
/// recomputation's kept layer input is left whole.
pub fn per_layer(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let terms = layer_terms(arch, setup);
    let t = setup.t();
    let inside = match setup.recompute_run() {
        Recompute::Full => {
            return Bytes(
                2.0 * setup.seq * setup.micro_batch * f64::from(arch.hidden)
                    / setup.whole_divisor(),
            )
        }
        Recompute::Selective => terms.whole / setup.whole_divisor() + terms.split / t,
        Recompute::Op => op_level_kept(arch, setup).value(),
        Recompute::None => terms.whole / setup.whole_divisor() + (terms.split + terms.core) / t,
    };
    Bytes(inside * setup.kept_share)
}

/// What torchtitan's op-level selective checkpointing keeps of one layer
/// (`_apply_op_sac` in `torchtitan/models/llama3/infra/parallelize.py`,
/// the same policy since its 2024 `parallelize_llama.py`): the outputs of
/// the matrix multiplies, the attention kernel and the reduce-scatters,
/// except every second matrix multiply, counted in the order a Llama layer
/// runs them (query 1st, key 2nd, value 3rd, attention's output 4th; the
/// MLP's gate 5th, up 6th, down 7th): the query's, the value's, the gate's
/// and the down projection's, 2 bytes a value, and the kernel's output with
/// its fp32 log-sum-exp a head; plus the layer's input, which the
/// checkpoint keeps. Split t ways as tensor parallelism splits them, but
/// for the down projection's output, a partial sum of the whole width
/// until its reduction, beside whose reduce-scattered 1/t (and the
/// attention output's) sequence parallelism keeps too.
pub fn op_level_kept(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let tokens = setup.seq * setup.micro_batch;
    let (h, f, a) = (
        f64::from(arch.hidden),
        f64::from(arch.ffn),
        f64::from(arch.heads),
    );
    let t = setup.t();
    let kv = arch.kv_heads_width();
    // The gate's output for each expert a token is routed to (the first
    // projection of a GELU MLP).
    let gate = f * arch.experts_used();
    let split = ACTIVATION_BYTES * (h + kv + h + gate) + 4.0 * a;
    let reduced = if setup.sequence_parallel && t > 1.0 {
        2.0 * ACTIVATION_BYTES * h / t
    } else {
        0.0
    };
    Bytes(
        tokens
            * (ACTIVATION_BYTES * h / setup.whole_divisor()
                + split / t
                + ACTIVATION_BYTES * h
                + reduced),
    )
}

/// The input embedding's own activations for one micro-batch: the token
/// ids (8 bytes each) and, for a model trained with dropout, the embedding
/// dropout's mask (sbh bytes), as Megatron-LM's theoretical memory report
/// counts them (`megatron/training/theoretical_memory_usage.py`).
pub fn embedding(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let tokens = setup.seq * setup.micro_batch;
    Bytes((8.0 + mask_bytes(arch) * f64::from(arch.hidden)) * tokens / setup.whole_divisor())
}

/// What the output layer keeps when it shares a GPU with the first layers
/// (one pipeline stage): the final norm's and the output layer's inputs
/// (2sbh each) and the fp32 logits for the loss (4sbV, split by vocabulary
/// over t), after Megatron-LM's report.
pub fn output_layer(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let tokens = setup.seq * setup.micro_batch;
    Bytes(4.0 * tokens * f64::from(arch.hidden) / setup.whole_divisor())
        + loss_log_probabilities(arch, setup)
}

/// The loss's FP32 log-probabilities, which its backward pass reads: 4sbV/t
/// bytes, the vocabulary split t ways; gone once that backward has run.
pub fn loss_log_probabilities(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    Bytes(4.0 * setup.seq * setup.micro_batch * f64::from(arch.vocab) / setup.t())
}

/// Micro-batches whose activations the first stage holds at its peak, in
/// micro-batches of its whole stage ([`in_flight_at`] stage 0).
pub fn in_flight(schedule: Schedule, p: u32, m: u32, chunks: u32) -> f64 {
    in_flight_at(schedule, p, m, chunks, 0)
}

/// Micro-batches whose activations pipeline stage i (0 the first) holds at
/// its peak, in micro-batches of its whole stage: all m under GPipe; p − i
/// under 1F1B and ZB-H1 (Narayanan et al. 2021, section 2.2.1: stage i
/// runs p − i forwards before its first backward); under the interleaved
/// schedule with v chunks, its 2(p − i − 1) + (v − 1)p + 1 warm-up chunks
/// of 1/v stage each, p + (p − 1 − 2i)/v (Megatron-LM's
/// `forward_backward_pipelining_with_interleaving`; for i = 0 Korthikanti et
/// al. 2022, section 4.2.3's p(1 + (p − 1)/(pv))); never more than the m
/// there are: with m = p Megatron-LM runs every forward first
/// (`all_warmup_microbatches`); one when there is no pipeline; DualPipe's
/// and DualPipeV's below.
pub fn in_flight_at(schedule: Schedule, p: u32, m: u32, chunks: u32, stage: u32) -> f64 {
    let p = runnable_stages(schedule, p);
    let (p, m, i) = (f64::from(p), f64::from(m.max(1)), f64::from(stage));
    if p <= 1.0 && schedule != Schedule::DualPipeV {
        return 1.0;
    }
    match schedule {
        Schedule::GPipe => m,
        Schedule::OneFOneB | Schedule::ZeroBubbleH1 => m.min(p - i),
        Schedule::Interleaved => m.min(p + (p - 1.0 - 2.0 * i) / f64::from(chunks.max(1))),
        // The deepseek-ai/DualPipe README's "Activation PP + 1", on every
        // GPU: p + 1 stages' micro-batches for DualPipe; for DualPipeV, 2p + 1
        // half-stages, p + ½ of a GPU's layers (the simulator's peak, both).
        Schedule::DualPipe => m.min(p + 1.0),
        Schedule::DualPipeV => m.min(p + 0.5),
    }
}

/// Activation bytes on pipeline stage `stage` of p, which holds `layers`
/// layers: each micro-batch in flight keeps its layers' activations, the
/// first stage's also the embedding's; the last stage (the only one when
/// p = 1) adds the output layer's once, for the micro-batch whose backward
/// pass it is in.
pub fn stage_activations(
    arch: &Architecture,
    setup: &ActivationSetup,
    pipeline: (u32, u32),
    schedule: Schedule,
    m: u32,
    chunks: u32,
    layers: u32,
) -> Bytes {
    let (p, stage) = (pipeline.0.max(1), pipeline.1);
    let mut micro_batch = per_layer(arch, setup) * f64::from(layers);
    if stage == 0 {
        micro_batch = micro_batch + embedding(arch, setup);
    }
    let held = micro_batch * in_flight_at(schedule, p, m, chunks, stage);
    if stage + 1 >= p.min(arch.layers.max(1)) {
        held + output_layer(arch, setup)
    } else {
        held
    }
}

/// Activation bytes on the first pipeline stage: its layers and the
/// embedding's for every micro-batch in flight, and, with a single stage,
/// the output layer's.
pub fn first_stage(
    arch: &Architecture,
    setup: &ActivationSetup,
    p: u32,
    schedule: Schedule,
    m: u32,
    chunks: u32,
) -> Bytes {
    let layers = stage_layers(arch.layers, p)
        .first()
        .map_or(0, |range| range.end - range.start);
    stage_activations(arch, setup, (p, 0), schedule, m, chunks, layers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;

    fn gpt3_setup(t: u32, sequence_parallel: bool, recompute: Recompute) -> ActivationSetup {
        ActivationSetup {
            seq: 2048.0,
            micro_batch: 1.0,
            tensor_parallel: t,
            sequence_parallel,
            recompute,
            attention: Attention::Standard,
            fp8_inputs: false,
            kept_share: 1.0,
        }
    }

    #[test]
    fn tensor_and_sequence_parallel_divide_everything_by_t() {
        let arch = model_preset("gpt3-175b").unwrap().arch;
        let plain = per_layer(&arch, &gpt3_setup(1, false, Recompute::None));
        let split = per_layer(&arch, &gpt3_setup(8, true, Recompute::None));
        assert!((plain.value() / split.value() - 8.0).abs() < 1e-9);
        // With t = 1 sequence parallelism changes nothing: 10 + 24 = 34.
        assert_eq!(
            per_layer(&arch, &gpt3_setup(1, true, Recompute::None)),
            plain
        );
    }

    /// One sequence of 4,096 tokens on one GPU, FlashAttention, nothing
    /// recomputed, the linear layers' inputs kept in BF16.
    const ONE_SEQUENCE: ActivationSetup = ActivationSetup {
        seq: 4096.0,
        micro_batch: 1.0,
        tensor_parallel: 1,
        sequence_parallel: false,
        recompute: Recompute::None,
        attention: Attention::Flash,
        fp8_inputs: false,
        kept_share: 1.0,
    };

    /// A gated MLP keeps three f-wide tensors where GELU keeps two, grouped
    /// K/V shrink with their heads, FlashAttention drops the s² term and a
    /// model trained without dropout keeps no masks: Llama 2 70B (h 8,192,
    /// f 28,672, 8 of 64 K/V heads) at s = 4,096: sb(8h + 4h + 4h/8 + 6f) + 4asb.
    #[test]
    fn the_terms_follow_the_architecture() {
        let arch = model_preset("llama2-70b").unwrap().arch;
        let setup = ONE_SEQUENCE;
        let (s, h, f, a) = (4096.0, 8192.0, 28672.0, 64.0);
        let expected = s * (8.0 * h + 4.0 * h + 4.0 * h / 8.0 + 6.0 * f) + 4.0 * a * s;
        assert_eq!(per_layer(&arch, &setup).value(), expected);
        let standard = per_layer(
            &arch,
            &ActivationSetup {
                attention: Attention::Standard,
                ..setup
            },
        );
        // Stored scores: the softmax output and its input to ×V, 4as², no dropout mask.
        assert_eq!(standard.value() - expected, 4.0 * a * s * s - 4.0 * a * s);
    }

    /// With the linear inputs kept as FP8 casts, Llama 2 70B's layer above
    /// keeps its attention and MLP inputs at sbh each (2sbh in BF16), the
    /// down projection's input at sbf (2sbf), and the output projection's
    /// FP8 cast beside the kernel's BF16 output (sbh more): sb(2h + f − h)
    /// fewer bytes, the norms' inputs, Q, K, V and the gate's and up
    /// projection's outputs unchanged.
    #[test]
    fn fp8_inputs_halve_what_only_a_linear_layer_keeps() {
        let arch = model_preset("llama2-70b").unwrap().arch;
        let bf16 = ONE_SEQUENCE;
        let fp8 = ActivationSetup {
            fp8_inputs: true,
            ..bf16
        };
        let (s, h, f) = (4096.0, 8192.0, 28672.0);
        let saved = per_layer(&arch, &bf16).value() - per_layer(&arch, &fp8).value();
        assert_eq!(saved, s * (2.0 * h + f - h));
        // Full recomputation keeps the layer's BF16 input either way.
        let full = |setup: ActivationSetup| {
            per_layer(
                &arch,
                &ActivationSetup {
                    recompute: Recompute::Full,
                    ..setup
                },
            )
        };
        assert_eq!(full(fp8), full(bf16));
    }

    #[test]
    fn pipelines_hold_what_their_schedule_keeps_in_flight() {
        assert_eq!(in_flight(Schedule::GPipe, 4, 32, 1), 32.0);
        assert_eq!(in_flight(Schedule::OneFOneB, 4, 32, 1), 4.0);
        assert_eq!(in_flight(Schedule::OneFOneB, 4, 2, 1), 2.0);
        assert_eq!(
            in_flight(Schedule::Interleaved, 4, 8, 2),
            4.0 * (1.0 + 3.0 / 8.0)
        );
        assert_eq!(in_flight(Schedule::GPipe, 1, 32, 1), 1.0);
    }
}
