//! Any query string: reading it never panics, every notice names a key the
//! query holds, the scenario's numbers are finite, and writing the scenario
//! back to a URL reads back to the same scenario with no notice.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parallax_fuzz::model::activations::{ActivationSetup, Attention, Recompute};
use parallax_fuzz::model::choice::Choice;
use parallax_fuzz::model::memory::{BytesPerParam, TrainingState, ZeroStage};
use parallax_fuzz::model::peak_memory::{
    loss_buffers, pipeline_buffers, recomputed_layer, reserved_by_allocator, sequence_gather,
    sharding_at_the_loss, sharding_in_a_layer, PipelineSeat,
};
use parallax_fuzz::model::planner::{Routing, CAPACITY_FACTOR, IMBALANCE};
use parallax_fuzz::model::query::{to_search, Query};
use parallax_fuzz::model::scenario::Scenario;

fuzz_target!(|search: &str| {
    let query = Query::parse(search);
    let mut notices = Vec::new();
    let scenario = Scenario::from_query(&query, &mut notices);
    // The planner's routing keys (issue 38): any value reads as one in range.
    let capacity = CAPACITY_FACTOR.read(&query, 0.0, &mut notices);
    let routing = Routing {
        capacity_factor: (capacity > 0.0).then_some(capacity),
        imbalance: IMBALANCE.read(&query, 1.0, &mut notices),
    };
    assert!(
        routing.pace().is_finite() && routing.pace() > 0.0,
        "{routing:?}"
    );
    assert!((0.0..=1.0).contains(&routing.dropped()), "{routing:?}");
    for notice in &notices {
        assert!(
            query.get(&notice.key).is_some(),
            "notice for absent {:?}",
            notice.key
        );
        assert!(!notice.message.is_empty());
    }

    let params = scenario.params();
    assert!(params.is_finite() && params > 0.0, "params {params}");
    let state = TrainingState::full(params, BytesPerParam::MIXED_PRECISION_ADAM).total();
    assert!(state.0.is_finite(), "state {:?}", state);
    // Under the formats asked (`precision`, `moments`): FP8 only where the
    // GPU has it, and never fewer bytes than FP8 weights and bf16 moments keep.
    let bytes = scenario.state_bytes();
    assert!(scenario.gpu.fp8.is_some() || bytes.fp8_copies == 0.0);
    assert!((11.0..=22.0).contains(&bytes.total()), "{bytes:?}");
    // The software's share of the rate (`software`) keeps it a fraction of the peak.
    let busy = scenario.rate().busy;
    assert!(busy > 0.0 && busy <= 1.0, "busy {busy}");

    // A GPU's buffers at its peak (`peak_memory.rs`), for the URL's model
    // under every recomputation and sharding: finite, never negative, and
    // the allocator reserves at least what it hands out.
    let arch = scenario.arch();
    for &recompute in Recompute::ALL {
        let setup = ActivationSetup {
            seq: f64::from(arch.seq),
            micro_batch: 1.0,
            tensor_parallel: 8,
            sequence_parallel: true,
            recompute,
            attention: Attention::Flash,
            fp8_inputs: scenario.numerics().fp8_inputs(),
            kept_share: scenario.software.kept_activation_share(),
        };
        // The last GPU of 8 stages, two slices each, under its software's runtime.
        let seat = PipelineSeat {
            stages: 8,
            micro_batches: 8,
            chunks: 2,
            first: false,
            last: true,
            in_flight: 8.0,
        };
        for buffer in [
            loss_buffers(&arch, &setup),
            recomputed_layer(&arch, &setup),
            sequence_gather(&arch, &setup),
            pipeline_buffers(&arch, &setup, scenario.software.pipeline_runtime(), seat).after,
        ] {
            assert!(
                buffer.0.is_finite() && buffer.0 >= 0.0,
                "{buffer:?} {setup:?}"
            );
            assert!(reserved_by_allocator(buffer).0 >= buffer.0);
        }
    }
    for &stage in ZeroStage::ALL {
        let layer = params / f64::from(arch.layers.max(1));
        for held in [
            sharding_at_the_loss(stage, bytes, layer, params - layer),
            sharding_in_a_layer(stage, bytes, layer, params - layer),
        ] {
            assert!(held.0.is_finite() && held.0 >= 0.0, "{held:?}");
        }
    }

    let mut pairs = Vec::new();
    scenario.write(&mut pairs);
    let mut again = Vec::new();
    let reread = Scenario::from_query(&Query::parse(&to_search(&pairs)), &mut again);
    assert!(again.is_empty(), "{pairs:?} gave {again:?}");
    assert_eq!(reread, scenario);
});
