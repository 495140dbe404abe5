//! The planner's equations with the current values: the most loaded GPU's
//! state and activations, and the step's time.

use super::*;

/// The most loaded GPU's state (its Ψ_s parameters under the stage's
/// formula), its activations, n_f micro-batches of its L_s layers and the
/// embedding's (and with one stage the output layer's), and the step time.
pub(super) fn equations(plan: &Plan, estimate: &PlanEstimate, d: &PlannerData) -> Vec<Equation> {
    let p = plan.pipeline.max(1);
    let setup = plan.activation_setup();
    // The first stage's layers: fewer than ⌈L/p⌉ when the ends are lighter.
    let layers = plan.stage_ranges().first().map_or(0, |r| r.end - r.start);
    let flight = in_flight(plan.schedule, p, estimate.micro_batches, plan.chunks);
    let activations = d
        .memory
        .segments
        .iter()
        .find(|s| s.readout.id == "activations")
        .map(|s| s.readout.clone());
    let times = || Piece::Op("×");
    let result = Bytes(activations.as_ref().map_or(0.0, |a| a.value));
    let bytes = |b: Bytes, by: f64| equations::multiplied(b, flight * by, result);
    let mut symbol = vec![
        Piece::Var("n", "f", "schedule"),
        Piece::Group(vec![
            Piece::Var("L", "s", "pp"),
            var("a", "recompute"),
            Piece::Op("+"),
            var("e", ""),
        ]),
    ];
    let mut value = vec![
        // Interleaved schedules hold a fraction of a micro-batch more: to the digits the product needs.
        num(within(
            flight,
            result.half_unit() / (10.0 * result.0.max(1.0)) * flight,
        )),
        times(),
        Piece::Group(vec![
            num(layers),
            times(),
            bytes(per_layer(&plan.arch, &setup), layers as f64),
            Piece::Op("+"),
            bytes(embedding(&plan.arch, &setup), 1.0),
        ]),
    ];
    if p == 1 {
        symbol.extend([Piece::Op("+"), var("o", "")]);
        value.extend([Piece::Op("+"), bytes(output_layer(&plan.arch, &setup), 1.0)]);
    }
    let (dense_shards, expert_shards) = plan.shards();
    let loaded = plan.loaded_stage();
    let mut all = vec![if plan.arch.experts > 1 {
        equations::state_split(
            plan.state_bytes(),
            plan.stage,
            (dense_shards, expert_shards),
            (loaded.dense, loaded.experts),
            &d.state_per_gpu,
        )
    } else {
        equations::state(
            plan.state_bytes(),
            plan.stage,
            if plan.context > 1 {
                ("d·cp", "cp", dense_shards)
            } else {
                ("d", "gpus", dense_shards)
            },
            vec![Piece::Var("Ψ", "s", "params")],
            vec![Piece::Sci(loaded.total())],
            &d.state_per_gpu,
        )
    }];
    if let Some(activations) = activations {
        all.push(Equation {
            words: format!(
                "Activations on the first stage: n_f micro-batches in flight, each L_s layers of a bytes and the embedding's e{}: {}",
                if p == 1 { ", plus the output layer's o" } else { "" },
                activations.text
            ),
            left: vec![var("A", "activations")],
            rows: vec![symbol, value, equations::result(&activations)],
        });
    }
    // Seconds to three figures, as the row's other numbers.
    let seconds = |value: f64| [num(significant(value, 3)), Piece::Unit("s")];
    let step = &estimate.breakdown;
    // With a pipeline the slowest stage's share w sets the pace.
    let paced = plan.pipeline > 1;
    let mut flop = vec![Piece::Sci(estimate.step_flop.value()), Piece::Unit("FLOP")];
    let mut step_flop = vec![Piece::Var("C", "step", "")];
    if paced {
        flop.extend([times(), num(significant(estimate.pace, 4))]);
        step_flop.push(var("w", "pp"));
    }
    // FP8 leaves the arithmetic this share f of its BF16 time.
    let fp8 = estimate.time_share < 1.0;
    if fp8 {
        flop.extend([times(), num(significant(estimate.time_share, 3))]);
        step_flop.push(var("f", "precision"));
    }
    let mut arithmetic = vec![Piece::Frac(
        flop,
        vec![
            num(group_thousands(f64::from(plan.gpus_used()))),
            times(),
            // The rate used: with `step-mfu` given, the one that gives it.
            Piece::Sci(plan.rate.peak.value() * estimate.busy),
            Piece::Unit("FLOP/s"),
        ],
    )];
    arithmetic.push(Piece::Op("+"));
    arithmetic.extend(seconds(step.tensor + step.exchange));
    let mut values = vec![Piece::Frac(
        arithmetic,
        vec![Piece::Group(vec![
            num(1),
            Piece::Op("−"),
            Piece::Value(d.bubble.text.clone(), "bubble"),
        ])],
    )];
    values.push(Piece::Op("+"));
    values.extend(seconds(step.data));
    all.push(Equation {
        words: format!(
            "A step: its FLOP{} over N GPUs at rate X and the communication layers wait for, over one minus the \
             bubble, plus the data-parallel reduction left when the backward pass ends: {}",
            if fp8 { ", times f, the share of its BF16 time FP8 leaves," } else { "" },
            d.step_time.text
        ),
        left: vec![Piece::Var("T", "step", "step-time")],
        rows: vec![
            vec![
                Piece::Frac(
                    vec![
                        Piece::Frac(
                            step_flop,
                            vec![var("N", "gpus"), var("X", "gpu busy-util")],
                        ),
                        Piece::Op("+"),
                        Piece::Var("T", "comm", ""),
                    ],
                    vec![Piece::Group(vec![num(1), Piece::Op("−"), var("b", "bubble")])],
                ),
                Piece::Op("+"),
                Piece::Var("T", "dp", ""),
            ],
            values,
            equations::result(&d.step_time),
        ],
    });
    all
}
