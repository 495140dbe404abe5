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

/// Where the ring all-reduce comes to last as long as the compute of a
/// step, as [`step`] times them: the compute C₁/N (C₁ the whole batch on
/// one GPU) falls as N grows while the all-reduce, 2(N − 1)/N · T (T one
/// gradient over the link), rises towards 2T, and they meet at
/// N = 1 + C₁/(2T), a GPU count to round up. Past it each GPU waits longer
/// than it computes: the step, C₁/N + 2(N − 1)/N · T, still shortens, but
/// ever more slowly towards 2T, while the GPU-time of a step grows.
pub fn allreduce_meets_compute_at(
    gradient: Bytes,
    flop_per_token: f64,
    batch: f64,
    seq: f64,
    rate: FlopPerSecond,
    bandwidth: BytesPerSecond,
) -> f64 {
    let whole_batch = Flop(flop_per_token * batch * seq).at(rate).value();
    let one_gradient = transfer_time(gradient, bandwidth).value();
    1.0 + whole_batch / (2.0 * one_gradient)
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

    /// A 1B-parameter model (a 2 GB bf16 gradient), 6 FLOP a parameter and
    /// token, a batch of 64 sequences of 1,000 tokens at 100 TFLOP/s: the
    /// whole batch is 6e9 · 64,000 / 1e14 = 3.84 s on one GPU. Over 25 GB/s
    /// one gradient takes 0.08 s, so the all-reduce, 2(N − 1)/N · 0.08 s,
    /// reaches the compute, 3.84/N s, at N = 1 + 3.84/0.16 = 25 (both
    /// 0.1536 s); at 24 GPUs the compute is still longer (0.16 against
    /// 0.1533 s). Over 450 GB/s one gradient takes 4.44 ms and they meet at
    /// N = 1 + 3.84/0.00889 = 433.
    #[test]
    fn the_allreduce_meets_the_compute_at_one_plus_half_their_ratio() {
        let crossing = |bandwidth| {
            allreduce_meets_compute_at(
                Bytes(2e9),
                6e9,
                64.0,
                1000.0,
                FlopPerSecond(1e14),
                BytesPerSecond(bandwidth),
            )
        };
        assert!((crossing(25e9) - 25.0).abs() < 1e-9);
        let at = |gpus| {
            step(
                Bytes(2e9),
                6e9,
                64.0,
                1000.0,
                gpus,
                FlopPerSecond(1e14),
                BytesPerSecond(25e9),
            )
        };
        assert!(at(25).allreduce.value() >= at(25).compute.value());
        assert!(at(24).allreduce.value() < at(24).compute.value());
        assert!((crossing(450e9) - 433.0).abs() < 1e-9);
    }

    /// The split gives every sequence to exactly one GPU.
    #[test]
    fn the_batch_divides_without_loss() {
        for (batch, gpus) in [(1024, 8), (1024, 9), (3, 8), (1, 1)] {
            let total: u32 = (0..gpus).map(|g| sequences_on(batch, gpus, g)).sum();
            assert_eq!(total, batch);
        }
    }
}
