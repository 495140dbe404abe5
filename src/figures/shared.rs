//! Controls for the shared keys (model, GPU, rate, FLOP count, attention
//! kernel, tokens, batch), which the scenario
//! reads and writes (`model/scenario.rs`): a figure puts them in its table
//! where it wants them shown.

use super::figure::Params;
use super::param::{set_option, Opt, Param};
use crate::model::activations::Attention;
use crate::model::choice::{options, Choice};
use crate::model::compute::FlopCount;
use crate::model::precision::{Moments, Precision};
use crate::model::presets::{gpu_preset, gpu_sources, model_preset, model_sources, GPUS, MODELS};
use crate::model::scenario::{Scenario, BATCH, BUSY, TOKENS};
use crate::model::software::Software;
use crate::model::units::{format_ratio, Count};

/// The model as a sentence's subject names it: "Llama 2 7B, 6.74B
/// parameters," or, when the URL sets another size, "A custom model of
/// 1,000T parameters, shaped like Llama 2 7B,".
pub fn model_phrase(scenario: &Scenario) -> String {
    let psi = Count(scenario.params());
    let name = scenario.model.name;
    if scenario
        .params_override
        .is_some_and(|p| p != scenario.model.params())
    {
        format!("A custom model of {psi} parameters, shaped like {name},")
    } else {
        format!("{name}, {psi} parameters,")
    }
}

fn models() -> Vec<Opt> {
    MODELS.iter().map(|m| (m.id, m.name)).collect()
}

fn gpus() -> Vec<Opt> {
    GPUS.iter().map(|g| (g.id, g.name)).collect()
}

/// The model preset, with where each preset's numbers come from.
pub const fn model<P: Params>() -> Param<P> {
    Param::choice(
        "model",
        "Model",
        models,
        |p: &P| p.scenario().map_or("", |s| s.model.id),
        |p: &mut P, id| {
            if let (Some(scenario), Some(model)) = (p.scenario_mut(), model_preset(id)) {
                scenario.model = model;
            }
        },
    )
    .select(Some(model_sources))
    .shared()
}

/// The GPU preset, with where each preset's numbers come from.
pub const fn gpu<P: Params>() -> Param<P> {
    Param::choice(
        "gpu",
        "GPU",
        gpus,
        |p: &P| p.scenario().map_or("", |s| s.gpu.id),
        |p: &mut P, id| {
            if let (Some(scenario), Some(gpu)) = (p.scenario_mut(), gpu_preset(id)) {
                scenario.gpu = gpu;
            }
        },
    )
    .select(Some(gpu_sources))
    .shared()
}

/// What a time assumes, to show beside it: `at 53% of 989 TFLOP/s`, or
/// with `tflops` given, `at 400 TFLOP/s sustained`; then [`fp8_note`].
pub fn rate_note(scenario: &Scenario) -> String {
    let rate = scenario.rate();
    let at = if scenario.tflops_override.is_some() {
        format!("at {} sustained", rate.peak)
    } else {
        format!("at {} of {}", percent(rate.busy), rate.peak)
    };
    at + &fp8_note(scenario)
}

/// The rate whole runs on the GPU sustained, in words: `at 35% of 989
/// TFLOP/s over a whole run, ...`; then [`fp8_note`].
pub fn whole_run_note(scenario: &Scenario) -> String {
    let share = scenario.gpu.whole_run.unwrap_or(0.0) * scenario.software.busy_share();
    format!(
        "at {} of {} over a whole run, as {} give it (restarts, evaluation and communication included)",
        percent(share),
        scenario.gpu.peak,
        scenario.gpu.whole_run_basis()
    ) + &fp8_note(scenario)
}

/// How much faster FP8 runs the layers' multiplies, as every figure's rate
/// takes it (`Scenario::sustained`), said after a rate; empty without FP8.
pub fn fp8_note(scenario: &Scenario) -> String {
    let numerics = scenario.numerics();
    if !numerics.fp8() {
        return String::new();
    }
    format!(
        ", the layers' matrix multiplies in FP8 {} as fast (FP8's peak is {} BF16's; fitted to {}, a run gets {} of the difference)",
        format_ratio(numerics.matmul_gain(), 2),
        format_ratio(numerics.peaks_ratio(), 2),
        scenario.software.fitted_to(),
        numerics.fp8_gain_share,
    )
}

/// A fraction as a percentage to at most one decimal: `40%`, `42.5%`.
pub fn percent(fraction: f64) -> String {
    format!("{}%", (fraction * 1000.0).round() / 10.0)
}

/// The fraction of the GPU's peak sustained while it computes; hidden
/// while the URL's `tflops` sets the rate itself (the time readouts then
/// say so) or the planner's `step-mfu` gives a published MFU instead.
pub const fn busy<P: Params>() -> Param<P> {
    Param::number(
        "Share of peak while computing",
        BUSY,
        |p: &P| p.scenario().map_or(1.0, |s| s.rate().busy),
        |p: &mut P, value| {
            if let Some(scenario) = p.scenario_mut() {
                scenario.busy_override = Some(value);
            }
        },
    )
    .slider(
        BUSY.min,
        |_| BUSY.max,
        0.01,
        |busy| format!("{} of peak", percent(busy)),
    )
    .shown_when(|p: &P| {
        p.scenario()
            .is_some_and(|s| s.tflops_override.is_none() && s.step_mfu.is_none())
    })
    .shared()
}

/// How training FLOP are counted.
pub const fn flop<P: Params>() -> Param<P> {
    Param::choice(
        "flop",
        "FLOP count",
        options::<FlopCount>,
        |p: &P| p.scenario().map_or("", |s| s.flop.id()),
        |p: &mut P, id| {
            if let Some(scenario) = p.scenario_mut() {
                set_option(&mut scenario.flop, id);
            }
        },
    )
    .toggle()
    .shared()
}

/// The weights' format in the passes; offered where the GPU has FP8.
pub const fn precision<P: Params>() -> Param<P> {
    Param::choice(
        "precision",
        "Weights in the passes",
        options::<Precision>,
        |p: &P| p.scenario().map_or("", |s| s.precision.id()),
        |p: &mut P, id| {
            if let Some(scenario) = p.scenario_mut() {
                set_option(&mut scenario.precision, id);
            }
        },
    )
    .toggle()
    .shown_when(|p: &P| p.scenario().is_some_and(|s| s.gpu.fp8.is_some()))
    .shared()
}

/// Adam's moments' format.
pub const fn moments<P: Params>() -> Param<P> {
    Param::choice(
        "moments",
        "Adam's moments",
        options::<Moments>,
        |p: &P| p.scenario().map_or("", |s| s.moments.id()),
        |p: &mut P, id| {
            if let Some(scenario) = p.scenario_mut() {
                set_option(&mut scenario.moments, id);
            }
        },
    )
    .toggle()
    .shared()
}

/// The training software, which sets the rate's defaults: the share of
/// peak while computing and FP8's speed (`model/software.rs`).
pub const fn software<P: Params>() -> Param<P> {
    Param::choice(
        "software",
        "Training software",
        options::<Software>,
        |p: &P| p.scenario().map_or("", |s| s.software.id()),
        |p: &mut P, id| {
            if let Some(scenario) = p.scenario_mut() {
                let before = scenario.software;
                set_option(&mut scenario.software, id);
                // Its fitted share replaces one the reader set: else a
                // software chosen after the slider would change nothing.
                if scenario.software != before {
                    scenario.busy_override = None;
                }
            }
        },
    )
    // Four long names: a list, which a phone's width keeps whole.
    .select(None)
    .help("Sets the share of peak while computing (replacing one set by hand) and FP8's speed, fitted to that software's measured runs (DeepSeek's takes Megatron-LM's), and what it keeps in memory: Megatron-LM keeps FP8 copies of the weights, torchtitan and DeepSeek do not; under torch.compile torchtitan's runs reserve less than eager ones, by a share fitted to its measured pairs.")
    .shared()
}

/// The attention kernel; the model's own is kept as no override.
pub const fn attention<P: Params>() -> Param<P> {
    Param::choice(
        "attention",
        "Attention kernel",
        options::<Attention>,
        |p: &P| p.scenario().map_or("", |s| s.attention().id()),
        |p: &mut P, id| {
            if let (Some(scenario), Some(kernel)) = (p.scenario_mut(), Attention::from_id(id)) {
                scenario.attention_override =
                    (kernel != scenario.model.attention).then_some(kernel);
            }
        },
    )
    .toggle()
    .shared()
}

/// The global batch, in sequences.
pub const fn batch<P: Params>() -> Param<P> {
    Param::number(
        "Global batch (sequences)",
        BATCH,
        |p: &P| p.scenario().map_or(0.0, |s| s.batch),
        |p: &mut P, value| {
            if let Some(scenario) = p.scenario_mut() {
                scenario.batch = value;
            }
        },
    )
    .text_box()
    .shared()
}

/// Training tokens, on a log-scale slider over the whole accepted range,
/// 1B to 1,000T, ticked where the prose and the seeds go: 1T, 2T (the
/// default) and 15T (Llama 3's run).
pub const fn tokens<P: Params>() -> Param<P> {
    Param::number(
        "Training tokens",
        TOKENS,
        |p: &P| p.scenario().map_or(0.0, |s| s.tokens),
        |p: &mut P, value| {
            if let Some(scenario) = p.scenario_mut() {
                scenario.tokens = value;
            }
        },
    )
    .log_slider(|tokens| Count(tokens).to_string(), &[1e12, 2e12, 15e12])
    .shared()
}

/// Training tokens typed in, 1B to 1,000T (`15.6T`): beside the slider, or
/// alone where figures take numbers in boxes.
pub const fn tokens_typed<P: Params>(label: &'static str) -> Param<P> {
    Param::number(
        label,
        TOKENS,
        |p: &P| p.scenario().map_or(0.0, |s| s.tokens),
        |p: &mut P, value| {
            if let Some(scenario) = p.scenario_mut() {
                scenario.tokens = value;
            }
        },
    )
    .text_box()
    .shared()
}
