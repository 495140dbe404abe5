//! The layout search: every layout a model could train with on a cluster,
//! each put through the planner's estimator, the ones that fit ranked by
//! their step (`StepBreakdown`: compute, recomputation, tensor-parallel
//! all-reduces, the experts' and context exchanges, the bubble, and the
//! data-parallel traffic the backward pass does not hide).
//!
//! The candidates (after Narayanan et al. 2021, section 3.3, on how the
//! degrees interact): t splits the attention as Megatron-LM requires (it
//! divides the heads; the key-value heads divide it or it them,
//! [`Architecture::splits_attention`](crate::model::presets::Architecture::splits_attention))
//! and fits in a node; p
//! divides the layers or leaves the end stages one layer short each; cp (for long sequences) and ep (for a mixture of
//! experts, dividing the experts, with the reader's etp × ep dividing t·cp·d) from 1, 2, 4, 8; d = N/(t·p·cp), with the
//! global batch a multiple of d × the micro-batch; ZeRO stage 0 to 3 over
//! d; micro-batches of 1, 2, 4 or 8; no, selective or full recomputation;
//! sequence parallelism whenever t > 1; 1F1B, or the interleaved schedule
//! with 2 or 4 chunks where the fullest stage's layers divide and m is a
//! multiple of p. Selective recomputation is left out with FlashAttention,
//! where it recomputes nothing (`ActivationSetup::recompute_run`).
//! ZeRO-2 is tried with a pipeline too, as PyTorch FSDP can run it, though
//! DeepSpeed refuses ZeRO-2 and 3 there (`deepspeed/runtime/pipe/engine.py`).
//! Plain FSDP accumulates a step's micro-batches in one of two ways: it
//! reduce-scatters each micro-batch's gradients and keeps only their shard
//! (stage 2's memory and traffic here), or it keeps whole gradients and
//! reduces them once, at the last micro-batch (stage 1's; FSDP1's `no_sync`,
//! FSDP2's `set_requires_gradient_sync`, side by side in PyTorch pull
//! request 126166; torch's pipelining runs FSDP this way). Gradients
//! sharded over all d and reduced once a step is neither, so it is not
//! offered; hybrid sharding's third way (shards over part of d) is not
//! modelled. ZeRO-3 is not tried with a pipeline: it would gather every
//! stage's weights again for every micro-batch, which torchtitan's default
//! avoids there (it keeps the weights gathered after the forward pass when
//! pipelining: ZeRO-2's way), and leaving it out keeps the search at 16,384
//! GPUs no slower than before stage 2 joined it (issue 36's A/B).
//!
//! The estimate is a model, good to about [`TIED_WITHIN`] against published
//! runs at best (`runs.rs`), so layouts whose steps lie that close to the
//! fastest are tied: among them the smallest model-parallel group t·p comes
//! first, then the fewest stages, then the most memory to spare.

use super::activations::{ActivationSetup, Attention, Recompute};
use super::choice::Choice;
use super::comm::Link;
use super::memory::ZeroStage;
use super::pipeline::{layers_per_stage, Schedule};
use super::planner::{link_of, Plan, PlanEstimate};
use super::tensor;

/// Why a candidate layout was set aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// t·p·cp does not divide the GPUs.
    GpusDoNotDivide,
    /// t is larger than a node, so its all-reduces would cross the network.
    TensorAcrossNodes,
    /// The global batch is not a multiple of d × the micro-batch.
    BatchDoesNotDivide,
    /// The interleaved schedule needs a stage's layers to divide into its
    /// chunks and m to be a multiple of p.
    ScheduleDoesNotDivide,
    /// Selective recomputation with FlashAttention: the same layout as none.
    SelectiveWithFlash,
    /// ZeRO-3 with pipeline parallelism.
    GatheredWithPipeline,
    /// The most loaded GPU's state and activations exceed its memory.
    OutOfMemory,
}

impl Rejection {
    pub const ALL: [Rejection; 7] = [
        Rejection::GpusDoNotDivide,
        Rejection::TensorAcrossNodes,
        Rejection::BatchDoesNotDivide,
        Rejection::ScheduleDoesNotDivide,
        Rejection::SelectiveWithFlash,
        Rejection::GatheredWithPipeline,
        Rejection::OutOfMemory,
    ];

    pub fn words(self) -> &'static str {
        match self {
            Rejection::GpusDoNotDivide => "the degrees do not divide the GPUs",
            Rejection::TensorAcrossNodes => "tensor parallelism would leave the NVLink domain",
            Rejection::BatchDoesNotDivide => "the batch does not divide into whole micro-batches",
            Rejection::ScheduleDoesNotDivide => "the interleaved chunks do not divide",
            Rejection::SelectiveWithFlash => {
                "selective recomputation does nothing with FlashAttention"
            }
            Rejection::GatheredWithPipeline => "ZeRO-3 is not run with pipeline parallelism",
            Rejection::OutOfMemory => "out of memory",
        }
    }
}

/// How close to the fastest a layout's step must be to count as tied with
/// it: 10%, the model's distance from the published runs it is checked
/// against (at the default rate the six published steps fall within −10%
/// and +7%: `tests/published_runs.rs`).
pub const TIED_WITHIN: f64 = 0.10;

/// A layout that fits, with what the estimator says of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    pub plan: Plan,
    pub estimate: PlanEstimate,
    /// Its step is within [`TIED_WITHIN`] of the fastest layout's.
    pub tied: bool,
}

impl Found {
    /// Its predicted step, communication included, in seconds: the
    /// planner's `step-time` for the layout.
    pub fn step(&self) -> f64 {
        self.estimate.step_time.value()
    }

    /// The memory its most loaded GPU has to spare, in bytes.
    pub fn headroom(&self) -> f64 {
        self.plan.usable_memory().value() - self.estimate.peak.needed().value()
    }
}

/// What the search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The best layouts that fit, fastest first.
    pub best: Vec<Found>,
    pub tried: u32,
    pub fit: u32,
    /// Layouts set aside, by reason, in [`Rejection::ALL`]'s order.
    pub rejected: [u32; Rejection::ALL.len()],
}

/// How many of the best layouts the search shows.
pub const KEEP: usize = 10;

/// How many of the fastest it ranks: enough that a tie of many layouts
/// is ordered by its rule, not cut by speed first.
const RANKED: usize = 200;

/// The divisors of `n` among the degrees a node's GPUs allow (`tensor::DEGREES`).
fn small_powers(n: u32, top: u32) -> impl Iterator<Item = u32> {
    tensor::DEGREES
        .iter()
        .filter_map(|k| k.parse::<u32>().ok())
        .filter(move |&k| k <= top && n.is_multiple_of(k))
}

/// Whether p stages are worth trying for `layers` layers: p divides them,
/// or they are one or two short of ⌈L/p⌉ a stage, taken off the first and
/// last stages, which also hold the embedding and the output layer
/// (`pipeline::stage_layers`; Llama 3 405B ran 126 layers on 16 stages).
fn stages_balance(layers: u32, p: u32) -> bool {
    layers_per_stage(layers, p) * p - layers <= 2
}

/// Schedules tried: 1F1B, and the interleaved one with 2 or 4 chunks.
const SCHEDULES: [(Schedule, u32); 3] = [
    (Schedule::OneFOneB, 1),
    (Schedule::Interleaved, 2),
    (Schedule::Interleaved, 4),
];
/// Micro-batch sizes tried.
const MICRO_BATCHES: [u32; 4] = [1, 2, 4, 8];
/// Recomputation tried: none, selective and full. torchtitan's op-level
/// checkpointing, between selective and full, is left to the reader: one
/// more setting would make the search a third slower.
const RECOMPUTES: [Recompute; 3] = [Recompute::None, Recompute::Selective, Recompute::Full];
/// Settings tried for each degree and micro-batch: schedule × recomputation × ZeRO stage.
const SETTINGS: u32 = 3 * RECOMPUTES.len() as u32 * 4;

/// Every layout for `base`'s model, GPUs, batch, sequence and rate (its
/// own degrees, stage, micro-batch, recomputation and schedule are
/// replaced), the ones that fit ranked by predicted step. Every candidate
/// is counted once: it fits, or it is set aside for one reason.
pub fn search(base: &Plan) -> SearchResult {
    let arch = base.arch;
    let mut result = SearchResult {
        best: Vec::new(),
        tried: 0,
        fit: 0,
        rejected: [0; Rejection::ALL.len()],
    };
    let tally = |result: &mut SearchResult, why: Rejection, count: u32| {
        result.tried += count;
        result.rejected[why as usize] += count;
    };
    let long = base.activations.seq >= 32_768.0;
    let contexts: &[u32] = if long { &[1, 2, 4, 8] } else { &[1] };
    let batch = base.batch as u32;
    for t in [1, 2, 4, 8, 16]
        .into_iter()
        .filter(|&t| arch.splits_attention(t))
    {
        for p in (1..=arch.layers).filter(|&p| stages_balance(arch.layers, p)) {
            for &cp in contexts {
                let group = t * p * cp;
                let per_degree = MICRO_BATCHES.len() as u32 * SETTINGS;
                if group > base.gpus || !base.gpus.is_multiple_of(group) {
                    tally(&mut result, Rejection::GpusDoNotDivide, per_degree);
                    continue;
                }
                if link_of(&base.links, base.gpus, (1, t)) == Link::Network {
                    tally(&mut result, Rejection::TensorAcrossNodes, per_degree);
                    continue;
                }
                let d = base.gpus / group;
                // The experts' grid, etp × ep, tiles a stage's t·cp·d GPUs (`Plan::problem`).
                let etp = base.expert_tensor.unwrap_or(t).max(1);
                for ep in small_powers(arch.experts.max(1), d)
                    .filter(|ep| (t * cp * d).is_multiple_of(etp * ep))
                {
                    for b in MICRO_BATCHES {
                        if !batch.is_multiple_of(d * b) {
                            tally(&mut result, Rejection::BatchDoesNotDivide, SETTINGS);
                            continue;
                        }
                        let m = batch / (d * b);
                        for (schedule, chunks) in SCHEDULES {
                            let settings = SETTINGS / SCHEDULES.len() as u32;
                            if schedule == Schedule::Interleaved
                                && (p == 1
                                    || !layers_per_stage(arch.layers, p).is_multiple_of(chunks)
                                    || !m.is_multiple_of(p))
                            {
                                tally(&mut result, Rejection::ScheduleDoesNotDivide, settings);
                                continue;
                            }
                            for recompute in RECOMPUTES {
                                if recompute == Recompute::Selective
                                    && base.activations.attention == Attention::Flash
                                {
                                    let stages = ZeroStage::ALL.len() as u32;
                                    tally(&mut result, Rejection::SelectiveWithFlash, stages);
                                    continue;
                                }
                                for &stage in ZeroStage::ALL {
                                    if p > 1 && stage == ZeroStage::Three {
                                        tally(&mut result, Rejection::GatheredWithPipeline, 1);
                                        continue;
                                    }
                                    result.tried += 1;
                                    let plan = Plan {
                                        tensor: t,
                                        pipeline: p,
                                        context: cp,
                                        experts: ep,
                                        stage,
                                        schedule,
                                        chunks,
                                        activations: ActivationSetup {
                                            micro_batch: f64::from(b),
                                            tensor_parallel: t,
                                            sequence_parallel: t > 1,
                                            recompute,
                                            ..base.activations
                                        },
                                        ..*base
                                    };
                                    let estimate = plan.estimate();
                                    if estimate.fits {
                                        result.fit += 1;
                                        keep(
                                            &mut result.best,
                                            Found {
                                                plan,
                                                estimate,
                                                tied: false,
                                            },
                                        );
                                    } else {
                                        result.rejected[Rejection::OutOfMemory as usize] += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    rank(&mut result.best);
    result
}

/// Keeps the [`RANKED`] fastest, in order.
fn keep(best: &mut Vec<Found>, found: Found) {
    let at = best.partition_point(|f| f.step() <= found.step());
    if at < RANKED {
        best.insert(at, found);
        best.truncate(RANKED);
    }
}

/// Orders the fastest layouts as the page shows them, and keeps [`KEEP`]:
/// those tied with the fastest first, the smallest t·p, then the fewest
/// stages, then the most memory to spare first; then the rest by step.
fn rank(best: &mut Vec<Found>) {
    let Some(fastest) = best.first().map(Found::step) else {
        return;
    };
    let mut ranked: Vec<Found> = Vec::with_capacity(KEEP + 1);
    for mut found in best.drain(..) {
        found.tied = found.step() <= fastest * (1.0 + TIED_WITHIN);
        let at = ranked.partition_point(|f| shown_before(f, &found));
        if at < KEEP {
            ranked.insert(at, found);
            ranked.truncate(KEEP);
        }
    }
    *best = ranked;
}

/// Whether `a` is listed before `b` (or with it): tied before untied; tied
/// ones as Narayanan et al. 2021 advise (section 3.3, takeaway 2: model
/// parallelism t·p only as large as the model needs, the rest data
/// parallel): the smallest t·p, then the fewest stages, then the most
/// memory to spare; the others by step.
fn shown_before(a: &Found, b: &Found) -> bool {
    let advised = |f: &Found| {
        (
            f.plan.tensor * f.plan.pipeline,
            f.plan.pipeline,
            -f.headroom(),
        )
    };
    match (a.tied, b.tied) {
        (true, false) => true,
        (false, true) => false,
        (true, true) => advised(a).partial_cmp(&advised(b)) != Some(std::cmp::Ordering::Greater),
        (false, false) => a.step() <= b.step(),
    }
}
