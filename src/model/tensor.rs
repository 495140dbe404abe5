//! Tensor parallelism as in Megatron-LM.
//!
//! Shoeybi et al. 2019, "Megatron-LM" (arXiv:1909.08053), section 3 and
//! Figure 3: the MLP's first matrix is split by columns and its second by
//! rows, attention by heads, so a layer needs one all-reduce after attention
//! and one after the MLP in the forward pass (operator g), and two more in the
//! backward pass (operator f): four all-reduces of the layer's activations,
//! each s·b·h values of 2 bytes.

use super::activations::hidden_state;
use super::comm::{ring_allreduce_sent, transfer_time};
use super::presets::Architecture;
use super::units::{Bytes, BytesPerSecond, Count, Flop, FlopPerSecond, Seconds};

/// The tensor-parallel degrees the figures offer, as their URL values: the
/// divisors of an 8-GPU node, so that a tensor group stays on its fast links.
pub const DEGREES: &[&str] = &["1", "2", "4", "8"];

/// All-reduces per layer per training step: 2 forward + 2 backward.
pub const ALLREDUCES_PER_LAYER: f64 = 4.0;

/// Weights one of `t` GPUs holds for one layer: its 1/t of every matrix (and
/// of the column-split biases), plus the norms every GPU keeps whole.
pub fn weights_per_gpu_per_layer(arch: &Architecture, t: u32) -> Count {
    let t = f64::from(t.max(1));
    let split = arch.layer_params() - arch.layer_replicated_params();
    Count(split / t + arch.layer_replicated_params())
}

/// Bytes each of `t` GPUs sends per layer per step for `tokens` tokens
/// (sequence length × micro-batch): four ring all-reduces.
pub fn sent_per_gpu_per_layer(arch: &Architecture, t: u32, tokens: f64) -> Bytes {
    ring_allreduce_sent(hidden_state(arch, tokens), t) * ALLREDUCES_PER_LAYER
}

/// Arithmetic one of `t` GPUs does per layer per step for `tokens` tokens:
/// 6 FLOP per parameter a token uses (forward 2, backward 4), split t ways.
pub fn flop_per_gpu_per_layer(arch: &Architecture, t: u32, tokens: f64) -> Flop {
    Flop(6.0 * arch.layer_active_params() * tokens / f64::from(t.max(1)))
}

/// One transformer layer under t-way tensor parallelism, on one GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerCost {
    /// Weights it holds for the layer.
    pub weights: Count,
    /// Bytes it sends in the layer's four all-reduces.
    pub sent: Bytes,
    /// How long those take over the link.
    pub comm: Seconds,
    /// How long its share of the layer's arithmetic takes.
    pub compute: Seconds,
}

impl LayerCost {
    /// Communication over computation: above 1 the GPU waits more than it works.
    pub fn comm_over_compute(&self) -> f64 {
        self.comm.value() / self.compute.value()
    }
}

/// The cost of one layer for `tokens` tokens on one of `t` GPUs sustaining
/// `rate`, its all-reduces over a link of `bandwidth`.
pub fn layer_cost(
    arch: &Architecture,
    t: u32,
    tokens: f64,
    rate: FlopPerSecond,
    bandwidth: BytesPerSecond,
) -> LayerCost {
    let sent = sent_per_gpu_per_layer(arch, t, tokens);
    LayerCost {
        weights: weights_per_gpu_per_layer(arch, t),
        sent,
        comm: transfer_time(sent, bandwidth),
        compute: flop_per_gpu_per_layer(arch, t, tokens).at(rate),
    }
}

/// Where a layer's all-reduces come to last as long as its compute, as
/// [`layer_cost`] times them: one GPU's share of the arithmetic, C₁/t,
/// falls as t grows while its four ring all-reduces of the hidden state,
/// 2(t − 1)/t × A (A the four states over the link once), rise towards
/// 2A; they meet at t = 1 + C₁/(2A).
pub fn allreduces_meet_compute_at(
    arch: &Architecture,
    tokens: f64,
    rate: FlopPerSecond,
    bandwidth: BytesPerSecond,
) -> f64 {
    let one_gpu = flop_per_gpu_per_layer(arch, 1, tokens).at(rate).value();
    let four_states =
        transfer_time(hidden_state(arch, tokens) * ALLREDUCES_PER_LAYER, bandwidth).value();
    1.0 + one_gpu / (2.0 * four_states)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::DEFAULT_MODEL;

    /// Llama 2 7B (h = 4,096, an MLP of 11,008, 32 layers): a layer is
    /// 4h² + 3 × 4,096 × 11,008 + 2h = 202,383,360 parameters (32 of them
    /// and 2 × 32,000 × 4,096 of embeddings make its 6.74B). One 4,096-token
    /// sequence is 6 × 202,383,360 × 4,096 / 1.5e14 = 33.2 ms of compute on
    /// one GPU; the four hidden states are 4 × 4,096 × 4,096 × 2 B =
    /// 134 MB, 0.298 ms over 450 GB/s and 2.68 ms over 50 GB/s. They meet
    /// at t = 1 + 33.2/0.597 = 56.6 over NVLink and 1 + 33.2/5.37 = 7.18
    /// over the network, where one GPU of 8 waits longer than it computes.
    #[test]
    fn the_allreduces_meet_the_compute_at_one_plus_half_their_ratio() {
        let arch = DEFAULT_MODEL.arch;
        let one_gpu = 6.0 * 202_383_360.0 * 4096.0 / 1.5e14;
        let states = 4.0 * 4096.0 * 4096.0 * 2.0;
        for bandwidth in [450e9, 50e9] {
            let expected = 1.0 + one_gpu / (2.0 * states / bandwidth);
            let found = allreduces_meet_compute_at(
                &arch,
                4096.0,
                FlopPerSecond(1.5e14),
                BytesPerSecond(bandwidth),
            );
            assert!(
                (found - expected).abs() < 1e-9,
                "{found} against {expected}"
            );
        }
        let at = |t| {
            layer_cost(
                &arch,
                t,
                4096.0,
                FlopPerSecond(1.5e14),
                BytesPerSecond(50e9),
            )
        };
        assert!(at(8).comm.value() > at(8).compute.value());
        assert!(at(7).comm.value() < at(7).compute.value());
    }

    #[test]
    fn one_gpu_sends_nothing_and_holds_the_whole_layer() {
        let arch = DEFAULT_MODEL.arch;
        assert_eq!(sent_per_gpu_per_layer(&arch, 1, 4096.0), Bytes(0.0));
        assert_eq!(
            weights_per_gpu_per_layer(&arch, 1),
            Count(arch.layer_params())
        );
    }
}
