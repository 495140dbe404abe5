//! 3D parallelism: tensor × pipeline × data, with ZeRO on the data dimension.
//!
//! Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
//! GPU Clusters Using Megatron-LM" (arXiv:2104.04473), section 2.3 and 3:
//! n = t·p·d GPUs; tensor parallelism inside a node, pipeline stages across
//! nodes, data parallelism over copies of the pipeline. A pipeline's share of
//! the global batch B is B/d sequences, streamed as micro-batches of one
//! sequence each (so m = B/d), and its bubble is (p − 1)/(m + p − 1).

use super::compute::training_time;
use super::memory::{BytesPerParam, TrainingState, ZeroStage};
use super::pipeline::{bubble, Schedule};
use super::units::{Flop, FlopPerSecond, Seconds};

/// How the GPUs are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Tensor-parallel degree t (GPUs splitting each matrix, inside a node).
    pub tensor: u32,
    /// Pipeline stages p.
    pub pipeline: u32,
    /// Data-parallel replicas d.
    pub data: u32,
    /// ZeRO stage applied across the d replicas.
    pub zero: ZeroStage,
}

impl Layout {
    /// n = t·p·d.
    pub fn gpus(&self) -> u32 {
        self.tensor
            .max(1)
            .saturating_mul(self.pipeline.max(1))
            .saturating_mul(self.data.max(1))
    }

    /// Nodes of `gpus_per_node` GPUs: ⌈n / per node⌉.
    pub fn nodes(&self, gpus_per_node: u32) -> u32 {
        self.gpus().div_ceil(gpus_per_node.max(1))
    }

    /// The global rank of tensor index `tp` in the group of `stage` in
    /// `replica`: Megatron-LM's default order, tensor fastest, then data,
    /// then pipeline (`megatron/core/parallel_state.py`, order "tp-dp-pp"
    /// read from the fastest): rank = tp + t·(replica + d·stage).
    pub fn rank(&self, tp: u32, replica: u32, stage: u32) -> u32 {
        tp + self.tensor.max(1) * (replica + self.data.max(1) * stage)
    }

    /// A rank the layout has: `rank`, or the last GPU's when `rank` is
    /// beyond it (a URL's, or one kept from a larger layout).
    pub fn existing_rank(&self, rank: u32) -> u32 {
        rank.min(self.gpus().saturating_sub(1))
    }

    /// A rank's index in each dimension: (tensor, data, pipeline), of the
    /// last GPU for a rank beyond the layout.
    pub fn coordinates(&self, rank: u32) -> (u32, u32, u32) {
        let (t, d) = (self.tensor.max(1), self.data.max(1));
        let rank = self.existing_rank(rank);
        (rank % t, rank / t % d, rank / (t * d))
    }

    /// The node holding the tensor-parallel group of `stage` in `replica`,
    /// `gpus_per_node` consecutive ranks to a node.
    pub fn node_of(&self, replica: u32, stage: u32, gpus_per_node: u32) -> u32 {
        self.rank(0, replica, stage) / gpus_per_node.max(1)
    }

    /// Micro-batches per pipeline from a global batch of `batch` sequences:
    /// B/d, at least one.
    pub fn micro_batches(&self, batch: u32) -> u32 {
        (batch / self.data.max(1)).max(1)
    }
}

/// The estimate behind the 3D figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub gpus: u32,
    pub nodes: u32,
    /// Training state on one GPU: 1/(t·p) of the model, ZeRO-sharded d ways.
    pub state: TrainingState,
    pub micro_batches: u32,
    /// Idle share of each step.
    pub bubble: f64,
    pub compute: Flop,
    /// Days to train, bubble included, communication ignored.
    pub time: Seconds,
}

/// Estimates a 3D layout for `params` parameters trained with `compute`
/// FLOP in all, a global batch of `batch` sequences, each GPU sustaining `rate`.
pub fn estimate(
    layout: &Layout,
    params: f64,
    compute: Flop,
    batch: u32,
    rate: FlopPerSecond,
    gpus_per_node: u32,
    bytes: BytesPerParam,
) -> Estimate {
    let model_parallel = f64::from(layout.tensor.max(1)) * f64::from(layout.pipeline.max(1));
    let state = TrainingState::zero(params / model_parallel, bytes, layout.zero, layout.data);
    let micro_batches = layout.micro_batches(batch);
    let bubble = bubble(Schedule::OneFOneB, layout.pipeline, micro_batches, 1);
    Estimate {
        gpus: layout.gpus(),
        nodes: layout.nodes(gpus_per_node),
        state,
        micro_batches,
        bubble,
        compute,
        time: training_time(compute, layout.gpus(), rate, bubble),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example: t = 8, p = 4, d = 8, rank 13 is tensor index 5
    /// of replica 1 on stage 0 (13 = 5 + 8·1); and every rank's coordinates
    /// give it back.
    #[test]
    fn ranks_in_megatron_order() {
        let layout = Layout {
            tensor: 8,
            pipeline: 4,
            data: 8,
            zero: ZeroStage::One,
        };
        assert_eq!(layout.coordinates(13), (5, 1, 0));
        assert_eq!(layout.coordinates(64), (0, 0, 1));
        for rank in 0..layout.gpus() {
            let (tp, dp, pp) = layout.coordinates(rank);
            assert_eq!(layout.rank(tp, dp, pp), rank);
        }
        // Replica 1 of stage 2 starts at rank 8·(1 + 8·2) = 136: node 17.
        assert_eq!(layout.node_of(1, 2, 8), 17);
    }

    #[test]
    fn the_module_example_is_1024_gpus() {
        let layout = Layout {
            tensor: 8,
            pipeline: 4,
            data: 32,
            zero: ZeroStage::One,
        };
        assert_eq!(layout.gpus(), 1024);
        assert_eq!(layout.nodes(8), 128);
        assert_eq!(layout.micro_batches(1024), 32);
        assert_eq!(
            Layout {
                data: 4096,
                ..layout
            }
            .micro_batches(1024),
            1
        );
    }
}
