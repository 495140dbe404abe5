//! Native timings of the estimator (Criterion): the whole computation behind
//! each figure, at its defaults and at its largest, and the pipeline
//! simulator at 8 stages and 64 micro-batches for every schedule. The budget
//! is 50 µs for each (issue #6). Run with `cargo bench --bench estimator`
//! (or `bash bench/run`, which runs it first). Native only: for wasm32 (the
//! wasm lints build every target) it is empty.
#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use parallax::figures::{
    bubble, checkpoint_lab, data_parallel, pipeline_parallel, planner, tensor_parallel, three_d,
    why, zero,
};
use parallax::model::pipeline::Schedule;
use parallax::model::query::Query;
use parallax::model::schedule::simulate;

/// A figure's parameters read from a query string, as the app reads its URL.
fn from_url<P>(search: &str, read: fn(&Query, &mut Vec<parallax::model::query::Notice>) -> P) -> P {
    let mut notices = Vec::new();
    let params = read(&Query::parse(search), &mut notices);
    assert!(notices.is_empty(), "{search}: {notices:?}");
    params
}

fn figures(c: &mut Criterion) {
    let mut group = c.benchmark_group("figure data");
    let why = why::WhyParams::default();
    group.bench_function("why", |b| b.iter(|| why::data(black_box(&why))));
    let dp = from_url("gpus=64", data_parallel::DpParams::from_query);
    group.bench_function("dp 64 GPUs", |b| {
        b.iter(|| data_parallel::data(black_box(&dp)))
    });
    let zero = from_url("gpus=4096&stage=3", zero::ZeroParams::from_query);
    group.bench_function("zero 4,096 GPUs", |b| {
        b.iter(|| zero::data(black_box(&zero)))
    });
    let tp = from_url("tp=8", tensor_parallel::TpParams::from_query);
    group.bench_function("tp 8", |b| b.iter(|| tensor_parallel::data(black_box(&tp))));
    for schedule in Schedule::ALL {
        let pp = from_url(
            &format!("pp=8&micro=64&schedule={}", schedule.id()),
            pipeline_parallel::PpParams::from_query,
        );
        group.bench_function(format!("pp 8x64 {}", schedule.id()), |b| {
            b.iter(|| pipeline_parallel::data(black_box(&pp)))
        });
        group.bench_function(format!("bubble 8x64 {}", schedule.id()), |b| {
            b.iter(|| bubble::data(black_box(&pp)))
        });
    }
    let grid = from_url("tp=8&pp=16&dp=1024", three_d::ThreeDParams::from_query);
    group.bench_function("3d largest", |b| b.iter(|| three_d::data(black_box(&grid))));
    let plan = from_url(
        "params=175B&gpus=1024&stage=1&tp=8&pp=8&recompute=selective",
        planner::PlannerParams::from_query,
    );
    group.bench_function("planner 175B", |b| {
        b.iter(|| planner::data(black_box(&plan)))
    });
    let lab = checkpoint_lab::LabParams::default();
    group.bench_function("checkpoint predictions", |b| {
        b.iter(|| checkpoint_lab::data(black_box(&lab), &[]))
    });
    group.finish();
}

fn simulator(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline simulator 8x64");
    for schedule in Schedule::ALL {
        group.bench_function(schedule.id(), |b| {
            b.iter(|| simulate(black_box(schedule), 8, 64, 2))
        });
    }
    group.finish();
}

criterion_group!(benches, figures, simulator);
criterion_main!(benches);
