//! The planner's traffic: what one GPU sends each group a step, the link
//! each group runs over, and how long each transfer takes.
//!
//! The data-parallel synchronisation (`comm.rs`, by ZeRO stage), four
//! tensor-parallel all-reduces a layer a micro-batch (Shoeybi et al. 2019),
//! each pipeline boundary's activations forward and gradients back, the
//! experts' all-to-alls and the context ring, each group on the link its
//! ranks sit on ([`link_of`]).

use super::memory::PlanMemory;
use super::Plan;
use crate::model::activations::{hidden_state, Recompute};
use crate::model::comm::{
    context_ring_sent, data_parallel_sent, expert_all_to_all_sent, transfer_time, Link, Links,
};
use crate::model::pipeline::{layers_per_stage, Schedule};
use crate::model::tensor::sent_per_gpu_per_layer;
use crate::model::units::{Bytes, Seconds};

/// The groups a GPU talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Tensor,
    Context,
    Experts,
    Pipeline,
    Data,
}

impl Group {
    /// What the group's traffic is, in words.
    pub fn traffic(self) -> &'static str {
        match self {
            Group::Tensor => "the tensor-parallel all-reduces",
            Group::Context => "the context ring",
            Group::Experts => "the experts' all-to-alls",
            Group::Pipeline => "the pipeline's sends",
            Group::Data => "the data-parallel reduction",
        }
    }
}

/// What one GPU sends a step to one group, over which link, and how long
/// that takes: the one place a transfer's time is worked out, which the
/// step, the bar and the words all read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupTraffic {
    pub group: Group,
    pub sent: Bytes,
    pub link: Link,
    /// `sent` at the link's bandwidth ([`transfer_time`]); for the experts'
    /// all-to-all, times the busiest expert's pace (`Routing::pace`): its
    /// GPU receives that many times a GPU's share, and the step waits for it.
    pub time: Seconds,
}

impl GroupTraffic {
    fn new(group: Group, sent: Bytes, link: Link, links: &Links) -> Self {
        Self {
            group,
            sent,
            link,
            time: transfer_time(sent, links.bandwidth(link)),
        }
    }
}

/// The link a group of `size` ranks, `stride` apart, runs over (ranks in
/// Megatron-LM's default order, tensor fastest, then context, data,
/// pipeline, `order="tp-cp-ep-dp-pp"` in `megatron/core/parallel_state.py`;
/// the experts' groups come from a second grid over the same ranks, expert
/// tensor fastest, then experts, with cp = 1): NVLink when every such group lies within one
/// NVLink domain (the node on HGX boards; the rack of 72 on GB200 NVL72,
/// where NVLink switches join every GPU), the network otherwise. A group
/// spans a block of stride × size consecutive ranks, and the blocks tile
/// the job's `ranks` from 0, so all of them lie within domains when the
/// block divides the domain, or when the whole job fits in one; otherwise
/// the block around the first domain's edge crosses it. On an NVL72, a
/// block of 8 × 9 = 72 stays inside, one of 16 does not (ranks 64–79 cross
/// from one rack to the next) once the job has more than 72 GPUs.
pub fn link_of(links: &Links, ranks: u32, (stride, size): (u32, u32)) -> Link {
    let (span, domain) = (stride.saturating_mul(size), links.domain.max(1));
    if size <= 1 || domain.is_multiple_of(span.max(1)) || ranks <= domain {
        Link::NvLink
    } else {
        Link::Network
    }
}

/// What one GPU sends a step, group by group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanTraffic {
    /// Each group's traffic, link and time, in [`Group`]'s order.
    pub groups: [GroupTraffic; 5],
}

impl PlanTraffic {
    /// What one GPU sends `group` a step, over which link, in what time.
    pub fn group(&self, group: Group) -> GroupTraffic {
        self.groups[group as usize]
    }

    /// What one GPU sends over `link` a step, all groups together.
    pub fn on(&self, link: Link) -> Bytes {
        self.groups
            .iter()
            .filter(|g| g.link == link)
            .fold(Bytes(0.0), |sum, g| sum + g.sent)
    }
}

impl Plan {
    /// What one GPU of the most loaded stage (`memory`) sends each group a step.
    pub fn traffic(&self, memory: &PlanMemory) -> PlanTraffic {
        let (t, p, cp, ep) = (
            self.tensor.max(1),
            self.pipeline.max(1),
            self.context.max(1),
            self.experts.max(1),
        );
        let d = self.data_parallel();
        let (replicas, expert_replicas) = self.shards();
        let bytes = self.state_bytes();
        let setup = self.activation_setup();
        let m = self.micro_batches();
        let loaded = memory.loaded;
        let tokens = setup.seq * setup.micro_batch;
        let data_traffic = data_parallel_sent(bytes, loaded.dense, replicas, self.stage, m)
            + data_parallel_sent(bytes, loaded.experts, expert_replicas, self.stage, m);
        // The busiest stage's layers set the pace: ⌈L/p⌉.
        let per_stage = f64::from(layers_per_stage(self.arch.layers, p)) * f64::from(m);
        // Full recomputation runs each layer's forward again, its two
        // all-reduces with it: six a layer, not four.
        // torchtitan's op-level checkpointing keeps the reduce-scatters'
        // outputs, not the all-gathers' or all-reduces' (`op_level_kept`):
        // with sequence parallelism its recomputation gathers again, half
        // of a layer's collectives; without, it all-reduces again, as full
        // recomputation does.
        let recomputed = match setup.recompute {
            Recompute::Full => 1.5,
            Recompute::Op if setup.sequence_parallel && t > 1 => 1.25,
            Recompute::Op => 1.5,
            Recompute::None | Recompute::Selective => 1.0,
        };
        // With sequence parallelism each tensor-parallel GPU holds, and sends, 1/t of the tokens.
        let split = if setup.sequence_parallel {
            f64::from(t)
        } else {
            1.0
        };
        // A dense layer's four all-reduces run over its t GPUs. In an experts'
        // layer the attention's two (and a shared expert's MLP's two) still
        // do; the routed experts' tensor group, etp GPUs, instead gathers the
        // tokens routed to it after the all-to-all and reduce-scatters them
        // before the one back, and the backward pass does the same
        // (Megatron-LM's MoEAlltoAllTokenDispatcher, "A2A(EP) -> AG(TP)" and
        // "RS(TP) -> A2A(EP)"): four collectives, each sending etp − 1
        // chunks of this GPU's k routes, at the busiest expert's pace; none
        // at etp 1, whole experts.
        let etp = self.expert_tensor();
        let expert_layers = if self.arch.experts > 1 {
            1.0 - f64::from(self.arch.dense_layers_in(&(0..self.arch.layers)))
                / f64::from(self.arch.layers.max(1))
        } else {
            0.0
        };
        let dense_layer = sent_per_gpu_per_layer(&self.arch, t, tokens);
        let attention_share = if self.arch.shared_experts > 0 {
            1.0
        } else {
            0.5
        };
        let routed_gathers = hidden_state(&self.arch, tokens / split)
            * (4.0 * f64::from(etp - 1) * self.arch.experts_used() * self.routing.pace());
        let expert_layer = dense_layer * attention_share + routed_gathers;
        let tensor_traffic = (dense_layer * (1.0 - expert_layers) + expert_layer * expert_layers)
            * (per_stage * recomputed);
        // A middle stage sends activations forward and gradients back, once
        // for each of its chunks under the interleaved schedule (each chunk
        // hands its output to the next GPU: v times 1F1B's, Narayanan et al.
        // 2021, section 2.2.2).
        let chunks = if self.schedule == Schedule::Interleaved {
            f64::from(self.chunks.max(1))
        } else {
            1.0
        };
        let boundary = if p > 1 {
            hidden_state(&self.arch, tokens) * (2.0 * f64::from(m) * chunks / split)
        } else {
            Bytes(0.0)
        };
        // Dispatch and combine, forward and backward (`comm.rs`), in every
        // layer when there are experts: what a GPU sends, its own tokens'
        // routes whatever the imbalance; the GPU of the busiest expert
        // receives `Routing::pace` times its share, and the step waits for
        // that (the group's time, below).
        let all_to_all = if self.arch.experts > 1 {
            expert_all_to_all_sent(
                tokens / split,
                f64::from(self.arch.hidden),
                self.arch.experts_used() as u32,
                ep,
            ) * (2.0 * per_stage)
        } else {
            Bytes(0.0)
        };
        let context_traffic = context_ring_sent(
            tokens * f64::from(cp),
            self.arch.kv_heads_width() / f64::from(t),
            cp,
        ) * per_stage;
        let links = &self.links;
        let ranks = self.gpus_used();
        let mut groups = [
            (
                Group::Tensor,
                tensor_traffic,
                link_of(links, ranks, (1, t.max(etp))),
            ),
            (
                Group::Context,
                context_traffic,
                link_of(links, ranks, (t, cp)),
            ),
            (Group::Experts, all_to_all, link_of(links, ranks, (etp, ep))),
            (
                Group::Pipeline,
                boundary,
                link_of(links, ranks, (t * cp * d, p)),
            ),
            (
                Group::Data,
                data_traffic,
                link_of(links, ranks, (t * cp, d)),
            ),
        ]
        .map(|(group, sent, link)| GroupTraffic::new(group, sent, link, links));
        let experts = &mut groups[Group::Experts as usize];
        experts.time = experts.time * self.routing.pace();
        PlanTraffic { groups }
    }
}
