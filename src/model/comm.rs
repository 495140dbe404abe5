//! Collective communication: what each GPU sends, and how long it takes.
//!
//! Ring algorithms (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce
//! algorithms for clusters of workstations"; the schedule NCCL uses for large
//! messages). A message of M bytes is cut into N chunks that travel round the
//! ring of N GPUs:
//! - reduce-scatter: N − 1 steps, each GPU sends (N − 1)/N · M;
//! - all-gather: the same, (N − 1)/N · M;
//! - all-reduce = reduce-scatter then all-gather: 2(N − 1)/N · M.

use super::memory::ZeroStage;
use super::presets::GpuPreset;
use super::units::{Bytes, BytesPerSecond, Seconds};

/// Which link a collective runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// GPU-to-GPU inside a node.
    NvLink,
    /// Between nodes.
    Network,
}

impl Link {
    pub const ALL: [Link; 2] = [Link::NvLink, Link::Network];

    /// The id used in URLs.
    pub fn id(self) -> &'static str {
        match self {
            Link::NvLink => "nvlink",
            Link::Network => "network",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|link| link.id() == id)
    }

    pub fn label(self) -> &'static str {
        match self {
            Link::NvLink => "NVLink",
            Link::Network => "Network",
        }
    }

    /// The link named inside a sentence: "over NVLink", "over the network".
    pub fn phrase(self) -> &'static str {
        match self {
            Link::NvLink => "NVLink",
            Link::Network => "the network",
        }
    }

    /// This link's bandwidth on a GPU, one direction.
    pub fn bandwidth(self, gpu: &GpuPreset) -> BytesPerSecond {
        match self {
            Link::NvLink => gpu.nvlink,
            Link::Network => gpu.network,
        }
    }
}

/// Bytes each GPU sends in a ring reduce-scatter or all-gather of `message`.
pub fn ring_gather_sent(message: Bytes, gpus: u32) -> Bytes {
    let n = f64::from(gpus.max(1));
    message * ((n - 1.0) / n)
}

/// Bytes each GPU sends in a ring all-reduce of `message`: 2(N − 1)/N · M.
pub fn ring_allreduce_sent(message: Bytes, gpus: u32) -> Bytes {
    ring_gather_sent(message, gpus) * 2.0
}

/// Time to send `sent` bytes over a link, bandwidth-bound (latency ignored,
/// which is fair for the gigabyte-sized messages here).
pub fn transfer_time(sent: Bytes, link: BytesPerSecond) -> Seconds {
    sent.over(link)
}

/// Bytes each data-parallel GPU sends a step to synchronise `gradients`.
///
/// Stages 0 to 2 all-reduce the gradients (ZeRO-1 and 2 split the same
/// all-reduce into its reduce-scatter and all-gather halves, so the volume is
/// unchanged). Stage 3 also all-gathers the weights in the forward and in the
/// backward pass and reduce-scatters the gradients: 3(N − 1)/N · M, 1.5×
/// (Rajbhandari et al. 2020, section 7.2.2).
pub fn data_parallel_sent(gradients: Bytes, gpus: u32, stage: ZeroStage) -> Bytes {
    let allreduce = ring_allreduce_sent(gradients, gpus);
    if stage == ZeroStage::Three {
        allreduce * 1.5
    } else {
        allreduce
    }
}

/// Bytes each GPU sends in one mixture-of-experts layer with expert
/// parallelism of degree `ep`: each of its `tokens` tokens goes to `top_k`
/// experts and comes back, two all-to-alls of a 2-byte hidden state of width
/// `hidden`; with uniform routing a share (ep − 1)/ep of them leave the GPU
/// (Lepikhin et al. 2020, GShard, section 2.2; Fedus et al. 2021, Switch
/// Transformer, section 2.2).
pub fn expert_all_to_all_sent(tokens: f64, hidden: f64, top_k: u32, ep: u32) -> Bytes {
    let ep = f64::from(ep.max(1));
    Bytes(2.0 * tokens * f64::from(top_k) * hidden * 2.0 * (ep - 1.0) / ep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_all_reduce_approaches_twice_the_message() {
        let message = Bytes(1000.0);
        assert_eq!(ring_allreduce_sent(message, 1), Bytes(0.0));
        assert_eq!(ring_allreduce_sent(message, 2), Bytes(1000.0));
        assert_eq!(ring_allreduce_sent(message, 8), Bytes(1750.0));
        assert!(ring_allreduce_sent(message, 4096).value() < 2000.0);
    }

    #[test]
    fn expert_parallel_all_to_all() {
        assert_eq!(expert_all_to_all_sent(4096.0, 4096.0, 2, 1), Bytes(0.0));
        // 4,096 tokens, top-2, width 4,096, 8-way: 2 × 4096 × 2 × 4096 × 2 B × 7/8.
        assert_eq!(
            expert_all_to_all_sent(4096.0, 4096.0, 2, 8),
            Bytes(117_440_512.0)
        );
    }

    #[test]
    fn zero_3_sends_one_and_a_half_times() {
        let plain = data_parallel_sent(Bytes(1e9), 8, ZeroStage::None);
        assert_eq!(data_parallel_sent(Bytes(1e9), 8, ZeroStage::Two), plain);
        assert_eq!(
            data_parallel_sent(Bytes(1e9), 8, ZeroStage::Three),
            plain * 1.5
        );
    }
}
