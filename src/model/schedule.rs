//! A pipeline-schedule simulator: places every forward and backward block of
//! one training step on a timeline, by its dependencies and by the order
//! its schedule gives each stage.
//!
//! Dependencies (for micro-batch i on virtual stage k of K = p·v):
//! - forward F(k, i) needs F(k − 1, i);
//! - backward B(k, i) needs B(k + 1, i), or F(K − 1, i) on the last stage;
//! - for ZB-H1, the weight-gradient block W(k, i) needs B(k, i).
//!
//! Time runs in ticks. A forward is one tick, a backward two (ZB-H1 splits it
//! into an input-gradient B and a weight-gradient W of one tick each); with
//! v interleaved chunks a tick is 1/v of the seeds' unit (one micro-batch's
//! forward through one whole stage), since each chunk holds 1/v of the layers.
//! [`simulate_timed`] takes other lengths, to compare schedules on another basis.
//!
//! Orders per stage s (Narayanan et al. 2021, section 2.2; Qi et al. 2023):
//! - GPipe: every forward, then every backward;
//! - 1F1B: p − s − 1 warm-up forwards, then one forward and one backward
//!   in turn, then the remaining backwards;
//! - interleaved: the same with (p − s − 1)·2 + (v − 1)·p warm-up forwards,
//!   micro-batches taken p at a time through chunk 0, 1, ..., v − 1
//!   (backwards through the chunks in reverse), as Megatron-LM orders them;
//! - ZB-H1: 1F1B's order for F and B; each W waits and fills the first idle
//!   tick on its stage, or runs after the last backward.
//!
//! The simulated bubble equals the closed forms in `pipeline::bubble`
//! wherever those hold (every m for GPipe and 1F1B, m a multiple of p for
//! interleaving, m ≥ p for ZB-H1): tested in `tests/schedule.rs`.

use super::dualpipe;
use super::pipeline::{
    micro_batch_step, micro_batches_for_bubble_below, runnable_micro_batches, runnable_stages,
    Schedule,
};

/// What a block computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    Forward,
    /// The whole backward pass (GPipe, 1F1B, interleaved).
    Backward,
    /// The input-gradient half of the backward (ZB-H1).
    InputGradient,
    /// The weight-gradient half of the backward (ZB-H1).
    WeightGradient,
}

/// One block on the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    /// The GPU (pipeline stage) it runs on, 0-based.
    pub stage: u32,
    /// The micro-batch, 0-based.
    pub micro: u32,
    /// The model chunk on this GPU (0 unless interleaved).
    pub chunk: u32,
    /// Start, in ticks.
    pub start: u32,
    /// Length, in ticks.
    pub len: u32,
}

impl Block {
    pub fn end(&self) -> u32 {
        self.start + self.len
    }
}

/// A simulated step.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub stages: u32,
    pub micro_batches: u32,
    pub chunks: u32,
    pub blocks: Vec<Block>,
    /// The step's length, in ticks.
    pub makespan: u32,
    /// Ticks in the seeds' unit (one micro-batch's forward through one stage).
    pub ticks_per_unit: u32,
    /// Most micro-batches whose forward has run and backward has not, on any
    /// stage at any time, in whole-stage micro-batch equivalents (chunks / v).
    pub peak_in_flight: f64,
    /// Ticks of one micro-batch's forward and backward on one virtual stage.
    pub work: u32,
}

impl Timeline {
    /// Busy ticks on one stage: m·v·(F + B), 3·m·v at the default lengths.
    pub fn busy_ticks(&self) -> u32 {
        self.work * self.micro_batches * self.chunks
    }

    /// The idle share of the whole timeline, averaged over stages.
    pub fn bubble(&self) -> f64 {
        if self.makespan == 0 {
            return 0.0;
        }
        // Idle over total, each a whole number of ticks: 1 − busy/total
        // would round 7/70 to just under 0.1.
        f64::from(self.makespan - self.busy_ticks()) / f64::from(self.makespan)
    }
}

/// Largest inputs the simulator accepts; larger ones are clamped.
pub const MAX_STAGES: u32 = 64;
pub const MAX_MICRO_BATCHES: u32 = 1024;
pub const MAX_CHUNKS: u32 = 16;

/// One forward or backward in a stage's order, on virtual stage `virt`.
#[derive(Clone, Copy, Debug)]
struct Op {
    backward: bool,
    virt: u32,
    micro: u32,
}

/// Finish ticks of every block placed so far, indexed by virtual stage and micro-batch.
struct Finished {
    micro_batches: usize,
    forward: Vec<Option<u32>>,
    backward: Vec<Option<u32>>,
}

impl Finished {
    fn at(&self, list: &[Option<u32>], virt: u32, micro: u32) -> Option<u32> {
        list[virt as usize * self.micro_batches + micro as usize]
    }

    /// The tick from which `op` may start, if its inputs are placed.
    fn ready_at(&self, op: Op, last_virt: u32) -> Option<u32> {
        match (op.backward, op.virt) {
            (false, 0) => Some(0),
            (false, virt) => self.at(&self.forward, virt - 1, op.micro),
            (true, virt) if virt == last_virt => self.at(&self.forward, virt, op.micro),
            (true, virt) => self.at(&self.backward, virt + 1, op.micro),
        }
    }

    fn set(&mut self, op: Op, tick: u32) {
        let index = op.virt as usize * self.micro_batches + op.micro as usize;
        let list = if op.backward {
            &mut self.backward
        } else {
            &mut self.forward
        };
        list[index] = Some(tick);
    }
}

/// The order of forwards and backwards a schedule gives stage `s`.
fn stage_order(schedule: Schedule, p: u32, m: u32, v: u32, s: u32) -> Vec<Op> {
    let mut forwards = Vec::with_capacity((m * v) as usize);
    let mut backwards = Vec::with_capacity((m * v) as usize);
    for group_start in (0..m).step_by(p as usize) {
        let group = group_start..(group_start + p).min(m);
        for chunk in 0..v {
            forwards.extend(group.clone().map(|micro| Op {
                backward: false,
                virt: chunk * p + s,
                micro,
            }));
        }
        for chunk in (0..v).rev() {
            backwards.extend(group.clone().map(|micro| Op {
                backward: true,
                virt: chunk * p + s,
                micro,
            }));
        }
    }
    let total = forwards.len();
    let warmup = match schedule {
        Schedule::GPipe => total,
        // DualPipe's programs are `dualpipe.rs`'s; `simulate` never orders them here.
        Schedule::OneFOneB | Schedule::ZeroBubbleH1 | Schedule::DualPipe | Schedule::DualPipeV => {
            (p - s - 1) as usize
        }
        Schedule::Interleaved => ((p - s - 1) * 2 + (v - 1) * p) as usize,
    }
    .min(total);
    let mut order = Vec::with_capacity(2 * total);
    order.extend_from_slice(&forwards[..warmup]);
    for (forward, backward) in forwards[warmup..].iter().zip(&backwards) {
        order.push(*forward);
        order.push(*backward);
    }
    order.extend_from_slice(&backwards[total - warmup..]);
    order
}

/// The fewest micro-batches (a count the schedule runs) whose simulated
/// bubble is under `target`, or `None` past the simulator's largest
/// count. The closed form ([`micro_batches_for_bubble_below`]) only gives
/// the search its starting point; the simulated timeline decides, so the
/// answer is the one the drawn timeline shows.
pub fn fewest_micro_batches_below(
    schedule: Schedule,
    p: u32,
    chunks: u32,
    target: f64,
) -> Option<u32> {
    let simulated = |m: u32| simulate(schedule, p, m, chunks).bubble();
    let step = micro_batch_step(schedule, p);
    let mut m = micro_batches_for_bubble_below(schedule, p, chunks, target, MAX_MICRO_BATCHES)?;
    let runs = |m: u32| runnable_micro_batches(schedule, p, m) == m;
    while m > step && runs(m - step) && simulated(m - step) < target {
        m -= step;
    }
    while simulated(m) >= target {
        m += step;
        if m > MAX_MICRO_BATCHES {
            return None;
        }
    }
    Some(m)
}

/// Simulates one step of `schedule` on `p` stages with `m` micro-batches
/// (see [`runnable_micro_batches`]) and, for the interleaved schedule,
/// `chunks` model chunks per GPU: a forward one tick, a backward two.
pub fn simulate(schedule: Schedule, p: u32, m: u32, chunks: u32) -> Timeline {
    match schedule {
        Schedule::DualPipe | Schedule::DualPipeV => {
            let p = runnable_stages(schedule, p.clamp(1, MAX_STAGES));
            let m = runnable_micro_batches(schedule, p, m.clamp(1, MAX_MICRO_BATCHES));
            dualpipe::simulate(p, m, schedule == Schedule::DualPipeV)
        }
        _ => simulate_timed(schedule, p, m, chunks, 1, 2),
    }
}

/// [`simulate`] with a forward of `forward` ticks and a backward of
/// `backward` (ZB-H1 splits it into an input-gradient half, rounded down,
/// and a weight-gradient rest; each at least a tick).
pub fn simulate_timed(
    schedule: Schedule,
    p: u32,
    m: u32,
    chunks: u32,
    forward: u32,
    backward: u32,
) -> Timeline {
    let (forward, backward) = (forward.max(1), backward.max(1));
    let m = runnable_micro_batches(
        schedule,
        p.clamp(1, MAX_STAGES),
        m.clamp(1, MAX_MICRO_BATCHES),
    );
    let p = p.clamp(1, MAX_STAGES);
    let v = if schedule == Schedule::Interleaved {
        chunks.clamp(1, MAX_CHUNKS)
    } else {
        1
    };
    let split_backward = schedule == Schedule::ZeroBubbleH1;
    let (backward_len, weight_len) = if split_backward {
        let input = (backward / 2).max(1);
        (input, backward.saturating_sub(input).max(1))
    } else {
        (backward, 0)
    };
    let last_virt = p * v - 1;
    let orders: Vec<Vec<Op>> = (0..p).map(|s| stage_order(schedule, p, m, v, s)).collect();
    let slots = (p * v * m) as usize;
    let mut finished = Finished {
        micro_batches: m as usize,
        forward: vec![None; slots],
        backward: vec![None; slots],
    };
    let mut next = vec![0usize; p as usize];
    let mut free_at = vec![0u32; p as usize];
    let mut pending_weight: Vec<std::collections::VecDeque<Op>> =
        vec![Default::default(); p as usize];
    let mut in_flight = vec![0i64; p as usize];
    let mut peak = 0i64;
    let mut blocks = Vec::with_capacity(slots * if split_backward { 3 } else { 2 });
    let total_blocks = blocks.capacity();
    // Every tick some stage can run something (the dependency graph is
    // acyclic and each order respects it), so this bound is never reached;
    // it only guarantees termination.
    let tick_limit = (backward_len + weight_len + forward) * (m * v + p) * 4 + 16;
    let mut tick = 0;
    while blocks.len() < total_blocks && tick < tick_limit {
        for stage in 0..p as usize {
            if free_at[stage] > tick {
                continue;
            }
            let ordered = orders[stage].get(next[stage]).copied().filter(|op| {
                finished
                    .ready_at(*op, last_virt)
                    .is_some_and(|at| at <= tick)
            });
            let (op, kind, len) = if let Some(op) = ordered {
                next[stage] += 1;
                if op.backward {
                    in_flight[stage] -= 1;
                    if split_backward {
                        pending_weight[stage].push_back(op);
                    }
                    let kind = if split_backward {
                        BlockKind::InputGradient
                    } else {
                        BlockKind::Backward
                    };
                    (op, kind, backward_len)
                } else {
                    in_flight[stage] += 1;
                    peak = peak.max(in_flight[stage]);
                    (op, BlockKind::Forward, forward)
                }
            } else if let Some(op) = pending_weight[stage].front().copied() {
                // A W's input gradient ran earlier on this stage, so it is ready.
                pending_weight[stage].pop_front();
                (op, BlockKind::WeightGradient, weight_len)
            } else {
                continue;
            };
            if kind != BlockKind::WeightGradient {
                finished.set(op, tick + len);
            }
            free_at[stage] = tick + len;
            blocks.push(Block {
                kind,
                stage: stage as u32,
                micro: op.micro,
                chunk: op.virt / p,
                start: tick,
                len,
            });
        }
        tick += 1;
    }
    let makespan = blocks.iter().map(Block::end).max().unwrap_or(0);
    Timeline {
        stages: p,
        micro_batches: m,
        chunks: v,
        blocks,
        makespan,
        ticks_per_unit: v,
        peak_in_flight: peak as f64 / f64::from(v),
        work: forward + backward_len + weight_len,
    }
}
