//! The reader's layout against the search's first (`model::compare`):
//! each setting they differ in is laid alone on the reader's, and the one
//! that brings its step lowest decides. GPT-3 175B on 1,024 A100s as
//! Narayanan et al. 2021 ran it (t 8 × p 16, full recomputation) against
//! the same layout with selective recomputation and ZeRO-1: full
//! recomputation runs each layer's forward pass twice, a third more of
//! the model's arithmetic (Korthikanti et al. 2022, section 5), which
//! selective recomputation spares and ZeRO-1 cannot, so recomputation
//! decides.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::plan;
use parallax::model::activations::Recompute;
use parallax::model::compare::{compare, Outcome, Setting};
use parallax::model::memory::ZeroStage;
use parallax::model::planner::Plan;
use parallax::model::search::TIED_WITHIN;

const GPT3: &str = "model=gpt3-175b&vocab=51200&gpus=1024&tp=8&pp=16&schedule=interleaved&chunks=2&batch=1536&gpu=a100-80gb&micro-batch=1&recompute=full&flop=6nd-attn&bytes=18&attention=standard";

fn step(plan: &Plan) -> f64 {
    plan.estimate().step_time.value()
}

#[test]
fn recomputation_decides_between_full_and_selective() {
    let yours = plan(GPT3);
    let mut first = yours;
    first.activations.recompute = Recompute::Selective;
    first.stage = ZeroStage::One;
    let comparison = compare(&yours, &first);
    let settings: Vec<Setting> = comparison.changes.iter().map(|c| c.setting).collect();
    assert_eq!(settings, [Setting::Recompute, Setting::Sharding]);
    assert_eq!(comparison.yours, Outcome::Runs(step(&yours)));
    // Each change is the reader's layout with that one setting the first's.
    let mut selective = yours;
    selective.activations.recompute = Recompute::Selective;
    let mut zero1 = yours;
    zero1.stage = ZeroStage::One;
    assert_eq!(
        comparison.changes[0].outcome,
        Outcome::Runs(step(&selective))
    );
    assert_eq!(comparison.changes[1].outcome, Outcome::Runs(step(&zero1)));
    assert_eq!(
        comparison.nearest().map(|c| c.setting),
        Some(Setting::Recompute)
    );
    // Selective recomputation is the whole difference here: it decides.
    let first_step = step(&first);
    assert_eq!(
        comparison
            .deciding(first_step, TIED_WITHIN)
            .map(|c| c.setting),
        Some(Setting::Recompute)
    );
    // Against a first twice as fast, no one setting closes the gap.
    assert_eq!(comparison.deciding(first_step / 2.0, TIED_WITHIN), None);
    // A layout against itself differs in nothing.
    assert!(compare(&yours, &yours).changes.is_empty());
}

/// A change that leaves the layout unable to fit gives no step, and is not
/// the nearest: 16 stages to 1 on these GPUs puts 175B parameters' 18 bytes
/// on 8 GPUs, 394 GB each.
#[test]
fn a_change_that_does_not_fit_does_not_decide() {
    let yours = plan(GPT3);
    let mut first = yours;
    first.pipeline = 1;
    first.activations.recompute = Recompute::Selective;
    let comparison = compare(&yours, &first);
    let degrees = comparison
        .changes
        .iter()
        .find(|c| c.setting == Setting::Degrees)
        .unwrap();
    assert_eq!(degrees.outcome, Outcome::DoesNotFit);
    assert_eq!(
        comparison.nearest().map(|c| c.setting),
        Some(Setting::Recompute)
    );
}
