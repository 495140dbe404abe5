//! The layout search, natively: for GPT-3 175B on 1,024 A100s (batch
//! 1,536, sequence 2,048) its best layout keeps tensor parallelism inside a
//! node, fits, and is no slower under our model than the layout Narayanan
//! et al. 2021 published (t = 8, p = 8, d = 16: section 5.1 and Table 1).
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::activations::Recompute;
use parallax::model::memory::ZeroStage;
use parallax::model::pipeline::Schedule;
use parallax::model::planner::Plan;
use parallax::model::query::Query;
use parallax::model::search::{search, Rejection};

fn gpt3_on_1024() -> Plan {
    let query = "model=gpt3-175b&gpu=a100-80gb&gpus=1024&batch=1536&seq=2048";
    PlannerParams::from_query(&Query::parse(query), &mut Vec::new()).plan()
}

#[test]
fn the_best_gpt3_layout_is_no_slower_than_the_published_one() {
    let base = gpt3_on_1024();
    let result = search(&base);
    let best = result.best.first().expect("some layout fits");
    assert!(best.plan.tensor <= 8, "tensor parallelism inside a node");
    assert!(best.estimate.fits);
    assert_eq!(best.plan.gpus_used(), 1024);
    // The published layout: t 8, p 8, d 16, one sequence a micro-batch, full
    // recomputation, no ZeRO, 1F1B.
    let published = Plan {
        tensor: 8,
        pipeline: 8,
        stage: ZeroStage::None,
        schedule: Schedule::OneFOneB,
        activations: parallax::model::activations::ActivationSetup {
            micro_batch: 1.0,
            tensor_parallel: 8,
            sequence_parallel: true,
            recompute: Recompute::Full,
            ..base.activations
        },
        ..base
    };
    let theirs = published.estimate();
    assert!(theirs.fits);
    assert!(
        best.step() <= theirs.breakdown.total(),
        "{} > {}",
        best.step(),
        theirs.breakdown.total()
    );
    // The ten kept are the fastest, in order.
    assert!(result.best.windows(2).all(|w| w[0].step() <= w[1].step()));
    assert_eq!(result.best.len(), 10);
}

/// Every candidate is counted once: it fits, or it is set aside for one reason.
#[test]
fn the_counts_add_up() {
    let result = search(&gpt3_on_1024());
    assert_eq!(
        result.tried,
        result.fit + result.rejected.iter().sum::<u32>()
    );
    assert!(result.rejected[Rejection::OutOfMemory as usize] > 0);
    // 96 heads allow t = 16, which spans two 8-GPU nodes.
    assert!(result.rejected[Rejection::TensorAcrossNodes as usize] > 0);
}

/// A mixture of experts adds expert parallelism to the candidates, and a long
/// sequence context parallelism.
#[test]
fn experts_and_long_sequences_widen_the_search() {
    let mixtral = PlannerParams::from_query(
        &Query::parse("model=mixtral-8x7b&gpu=h100-sxm&gpus=256&batch=256"),
        &mut Vec::new(),
    )
    .plan();
    let result = search(&mixtral);
    assert!(
        result
            .best
            .iter()
            .any(|f| f.plan.experts > 1 || f.plan.context > 1),
        "{:?}",
        result
            .best
            .iter()
            .map(|f| (f.plan.experts, f.plan.context))
            .collect::<Vec<_>>()
    );
    assert!(result.best.iter().all(|f| f.estimate.fits));
}
