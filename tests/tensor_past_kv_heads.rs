//! Tensor parallelism wider than the key-value heads, as Megatron-LM runs
//! it: a query-group count that divides t is replicated, each GPU keeping
//! one key-value head of its own (`num_query_groups ... must be a multiple
//! or divisor of tensor_model_parallel_size`, `TransformerConfig`). The
//! expected values are counted here from Llama 3 8B's configuration (Meta's
//! `params.json`: 32 layers, h 4,096, f 14,336, 32 heads and 8 key-value
//! heads of 128, a vocabulary of 128,256, untied), not from the planner.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::planner::{LayoutProblem, Plan};
use parallax::model::query::Query;

const H: f64 = 4096.0;
const F: f64 = 14336.0;
const VOCAB: f64 = 128_256.0;
const LAYERS: f64 = 32.0;
/// 8 key-value heads of 128.
const KV: f64 = 1024.0;
const HEAD: f64 = 128.0;
/// Llama 3 8B's exact count, 2hV + L(2h² + 2h·kv + 3hf + 2h) + h:
/// 8,030,261,248, entered as `params` so the planner's count is not scaled.
const EXACT: &str = "params=8030261248";

/// The parameters one of t GPUs keeps with no pipeline: its 1/t of the two
/// vocabulary matrices and of every layer's matrices, the norms whole, and
/// past the 8 key-value heads a whole head's K and V (2h × 128) in place
/// of its 1/t of them.
fn params_on_a_gpu(t: f64) -> f64 {
    let kv_projections = 2.0 * H * KV;
    let other_matrices = 2.0 * H * H + 3.0 * H * F;
    let own_kv = if t > 8.0 {
        2.0 * H * HEAD
    } else {
        kv_projections / t
    };
    2.0 * H * VOCAB / t + LAYERS * (other_matrices / t + own_kv + 2.0 * H) + H
}

fn plan(query: &str) -> Plan {
    let mut notices = Vec::new();
    let params = PlannerParams::from_query(&Query::parse(query), &mut notices);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    params.plan()
}

/// The weights' readout (BF16, 2 bytes a parameter) at t 8, 16 and 32 on
/// as many GPUs: past the key-value heads each GPU's K and V stay a whole
/// head's, 1,048,576 parameters a layer, not 1/16 or 1/32 of 8,388,608.
#[test]
fn past_the_kv_heads_each_gpu_keeps_a_head_of_its_own() {
    for t in [8.0, 16.0, 32.0] {
        let query = format!("model=llama3-8b&{EXACT}&gpus={t}&tp={t}&batch=16");
        let weights = common::readout("planner", &query, "weights");
        let expected = 2.0 * params_on_a_gpu(t);
        assert!(
            (weights / expected - 1.0).abs() < 1e-12,
            "t {t}: {weights} against {expected}"
        );
    }
    assert_eq!(params_on_a_gpu(16.0), 518_918_144.0);
}

/// Each GPU projects its own head forward and twice backward: at t 16 the
/// step does 6 × 32 layers × (2h × 128 − 2h·kv/16) × 16 GPUs more FLOP a
/// token than the model's, here 16 sequences of 8,192.
#[test]
fn each_gpu_projects_its_own_head() {
    let at = |t: u32| {
        plan(&format!(
            "model=llama3-8b&{EXACT}&gpus=16&tp={t}&batch=16&seq=8192"
        ))
        .estimate()
        .step_flop
        .value()
    };
    let own_beyond_share = 2.0 * H * HEAD - 2.0 * H * KV / 16.0;
    let expected = 6.0 * LAYERS * own_beyond_share * 16.0 * 16.0 * 8192.0;
    let extra = at(16) - at(8);
    assert!(
        (extra / expected - 1.0).abs() < 1e-9,
        "{extra} against {expected}"
    );
}

/// A layout Megatron-LM refuses is refused here with its reason: its own
/// guide's example, 16 heads in 3 query groups on t 8, and 24 heads on 16.
#[test]
fn a_split_megatron_refuses_is_a_layout_problem() {
    let refused = plan("model=llama3-8b&heads=16&kv-heads=3&hidden=1024&gpus=8&tp=8");
    assert_eq!(
        refused.problem(),
        Some(LayoutProblem::AttentionDoesNotSplit {
            heads: 16,
            kv_heads: 3
        })
    );
    let heads = plan("model=llama3-8b&heads=24&hidden=3072&gpus=16&tp=16");
    assert!(matches!(
        heads.problem(),
        Some(LayoutProblem::AttentionDoesNotSplit { heads: 24, .. })
    ));
    assert_eq!(plan("model=llama3-8b&gpus=32&tp=32").problem(), None);
}
