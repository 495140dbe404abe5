//! A labelled native range input paired with its value text.
//!
//! A native `<input type="range">` gives keyboard (arrows, Page Up/Down,
//! Home/End) and screen-reader support for free; `aria-valuetext` makes the
//! reader announce "2.00T" rather than "2000000000000".

use leptos::prelude::*;

use super::scope::control_id;
use crate::hooks::use_scoped;

#[component]
pub fn Slider(
    /// Visible label, also the input's accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// Smallest position (the parameter's base unit, or its log10 on a log-scale slider).
    #[prop(into)]
    min: Signal<f64>,
    /// Largest value, in the parameter's base unit (may grow to fit a value from the URL).
    #[prop(into)]
    max: Signal<f64>,
    /// Step between positions.
    #[prop(into)]
    step: Signal<f64>,
    /// Current value, in the parameter's base unit.
    #[prop(into)]
    value: Signal<f64>,
    /// The value formatted for people.
    #[prop(into)]
    text: Signal<String>,
    /// Called with each new value as the reader drags (base unit).
    on_input: Callback<f64>,
    /// Positions marked with a tick (the values the prose names).
    #[prop(optional)]
    ticks: Vec<f64>,
) -> impl IntoView {
    // The control may be dropped (one shown only with some settings): it
    // reads its inputs through memos that leave with it.
    let [min, max, step, value] = [min, max, step, value].map(use_scoped);
    let text = use_scoped(text);
    let id = control_id(param);
    let list = (!ticks.is_empty()).then(|| format!("{id}-ticks"));
    let marks = list.clone().map(|list| {
        view! {
            <datalist id=list>
                {ticks.into_iter().map(|tick| view! { <option value=tick.to_string()></option> }).collect_view()}
            </datalist>
        }
    });
    view! {
        <div class="control control--slider">
            <label class="control__label" for=id.clone()>{label}</label>
            <input
                id=id.clone()
                class="control__range"
                type="range"
                list=list
                data-param=param
                min=move || min.get()
                max=move || max.get()
                step=move || step.get()
                // Set again whenever the range moves (a slider widening to
                // a value from the URL), after it: the browser clamps a value to the old range.
                prop:value=move || {
                    min.track();
                    max.track();
                    value.get()
                }
                aria-valuetext=move || text.get()
                on:input=move |event| {
                    if let Ok(parsed) = event_target_value(&event).parse::<f64>() {
                        on_input.run(parsed);
                    }
                }
            />
            <output class="control__value" for=id>{move || text.get()}</output>
            {marks}
        </div>
    }
}
