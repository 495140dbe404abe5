//! The planner against what torchtitan's measured runs logged
//! (`model::measured`, its benchmark of Llama 3.1 on H100s): a GPU's
//! reservation at its peak, `PeakMemory::allocator_reserved`, within 10%
//! of the published GiB, and tokens a second a GPU within 15% of the log,
//! or a stated reason why not. torchtitan's rate is fitted here to its own
//! rows; the expected values are the table's.

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::measured::{MeasuredRun, MEASURED};
use parallax::model::planner::Plan;
use parallax::model::query::Query;
use parallax::model::software::Software;
use parallax::model::units::Bytes;

/// The plan a row's query gives; the query must read without a notice.
fn plan(run: &MeasuredRun) -> Plan {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut notices);
    assert!(notices.is_empty(), "{}: {notices:?}", run.name);
    params.plan()
}

/// Our tokens a second over the row's, at torchtitan's rate while busy
/// `busy` (of the preset's) and FP8 share `fp8`.
fn speed_ratio(run: &MeasuredRun, busy: f64, fp8: f64) -> f64 {
    let mut plan = plan(run);
    plan.rate.busy = plan.rate.busy / Software::Torchtitan.busy_share() * busy;
    plan.numerics.fp8_gain_share = fp8;
    plan.estimate().tokens_per_gpu_per_second / run.tokens_per_gpu_per_second
}

/// The rows a fit is made on: torch.compile on (the rows without it say so
/// in what they leave out), in BF16 or in FP8.
fn fitted_rows(fp8: bool) -> Vec<MeasuredRun> {
    MEASURED
        .into_iter()
        .filter(|run| run.left_out.is_empty() || run.left_out.starts_with("asynchronous"))
        .filter(|run| run.query.contains("precision=fp8") == fp8)
        .collect()
}

/// The value in hundredths from 0.20 to 1.00 at which `squares` is least.
fn least(squares: impl Fn(f64) -> f64) -> f64 {
    (20..=100)
        .map(|hundredths| f64::from(hundredths) / 100.0)
        .min_by(|a, b| squares(*a).total_cmp(&squares(*b)))
        .unwrap()
}

/// Squared logarithms of the ratios: a row twice as fast weighs as one
/// half as fast.
fn squares(rows: &[MeasuredRun], ratio: impl Fn(&MeasuredRun) -> f64) -> f64 {
    rows.iter().map(|run| ratio(run).ln().powi(2)).sum()
}

/// torchtitan's rate while busy is the least-squares fit to its BF16 rows
/// with torch.compile; its FP8 share, given that rate, to its FP8 rows.
#[test]
fn torchtitans_rate_is_fitted_to_its_rows() {
    let bf16 = fitted_rows(false);
    let fp8 = fitted_rows(true);
    assert!(
        bf16.len() >= 2 && fp8.len() >= 6,
        "{} {}",
        bf16.len(),
        fp8.len()
    );
    let busy = least(|busy| squares(&bf16, |run| speed_ratio(run, busy, 0.0)));
    let share = least(|share| squares(&fp8, |run| speed_ratio(run, busy, share)));
    assert!(
        (Software::Torchtitan.busy_share() - busy).abs() < 0.005,
        "{} against {busy}",
        Software::Torchtitan.busy_share()
    );
    assert!(
        (Software::Torchtitan.fp8_gain_share() - share).abs() < 0.005,
        "{} against {share}",
        Software::Torchtitan.fp8_gain_share()
    );
}

/// A row further than `within` from its measurement says why (`gap`),
/// and a row within it says nothing.
fn explained_where_off(run: &MeasuredRun, ratio: f64, within: f64, gap: &str) {
    assert_eq!(
        (ratio - 1.0).abs() > within,
        !gap.is_empty(),
        "{}: {ratio:.3}, gap {gap:?}",
        run.name
    );
}

/// Each row's tokens a second within 15% of the log, or a row that says
/// why (`MeasuredRun::speed_gap`): a row that comes within 15% must lose
/// its explanation, and one that drifts out must gain one.
#[test]
fn tokens_a_second_within_15_percent_of_the_logs() {
    for run in MEASURED {
        let ours = plan(&run).estimate().tokens_per_gpu_per_second;
        let ratio = ours / run.tokens_per_gpu_per_second;
        eprintln!(
            "{}: logged {}, ours {ours:.0}, {ratio:.3}",
            run.name, run.tokens_per_gpu_per_second
        );
        explained_where_off(&run, ratio, 0.15, run.speed_gap);
    }
}

/// Each row within a tenth of its measurement, or, where ours is further
/// off, a row that says why (`MeasuredRun::memory_gap`), both ways.
#[test]
fn reserved_memory_within_a_tenth_of_the_measured_rows() {
    for run in MEASURED {
        let reserved = plan(&run).estimate().peak.allocator_reserved().value() / Bytes::GIB;
        let ratio = reserved / run.reserved_gib;
        eprintln!(
            "{}: measured {} GiB, ours {reserved:.1} GiB, {ratio:.3}",
            run.name, run.reserved_gib
        );
        explained_where_off(&run, ratio, 0.10, run.memory_gap);
    }
}
