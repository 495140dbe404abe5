//! Pipeline parallelism: stages, micro-batches and the bubble, in closed form.
//!
//! Time is counted in units of one micro-batch's forward pass through one
//! stage; a backward pass costs two units (the seeds' convention, and roughly
//! true: the backward computes gradients for both inputs and weights).

use std::ops::Range;

use super::choice::Choice;

/// The order in which a stage runs its forward and backward blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// All forwards, then all backwards (Huang et al. 2019, GPipe).
    GPipe,
    /// One forward, one backward (PipeDream-Flush, Narayanan et al. 2019/2021).
    OneFOneB,
    /// 1F1B with `chunks` model chunks per GPU (Narayanan et al. 2021, section 2.2.2).
    Interleaved,
    /// Zero-bubble ZB-H1: backward split into input- and weight-gradient
    /// blocks, weight gradients fill the drain (Qi et al. 2023, section 3).
    ZeroBubbleH1,
    /// DualPipe: micro-batches fed from both ends, each GPU holding a stage
    /// of each direction (DeepSeek-AI 2024, section 3.2.1; `dualpipe.rs`).
    DualPipe,
    /// DualPipeV: DualPipe folded onto half the GPUs, each holding two
    /// half-stages of one pipeline, down and back (deepseek-ai/DualPipe).
    DualPipeV,
}

impl Choice for Schedule {
    const ALL: &'static [Self] = &[
        Schedule::GPipe,
        Schedule::OneFOneB,
        Schedule::Interleaved,
        Schedule::ZeroBubbleH1,
        Schedule::DualPipe,
        Schedule::DualPipeV,
    ];

    fn id(self) -> &'static str {
        match self {
            Schedule::GPipe => "gpipe",
            Schedule::OneFOneB => "1f1b",
            Schedule::Interleaved => "interleaved",
            Schedule::ZeroBubbleH1 => "zb-h1",
            Schedule::DualPipe => "dualpipe",
            Schedule::DualPipeV => "dualpipev",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Schedule::GPipe => "GPipe",
            Schedule::OneFOneB => "1F1B",
            Schedule::Interleaved => "Interleaved 1F1B",
            Schedule::ZeroBubbleH1 => "Zero bubble (ZB-H1)",
            Schedule::DualPipe => "DualPipe",
            Schedule::DualPipeV => "DualPipeV",
        }
    }
}

/// The bubble: the idle share of the whole timeline, for `p` stages, `m`
/// micro-batches and (for the interleaved schedule) `chunks` chunks per GPU.
///
/// - GPipe and 1F1B: (p − 1)/(m + p − 1) (Huang et al. 2019, section 2.3;
///   Narayanan et al. 2021, section 2.2.1, where the bubble is (p − 1)/m of the
///   ideal time, that is (p − 1)/(m + p − 1) of the whole).
/// - Interleaved with v chunks: the fill and drain shrink v-fold,
///   (p − 1)/(vm + p − 1) (Narayanan et al. 2021, section 2.2.2).
///   The schedule runs micro-batches p at a time, so m is first rounded up
///   to a multiple of p ([`runnable_micro_batches`]).
/// - ZB-H1: the bubble drops to (p − 1)(T_F + T_B − T_W), a third of 1F1B's
///   3(p − 1) when forward, input-gradient and weight-gradient blocks each take
///   one unit: (p − 1)/(3m + p − 1) (Qi et al. 2023, section 3.1), once
///   m ≥ p. With fewer micro-batches than stages the pipeline never fills:
///   the step takes 2(p + m) − 1 units of which each stage works 3m, a bubble
///   of (2p − m − 1)/(2p + 2m − 1) (derived for this order, and the
///   simulator's, tests/schedule.rs).
/// - DualPipe and DualPipeV: the deepseek-ai/DualPipe README's idle time,
///   (PP/2 − 1)(F&B + B − 3W), for 3m units of work a GPU. With F one unit,
///   B two, W one and an overlapped pair F&B three (the overlap hides
///   communication, not arithmetic): DualPipe on p GPUs (PP = p) idles
///   p − 2 units, (p − 2)/(3m + p − 2); DualPipeV on p GPUs runs PP = 2p
///   half-stages, its units halved, and idles p − 1: (p − 1)/(3m + p − 1),
///   ZB-H1's bubble with 1F1B's order of sends overlapped. The simulator,
///   running the reference implementation's program, gives both exactly.
pub fn bubble(schedule: Schedule, p: u32, m: u32, chunks: u32) -> f64 {
    let p = runnable_stages(schedule, p);
    let idle = f64::from(p - 1);
    let m = runnable_micro_batches(schedule, p, m);
    let mf = f64::from(m);
    let work = match schedule {
        Schedule::DualPipe => {
            let idle = f64::from(p - 2);
            return idle / (3.0 * mf + idle);
        }
        Schedule::DualPipeV => 3.0 * mf,
        Schedule::GPipe | Schedule::OneFOneB => mf,
        Schedule::Interleaved => mf * f64::from(chunks.max(1)),
        Schedule::ZeroBubbleH1 if m < p => {
            let pf = f64::from(p);
            return (2.0 * pf - mf - 1.0) / (2.0 * pf + 2.0 * mf - 1.0);
        }
        Schedule::ZeroBubbleH1 => 3.0 * mf,
    };
    idle / (work + idle)
}

/// The micro-batches per replica that GPipe's authors found enough for
/// `p` stages: m = 4p, from which they measured the bubble's cost as
/// negligible (Huang et al. 2019, section 2.3: "M ≥ 4 × K"). By the formula
/// GPipe still idles (p − 1)/(5p − 1) there, 15.8% at 4 stages: the rule
/// marks where more micro-batches start to buy little, not a bubble of zero.
pub fn gpipe_enough_micro_batches(p: u32) -> u32 {
    p.max(1).saturating_mul(4)
}

/// The micro-batch count a schedule runs for `m` requested: the interleaved
/// schedule streams micro-batches p at a time through the chunks, so it
/// needs a multiple of p (Narayanan et al. 2021, section 2.2.2; Megatron-LM
/// asserts it) and rounds up to one. DualPipe needs at least two a rank,
/// and an even count, half from each end (`DualPipe.step` asserts
/// `num_chunks >= num_ranks * 2`); DualPipeV runs DualPipe's program on
/// twice the ranks with twice the chunks, so at least 2p.
pub fn runnable_micro_batches(schedule: Schedule, p: u32, m: u32) -> u32 {
    let (p, m) = (runnable_stages(schedule, p), m.max(1));
    match schedule {
        Schedule::Interleaved | Schedule::DualPipe => {
            let step = micro_batch_step(schedule, p);
            m.max(if schedule == Schedule::DualPipe {
                2 * p
            } else {
                1
            })
            .div_ceil(step)
            .saturating_mul(step)
        }
        Schedule::DualPipeV => m.max(2 * p),
        _ => m,
    }
}

/// The step between micro-batch counts a schedule runs: p for the
/// interleaved schedule, 2 for DualPipe (half from each end), else 1.
pub fn micro_batch_step(schedule: Schedule, p: u32) -> u32 {
    match schedule {
        Schedule::Interleaved => p.max(1),
        Schedule::DualPipe => 2,
        _ => 1,
    }
}

/// The pipeline GPUs a schedule runs for `p` asked: DualPipe pairs rank r
/// with rank p − 1 − r, so it needs an even count (at least 2) and rounds
/// up to one; the others run any.
pub fn runnable_stages(schedule: Schedule, p: u32) -> u32 {
    let p = p.max(1);
    if schedule == Schedule::DualPipe {
        p.next_multiple_of(2)
    } else {
        p
    }
}

/// Copies of its parameters each pipeline GPU keeps: DualPipe's GPU holds a
/// stage of each direction, two in all (the deepseek-ai/DualPipe README's
/// "Parameter 2×"); every other schedule one.
pub fn parameter_copies(schedule: Schedule) -> u32 {
    if schedule == Schedule::DualPipe {
        2
    } else {
        1
    }
}

/// The fewest micro-batches that bring the bubble strictly under `target`
/// (a fraction in 0..1): for GPipe, m > (p − 1)(1 − target)/target; for the
/// interleaved schedule, a count it runs (a multiple of p).
/// `None` when no micro-batch count up to `max_micro` does.
pub fn micro_batches_for_bubble_below(
    schedule: Schedule,
    p: u32,
    chunks: u32,
    target: f64,
    max_micro: u32,
) -> Option<u32> {
    if target.is_nan() || target <= 0.0 {
        return None;
    }
    // Bubble falls as m grows, so a binary search over 1..=max_micro finds the first m below target.
    let below = |m: u32| bubble(schedule, p, m, chunks) < target;
    if !below(max_micro) {
        return None;
    }
    let (mut low, mut high) = (1u32, max_micro);
    while low < high {
        let mid = low + (high - low) / 2;
        if below(mid) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    Some(runnable_micro_batches(schedule, p, low))
}

/// Layer ranges of `p` stages over `layers` layers. Every stage takes
/// ⌈L/p⌉ layers but the ends: when `p` does not divide `layers`, the layers
/// short come off the first and last stages first, then the second and
/// second-last, and so on inwards, since the first stage also holds the
/// input embedding and the last the output layer. Llama 3 405B's 126 layers
/// on 16 stages: 7 on the first and last, 8 on the 14 between (Llama Team
/// 2024, section 3.3.2; Megatron-LM's `--decoder-first-pipeline-num-layers`
/// and `--decoder-last-pipeline-num-layers` set the same).
pub fn stage_layers(layers: u32, p: u32) -> Vec<Range<u32>> {
    let p = p.clamp(1, layers.max(1));
    let full = layers.div_ceil(p);
    let short = full * p - layers;
    let mut start = 0;
    (0..p)
        .map(|stage| {
            // The stage's turn to give up a layer: 0 for the first, 1 for the last, 2 for the second...
            let from_end = p - 1 - stage;
            let turn = if stage <= from_end {
                2 * stage
            } else {
                2 * from_end + 1
            };
            let len = full - u32::from(turn < short);
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// Layers on the busiest stage: ⌈L/p⌉.
pub fn layers_per_stage(layers: u32, p: u32) -> u32 {
    layers.div_ceil(p.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpipe_bubble_closed_form() {
        assert!((bubble(Schedule::GPipe, 4, 4, 1) - 3.0 / 7.0).abs() < 1e-15);
        assert!((bubble(Schedule::OneFOneB, 4, 8, 1) - 3.0 / 11.0).abs() < 1e-15);
        assert_eq!(bubble(Schedule::GPipe, 1, 8, 1), 0.0);
    }

    #[test]
    fn interleaving_and_zero_bubble_shrink_it() {
        let plain = bubble(Schedule::OneFOneB, 8, 16, 1);
        assert!(bubble(Schedule::Interleaved, 8, 16, 2) < plain);
        assert!((bubble(Schedule::Interleaved, 8, 16, 2) - 7.0 / 39.0).abs() < 1e-15);
        assert!((bubble(Schedule::ZeroBubbleH1, 8, 16, 1) - 7.0 / 55.0).abs() < 1e-15);
    }

    #[test]
    fn micro_batches_for_a_ten_percent_bubble() {
        assert_eq!(
            micro_batches_for_bubble_below(Schedule::GPipe, 4, 1, 0.1, 1 << 20),
            Some(28)
        );
        assert_eq!(
            micro_batches_for_bubble_below(Schedule::GPipe, 1, 1, 0.1, 1 << 20),
            Some(1)
        );
        assert_eq!(
            micro_batches_for_bubble_below(Schedule::GPipe, 8, 1, 0.1, 10),
            None
        );
        assert_eq!(
            micro_batches_for_bubble_below(Schedule::GPipe, 8, 1, 0.0, 10),
            None
        );
    }

    #[test]
    fn stages_cover_every_layer_once() {
        assert_eq!(stage_layers(32, 4), vec![0..8, 8..16, 16..24, 24..32]);
        // Two layers short of 3 x 4: one off each end.
        assert_eq!(stage_layers(10, 3), vec![0..3, 3..7, 7..10]);
        assert_eq!(layers_per_stage(10, 3), 4);
        // Llama 3 405B (section 3.3.2): 126 layers, 16 stages, 7 on each end.
        let llama = stage_layers(126, 16);
        let lengths: Vec<u32> = llama.iter().map(|r| r.end - r.start).collect();
        assert_eq!(lengths, [[7].as_slice(), &[8; 14], &[7]].concat());
        // Six short of 8 x 2: both ends, then inwards, the middle two keep 2.
        let lengths: Vec<u32> = stage_layers(10, 8)
            .iter()
            .map(|r| r.end - r.start)
            .collect();
        assert_eq!(lengths, [1, 1, 1, 2, 2, 1, 1, 1]);
        assert_eq!(stage_layers(2, 8).len(), 2);
    }
}
