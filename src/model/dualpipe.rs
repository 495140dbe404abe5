//! DualPipe and DualPipeV, the bidirectional schedules DeepSeek-V3 trained
//! with (DeepSeek-AI 2024, section 3.2.1), simulated block by block from
//! the per-rank program of the reference implementation
//! (deepseek-ai/DualPipe, `dualpipe/dualpipe.py`, `DualPipe.step`: eight
//! steps, each a count of forwards F, backwards B, weight gradients W and
//! overlapped F&B pairs).
//!
//! - DualPipe on p ranks (p even) feeds half the micro-batches from each
//!   end: rank r holds stage r of the forward direction and stage p − 1 − r
//!   of the reverse one, two copies of the parameters in all.
//! - DualPipeV ("cut in half") runs the same program on p GPUs as on 2p
//!   ranks' first half: GPU r holds stages r and 2p − 1 − r of one
//!   pipeline of 2p half-size stages, a micro-batch going down the GPUs
//!   and back up. One copy of the parameters.
//!
//! A forward is one tick, a whole backward two, an input-gradient half and
//! a weight gradient one each (the zero-bubble split, Qi et al. 2023). An
//! overlapped F&B pair hides its communication, not its arithmetic: the
//! pair starts when both its inputs have arrived and runs F then B.

use super::schedule::{Block, BlockKind, Timeline};

/// One entry of a rank's program: `phase` 0 or 1 picks one of its two stages.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Forward(u32),
    /// A backward; with `zero_bubble` only its input gradient, its weight
    /// gradient left for a later `Weight`.
    Backward {
        phase: u32,
        zero_bubble: bool,
    },
    /// The oldest weight gradient left.
    Weight,
    /// A forward of the first phase overlapped with a backward of the second.
    Pair(u32, u32),
}

/// The reference implementation's program for `rank` of `ranks` with
/// `chunks` micro-batches in all (`DualPipe.step`, steps 1 to 8).
fn program(ranks: u32, chunks: u32, rank: u32) -> Vec<Op> {
    let half_ranks = ranks / 2;
    let half = rank.min(ranks - 1 - rank);
    let middle = rank + 1 == half_ranks || rank == half_ranks;
    let half_chunks = chunks / 2;
    let outer = half_ranks - half - 1;
    let backward = |phase, zero_bubble| Op::Backward { phase, zero_bubble };
    let mut ops = Vec::new();
    // 1: nF0.
    ops.extend((0..2 * outer).map(|_| Op::Forward(0)));
    // 2: nF0F1.
    for _ in 0..=half {
        ops.extend([Op::Forward(0), Op::Forward(1)]);
    }
    // 3: nB1W1F1, the backward split.
    for _ in 0..outer {
        ops.extend([backward(1, true), Op::Weight, Op::Forward(1)]);
    }
    // 4: nF0B1F1B0, the main step; a middle rank's first pair runs apart.
    for i in 0..(half_chunks + half + 1).saturating_sub(ranks) {
        if i == 0 && middle {
            ops.extend([Op::Forward(0), backward(1, false)]);
        } else {
            ops.push(Op::Pair(0, 1));
        }
        ops.push(Op::Pair(1, 0));
    }
    // 5: nB1F1B0.
    for _ in 0..outer {
        ops.extend([backward(1, false), Op::Pair(1, 0)]);
    }
    // 6: nB1B0, the second half of them split.
    let (steps, odd) = (half + 1, !half.is_multiple_of(2));
    let mut split = false;
    for i in 0..steps {
        if i == steps / 2 && odd {
            split = true;
        }
        ops.push(backward(1, split));
        if i == steps / 2 && !odd {
            split = true;
        }
        ops.push(backward(0, split));
    }
    // 7: nWB0.
    for _ in 0..outer {
        ops.extend([Op::Weight, backward(0, true)]);
    }
    // 8: nW.
    ops.extend((0..=half).map(|_| Op::Weight));
    ops
}

/// Which pipeline and stage a rank's phase runs: (stream, stage).
type Place = (usize, u32);

/// The stages a schedule lays out: streams of `stages` stages each, and
/// for each GPU, where its two phases run.
struct Layout {
    stages: u32,
    /// Micro-batches a stream carries.
    per_stream: u32,
    /// Each GPU's ranks' program size and its phases' places.
    gpus: Vec<(u32, [Place; 2])>,
    ranks: u32,
    chunks: u32,
}

impl Layout {
    /// DualPipe on `p` ranks (even) with `m` micro-batches (even): the
    /// forward stream enters at rank 0, the reverse at rank p − 1; in the
    /// second half of the ranks phase 0 is the reverse stream.
    fn dual(p: u32, m: u32) -> Self {
        let gpus = (0..p)
            .map(|rank| {
                let forward = (0, rank);
                let reverse = (1, p - 1 - rank);
                let places = if rank < p / 2 {
                    [forward, reverse]
                } else {
                    [reverse, forward]
                };
                (rank, places)
            })
            .collect();
        Self {
            stages: p,
            per_stream: m / 2,
            gpus,
            ranks: p,
            chunks: m,
        }
    }

    /// DualPipeV on `p` GPUs with `m` micro-batches: the first half of
    /// DualPipe's 2p ranks with 2m chunks, one stream of 2p stages.
    fn v(p: u32, m: u32) -> Self {
        let gpus = (0..p)
            .map(|gpu| (gpu, [(0, gpu), (0, 2 * p - 1 - gpu)]))
            .collect();
        Self {
            stages: 2 * p,
            per_stream: m,
            gpus,
            ranks: 2 * p,
            chunks: 2 * m,
        }
    }
}

/// Finish ticks of forwards and input gradients, by stream, stage and micro-batch.
struct Done {
    stages: u32,
    per_stream: u32,
    forward: Vec<Option<u32>>,
    backward: Vec<Option<u32>>,
}

impl Done {
    fn index(&self, (stream, stage): Place, micro: u32) -> usize {
        ((stream as u32 * self.stages + stage) * self.per_stream + micro) as usize
    }

    /// When a forward or backward at `place` for `micro` may start.
    fn ready(&self, backward: bool, place: Place, micro: u32) -> Option<u32> {
        let (stream, stage) = place;
        match (backward, stage) {
            (false, 0) => Some(0),
            (false, _) => self.forward[self.index((stream, stage - 1), micro)],
            (true, last) if last + 1 == self.stages => self.forward[self.index(place, micro)],
            (true, _) => self.backward[self.index((stream, stage + 1), micro)],
        }
    }
}

/// The simulation's running state: what each GPU has run, and the blocks placed.
struct Run {
    done: Done,
    places: Vec<[Place; 2]>,
    /// Block `chunk` for each GPU's phases (see [`simulate`]).
    chunk: Vec<[u32; 2]>,
    /// Micro-batches each GPU's phases have run forward, and backward.
    forwards: Vec<[u32; 2]>,
    backwards: Vec<[u32; 2]>,
    /// Weight gradients left by split backwards, oldest first.
    weights: Vec<std::collections::VecDeque<(u32, u32)>>,
    in_flight: Vec<i64>,
    peak: i64,
    blocks: Vec<Block>,
}

impl Run {
    /// When `gpu`'s next forward (or backward) on `phase` may start.
    fn ready(&self, gpu: usize, backward: bool, phase: u32) -> Option<u32> {
        let ran = if backward {
            &self.backwards
        } else {
            &self.forwards
        };
        self.done.ready(
            backward,
            self.places[gpu][phase as usize],
            ran[gpu][phase as usize],
        )
    }

    fn place(
        &mut self,
        kind: BlockKind,
        gpu: usize,
        (phase, micro): (u32, u32),
        start: u32,
        len: u32,
    ) -> u32 {
        self.blocks.push(Block {
            kind,
            stage: gpu as u32,
            micro,
            chunk: self.chunk[gpu][phase as usize],
            start,
            len,
        });
        start + len
    }

    fn forward(&mut self, gpu: usize, phase: u32, start: u32) -> u32 {
        let micro = self.forwards[gpu][phase as usize];
        self.forwards[gpu][phase as usize] += 1;
        let index = self.done.index(self.places[gpu][phase as usize], micro);
        self.done.forward[index] = Some(start + 1);
        self.in_flight[gpu] += 1;
        self.peak = self.peak.max(self.in_flight[gpu]);
        self.place(BlockKind::Forward, gpu, (phase, micro), start, 1)
    }

    fn backward(&mut self, gpu: usize, phase: u32, zero_bubble: bool, start: u32) -> u32 {
        let micro = self.backwards[gpu][phase as usize];
        self.backwards[gpu][phase as usize] += 1;
        let (kind, len) = if zero_bubble {
            self.weights[gpu].push_back((phase, micro));
            (BlockKind::InputGradient, 1)
        } else {
            (BlockKind::Backward, 2)
        };
        let index = self.done.index(self.places[gpu][phase as usize], micro);
        self.done.backward[index] = Some(start + len);
        self.in_flight[gpu] -= 1;
        self.place(kind, gpu, (phase, micro), start, len)
    }

    fn weight(&mut self, gpu: usize, start: u32) -> u32 {
        match self.weights[gpu].pop_front() {
            Some(which) => self.place(BlockKind::WeightGradient, gpu, which, start, 1),
            None => start,
        }
    }
}

/// Simulates DualPipe (`v` false) or DualPipeV (`v` true) on `p` GPUs with
/// `m` micro-batches, as [`super::pipeline::runnable_micro_batches`] and
/// [`super::pipeline::runnable_stages`] give them. A block's `chunk` is its
/// stream for DualPipe (0 forward, 1 reverse) and its stage's half of the
/// GPU's layers for DualPipeV (0 going down, 1 coming back).
pub fn simulate(p: u32, m: u32, v: bool) -> Timeline {
    let layout = if v {
        Layout::v(p, m)
    } else {
        Layout::dual(p, m)
    };
    let slots = (2 * layout.stages * layout.per_stream) as usize;
    let programs: Vec<Vec<Op>> = layout
        .gpus
        .iter()
        .map(|&(rank, _)| program(layout.ranks, layout.chunks, rank))
        .collect();
    let gpus = layout.gpus.len();
    let places: Vec<[Place; 2]> = layout.gpus.iter().map(|&(_, places)| places).collect();
    let mut run = Run {
        done: Done {
            stages: layout.stages,
            per_stream: layout.per_stream,
            forward: vec![None; slots],
            backward: vec![None; slots],
        },
        chunk: places
            .iter()
            .map(|places| {
                if v {
                    [0, 1]
                } else {
                    places.map(|(stream, _)| stream as u32)
                }
            })
            .collect(),
        places,
        forwards: vec![[0; 2]; gpus],
        backwards: vec![[0; 2]; gpus],
        weights: vec![Default::default(); gpus],
        in_flight: vec![0; gpus],
        peak: 0,
        blocks: Vec::new(),
    };
    let mut next = vec![0usize; gpus];
    let mut free_at = vec![0u32; gpus];
    let total_ops: usize = programs.iter().map(Vec::len).sum();
    let mut placed = 0;
    // Every tick some GPU can run its next entry (the reference
    // implementation does not deadlock), so this bound only guarantees an end.
    let limit = 16 * (m + p) + 64;
    let mut tick = 0;
    while placed < total_ops && tick < limit {
        for gpu in 0..gpus {
            if free_at[gpu] > tick {
                continue;
            }
            let Some(&op) = programs[gpu].get(next[gpu]) else {
                continue;
            };
            let ready = match op {
                Op::Forward(phase) => run.ready(gpu, false, phase),
                Op::Backward { phase, .. } => run.ready(gpu, true, phase),
                Op::Weight => Some(0),
                Op::Pair(f, b) => run
                    .ready(gpu, false, f)
                    .zip(run.ready(gpu, true, b))
                    .map(|(f, b)| f.max(b)),
            };
            if ready.is_none_or(|at| at > tick) {
                continue;
            }
            next[gpu] += 1;
            placed += 1;
            free_at[gpu] = match op {
                Op::Forward(phase) => run.forward(gpu, phase, tick),
                Op::Backward { phase, zero_bubble } => run.backward(gpu, phase, zero_bubble, tick),
                Op::Pair(f, b) => {
                    let after = run.forward(gpu, f, tick);
                    run.backward(gpu, b, false, after)
                }
                Op::Weight => run.weight(gpu, tick),
            };
        }
        tick += 1;
    }
    let makespan = run.blocks.iter().map(Block::end).max().unwrap_or(0);
    let chunks = if v { 2 } else { 1 };
    Timeline {
        stages: p,
        micro_batches: m,
        chunks,
        blocks: run.blocks,
        makespan,
        ticks_per_unit: chunks,
        peak_in_flight: run.peak as f64 / f64::from(chunks),
        work: 3,
    }
}
