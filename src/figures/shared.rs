//! Controls for the shared keys (model, GPU, tokens), which the scenario
//! reads and writes (`model/scenario.rs`): a figure puts them in its table
//! where it wants them shown.

use super::figure::Params;
use super::param::{Opt, Param};
use crate::model::presets::{gpu_preset, gpu_sources, model_preset, model_sources, GPUS, MODELS};
use crate::model::scenario::{Scenario, TOKENS};
use crate::model::units::Count;

/// The model as a sentence's subject names it: "Llama 2 7B, 6.74B
/// parameters," or, when the URL sets another size, "A custom model of
/// 1,000T parameters, shaped like Llama 2 7B,".
pub fn model_phrase(scenario: &Scenario) -> String {
    let psi = Count(scenario.params());
    let name = scenario.model.name;
    if scenario
        .params_override
        .is_some_and(|p| p != scenario.model.arch.parameter_count())
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

/// Training tokens, on a slider in steps of 50B.
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
    .slider(
        TOKENS.min,
        |_| TOKENS.max,
        50e9,
        |tokens| Count(tokens).to_string(),
    )
    .shared()
}
