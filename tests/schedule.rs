//! The pipeline simulator against the closed forms, and its timelines
//! against the dependencies every schedule must respect.

use std::collections::HashMap;

use parallax::model::choice::Choice;
use parallax::model::pipeline::{bubble, peak_in_flight, Schedule};
use parallax::model::schedule::{simulate, Block, BlockKind, Timeline};

/// Where the closed form of `pipeline::bubble` is stated to hold.
fn closed_form_holds(schedule: Schedule, p: u32, m: u32) -> bool {
    match schedule {
        Schedule::GPipe | Schedule::OneFOneB => true,
        Schedule::Interleaved => m.is_multiple_of(p),
        Schedule::ZeroBubbleH1 => m >= p,
    }
}

#[test]
fn simulated_bubbles_equal_the_closed_forms() {
    let mut checked = 0;
    for &schedule in Schedule::ALL {
        for p in 1..=8 {
            for m in 1..=64 {
                for chunks in [1, 2, 3, 4] {
                    if !closed_form_holds(schedule, p, m)
                        || (chunks > 1 && schedule != Schedule::Interleaved)
                    {
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
                f64::from(peak_in_flight(schedule, p, m))
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

#[test]
fn no_block_runs_before_its_inputs() {
    for &schedule in Schedule::ALL {
        for p in [1, 2, 3, 4, 8] {
            for m in [1, 2, 3, 5, 8, 13, 64] {
                check_dependencies(&simulate(schedule, p, m, 2));
            }
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
