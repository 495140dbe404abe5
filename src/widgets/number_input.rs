//! A labelled text box for a number written the way people write them
//! (`70B`, `2e12`, `4096`), checked as the reader types.

use leptos::prelude::*;

use super::scope::control_id;

use crate::model::number::parse_number;

#[component]
pub fn NumberInput(
    /// Visible label, also the input's accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// The value as shown when the reader is not typing.
    #[prop(into)]
    text: Signal<String>,
    /// Checks a parsed value: `Ok` to accept it, `Err` with a reason to show.
    check: Callback<f64, Result<(), String>>,
    /// Called with each accepted value (in the parameter's base unit).
    on_change: Callback<f64>,
) -> impl IntoView {
    let id = control_id(param);
    let error_id = format!("{id}-error");
    let error = RwSignal::new(None::<String>);
    view! {
        <div class="control control--number">
            <label class="control__label" for=id.clone()>{label}</label>
            <input
                id=id
                class="control__text"
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                data-param=param
                aria-describedby=error_id.clone()
                aria-invalid=move || error.with(|e| e.is_some()).to_string()
                prop:value=move || text.get()
                on:change=move |event| {
                    let raw = event_target_value(&event);
                    let outcome = parse_number(&raw)
                        .map_err(|reason| format!("“{}” is not a number: {reason}.", raw.chars().take(24).collect::<String>()))
                        .and_then(|value| check.run(value).map(|()| value));
                    match outcome {
                        Ok(value) => {
                            error.set(None);
                            on_change.run(value);
                        }
                        Err(reason) => error.set(Some(reason)),
                    }
                }
            />
            <span class="control__error" id=error_id role="status">{move || error.get()}</span>
        </div>
    }
}
