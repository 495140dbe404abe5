//! The parallelism planner: one GPU's memory and traffic for a model on N
//! GPUs with tensor degree t, pipeline degree p, data-parallel degree
//! d = N/(t·p) and a ZeRO stage on d; and the smallest change that makes it fit.
//!
//! Memory: the training state of the model's 1/(t·p) slice, sharded by ZeRO
//! over d (Rajbhandari et al. 2020), plus the activations the first pipeline
//! stage holds under 1F1B, p micro-batches of its L/p layers (Korthikanti et
//! al. 2022, section 4.2.3). Traffic a step: the data-parallel gradient
//! synchronisation, four tensor-parallel all-reduces per layer per micro-batch,
//! and each pipeline boundary's activations forward and gradients back.

use super::activations::{first_stage, hidden_state, ActivationSetup, Recompute};
use super::choice::Choice;
use super::comm::data_parallel_sent;
use super::memory::{BytesPerParam, TrainingState, ZeroStage};
use super::pipeline::{layers_per_stage, Schedule};
use super::presets::Architecture;
use super::tensor::sent_per_gpu_per_layer;
use super::units::Bytes;

/// Everything the planner needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Ψ, the parameter count behind the training state.
    pub params: f64,
    /// The architecture behind the activations.
    pub arch: Architecture,
    pub gpus: u32,
    pub stage: ZeroStage,
    pub tensor: u32,
    pub pipeline: u32,
    pub activations: ActivationSetup,
    /// Global batch, in sequences.
    pub batch: f64,
    /// Memory of one GPU.
    pub capacity: Bytes,
    /// The training state's convention (16, 18 or 20 bytes a parameter).
    pub bytes: BytesPerParam,
}

/// One GPU's memory and traffic under a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanEstimate {
    /// Data-parallel degree d = N/(t·p), at least 1.
    pub data: u32,
    pub state: TrainingState,
    pub activations: Bytes,
    pub total: Bytes,
    pub fits: bool,
    pub traffic: Bytes,
}

impl Plan {
    /// d = ⌊N/(t·p)⌋, at least 1.
    pub fn data_parallel(&self) -> u32 {
        (self.gpus / (self.tensor.max(1) * self.pipeline.max(1))).max(1)
    }

    /// Micro-batches each pipeline runs a step: B/(d·b), at least 1.
    pub fn micro_batches(&self) -> u32 {
        let per_pipeline =
            self.batch / f64::from(self.data_parallel()) / self.activations.micro_batch.max(1.0);
        (per_pipeline.floor() as u32).max(1)
    }

    pub fn estimate(&self) -> PlanEstimate {
        let t = self.tensor.max(1);
        let p = self.pipeline.max(1);
        let d = self.data_parallel();
        let slice = self.params / (f64::from(t) * f64::from(p));
        let state = TrainingState::zero(slice, self.bytes, self.stage, d);
        let setup = ActivationSetup {
            tensor_parallel: t,
            ..self.activations
        };
        let m = self.micro_batches();
        let activations = first_stage(&self.arch, &setup, p, Schedule::OneFOneB, m);
        let total = state.total() + activations;
        let tokens = setup.seq * setup.micro_batch;
        let gradients = self.bytes.reduced_gradient_of(slice);
        let data_traffic = data_parallel_sent(gradients, d, self.stage);
        let layers = f64::from(layers_per_stage(self.arch.layers, p));
        let tensor_traffic =
            sent_per_gpu_per_layer(&self.arch, t, tokens) * (layers * f64::from(m));
        // A middle stage sends activations forward and gradients back, each s·b·h/t with sequence parallelism.
        let boundary = if p > 1 {
            hidden_state(&self.arch, tokens) * (2.0 * f64::from(m))
        } else {
            Bytes(0.0)
        };
        PlanEstimate {
            data: d,
            state,
            activations,
            total,
            fits: total.value() <= self.capacity.value(),
            traffic: data_traffic + tensor_traffic + boundary,
        }
    }
}

/// A single change that would make a plan fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fix {
    /// Turn on selective or full recomputation.
    Recompute(Recompute),
    /// Move to this ZeRO stage.
    Stage(ZeroStage),
    /// Use this many GPUs (a multiple of t·p).
    Gpus(u32),
}

/// The most GPUs the planner considers.
pub const MAX_GPUS: u32 = 65_536;

/// Each single change that makes a plan fit, smallest first: recomputation
/// (selective before full), then each later ZeRO stage, then the fewest GPUs.
pub fn fixes(plan: &Plan) -> Vec<Fix> {
    if plan.estimate().fits {
        return Vec::new();
    }
    let mut found = Vec::new();
    for recompute in [Recompute::Selective, Recompute::Full] {
        if recompute != plan.activations.recompute
            && more_recompute(recompute, plan.activations.recompute)
        {
            let changed = Plan {
                activations: ActivationSetup {
                    recompute,
                    ..plan.activations
                },
                ..*plan
            };
            if changed.estimate().fits {
                found.push(Fix::Recompute(recompute));
                break;
            }
        }
    }
    if let Some(stage) = ZeroStage::ALL
        .iter()
        .copied()
        .filter(|&s| s > plan.stage)
        .find(|&stage| Plan { stage, ..*plan }.estimate().fits)
    {
        found.push(Fix::Stage(stage));
    }
    if let Some(gpus) = fewest_gpus(plan) {
        found.push(Fix::Gpus(gpus));
    }
    found
}

fn more_recompute(candidate: Recompute, current: Recompute) -> bool {
    let rank = |r| match r {
        Recompute::None => 0,
        Recompute::Selective => 1,
        Recompute::Full => 2,
    };
    rank(candidate) > rank(current)
}

/// The fewest GPUs (a multiple of t·p, at most [`MAX_GPUS`]) at which the
/// plan fits, if any: per-GPU memory never grows with d, so a binary search
/// over d finds it.
pub fn fewest_gpus(plan: &Plan) -> Option<u32> {
    let group = plan.tensor.max(1) * plan.pipeline.max(1);
    let max_data = (MAX_GPUS / group).max(1);
    let fits_at = |d: u32| {
        Plan {
            gpus: d * group,
            ..*plan
        }
        .estimate()
        .fits
    };
    if !fits_at(max_data) {
        return None;
    }
    let (mut low, mut high) = (1u32, max_data);
    while low < high {
        let mid = low + (high - low) / 2;
        if fits_at(mid) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    Some(low * group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::presets::model_preset;

    fn course_plan(stage: ZeroStage, gpus: u32) -> Plan {
        let arch = model_preset("llama2-70b").unwrap().arch;
        Plan {
            params: 70e9,
            arch,
            gpus,
            stage,
            tensor: 1,
            pipeline: 1,
            activations: ActivationSetup {
                seq: f64::from(arch.seq),
                micro_batch: 1.0,
                tensor_parallel: 1,
                sequence_parallel: false,
                recompute: Recompute::None,
            },
            batch: 1024.0,
            capacity: Bytes(80e9),
            bytes: BytesPerParam::MIXED_PRECISION_ADAM,
        }
    }

    #[test]
    fn the_course_module_numbers() {
        assert_eq!(
            course_plan(ZeroStage::None, 8).estimate().state.total(),
            Bytes(1120e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 8).estimate().state.total(),
            Bytes(140e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 16).estimate().state.total(),
            Bytes(70e9)
        );
        assert_eq!(
            course_plan(ZeroStage::Three, 64).estimate().state.total(),
            Bytes(17.5e9)
        );
    }

    #[test]
    fn plain_data_parallelism_never_fits_and_zero_3_needs_more_gpus() {
        let plan = course_plan(ZeroStage::None, 8);
        // No single change rescues 1,120 GB: not recomputation, not ZeRO-3 at 8 GPUs, not more GPUs at stage 0.
        assert_eq!(fixes(&plan), []);
        assert_eq!(fewest_gpus(&plan), None);
        let zero3 = Plan {
            activations: ActivationSetup {
                recompute: Recompute::Full,
                ..plan.activations
            },
            ..course_plan(ZeroStage::Three, 8)
        };
        assert_eq!(fixes(&zero3), [Fix::Gpus(fewest_gpus(&zero3).unwrap())]);
        let fewest = fewest_gpus(&zero3).unwrap();
        assert!(
            Plan {
                gpus: fewest,
                ..zero3
            }
            .estimate()
            .fits
        );
        assert!(
            !Plan {
                gpus: fewest - 1,
                ..zero3
            }
            .estimate()
            .fits
        );
    }
}
