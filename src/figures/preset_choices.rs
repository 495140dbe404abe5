//! The model and GPU presets as choices, for every figure whose numbers
//! depend on them; each shows where its preset's numbers come from.

use leptos::prelude::*;

use super::HasScenario;
use crate::model::presets::{gpu_preset, gpu_sources, model_preset, model_sources, GPUS, MODELS};
use crate::model::scenario::Scenario;
use crate::widgets::Choice;

#[component]
pub fn PresetChoices<P>(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<P>,
    /// Whether to offer the model (the figure's numbers depend on its size).
    #[prop(default = true)]
    model: bool,
    /// Whether to offer the GPU (its memory, speed or links matter).
    #[prop(default = true)]
    gpu: bool,
) -> impl IntoView
where
    P: HasScenario + Send + Sync + 'static,
{
    // One choice: its presets as (id, name), their sources, the scenario's
    // current id, and how a picked id changes the scenario.
    let choice = move |label: &'static str,
                       param: &'static str,
                       options: Vec<(&'static str, String)>,
                       sources: Vec<(&'static str, &'static str)>,
                       current: fn(&Scenario) -> &'static str,
                       pick: fn(&mut Scenario, &str)| {
        view! {
            <Choice
                label=label
                param=param
                options=options
                sources=sources
                selected=Memo::new(move |_| params.with(|p| current(p.scenario()).to_string()))
                on_change=Callback::new(move |id: String| params.update(|p| pick(p.scenario_mut(), &id)))
            />
        }
    };
    let model_choice = model.then(|| {
        choice(
            "Model",
            "model",
            MODELS.iter().map(|m| (m.id, m.name.to_string())).collect(),
            model_sources(),
            |s| s.model.id,
            |s, id| {
                if let Some(model) = model_preset(id) {
                    s.model = model;
                }
            },
        )
    });
    let gpu_choice = gpu.then(|| {
        choice(
            "GPU",
            "gpu",
            GPUS.iter().map(|g| (g.id, g.name.to_string())).collect(),
            gpu_sources(),
            |s| s.gpu.id,
            |s, id| {
                if let Some(gpu) = gpu_preset(id) {
                    s.gpu = gpu;
                }
            },
        )
    });
    view! { {model_choice} {gpu_choice} }
}
