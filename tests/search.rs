//! The layout search, natively, against published facts rather than its
//! own candidates: for GPT-3 175B on 1,024 A100s (batch 1,536, sequence
//! 2,048) Narayanan et al. 2021 found tensor parallelism best at the GPUs of
//! one node (section 5.4.1: t = 8) and PTD-P ahead of ZeRO-3 (section 5.2);
//! PyTorch FSDP can run ZeRO-2 with a pipeline.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::model::memory::ZeroStage;
use parallax::model::planner::Plan;
use parallax::model::query::Query;
use parallax::model::search::{search, Rejection, KEEP, TIED_WITHIN};

fn gpt3_on_1024() -> Plan {
    let query = "model=gpt3-175b&gpu=a100-80gb&gpus=1024&batch=1536&seq=2048";
    PlannerParams::from_query(&Query::parse(query), &mut Vec::new()).plan()
}

/// Narayanan et al. 2021, section 5.4.1: with the GPUs of a node at 8, the
/// best tensor-parallel degree for GPT-3 is 8; the published run's
/// pipeline is 16 stages (Megatron-LM's README), and section 3.3's
/// takeaway 2 keeps t·p no larger than the model needs: the first layout
/// has t 8 and at most 16 stages (issue 36).
#[test]
fn the_best_gpt3_layout_is_the_published_kind() {
    let result = search(&gpt3_on_1024());
    let best = result.best.first().expect("some layout fits");
    assert_eq!(best.plan.tensor, 8, "{:?}", best.plan);
    assert!(best.plan.pipeline <= 16, "{:?}", best.plan);
}

/// ZeRO-3 gathers the weights for every micro-batch: the layout the search
/// used to recommend (t 4, p 1, d 256, ZeRO-3, micro-batch 1: six
/// micro-batches a step) sends 6 × (2 + 2 + 2) bytes for each of its 175e9/4
/// parameters, 255/256 of them, a step (Rajbhandari et al. 2020, 7.2.2).
#[test]
fn zero_3_pays_for_every_micro_batch() {
    let base = gpt3_on_1024();
    let zero3 = Plan {
        tensor: 4,
        pipeline: 1,
        stage: ZeroStage::Three,
        activations: parallax::model::activations::ActivationSetup {
            micro_batch: 1.0,
            tensor_parallel: 4,
            sequence_parallel: true,
            ..base.activations
        },
        ..base
    };
    let estimate = zero3.estimate();
    assert_eq!(estimate.micro_batches, 6);
    let psi = zero3.loaded_stage().dense;
    let expected = 6.0 * 6.0 * psi * 255.0 / 256.0;
    let tensor_and_boundary = estimate.traffic.value() - expected;
    assert!(tensor_and_boundary >= 0.0, "{}", estimate.traffic.value());
    let data_only =
        parallax::model::comm::data_parallel_sent(zero3.bytes, psi, 256, ZeroStage::Three, 6);
    assert!((data_only.value() / expected - 1.0).abs() < 1e-12);
}

/// Layouts within the model's error of the fastest are tied and listed as
/// Narayanan et al. 2021 advise (section 3.3, takeaway 2): the smallest
/// model-parallel group t·p first, then the fewest stages, then the most
/// memory to spare; the rest follow by step.
#[test]
fn ties_are_ordered_as_narayanan_et_al_advise() {
    let result = search(&gpt3_on_1024());
    assert_eq!(result.best.len(), KEEP);
    let fastest = result
        .best
        .iter()
        .map(|f| f.step())
        .fold(f64::INFINITY, f64::min);
    for found in &result.best {
        assert_eq!(found.tied, found.step() <= fastest * (1.0 + TIED_WITHIN));
    }
    let tied: Vec<_> = result.best.iter().take_while(|f| f.tied).collect();
    assert!(result.best[tied.len()..].iter().all(|f| !f.tied));
    let advised =
        |f: &&parallax::model::search::Found| (f.plan.tensor * f.plan.pipeline, f.plan.pipeline);
    for pair in tied.windows(2) {
        let (a, b) = (advised(&pair[0]), advised(&pair[1]));
        assert!(a < b || (a == b && pair[0].headroom() >= pair[1].headroom()));
    }
    let rest = &result.best[tied.len()..];
    assert!(rest.windows(2).all(|w| w[0].step() <= w[1].step()));
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

/// Llama 3 405B on 16,384 H100s (batch 2,048 sequences of 8,192): Meta
/// trained it at t 8, p 16, d 128 (Llama Team 2024, Table 4), 126 layers on
/// 16 stages with the end stages a layer short (section 3.3.2). The search
/// tries stage counts that do not divide the layers, and Meta's layout is
/// among the tied best.
#[test]
fn llama_3s_own_layout_is_among_the_tied_best() {
    let query = "model=llama3-405b&gpu=h100-sxm&gpus=16384&batch=2048&flop=6nd-attn";
    let plan = PlannerParams::from_query(&Query::parse(query), &mut Vec::new()).plan();
    let result = search(&plan);
    assert!(
        result
            .best
            .iter()
            .any(|f| f.tied && (f.plan.tensor, f.plan.pipeline, f.estimate.data) == (8, 16, 128)),
        "{:?}",
        result
            .best
            .iter()
            .map(|f| (f.plan.tensor, f.plan.pipeline, f.estimate.data))
            .collect::<Vec<_>>()
    );
}

/// Issue 36 (filed as 26): one step time. Llama 3 70B on 256 H100s, batch
/// 512: each of the search's first layouts, entered in the planner as its
/// "Use" button enters it, shows the step the search listed, and the
/// planner's time bar adds up to that step.
#[test]
fn a_layout_used_shows_the_step_the_search_listed() {
    use parallax::model::choice::Choice;
    let base = "model=llama3-70b&gpu=h100-sxm&gpus=256&batch=512";
    let plan = PlannerParams::from_query(&Query::parse(base), &mut Vec::new()).plan();
    let result = search(&plan);
    assert!(result.best.len() >= 3);
    for found in result.best.iter().take(3) {
        let p = &found.plan;
        let query = format!(
            "{base}&tp={}&pp={}&stage={}&schedule={}&chunks={}&micro-batch={}&sp={}&recompute={}",
            p.tensor,
            p.pipeline,
            p.stage.id(),
            p.schedule.id(),
            p.chunks,
            p.activations.micro_batch,
            u8::from(p.activations.sequence_parallel),
            p.activations.recompute.id(),
        );
        let params = PlannerParams::from_query(&Query::parse(&query), &mut Vec::new());
        let data = parallax::figures::planner::data(&params);
        let step = data.step_time.value;
        assert!(
            (step / found.step() - 1.0).abs() < 1e-12,
            "{query}: {step} against {}",
            found.step()
        );
        let bar: f64 = data.step.iter().map(|part| part.time.value()).sum();
        assert!(
            (bar / step - 1.0).abs() < 1e-12,
            "{query}: the bar adds up to {bar}"
        );
    }
}

/// FSDP, unlike DeepSpeed, runs with a pipeline, in either of plain FSDP's
/// two ways for a step of m micro-batches (FSDP1's `no_sync` docstring;
/// PyTorch pull request 126166): reduce-scatter every micro-batch's
/// gradients and keep their shard, or keep whole gradients and reduce them once. The search keeps sharded
/// gradients with a pipeline for GPT-3 on 1,024 A100s, and against the same
/// layout reduced once (stage 1) it sends (m − 1) more gradient
/// reduce-scatters, g·Ψ(d − 1)/d each (g = 2 bytes at 16 a parameter), and
/// holds 1/d of the whole gradient instead of all of it.
#[test]
fn sharded_gradients_with_a_pipeline_reduce_every_micro_batch() {
    let result = search(&gpt3_on_1024());
    let sharded = result
        .best
        .iter()
        .find(|f| f.plan.pipeline > 1 && f.plan.stage == ZeroStage::Two)
        .expect("a kept layout shards gradients with a pipeline");
    let once = Plan {
        stage: ZeroStage::One,
        ..sharded.plan
    }
    .estimate();
    let every = &sharded.estimate;
    let (m, d) = (f64::from(every.micro_batches), f64::from(every.data));
    assert!(m > 1.0 && d > 1.0, "{m} micro-batches, d {d}");
    // A dense model's feed-forward layers count as its one expert's.
    let psi = sharded.plan.loaded_stage().total();
    let gradient = 2.0 * psi;
    let more = every.traffic.value() - once.traffic.value();
    assert!(
        (more / ((m - 1.0) * gradient * (d - 1.0) / d) - 1.0).abs() < 1e-9,
        "{more}"
    );
    let held = once.state.gradients.value() - every.state.gradients.value();
    assert!(
        (held / (gradient * (1.0 - 1.0 / d)) - 1.0).abs() < 1e-9,
        "{held}"
    );
}
