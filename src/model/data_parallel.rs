//! One step of data parallelism: every GPU keeps a full replica, computes
//! its share of the global batch, then the gradients are all-reduced round
//! a ring (Li et al. 2020, "PyTorch Distributed", section 2; the ring's
//! volume from `comm.rs`).

use super::comm::{ring_allreduce_sent, transfer_time};
use super::units::{Bytes, BytesPerSecond, Flop, FlopPerSecond, Seconds};

/// What one of N data-parallel GPUs does in a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Sequences it computes: B/N (a fraction when N does not divide B).
    pub sequences_per_gpu: f64,
    /// Its forward and backward passes, FLOP a token × B/N × s at the sustained rate.
    pub compute: Seconds,
    /// The gradient the all-reduce sums, Ψ × the gradient's bytes.
    pub gradient: Bytes,
    /// What it sends in the ring all-reduce: 2(N − 1)/N of the gradient.
    pub sent: Bytes,
    /// How long that takes over the link.
    pub allreduce: Seconds,
}

impl Step {
    /// What it sends over the gradient's size: 2(N − 1)/N, under 2.
    pub fn sent_per_gradient_byte(&self) -> f64 {
        self.sent.value() / self.gradient.value().max(f64::MIN_POSITIVE)
    }
}

/// One step summing a `gradient` over `gpus` GPUs, each computing its
/// share of a global batch of `batch` sequences of `seq` tokens at
/// `flop_per_token` (6Ψ in the seeds' count) and sustaining `rate`, the
/// all-reduce over a link of `bandwidth`.
pub fn step(
    gradient: Bytes,
    flop_per_token: f64,
    batch: f64,
    seq: f64,
    gpus: u32,
    rate: FlopPerSecond,
    bandwidth: BytesPerSecond,
) -> Step {
    let sequences_per_gpu = batch / f64::from(gpus.max(1));
    let sent = ring_allreduce_sent(gradient, gpus);
    Step {
        sequences_per_gpu,
        compute: Flop(flop_per_token * sequences_per_gpu * seq).at(rate),
        gradient,
        sent,
        allreduce: transfer_time(sent, bandwidth),
    }
}

/// How a batch of `batch` sequences divides over `gpus` GPUs, as evenly as
/// it can: the first B mod N GPUs take one more.
pub fn sequences_on(batch: u32, gpus: u32, gpu: u32) -> u32 {
    let gpus = gpus.max(1);
    batch / gpus + u32::from(gpu < batch % gpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split gives every sequence to exactly one GPU.
    #[test]
    fn the_batch_divides_without_loss() {
        for (batch, gpus) in [(1024, 8), (1024, 9), (3, 8), (1, 1)] {
            let total: u32 = (0..gpus).map(|g| sequences_on(batch, gpus, g)).sum();
            assert_eq!(total, batch);
        }
    }
}
