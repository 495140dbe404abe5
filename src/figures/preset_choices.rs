//! The model and GPU presets as choices, for every figure whose numbers
//! depend on them; each shows where its preset's numbers come from.

use leptos::prelude::*;

use super::HasScenario;
use crate::model::presets::{gpu_preset, gpu_sources, model_preset, model_sources, GPUS, MODELS};
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
    let model_choice = model.then(|| {
        let options = MODELS.iter().map(|m| (m.id, m.name.to_string())).collect();
        let set_model = Callback::new(move |id: String| {
            if let Some(model) = model_preset(&id) {
                params.update(|p| p.scenario_mut().model = model);
            }
        });
        view! {
            <Choice
                label="Model"
                param="model"
                options=options
                sources=model_sources()
                selected=Memo::new(move |_| params.with(|p| p.scenario().model.id.to_string()))
                on_change=set_model
            />
        }
    });
    let gpu_choice = gpu.then(|| {
        let options = GPUS.iter().map(|g| (g.id, g.name.to_string())).collect();
        let set_gpu = Callback::new(move |id: String| {
            if let Some(gpu) = gpu_preset(&id) {
                params.update(|p| p.scenario_mut().gpu = gpu);
            }
        });
        view! {
            <Choice
                label="GPU"
                param="gpu"
                options=options
                sources=gpu_sources()
                selected=Memo::new(move |_| params.with(|p| p.scenario().gpu.id.to_string()))
                on_change=set_gpu
            />
        }
    });
    view! { {model_choice} {gpu_choice} }
}
