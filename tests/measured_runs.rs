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

/// The planner's settings a row's query gives; the query must read without a notice.
fn params(run: &MeasuredRun) -> PlannerParams {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(run.query), &mut notices);
    assert!(notices.is_empty(), "{}: {notices:?}", run.name);
    params
}

/// The plan a row's query gives.
fn plan(run: &MeasuredRun) -> Plan {
    params(run).plan()
}

/// The software a row runs on.
fn software(run: &MeasuredRun) -> Software {
    params(run).scenario.software
}

/// Our tokens a second over the row's, at its software's rate while busy
/// `busy` (of the preset's) and FP8 share `fp8`.
fn speed_ratio(run: &MeasuredRun, busy: f64, fp8: f64) -> f64 {
    let mut plan = plan(run);
    plan.rate.busy = plan.rate.busy / software(run).busy_share() * busy;
    plan.numerics.fp8_gain_share = fp8;
    plan.estimate().tokens_per_gpu_per_second / run.tokens_per_gpu_per_second
}

/// Our reservation over the row's, with the layers keeping `share` of
/// what they save inside them.
fn memory_ratio(run: &MeasuredRun, share: f64) -> f64 {
    let mut plan = plan(run);
    plan.activations.kept_share = share;
    plan.estimate().peak.allocator_reserved().value() / Bytes::GIB / run.reserved_gib
}

/// The rows a fit is made on: those on `software` that the planner
/// expresses whole (asynchronous tensor parallelism aside, a matter of
/// speed the rows' own fit absorbs), in BF16 or in FP8.
fn fitted_rows(software_of_rows: Software, fp8: bool) -> Vec<MeasuredRun> {
    MEASURED
        .into_iter()
        .filter(|run| run.left_out.is_empty() || run.left_out.starts_with("asynchronous"))
        .filter(|run| software(run) == software_of_rows)
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

/// `ours` within half a hundredth of the fitted `fit`.
fn is_the_fit(what: &str, ours: f64, fit: f64) {
    assert!((ours - fit).abs() < 0.005, "{what}: {ours} against {fit}");
}

/// torchtitan's rates while busy are the least-squares fits to its BF16
/// rows, with torch.compile and without; its FP8 share, given the
/// compiled rate, to its FP8 rows (all compiled).
#[test]
fn torchtitans_rate_is_fitted_to_its_rows() {
    let compiled = fitted_rows(Software::Torchtitan, false);
    let eager = fitted_rows(Software::TorchtitanEager, false);
    let fp8 = fitted_rows(Software::Torchtitan, true);
    assert_eq!((compiled.len(), eager.len()), (2, 2));
    assert!(fp8.len() >= 6, "{}", fp8.len());
    assert!(fitted_rows(Software::TorchtitanEager, true).is_empty());
    let busy = least(|busy| squares(&compiled, |run| speed_ratio(run, busy, 0.0)));
    is_the_fit("compiled", Software::Torchtitan.busy_share(), busy);
    let eager_busy = least(|busy| squares(&eager, |run| speed_ratio(run, busy, 0.0)));
    is_the_fit("eager", Software::TorchtitanEager.busy_share(), eager_busy);
    let share = least(|share| squares(&fp8, |run| speed_ratio(run, busy, share)));
    is_the_fit("FP8", Software::Torchtitan.fp8_gain_share(), share);
}

/// torch.compile's share of what a layer saves is the least-squares fit
/// to the compiled BF16 rows measured beside an eager twin (the same query
/// on `torchtitan-eager`): 77.0 and 62.0 GiB against 82.4 and 67.0.
#[test]
fn the_compilers_saving_is_fitted_to_the_pairs() {
    let twinned: Vec<MeasuredRun> = fitted_rows(Software::Torchtitan, false)
        .into_iter()
        .filter(|run| {
            let twin = run
                .query
                .replace("software=torchtitan&", "software=torchtitan-eager&");
            MEASURED.iter().any(|eager| eager.query == twin)
        })
        .collect();
    assert_eq!(twinned.len(), 2);
    let share = least(|share| squares(&twinned, |run| memory_ratio(run, share)));
    is_the_fit("kept", Software::Torchtitan.kept_activation_share(), share);
    assert_eq!(Software::TorchtitanEager.kept_activation_share(), 1.0);
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
