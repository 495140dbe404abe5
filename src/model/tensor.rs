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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::DEFAULT_MODEL;

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
