//! Collective communication: what each GPU sends, and how long it takes.
//!
//! Ring algorithms (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce
//! algorithms for clusters of workstations"; the schedule NCCL uses for large
//! messages). A message of M bytes is cut into N chunks that travel round the
//! ring of N GPUs:
//! - reduce-scatter: N − 1 steps, each GPU sends (N − 1)/N · M;
//! - all-gather: the same, (N − 1)/N · M;
//! - all-reduce = reduce-scatter then all-gather: 2(N − 1)/N · M.

use super::choice::Choice;
use super::memory::{BytesPerParam, ZeroStage};
use super::presets::GpuPreset;
use super::units::{Bytes, BytesPerSecond, Seconds};

/// The links around a GPU: inside its node, and between nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Links {
    pub nvlink: BytesPerSecond,
    pub network: BytesPerSecond,
    /// GPUs one NVLink domain joins (the node on HGX boards, 72 on GB200 NVL72).
    pub domain: u32,
}

impl Links {
    /// A GPU preset's links.
    pub fn of(gpu: &GpuPreset) -> Self {
        Self {
            nvlink: gpu.nvlink,
            network: gpu.network,
            domain: gpu.nvlink_domain,
        }
    }

    /// A link's bandwidth a GPU, each way.
    pub fn bandwidth(&self, link: Link) -> BytesPerSecond {
        match link {
            Link::NvLink => self.nvlink,
            Link::Network => self.network,
        }
    }
}

/// Which link a collective runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// GPU-to-GPU inside a node.
    NvLink,
    /// Between nodes.
    Network,
}

impl Choice for Link {
    const ALL: &'static [Self] = &[Link::NvLink, Link::Network];

    fn id(self) -> &'static str {
        match self {
            Link::NvLink => "nvlink",
            Link::Network => "network",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Link::NvLink => "NVLink",
            Link::Network => "Network",
        }
    }
}

impl Link {
    /// The link named inside a sentence: "over NVLink", "over the network".
    pub fn phrase(self) -> &'static str {
        match self {
            Link::NvLink => "NVLink",
            Link::Network => "the network",
        }
    }

    /// The link this one is not.
    pub fn other(self) -> Link {
        match self {
            Link::NvLink => Link::Network,
            Link::Network => Link::NvLink,
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

/// One step of a ring all-reduce of N chunks (Patarasuk & Yuan 2009): in
/// step k of the reduce-scatter GPU i sends chunk (i − k) mod N and adds the
/// one it receives; in step k of the all-gather it forwards chunk
/// (i + 1 − k) mod N, now complete.
#[derive(Clone, Debug, PartialEq)]
pub struct RingStep {
    /// True in the reduce-scatter phase, false in the all-gather phase.
    pub reducing: bool,
    /// 1-based step within its phase.
    pub step: u32,
    /// Steps in each phase: N − 1.
    pub steps_per_phase: u32,
    /// The chunk each GPU sends to its right-hand neighbour this step.
    pub sends: Vec<u32>,
    /// Bytes each GPU has sent so far, after this step.
    pub sent_so_far: Bytes,
}

/// Step `index` (0 to 2(N − 1) − 1) of the ring all-reduce of `message`
/// over `gpus` GPUs; `None` past the end, or with one GPU.
pub fn ring_step(gpus: u32, message: Bytes, index: u32) -> Option<RingStep> {
    let n = gpus.max(1);
    let per_phase = n - 1;
    if per_phase == 0 || index >= 2 * per_phase {
        return None;
    }
    let reducing = index < per_phase;
    let k = index % per_phase;
    let sends = (0..n)
        .map(|i| {
            if reducing {
                (i + n - k) % n
            } else {
                (i + 1 + n - k) % n
            }
        })
        .collect();
    Some(RingStep {
        reducing,
        step: k + 1,
        steps_per_phase: per_phase,
        sends,
        sent_so_far: message / f64::from(n) * f64::from(index + 1),
    })
}

/// Bytes each data-parallel GPU sends in a step of `micro_batches`
/// micro-batches to synchronise `params` parameters kept by the convention
/// `bytes` over `gpus` GPUs, with Ψ the parameters and (N − 1)/N the ring's
/// share:
///
/// - stage 0 accumulates the gradients over the micro-batches and
///   all-reduces them once: 2 × g × Ψ(N − 1)/N, with g the bytes a parameter
///   of the gradient it reduces (`reduced_gradient`: fp32 at 18 bytes,
///   the fp16 gradients as written at 20);
/// - stage 1 (Megatron-LM's distributed optimizer) reduce-scatters the
///   gradients as written once a step and all-gathers the updated 16-bit
///   weights: (g + w)Ψ(N − 1)/N: 4 at 16 bytes (the all-reduce's volume,
///   Rajbhandari et al. 2020, section 7.2.1), 6 at 18 (fp32 gradients), 4 at
///   20 (fp16 gradients, accumulated into the fp32 shard) (Megatron-LM
///   `docs/api-guide/dist_optimizer.md`);
/// - stage 2 keeps no whole gradient, so it reduce-scatters after every
///   micro-batch's backward pass (DeepSpeed's maintainers,
///   deepspeedai/DeepSpeed#2252), and gathers the weights once:
///   (m·g + w)Ψ(N − 1)/N;
/// - stage 3 keeps no whole weight either: every micro-batch gathers the
///   weights for its forward and again for its backward pass, and
///   reduce-scatters its gradients: m(2w + g)Ψ(N − 1)/N; at 16 bytes and
///   one micro-batch 1.5 times the all-reduce (Rajbhandari et al. 2020,
///   section 7.2.2).
pub fn data_parallel_sent(
    bytes: BytesPerParam,
    params: f64,
    gpus: u32,
    stage: ZeroStage,
    micro_batches: u32,
) -> Bytes {
    let m = f64::from(micro_batches.max(1));
    let (w, g) = (bytes.gathered_weights, bytes.gradients);
    let per_param = match stage {
        ZeroStage::None => return ring_allreduce_sent(bytes.reduced_gradient_of(params), gpus),
        ZeroStage::One => g + w,
        ZeroStage::Two => m * g + w,
        ZeroStage::Three => m * (2.0 * w + g),
    };
    ring_gather_sent(Bytes(per_param * params), gpus)
}

/// What `stage` sends in a step of `micro_batches` against plain data
/// parallelism's one all-reduce, under the same convention: the ratio of
/// [`data_parallel_sent`]s, whatever the parameters and GPUs (both carry
/// the ring's (N − 1)/N). 1.5 for ZeRO-3 at 16 bytes and one micro-batch;
/// 1 at 18 bytes, where the all-reduce carries fp32 gradients.
pub fn data_parallel_ratio(bytes: BytesPerParam, stage: ZeroStage, micro_batches: u32) -> f64 {
    let sent = |stage| data_parallel_sent(bytes, 1.0, 2, stage, micro_batches).value();
    sent(stage) / sent(ZeroStage::None)
}

/// Bytes each GPU sends in one mixture-of-experts layer with expert
/// parallelism of degree `ep`: each of its `tokens` tokens goes to `top_k`
/// experts and comes back, two all-to-alls of a 2-byte hidden state of width
/// `hidden`; with uniform routing a share (ep − 1)/ep of them leave the GPU
/// (Lepikhin et al. 2020, GShard, section 2.2; Fedus et al. 2021, Switch
/// Transformer, section 2.2).
pub fn expert_all_to_all_sent(tokens: f64, hidden: f64, top_k: u32, ep: u32) -> Bytes {
    Bytes(2.0 * tokens * f64::from(top_k) * hidden * 2.0 * routed_away(ep))
}

/// Bytes each of `cp` context-parallel GPUs sends for one layer and one
/// micro-batch: the sequence is split `cp` ways, and each GPU passes its
/// chunk's keys and values (`tokens`/cp tokens × 2 × `kv_width` values of 2
/// bytes) round the ring `cp` − 1 times in the forward pass; the backward
/// pass passes them round again with their gradients, twice as much (Liu et
/// al. 2023, Ring Attention, section 3; Megatron-Core's context-parallelism
/// documentation). `kv_width` is what one tensor-parallel rank holds.
pub fn context_ring_sent(tokens: f64, kv_width: f64, cp: u32) -> Bytes {
    let cp = f64::from(cp.max(1));
    let chunk = tokens / cp * 2.0 * kv_width * 2.0;
    Bytes(3.0 * (cp - 1.0) * chunk)
}

/// The share of routes that leave a GPU when tokens pick experts uniformly
/// over `ep` GPUs: (ep − 1)/ep.
pub fn routed_away(ep: u32) -> f64 {
    let ep = f64::from(ep.max(1));
    (ep - 1.0) / ep
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama 3 8B's K and V (8 heads of 128: width 1,024) at 131,072 tokens
    /// over 4 GPUs: chunks of 32,768 tokens × 2 × 1,024 × 2 B = 134.2 MB,
    /// sent 3 times forward and 6 times backward.
    #[test]
    fn the_context_ring() {
        assert_eq!(
            context_ring_sent(131_072.0, 1024.0, 4),
            Bytes(9.0 * 134_217_728.0)
        );
        assert_eq!(context_ring_sent(131_072.0, 1024.0, 1), Bytes(0.0));
    }

    #[test]
    fn ring_all_reduce_approaches_twice_the_message() {
        let message = Bytes(1000.0);
        assert_eq!(ring_allreduce_sent(message, 1), Bytes(0.0));
        assert_eq!(ring_allreduce_sent(message, 2), Bytes(1000.0));
        assert_eq!(ring_allreduce_sent(message, 8), Bytes(1750.0));
        assert!(ring_allreduce_sent(message, 4096).value() < 2000.0);
    }

    /// After 2(N − 1) steps every GPU has sent 2(N − 1)/N of the message,
    /// the closed form, and in each step the GPUs send N different chunks.
    #[test]
    fn the_ring_schedule_adds_up_to_the_closed_form() {
        for n in [2, 3, 8, 64] {
            let message = Bytes(1e9);
            let last = ring_step(n, message, 2 * (n - 1) - 1).unwrap();
            assert!(
                (last.sent_so_far.value() - ring_allreduce_sent(message, n).value()).abs() < 1.0
            );
            for index in 0..2 * (n - 1) {
                let mut chunks = ring_step(n, message, index).unwrap().sends;
                chunks.sort_unstable();
                assert_eq!(chunks, (0..n).collect::<Vec<_>>());
            }
            assert_eq!(ring_step(n, message, 2 * (n - 1)), None);
        }
        assert_eq!(ring_step(1, Bytes(1.0), 0), None);
        // 4 GPUs, reduce-scatter step 1: GPU i sends chunk i.
        assert_eq!(ring_step(4, Bytes(1.0), 0).unwrap().sends, [0, 1, 2, 3]);
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

    /// One micro-batch, 1e9 parameters over 8 GPUs (ring share 7/8). At 16
    /// bytes stages 1 and 2 send the all-reduce's 2 × 2 bytes a parameter
    /// and stage 3 1.5 times as much (Rajbhandari et al. 2020, 7.2.1-7.2.2);
    /// at 18 the distributed optimizer reduce-scatters 4-byte gradients and
    /// gathers 2-byte weights, 6 against plain data parallelism's 2 × 4; at
    /// 20 it reduce-scatters the 2-byte gradients, 4, as much as plain data
    /// parallelism's all-reduce of them, 2 × 2 (Megatron-LM's
    /// dist_optimizer.md; `grad_reduce_in_fp32` defaults to false).
    #[test]
    fn what_each_stage_sends_under_each_convention() {
        let per_param =
            |bytes, stage| data_parallel_sent(bytes, 1e9, 8, stage, 1).value() / (1e9 * 7.0 / 8.0);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} against {b}");
        let adam = BytesPerParam::MIXED_PRECISION_ADAM;
        close(per_param(adam, ZeroStage::None), 4.0);
        close(per_param(adam, ZeroStage::One), 4.0);
        close(per_param(adam, ZeroStage::Two), 4.0);
        close(per_param(adam, ZeroStage::Three), 6.0);
        let fp32 = BytesPerParam::FP32_GRADIENTS;
        close(per_param(fp32, ZeroStage::None), 8.0);
        close(per_param(fp32, ZeroStage::One), 6.0);
        close(per_param(fp32, ZeroStage::Three), 8.0);
        let accumulate = BytesPerParam::FP32_ACCUMULATION;
        close(per_param(accumulate, ZeroStage::None), 4.0);
        close(per_param(accumulate, ZeroStage::One), 4.0);
        // The same ratios, as the figure states them.
        close(data_parallel_ratio(adam, ZeroStage::Three, 1), 6.0 / 4.0);
        close(data_parallel_ratio(fp32, ZeroStage::Three, 1), 8.0 / 8.0);
        close(data_parallel_ratio(fp32, ZeroStage::One, 1), 6.0 / 8.0);
    }

    /// 7e9 parameters over 64 GPUs, 16 micro-batches a step, 16 bytes:
    /// ZeRO-3 gathers 2-byte weights twice and reduce-scatters 2-byte
    /// gradients for each micro-batch, 16 × 6 × 7e9 × 63/64 = 661.5 GB
    /// (issue 19's given case); ZeRO-2 reduce-scatters 16 times and gathers
    /// once, (16 × 2 + 2) × 7e9 × 63/64; stages 0 and 1 once a step.
    #[test]
    fn sharded_stages_pay_per_micro_batch() {
        let adam = BytesPerParam::MIXED_PRECISION_ADAM;
        let sent = |stage| data_parallel_sent(adam, 7e9, 64, stage, 16).value();
        let ring = 7e9 * 63.0 / 64.0;
        assert!((sent(ZeroStage::Three) - 661.5e9).abs() < 1e3);
        assert!((sent(ZeroStage::Two) - 34.0 * ring).abs() < 1e3);
        assert!((sent(ZeroStage::One) - 4.0 * ring).abs() < 1e3);
        assert!((sent(ZeroStage::None) - 4.0 * ring).abs() < 1e3);
    }
}
