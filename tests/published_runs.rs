//! The published runs of the page's "Checked against published runs",
//! through the planner: each difference from the published number is the
//! one the page explains, derived again here from the sources' formulas.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::pipeline::Schedule;
use parallax::model::query::Query;
use parallax::model::runs::{PublishedRun, RUNS};
use parallax::runs::compare;

fn run(name: &str) -> PublishedRun {
    RUNS.into_iter().find(|r| r.name.starts_with(name)).unwrap()
}

fn plan(run: &PublishedRun) -> parallax::model::planner::Plan {
    PlannerParams::from_query(&Query::parse(run.query), &mut Vec::new()).plan()
}

/// The bubble of p stages and m micro-batches (v chunks when interleaved):
/// (p − 1)/(vm + p − 1), Narayanan et al. 2021, sections 2.2.1 and 2.2.2.
fn bubble(p: f64, m: f64, v: f64) -> f64 {
    (p - 1.0) / (v * m + p - 1.0)
}

/// Where a source prints a rate over whole steps, our step is the step its
/// rate gives, stretched by 1/(1 − bubble): we take the rate while busy.
#[test]
fn our_step_is_the_published_rates_stretched_by_the_bubble() {
    for run in RUNS.iter().filter(|r| r.published.flop_per_gpu.is_some()) {
        let plan = plan(run);
        let estimate = plan.estimate();
        let gpus = f64::from(run.published.gpus);
        assert_eq!(f64::from(plan.gpus_used()), gpus, "{}", run.name);
        let rate = run.published.flop_per_gpu.unwrap();
        let theirs = estimate.step_flop.value() / (gpus * rate);
        let d = gpus / f64::from(plan.tensor * plan.pipeline);
        let m = plan.batch / d;
        let v = if plan.schedule == Schedule::Interleaved {
            f64::from(plan.chunks)
        } else {
            1.0
        };
        let b = bubble(f64::from(plan.pipeline), m, v);
        // The URL's `mfu` is the published utilisation to three figures: within 0.3% of rate/peak.
        let ratio = estimate.step_time.value() * (1.0 - b) / theirs;
        assert!((ratio - 1.0).abs() < 0.003, "{}: {ratio}", run.name);
    }
}

/// GPT-3 on 1,024 GPUs: their 34 days is 8TP/(nX). Ours counts eq. 3 in
/// full (8.17 a parameter for GPT-3's shape, not 8) and adds the bubble of
/// p = 8, m = 1,536/16 = 96: 7/103. So ours is 34 × 1.021 / (1 − 7/103) ≈ 37.
#[test]
fn gpt3_takes_37_days_where_the_paper_says_34() {
    let comparison = compare(run("GPT-3 175B"));
    let ratio = comparison.time_ratio.unwrap();
    let expected = (1.0 + 0.021) / (1.0 - 7.0 / 103.0);
    assert!(
        (ratio / expected - 1.0).abs() < 0.01,
        "{ratio} vs {expected}"
    );
    assert!(comparison.fits);
}

/// The 1T model: 84 days by 8TP/(nX) with P = 1,008B; eq. 3 adds 1.3%, the
/// bubble of p = 64, m = 3,072/6 = 512 is 63/575.
#[test]
fn one_trillion_takes_95_days_where_the_paper_says_84() {
    let ratio = compare(run("1T GPT")).time_ratio.unwrap();
    let eq3_over_8tp = (1.0 + 2048.0 / (6.0 * 25600.0) + 51200.0 / (16.0 * 128.0 * 25600.0))
        * (96.0 * 128.0 * 25600.0 * 25600.0 / 8.0)
        / 1008e9;
    let expected = eq3_over_8tp / (1.0 - 63.0 / 575.0);
    assert!(
        (ratio / expected - 1.0).abs() < 0.01,
        "{ratio} vs {expected}"
    );
}

/// Every Narayanan et al. run trained, and fits here too.
#[test]
fn the_megatron_runs_fit() {
    for name in ["GPT-3 175B", "145.6B", "530B", "1T GPT"] {
        assert!(compare(run(name)).fits, "{name}");
    }
}

/// Llama 2: the GPU-hours at the preset's 40% MFU against Touvron et al.'s.
/// Their hours imply 6ND/(hours × 312e12) = 39.6% for 7B and 43.5% for 70B,
/// so ours is 1% under for 7B and about 9% over for 70B (plus selective
/// recomputation's extra attention arithmetic).
#[test]
fn llama_2_gpu_hours() {
    let seven = compare(run("Llama 2 7B")).time_ratio.unwrap();
    let implied_7b = 6.0 * 6.74e9 * 2e12 / (184_320.0 * 3600.0 * 312e12);
    assert!((seven / (implied_7b / 0.4) - 1.0).abs() < 0.03, "{seven}");
    let seventy = compare(run("Llama 2 70B")).time_ratio.unwrap();
    assert!(seventy > 1.05 && seventy < 1.15, "{seventy}");
    assert!(compare(run("Llama 2 7B")).fits && compare(run("Llama 2 70B")).fits);
}

/// Where we knowingly disagree: Llama 3 405B trained on these layouts; the
/// planner says the training state fits and the activations do not (the
/// page explains why). If this starts to pass, the explanation is stale.
#[test]
fn llama_3_405b_is_a_run_we_say_does_not_fit() {
    for name in ["Llama 3 405B on 8,192", "Llama 3 405B on 16,384"] {
        let run = run(name);
        let estimate = plan(&run).estimate();
        assert!(estimate.state_fits && !estimate.fits, "{name}");
        assert!(!run.explanation.is_empty());
    }
}
