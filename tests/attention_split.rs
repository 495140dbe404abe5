//! Tensor parallelism must split the attention as Megatron-LM requires
//! (`TransformerConfig.__post_init__`, `megatron/core/transformer/
//! transformer_config.py`): t divides `num_attention_heads`, and
//! `num_query_groups` is a multiple or a divisor of t. The layouts here are
//! checked against those two rules by hand, not against the planner.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::plan;
use parallax::model::planner::LayoutProblem;
use parallax::model::search::search;

/// 16 heads in 3 query groups on t 8: 8 divides 16, but 3 neither divides 8
/// nor is divided by it. 12 heads on t 8: 8 does not divide 12.
#[test]
fn a_split_megatron_refuses_is_a_layout_problem() {
    let groups = plan("model=llama3-8b&heads=16&kv-heads=3&hidden=1024&gpus=8&tp=8");
    assert_eq!(
        groups.problem(),
        Some(LayoutProblem::AttentionDoesNotSplit {
            heads: 16,
            kv_heads: 3
        })
    );
    assert!(!groups.estimate().fits, "a refused layout does not fit");
    let heads = plan("model=llama3-8b&heads=12&kv-heads=12&hidden=1536&gpus=8&tp=8");
    assert!(matches!(
        heads.problem(),
        Some(LayoutProblem::AttentionDoesNotSplit { heads: 12, .. })
    ));
}

/// What Megatron-LM accepts is no problem: 8 query groups on t 8 (each GPU
/// one), and 2 groups on t 8 (a divisor of t: each group shared by 4 GPUs).
#[test]
fn a_split_megatron_accepts_is_none() {
    assert_eq!(plan("model=llama3-8b&gpus=8&tp=8").problem(), None);
    assert_eq!(
        plan("model=llama3-8b&heads=32&kv-heads=2&gpus=8&tp=8").problem(),
        None
    );
}

/// The search offers only tensor degrees that split the attention: 16 heads
/// in 3 query groups split on t 1 alone (3 neither divides 2, 4, 8 or 16
/// nor is divided by them), though 16 divides every one of them.
#[test]
fn the_search_offers_only_splits_megatron_accepts() {
    let result = search(&plan(
        "model=llama3-8b&heads=16&kv-heads=3&hidden=1024&gpus=64&batch=512",
    ));
    assert!(!result.best.is_empty());
    for found in &result.best {
        assert_eq!(found.plan.tensor, 1);
    }
}
