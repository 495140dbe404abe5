//! The pipeline simulator against the closed forms, and its timelines
//! against the dependencies every schedule must respect.

use std::collections::HashMap;

use parallax::model::activations::in_flight;
use parallax::model::choice::Choice;
use parallax::model::pipeline::{bubble, runnable_micro_batches, Schedule};
use parallax::model::schedule::{simulate, Block, BlockKind, Timeline};

#[test]
fn simulated_bubbles_equal_the_closed_forms() {
    let mut checked = 0;
    for &schedule in Schedule::ALL {
        for p in 1..=8 {
            for m in 1..=64 {
                for chunks in [1, 2, 3, 4] {
                    // The closed form holds for every count: the interleaved
                    // schedule's is for the count it runs, m rounded up to
                    // a multiple of p, and ZB-H1's has its own form below p.
                    if chunks > 1 && schedule != Schedule::Interleaved {
                        continue;
                    }
                    let timeline = simulate(schedule, p, m, chunks);
                    let expected = bubble(schedule, p, m, chunks);
                    assert!(
                        (timeline.bubble() - expected).abs() < 1e-12,
                        "{schedule:?} p={p} m={m} v={chunks}: simulated {} vs closed form {expected}",
                        timeline.bubble()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn the_seeds_pipeline() {
    let timeline = simulate(Schedule::GPipe, 4, 4, 1);
    assert_eq!(timeline.makespan, 21);
    assert_eq!(timeline.busy_ticks(), 12);
    assert_eq!(format!("{:.1}%", timeline.bubble() * 100.0), "42.9%");
    let course = simulate(Schedule::GPipe, 4, 8, 1);
    assert!((course.bubble() - 0.2727).abs() < 1e-4);
}

#[test]
fn micro_batches_in_flight() {
    for (p, m) in [(4, 4), (4, 32), (8, 3), (2, 64)] {
        assert_eq!(
            simulate(Schedule::GPipe, p, m, 1).peak_in_flight,
            f64::from(m)
        );
        assert_eq!(
            simulate(Schedule::OneFOneB, p, m, 1).peak_in_flight,
            f64::from(p.min(m))
        );
        for schedule in [Schedule::GPipe, Schedule::OneFOneB] {
            assert_eq!(
                simulate(schedule, p, m, 1).peak_in_flight,
                in_flight(schedule, p, m, 1)
            );
        }
    }
}

/// The interleaved schedule's first stage holds p(1 + (p − 1)/(pv))
/// micro-batches when m > p (Korthikanti et al. 2022, section 4.2.3: the
/// warm-up of 2(p − 1) + (v − 1)p + 1 chunks, counted here from Megatron-LM's
/// rule), but only the m there are when m = p: every forward runs first
/// (Megatron-LM's `all_warmup_microbatches`). The simulator agrees.
#[test]
fn interleaved_micro_batches_in_flight() {
    for (p, v) in [(2, 2), (4, 2), (4, 4), (8, 2)] {
        let warm_up_chunks = f64::from(2 * (p - 1) + (v - 1) * p + 1);
        for m in [p, 2 * p, 4 * p] {
            let held = (warm_up_chunks / f64::from(v)).min(f64::from(m));
            assert_eq!(
                in_flight(Schedule::Interleaved, p, m, v),
                held,
                "p {p} v {v} m {m}"
            );
            assert_eq!(
                simulate(Schedule::Interleaved, p, m, v).peak_in_flight,
                held,
                "simulated, p {p} v {v} m {m}"
            );
        }
    }
}

fn key(block: &Block, virt: u32) -> (BlockKind, u32, u32) {
    (block.kind, virt, block.micro)
}

/// Checks one timeline: all blocks present, no overlap on a GPU, and no
/// block before its inputs.
fn check_dependencies(timeline: &Timeline) {
    let p = timeline.stages;
    let v = timeline.chunks;
    let last = p * v - 1;
    let virt = |b: &Block| b.chunk * p + b.stage;
    let ends: HashMap<_, u32> = timeline
        .blocks
        .iter()
        .map(|b| (key(b, virt(b)), b.end()))
        .collect();
    let split = timeline
        .blocks
        .iter()
        .any(|b| b.kind == BlockKind::WeightGradient);
    let backward = if split {
        BlockKind::InputGradient
    } else {
        BlockKind::Backward
    };
    let per_micro = if split { 3 } else { 2 };
    assert_eq!(
        timeline.blocks.len() as u32,
        per_micro * p * v * timeline.micro_batches
    );
    for block in &timeline.blocks {
        let k = virt(block);
        let needs = match block.kind {
            BlockKind::Forward if k == 0 => None,
            BlockKind::Forward => Some((BlockKind::Forward, k - 1, block.micro)),
            BlockKind::WeightGradient => Some((backward, k, block.micro)),
            _ if k == last => Some((BlockKind::Forward, k, block.micro)),
            _ => Some((backward, k + 1, block.micro)),
        };
        if let Some(input) = needs {
            assert!(
                ends[&input] <= block.start,
                "{block:?} starts before {input:?} ends"
            );
        }
    }
    for stage in 0..p {
        let mut own: Vec<&Block> = timeline
            .blocks
            .iter()
            .filter(|b| b.stage == stage)
            .collect();
        own.sort_by_key(|b| b.start);
        assert!(
            own.windows(2).all(|w| w[0].end() <= w[1].start),
            "overlap on stage {stage}"
        );
    }
}

/// DualPipe's and DualPipeV's timelines: every micro-batch's forward,
/// backward (whole, or its input gradient and later its weight gradient)
/// on every stage, each after its inputs, none overlapping on a GPU. A
/// block's stage is read from its GPU and chunk (`dualpipe.rs`): DualPipe's
/// forward stream holds stage g on GPU g, the reverse p − 1 − g; DualPipeV's
/// second chunk on GPU g is stage 2p − 1 − g.
fn check_dual_dependencies(schedule: Schedule, timeline: &Timeline) {
    let p = timeline.stages;
    let dual = schedule == Schedule::DualPipe;
    let (streams, stages, per_stream) = if dual {
        (2, p, timeline.micro_batches / 2)
    } else {
        (1, 2 * p, timeline.micro_batches)
    };
    let place = |b: &Block| match (dual, b.chunk) {
        (true, 0) => (0, b.stage),
        (true, _) => (1, p - 1 - b.stage),
        (false, 0) => (0, b.stage),
        (false, _) => (0, 2 * p - 1 - b.stage),
    };
    let mut ends: HashMap<(u32, u32, bool, u32), u32> = HashMap::new();
    let mut weights = 0;
    for b in &timeline.blocks {
        let (stream, stage) = place(b);
        match b.kind {
            BlockKind::Forward => assert!(ends
                .insert((stream, stage, false, b.micro), b.end())
                .is_none()),
            BlockKind::Backward | BlockKind::InputGradient => {
                assert!(ends
                    .insert((stream, stage, true, b.micro), b.end())
                    .is_none())
            }
            BlockKind::WeightGradient => weights += 1,
        }
    }
    let splits = timeline
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::InputGradient)
        .count();
    assert_eq!(
        weights, splits,
        "a weight gradient for every split backward"
    );
    assert_eq!(
        ends.len() as u32,
        2 * streams * stages * per_stream,
        "{schedule:?} p={p}"
    );
    for b in &timeline.blocks {
        let (stream, stage) = place(b);
        let needs = match b.kind {
            BlockKind::Forward if stage == 0 => None,
            BlockKind::Forward => Some((stream, stage - 1, false, b.micro)),
            BlockKind::WeightGradient => Some((stream, stage, true, b.micro)),
            _ if stage + 1 == stages => Some((stream, stage, false, b.micro)),
            _ => Some((stream, stage + 1, true, b.micro)),
        };
        if let Some(input) = needs {
            assert!(
                ends[&input] <= b.start,
                "{schedule:?} p={p}: {b:?} starts before {input:?} ends"
            );
        }
    }
    for gpu in 0..p {
        let mut own: Vec<&Block> = timeline.blocks.iter().filter(|b| b.stage == gpu).collect();
        own.sort_by_key(|b| b.start);
        assert!(
            own.windows(2).all(|w| w[0].end() <= w[1].start),
            "overlap on GPU {gpu}"
        );
    }
}

#[test]
fn no_block_runs_before_its_inputs() {
    for &schedule in Schedule::ALL {
        for p in [1, 2, 3, 4, 8] {
            for m in [1, 2, 3, 5, 8, 13, 64] {
                let timeline = simulate(schedule, p, m, 2);
                if matches!(schedule, Schedule::DualPipe | Schedule::DualPipeV) {
                    check_dual_dependencies(schedule, &timeline);
                } else {
                    check_dependencies(&timeline);
                }
            }
        }
    }
}

/// The deepseek-ai/DualPipe README's comparison: DualPipe idles
/// (PP/2 − 1)(F&B + B − 3W) a GPU and holds PP + 1 micro-batches'
/// activations, against 1F1B's (PP − 1)(F + B) and PP. With F one unit, B
/// two, W one and F&B three (the pair overlaps communication, not
/// arithmetic), that is p − 2 units; DualPipeV on p GPUs runs PP = 2p
/// half-stages (every unit halved): p − 1 units idle and 2p + 1 half-stages,
/// p + ½ of a GPU's layers, in flight. The simulator runs the reference
/// implementation's program and must land on both, at every p and m.
#[test]
fn dualpipe_idles_and_holds_as_its_readme_states() {
    for p in [2, 4, 6, 8] {
        for m in [2 * p, 2 * p + 2, 20, 64] {
            let dual = simulate(Schedule::DualPipe, p, m, 1);
            let half_pp = f64::from(p) / 2.0;
            let idle = (half_pp - 1.0) * (3.0 + 2.0 - 3.0);
            assert_eq!(
                f64::from(dual.makespan),
                3.0 * f64::from(m) + idle,
                "p={p} m={m}"
            );
            assert_eq!(dual.peak_in_flight, f64::from(p) + 1.0);
            assert_eq!(in_flight(Schedule::DualPipe, p, m, 1), f64::from(p) + 1.0);
        }
    }
    for p in [1, 2, 3, 4, 8] {
        for m in [2 * p, 2 * p + 1, 20, 64] {
            let v = simulate(Schedule::DualPipeV, p, m, 1);
            // Units of a GPU's whole share: half-stage ticks over 2.
            let pp = f64::from(2 * p);
            let idle = (pp / 2.0 - 1.0) * (1.5 + 1.0 - 1.5);
            assert_eq!(
                f64::from(v.makespan) / 2.0,
                3.0 * f64::from(m) + idle,
                "p={p} m={m}"
            );
            assert_eq!(v.peak_in_flight, (pp + 1.0) / 2.0);
            assert_eq!(in_flight(Schedule::DualPipeV, p, m, 1), (pp + 1.0) / 2.0);
        }
    }
}

#[test]
fn interleaving_rounds_micro_batches_up_to_a_multiple_of_p() {
    assert_eq!(simulate(Schedule::Interleaved, 8, 13, 2).micro_batches, 16);
    assert_eq!(simulate(Schedule::Interleaved, 4, 8, 2).micro_batches, 8);
    assert_eq!(simulate(Schedule::OneFOneB, 8, 13, 2).micro_batches, 13);
}

#[test]
fn out_of_range_inputs_are_clamped_not_fatal() {
    let timeline = simulate(Schedule::Interleaved, 0, 0, 0);
    assert_eq!(
        (timeline.stages, timeline.micro_batches, timeline.chunks),
        (1, 1, 1)
    );
    let big = simulate(Schedule::ZeroBubbleH1, 1000, 100_000, 1000);
    assert!(big.makespan > 0);
    check_dependencies(&simulate(Schedule::Interleaved, 8, 64, 4));
}

/// `micro-for-10pct` comes from the simulated timeline: for every schedule,
/// the answer is the first count (walking up every count the schedule runs)
/// whose simulated bubble is under 10%, found here by brute force.
#[test]
fn fewest_micro_batches_is_the_simulators() {
    use parallax::model::schedule::fewest_micro_batches_below;
    for &schedule in Schedule::ALL {
        for p in 1..=8 {
            for chunks in [1, 2, 4] {
                // Every count the schedule runs, in order (DualPipe's at
                // least 2p of them, and even).
                let first = (1..=512)
                    .map(|m| runnable_micro_batches(schedule, p, m))
                    .find(|&m| simulate(schedule, p, m, chunks).bubble() < 0.1);
                assert_eq!(
                    fewest_micro_batches_below(schedule, p, chunks, 0.1),
                    first,
                    "{schedule:?} p={p} v={chunks}"
                );
            }
        }
    }
}

/// GPipe and 1F1B idle alike: whatever the forward and backward take (F = B,
/// or B = 2F as in the figures), both leave (p − 1)(F + B) idle of
/// (m + p − 1)(F + B), a bubble of (p − 1)/(m + p − 1) (Narayanan et al.
/// 2021, section 2.2.1). 1F1B's gain is memory: at most p micro-batches in flight.
#[test]
fn gpipe_and_one_f_one_b_have_equal_bubbles_for_any_block_lengths() {
    use parallax::model::schedule::simulate_timed;
    for (forward, backward) in [(1, 1), (1, 2), (2, 3)] {
        for p in 1..=8u32 {
            for m in 1..=24u32 {
                let gpipe = simulate_timed(Schedule::GPipe, p, m, 1, forward, backward);
                let one_f_one_b = simulate_timed(Schedule::OneFOneB, p, m, 1, forward, backward);
                let expected = f64::from(p - 1) / f64::from(m + p - 1);
                assert!(
                    (gpipe.bubble() - expected).abs() < 1e-12,
                    "GPipe F={forward} B={backward} p={p} m={m}"
                );
                assert!(
                    (one_f_one_b.bubble() - expected).abs() < 1e-12,
                    "1F1B F={forward} B={backward} p={p} m={m}: {}",
                    one_f_one_b.bubble()
                );
                assert_eq!(gpipe.peak_in_flight, f64::from(m));
                assert_eq!(one_f_one_b.peak_in_flight, f64::from(m.min(p)));
            }
        }
    }
}
