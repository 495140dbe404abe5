//! Native timings of the estimator (Criterion): every figure of the
//! registry, from its URL to its readouts, at its defaults and at its
//! example; the pipeline figures at 8 stages and 64 micro-batches for every
//! schedule; and the pipeline simulator alone. The budget is 50 µs for each.
//! Run with `cargo bench --bench estimator` (or `bash bench/run`, which runs
//! it first). Native only: for wasm32 (the wasm lints build every target) it
//! is empty.
#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use parallax::figures::{find, Figure, FIGURES};
use parallax::model::choice::Choice;
use parallax::model::pipeline::Schedule;
use parallax::model::query::Query;
use parallax::model::schedule::simulate;

/// Times `figure` from the URL `search` to its readouts.
fn bench(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    figure: &Figure,
    name: String,
    search: &str,
) {
    let query = Query::parse(search);
    let mut notices = Vec::new();
    (figure.native.readouts)(&query, &mut notices);
    assert!(notices.is_empty(), "{search}: {notices:?}");
    group.bench_function(name, |b| {
        b.iter(|| (figure.native.readouts)(black_box(&query), &mut Vec::new()))
    });
}

fn figures(c: &mut Criterion) {
    let mut group = c.benchmark_group("figure readouts");
    for figure in FIGURES {
        bench(&mut group, figure, figure.slug().to_string(), "");
        bench(
            &mut group,
            figure,
            format!("{} {}", figure.slug(), figure.about.example),
            figure.about.example,
        );
    }
    for slug in ["pp", "bubble"] {
        let (_, figure) = find(slug).expect("a pipeline figure");
        for schedule in Schedule::ALL {
            let search = format!("pp=8&micro=64&schedule={}", schedule.id());
            bench(
                &mut group,
                figure,
                format!("{slug} 8x64 {}", schedule.id()),
                &search,
            );
        }
    }
    group.finish();
}

fn simulator(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline simulator 8x64");
    for &schedule in Schedule::ALL {
        group.bench_function(schedule.id(), |b| {
            b.iter(|| simulate(black_box(schedule), 8, 64, 2))
        });
    }
    group.finish();
}

criterion_group!(benches, figures, simulator);
criterion_main!(benches);
