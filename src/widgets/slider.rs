//! A labelled native range input paired with its value text.
//!
//! A native `<input type="range">` gives keyboard (arrows, Page Up/Down,
//! Home/End) and screen-reader support for free; `aria-valuetext` makes the
//! reader announce "2.00T" rather than "2000000000000".

use leptos::prelude::*;

use super::scope::control_id;

#[component]
pub fn Slider(
    /// Visible label, also the input's accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// Smallest value, in the parameter's base unit.
    min: f64,
    /// Largest value, in the parameter's base unit (may grow to fit a value from the URL).
    #[prop(into)]
    max: Signal<f64>,
    /// Step between positions, in the parameter's base unit.
    step: f64,
    /// Current value, in the parameter's base unit.
    #[prop(into)]
    value: Signal<f64>,
    /// The value formatted for people.
    #[prop(into)]
    text: Signal<String>,
    /// Called with each new value as the reader drags (base unit).
    on_input: Callback<f64>,
) -> impl IntoView {
    let id = control_id(param);
    view! {
        <div class="control control--slider">
            <label class="control__label" for=id.clone()>{label}</label>
            <input
                id=id.clone()
                class="control__range"
                type="range"
                data-param=param
                min=min
                max=move || max.get()
                step=step
                prop:value=move || value.get()
                aria-valuetext=move || text.get()
                on:input=move |event| {
                    if let Ok(parsed) = event_target_value(&event).parse::<f64>() {
                        on_input.run(parsed);
                    }
                }
            />
            <output class="control__value" for=id>{move || text.get()}</output>
        </div>
    }
}
