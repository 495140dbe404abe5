//! Two plans side by side, through the registry as the page reads them:
//! plan B's keys are prefixed `b.`, a key absent for B takes A's value, and
//! B's readouts carry `b.` ids.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::find;
use parallax::model::query::{to_search, Query};

fn readouts(slug: &str, search: &str) -> Vec<(String, String, f64)> {
    let (_, figure) = find(slug).unwrap();
    let mut notices = Vec::new();
    let found = (figure.native.readouts)(&Query::parse(search), &mut notices);
    assert!(notices.is_empty(), "{search}: {notices:?}");
    found
        .into_iter()
        .map(|r| (r.key(), r.text.clone(), r.value))
        .collect()
}

fn text(all: &[(String, String, f64)], key: &str) -> String {
    all.iter()
        .find(|(k, _, _)| k == key)
        .unwrap_or_else(|| panic!("{key}"))
        .1
        .clone()
}

/// The example: 70B with plain data parallelism on 8 GPUs is 16 ×
/// 70e9 = 1,120 GB a GPU; plan B, ZeRO-3 on the same 8, is 140 GB.
#[test]
fn the_planners_two_plans() {
    let all = readouts("planner", "b.stage=3");
    assert_eq!(text(&all, "state-per-gpu"), "1,120 GB");
    assert_eq!(text(&all, "b.state-per-gpu"), "140.0 GB");
    // B keeps A's 8 GPUs: the same layout, the same capacity.
    assert_eq!(text(&all, "b.capacity"), text(&all, "capacity"));
    let mixed = readouts("planner", "stage=1&gpus=64&b.stage=3&b.gpus=16");
    // ZeRO-1 on 64: (4 + 12/64) × 70e9 = 293.1 GB; ZeRO-3 on 16: 16 × 70e9 / 16 = 70.0 GB.
    assert_eq!(text(&mixed, "state-per-gpu"), "293.1 GB");
    assert_eq!(text(&mixed, "b.state-per-gpu"), "70.0 GB");
}

/// 3d: plan A the explainer's layout, plan B with 8 pipeline stages: twice the GPUs.
#[test]
fn three_d_compares_too() {
    let all = readouts("3d", "b.pp=8");
    assert_eq!(text(&all, "gpus"), "256");
    assert_eq!(text(&all, "b.gpus"), "512");
}

/// A link with both plans reads back to the same link, and figures that do
/// not compare ignore `b.` keys.
#[test]
fn both_plans_round_trip() {
    for (slug, search) in [
        ("planner", "stage=1&gpus=64&b.stage=3&b.gpus=16"),
        (
            "planner",
            "model=gpt3-175b&tp=8&pp=8&gpus=1024&b.schedule=interleaved&b.chunks=2",
        ),
        ("planner", "params=175B&b.params=70B"),
        ("3d", "preset=course&b.zero=3&b.dp=64"),
    ] {
        let (_, figure) = find(slug).unwrap();
        let mut notices = Vec::new();
        let once = (figure.native.canonical)(&Query::parse(search), &mut notices);
        let twice = (figure.native.canonical)(&Query::parse(&to_search(&once)), &mut notices);
        assert_eq!(once, twice, "{slug} {search}");
        assert!(
            once.iter().any(|(k, _)| k.starts_with("b.")),
            "{slug} {search}: {once:?}"
        );
        assert_eq!(
            readouts(slug, search),
            readouts(slug, &to_search(&once)),
            "{slug} {search}"
        );
    }
    let plain = readouts("why", "b.tokens=1T");
    assert!(plain.iter().all(|(key, _, _)| !key.starts_with("b.")));
}

/// Issue 36's example: Llama 3 70B on 256 H100s, batch 512, plan A t 8
/// p 4 interleaved, plan B t 4 p 8. The comparison's words name the plan
/// with the shorter `step-time` (the planner's one step, which the bar adds
/// up to), and say that neither fits.
#[test]
fn the_words_name_the_faster_plan() {
    use parallax::figures::compare::{rows, verdict};
    let (_, figure) = find("planner").unwrap();
    let query = "model=llama3-70b&gpu=h100-sxm&gpus=256&batch=512&tp=8&pp=4&schedule=interleaved&b.tp=4&b.pp=8";
    let all = (figure.native.readouts)(&Query::parse(query), &mut Vec::new());
    let (b, a): (Vec<_>, Vec<_>) = all.into_iter().partition(|r| r.key().starts_with("b."));
    let step = |plan: &[parallax::widgets::ReadoutData]| {
        plan.iter().find(|r| r.id == "step-time").unwrap().value
    };
    let (a_step, b_step) = (step(&a), step(&b));
    // The planner's own line in the issue: A 16 s, B 15 s.
    assert!(b_step < a_step, "{a_step} against {b_step}");
    let words = verdict(&rows(a, b));
    let faster = if b_step < a_step {
        "Plan B is faster"
    } else {
        "Plan A is faster"
    };
    assert!(
        words.starts_with(faster),
        "{words}: {a_step} against {b_step}"
    );
    assert!(words.contains("Neither fits its GPUs."), "{words}");
}
