//! The planner's step: the arithmetic at the rate while busy, the
//! communication on the critical path, the bubble, and the data-parallel
//! traffic the passes do not hide.
//!
//! The step's FLOP (and recomputation's), at the pace of the stage with the
//! most (the last runs the output layer too), at the GPU's peak × its share
//! while busy (`busy-util`, or what gives a published `step-mfu` over the
//! whole step), plus the communication on the critical path, both
//! stretched by the bubble, plus the data-parallel traffic its passes do
//! not hide ([`exposed_reduction`]). Every other time (the run, MFU, tokens
//! a second, the search, the comparison) derives from that one step.

use super::traffic::{Group, PlanTraffic};
use super::Plan;
use crate::model::activations::Recompute;
use crate::model::compute::{
    flop_per_token, fp8_flop_per_token, recompute_flop_per_token, slowest_stage,
};
use crate::model::memory::{BytesPerParam, ZeroStage};
use crate::model::pipeline::{bubble, Schedule};
use crate::model::units::{Flop, Seconds};

/// Where a step's time goes, in seconds: each term from the estimator,
/// each kind of traffic on its group's link ([`Group`]); [`total`](Self::total)
/// is the step (`PlanEstimate::step_time`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct StepBreakdown {
    /// The model's FLOP at the sustained rate, at the slowest stage's pace
    /// ([`slowest_stage`]).
    pub compute: f64,
    /// Recomputation's extra forward passes.
    pub recompute: f64,
    /// Tensor-parallel all-reduces, on the critical path: each layer waits
    /// for its own (Shoeybi et al. 2019, section 3).
    pub tensor: f64,
    /// The experts' all-to-alls, the context ring's K/V exchange and the
    /// pipeline's sends between stages, on the critical path as the planner
    /// counts them (none overlapped, as Megatron-LM's 2021 schedules ran);
    /// under DualPipe and DualPipeV the all-to-alls and the pipeline's sends
    /// run beside the overlapped pairs' arithmetic ("both all-to-all and PP
    /// communication can be fully hidden", DeepSeek-V3, section 3.2.1), and
    /// only what outlasts the arithmetic counts.
    pub exchange: f64,
    /// Idle pipeline stages: the arithmetic and the critical communication
    /// times b/(1 − b) (a stage idles for its neighbours' whole slots).
    pub bubble: f64,
    /// Data-parallel traffic that outlasts the passes it overlaps
    /// ([`exposed_reduction`]).
    pub data: f64,
}

impl StepBreakdown {
    pub fn total(&self) -> f64 {
        self.compute + self.recompute + self.tensor + self.exchange + self.bubble + self.data
    }
}

/// A plan's step, and what derives from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanStep {
    pub bubble: f64,
    /// The arithmetic of one step on all GPUs, recomputation included.
    pub step_flop: Flop,
    /// One global batch: `breakdown.total()`.
    pub step_time: Seconds,
    /// Where the step's time goes.
    pub breakdown: StepBreakdown,
    pub tokens_per_gpu_per_second: f64,
    /// `tokens` of training.
    pub train_time: Seconds,
    /// Model FLOPs utilisation over the whole step, bubble included.
    pub mfu: f64,
    /// The fraction of the peak sustained while computing, as used.
    pub busy: f64,
    /// The slowest stage's work over the mean stage's ([`slowest_stage`]): 1 without a pipeline.
    pub pace: f64,
    /// The arithmetic's time under the number formats over its time in
    /// BF16: below 1 with FP8 (`precision.rs`), else 1.
    pub time_share: f64,
    /// The share of the experts' all-to-alls and the pipeline's sends the
    /// step waits for: 1, but under DualPipe and DualPipeV only what
    /// outlasts the arithmetic beside it.
    pub exposed_exchange: f64,
}

impl PlanStep {
    /// The seconds the step waits for `group`'s transfer (of `traffic`):
    /// the whole transfer on the critical path, the data-parallel traffic
    /// only where it outlasts the passes that hide it, the overlapped
    /// exchanges only where they outlast the arithmetic.
    pub fn waited(&self, traffic: &PlanTraffic, group: Group) -> Seconds {
        let time = traffic.group(group).time.value();
        Seconds(match group {
            Group::Data => self.breakdown.data,
            Group::Experts | Group::Pipeline => time * self.exposed_exchange,
            Group::Tensor | Group::Context => time,
        })
    }
}

impl Plan {
    /// The step under `traffic`, and the times that derive from it.
    pub fn step(&self, traffic: &PlanTraffic) -> PlanStep {
        let p = self.pipeline.max(1);
        let m = self.micro_batches();
        let setup = self.activation_setup();
        let bytes = self.state_bytes();
        let ranges = self.stage_ranges();
        let bubble = bubble(self.schedule, p, m, self.chunks);
        let seq = self.activations.seq;
        let step_tokens = self.sequences_run() * seq;
        let active = self.params * self.arch.active_share();
        let model_token = flop_per_token(self.flop, active, &self.arch, seq);
        let recompute_run = setup.recompute_run();
        let recompute_token = recompute_flop_per_token(recompute_run, &self.arch, seq);
        let model_flop = model_token * step_tokens;
        // The routed experts' arithmetic, padded to capacity or waiting for
        // the busiest expert (`Routing`), beyond an even split's.
        let routed = if self.arch.experts > 1 {
            let per_pass = 2.0
                * f64::from(self.arch.layers)
                * self.arch.layer_expert_params()
                * self.arch.experts_used()
                / self.arch.experts();
            let passes = if recompute_run == Recompute::Full {
                4.0
            } else {
                3.0
            };
            passes * per_pass * (self.routing.pace() - 1.0) * step_tokens
        } else {
            0.0
        };
        let hardware_flop = model_flop + recompute_token * step_tokens + routed;
        // FP8 runs the layers' matrix multiplies faster (`precision.rs`):
        // the arithmetic takes this share of its BF16 time.
        let fp8_share = self.numerics.time_share(
            model_token + recompute_token,
            fp8_flop_per_token(&self.arch, recompute_run).min(model_token + recompute_token),
        );
        let gpus = f64::from(self.gpus_used());
        let stretch = 1.0 / (1.0 - bubble).max(f64::MIN_POSITIVE);
        let seconds = |group: Group| traffic.group(group).time.value();
        let beside = seconds(Group::Experts) + seconds(Group::Pipeline);
        let overlapped = matches!(self.schedule, Schedule::DualPipe | Schedule::DualPipeV);
        let exposed_beside = |computing: f64| {
            if overlapped {
                (beside - computing).max(0.0)
            } else {
                beside
            }
        };
        let exchange = |computing: f64| seconds(Group::Context) + exposed_beside(computing);
        let reduction = seconds(Group::Data);
        let exposed =
            |computing: f64| exposed_reduction(self.stage, bytes, m, reduction, computing);
        let peak = gpus * self.rate.peak.value();
        // The slowest stage sets the pace: its share of the FLOP over the mean's.
        let pace = slowest_stage(&self.arch, &ranges, seq);
        // The step at `sustained` FLOP/s while computing: the one formula of
        // a step, which the rate for a published MFU is solved against too.
        // Each part is its FLOP over the rate, so that without recomputation
        // its part is exactly 0 (a split of the seconds left a part of 1e-16 s,
        // drawn in the bar and counted as DOM nodes).
        let breakdown_at = |sustained: f64| {
            let sustained = sustained.max(f64::MIN_POSITIVE) / fp8_share;
            // The model's FLOP and the experts' padding or wait, not recomputation.
            let compute = (model_flop + routed) * pace / sustained;
            let recompute = hardware_flop * pace / sustained - compute;
            let exchange = exchange(compute + recompute);
            let critical = seconds(Group::Tensor) + exchange;
            StepBreakdown {
                compute,
                recompute,
                tensor: seconds(Group::Tensor),
                exchange,
                bubble: (compute + recompute + critical) * (stretch - 1.0),
                data: exposed(compute + recompute),
            }
        };
        // Given the MFU over whole steps, the rate while busy is the one for
        // which the whole step, communication included, gives it.
        let busy_share = match self.step_mfu {
            Some(mfu) => {
                let step = model_flop / (peak * mfu.max(f64::MIN_POSITIVE));
                // The arithmetic's seconds at the rate asked, FP8 included.
                let work = hardware_flop * pace * fp8_share;
                let computing = computing_for_step(step, |c| {
                    breakdown_at(work / c.max(f64::MIN_POSITIVE)).total()
                });
                if computing > 0.0 {
                    (work / (peak * computing)).min(1.0)
                } else {
                    1.0
                }
            }
            None => self.rate.busy,
        };
        let breakdown = breakdown_at(peak * busy_share);
        let step = breakdown.total();
        let computing = breakdown.compute + breakdown.recompute;
        PlanStep {
            bubble,
            step_flop: Flop(hardware_flop),
            step_time: Seconds(step),
            breakdown,
            tokens_per_gpu_per_second: step_tokens / step / gpus,
            train_time: Seconds(self.tokens / step_tokens * step),
            mfu: model_flop / (peak * step),
            busy: busy_share,
            pace,
            time_share: fp8_share,
            exposed_exchange: if beside > 0.0 {
                exposed_beside(computing) / beside
            } else {
                1.0
            },
        }
    }
}

/// The seconds of a step's data-parallel traffic (`reduction` seconds in
/// all, `micro_batches` m) that the arithmetic (`computing` seconds, its
/// backward pass two thirds of it) does not hide, by ZeRO stage:
///
/// - plain data parallelism and ZeRO-1 reduce once a step, in the last
///   micro-batch's backward pass (Megatron-LM's schedules keep gradient
///   synchronisation off until then, `schedules.py`; PyTorch DDP's
///   `no_sync`), bucket by bucket as it goes (Li et al. 2020, section
///   3.2.3): only that backward pass, 2/3 × computing / m, hides it;
/// - ZeRO-2 reduce-scatters each micro-batch's gradients during its own
///   backward pass: the whole backward pass hides them;
/// - ZeRO-3 also gathers the weights ahead of each forward pass (the
///   forward, a third of the arithmetic, hides that share, w/(2w + g) of
///   its bytes) and again in the backward pass with the gradients' reduction.
pub fn exposed_reduction(
    stage: ZeroStage,
    bytes: BytesPerParam,
    micro_batches: u32,
    reduction: f64,
    computing: f64,
) -> f64 {
    let backward = 2.0 / 3.0 * computing;
    match stage {
        ZeroStage::None | ZeroStage::One => {
            (reduction - backward / f64::from(micro_batches.max(1))).max(0.0)
        }
        ZeroStage::Two => (reduction - backward).max(0.0),
        ZeroStage::Three => {
            let w = bytes.gathered_weights;
            let forward = w / (2.0 * w + bytes.gradients);
            (reduction * forward - computing / 3.0).max(0.0)
                + (reduction * (1.0 - forward) - backward).max(0.0)
        }
    }
}

/// The arithmetic's seconds (`computing`) for which a step is `step`
/// seconds, `step_at(computing)` being the step ([`StepBreakdown::total`]);
/// 0 when the communication alone takes longer. The step never shrinks as
/// the arithmetic grows (the bubble's stretch is at least 1 and the hidden
/// traffic grows at most as fast), and it is at least the arithmetic, so
/// bisection on [0, step] finds it (to 2⁻⁶⁰ of the step).
pub fn computing_for_step(step: f64, step_at: impl Fn(f64) -> f64) -> f64 {
    if step_at(0.0) >= step {
        return 0.0;
    }
    let (mut low, mut high) = (0.0, step);
    for _ in 0..60 {
        let middle = 0.5 * (low + high);
        if step_at(middle) < step {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}
