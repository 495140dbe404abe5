//! Activation memory: what the backward pass needs kept from the forward pass.
//!
//! Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
//! Transformer Models" (arXiv:2205.05198), section 4 and Table 2, for one
//! transformer layer with sequence length s, micro-batch b, width h, a heads,
//! 16-bit activations and tensor-parallel degree t, in bytes:
//!
//! | setting                                   | bytes per layer          |
//! |-------------------------------------------|--------------------------|
//! | no parallelism (eq. 1)                    | sbh(34 + 5as/h)          |
//! | tensor parallel (eq. 2)                   | sbh(10 + 24/t + 5as/ht)  |
//! | tensor + sequence parallel (eq. 3)        | sbh(34/t + 5as/ht)       |
//! | tensor parallel, selective recompute      | sbh(10 + 24/t)           |
//! | tensor + sequence parallel, selective     | sbh(34/t)                |
//! | full recompute                            | 2sbh                     |
//!
//! Under full recomputation only each layer's input is kept; with sequence
//! parallelism that input is the rank's 1/t slice of the sequence, 2sbh/t
//! (Megatron-LM keeps the checkpoint sequence-sharded).
//! The constants 34 and 5as/h assume the paper's GPT block (a 4h MLP, no
//! grouped-query attention); they are used as is for every preset.

use super::choice::Choice;
use super::pipeline::{layers_per_stage, peak_in_flight, Schedule};
use super::presets::Architecture;
use super::units::Bytes;

/// Bytes of one activation value (fp16/bf16).
pub const ACTIVATION_BYTES: f64 = 2.0;

/// How much of the forward pass is recomputed in the backward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute only the attention core (softmax, dropout, QKᵀ, ×V): the
    /// 5as/h term, cheap to redo and expensive to store (Korthikanti et al., section 5).
    Selective,
    /// Keep only each layer's input and recompute the whole layer.
    Full,
}

impl Choice for Recompute {
    const ALL: &'static [Self] = &[Recompute::None, Recompute::Selective, Recompute::Full];

    fn id(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Recompute::None => "None",
            Recompute::Selective => "Selective",
            Recompute::Full => "Full",
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
}

/// Activation bytes one GPU keeps for one layer (Korthikanti et al. 2022, Table 2).
pub fn per_layer(arch: &Architecture, setup: &ActivationSetup) -> Bytes {
    let h = f64::from(arch.hidden);
    let t = f64::from(setup.tensor_parallel.max(1));
    let sbh = setup.seq * setup.micro_batch * h;
    let attention_core = 5.0 * f64::from(arch.heads) * setup.seq / (h * t);
    let per_sbh = match (setup.recompute, setup.sequence_parallel) {
        (Recompute::Full, true) => 2.0 / t,
        (Recompute::Full, false) => 2.0,
        (Recompute::Selective, true) => 34.0 / t,
        (Recompute::Selective, false) => 10.0 + 24.0 / t,
        (Recompute::None, true) => 34.0 / t + attention_core,
        (Recompute::None, false) => 10.0 + 24.0 / t + attention_core,
    };
    Bytes(sbh * per_sbh)
}

/// Activation bytes on the first pipeline stage, which holds the most: its
/// ⌈L/p⌉ layers for every micro-batch in flight (p of them under 1F1B, m
/// under GPipe; Korthikanti et al. 2022, section 4.2.3).
pub fn first_stage(
    arch: &Architecture,
    setup: &ActivationSetup,
    p: u32,
    schedule: Schedule,
    micro_batches: u32,
) -> Bytes {
    let layers = f64::from(layers_per_stage(arch.layers, p));
    let in_flight = f64::from(peak_in_flight(schedule, p, micro_batches));
    per_layer(arch, setup) * (layers * in_flight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;

    #[test]
    fn tensor_and_sequence_parallel_divide_everything_by_t() {
        let arch = model_preset("gpt3-175b").unwrap().arch;
        let setup = |t, sequence_parallel| ActivationSetup {
            seq: 2048.0,
            micro_batch: 1.0,
            tensor_parallel: t,
            sequence_parallel,
            recompute: Recompute::None,
        };
        let plain = per_layer(&arch, &setup(1, false));
        let split = per_layer(&arch, &setup(8, true));
        assert!((plain.value() / split.value() - 8.0).abs() < 1e-9);
        // With t = 1 sequence parallelism changes nothing: 10 + 24 = 34.
        assert_eq!(per_layer(&arch, &setup(1, true)), plain);
    }
}
