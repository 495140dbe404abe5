//! Tensor parallelism as in Megatron-LM.
//!
//! Shoeybi et al. 2019, "Megatron-LM" (arXiv:1909.08053), section 3 and
//! Figure 3: the MLP's first matrix is split by columns and its second by
//! rows, attention by heads, so a layer needs one all-reduce after attention
//! and one after the MLP in the forward pass (operator g), and two more in the
//! backward pass (operator f): four all-reduces of the layer's activations,
//! each s·b·h values of 2 bytes.

use super::activations::hidden_state;
use super::comm::ring_allreduce_sent;
use super::presets::Architecture;
use super::units::{Bytes, Count, Flop};

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
/// 6 FLOP per parameter per token (forward 2, backward 4), split t ways.
pub fn flop_per_gpu_per_layer(arch: &Architecture, t: u32, tokens: f64) -> Flop {
    Flop(6.0 * arch.layer_params() * tokens / f64::from(t.max(1)))
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
