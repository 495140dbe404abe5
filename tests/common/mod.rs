//! What several native test files ask of the figure registry. Each file
//! that includes this module uses some of it, not all.
#![allow(dead_code)]

use parallax::figures::figure::Params;
use parallax::figures::find;
use parallax::figures::planner::PlannerParams;
use parallax::model::planner::Plan;
use parallax::model::query::Query;

/// The readout `id` of `figure` at `query`, as the page computes it; the
/// query must read without a notice.
pub fn readout(figure: &str, query: &str, id: &str) -> f64 {
    let (_, figure) = find(figure).unwrap_or_else(|| panic!("no figure {figure}"));
    let mut notices = Vec::new();
    let readouts = (figure.native.readouts)(&Query::parse(query), &mut notices);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    readouts
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{query}: no readout {id}"))
        .value
}

/// The planner's plan at `query`, as the page reads it; the query must read
/// without a notice.
pub fn plan(query: &str) -> Plan {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(query), &mut notices);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    params.plan()
}

/// The planner's plan at `query` in `tool`'s terms, as its "Run it with"
/// part shows it; the query must read without a notice.
pub fn launch(query: &str, tool: parallax::launch::Tool) -> parallax::launch::Launch {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(query), &mut notices);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    let plan = params.plan();
    parallax::launch::export(tool, &params.launch_run(&plan))
}
