//! The planner's memory against what measured runs' allocators reserved
//! (`model::measured`, torchtitan's benchmark of Llama 3.1 on H100s): a
//! GPU's reservation at its peak, `PeakMemory::allocator_reserved`, within
//! 10% of the published GiB where the planner expresses the whole setting
//! or all but torch.compile and Float8 (which the 8B rows show move the
//! reservation by under 7%: 82.4 GiB without, 77.0 and 76.8 with).

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::measured::MEASURED;
use parallax::model::query::Query;
use parallax::model::units::Bytes;

/// The allocator's reservation at the fullest GPU's peak for `query`, in GiB.
fn reserved_gib(query: &str) -> f64 {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(query), &mut notices);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    params.plan().estimate().peak.allocator_reserved().value() / Bytes::GIB
}

#[test]
fn reserved_memory_within_ten_percent_of_the_measured_rows() {
    let mut missed = Vec::new();
    for run in MEASURED {
        let ratio = reserved_gib(run.query) / run.reserved_gib;
        eprintln!(
            "{}: measured {} GiB, ours {:.1} GiB, {ratio:.2}",
            run.name,
            run.reserved_gib,
            ratio * run.reserved_gib
        );
        if run.name.contains("405B") {
            // Pipelined with asynchronous tensor parallelism: ours is short
            // (issue 51's note gives by how much); what it leaves out only
            // adds memory, so ours must stay below the measurement.
            assert!(ratio < 1.0, "{}: {ratio}", run.name);
        } else if (ratio - 1.0).abs() > 0.10 {
            missed.push(format!("{}: {ratio:.3}", run.name));
        }
    }
    assert!(missed.is_empty(), "{missed:?}");
}
