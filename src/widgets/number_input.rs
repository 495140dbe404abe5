//! A labelled text box for a number written the way people write them
//! (`70B`, `2e12`, `4096`, `15 T`), checked when the reader
//! commits it; a value past its top is said so while it is typed.

use leptos::prelude::*;

use super::scope::control_id;
use crate::hooks::use_scoped;
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
    /// Whether a parsed value is refused, with the reason: asked at each
    /// keystroke, so "2000" for a rank of at most 255 is flagged before
    /// Enter (the caller lets a value too small wait: "1" may become "15T"). Text that does not parse yet ("7e") clears the
    /// complaint until the commit: it may be half a number, and a
    /// complaint about the "1" of "15 trillion" would no longer be true.
    check: Callback<f64, Result<(), String>>,
    /// Takes a parsed value (in the parameter's base unit): `Ok` when it
    /// was used, `Err` with the reason, in a sentence, when not.
    on_change: Callback<f64, Result<(), String>>,
    /// Beside a slider of the same key: an id of its own (`<scope>-<key>-typed`).
    #[prop(optional)]
    beside: bool,
) -> impl IntoView {
    let id = if beside {
        control_id(&format!("{param}-typed"))
    } else {
        control_id(param)
    };
    let error_id = format!("{id}-error");
    let text = use_scoped(text);
    let error = RwSignal::new(None::<String>);
    // A value set from elsewhere (another control, a preset) replaces
    // whatever was typed, and with it the complaint about it.
    Effect::new(move |_| {
        text.track();
        error.set(None);
    });
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
                on:input=move |event| {
                    let value = parse_number(&event_target_value(&event));
                    error.set(value.ok().and_then(|value| check.run(value).err()));
                }
                on:change=move |event| {
                    let raw = event_target_value(&event);
                    let quoted: String = raw.chars().take(24).collect();
                    // The figure keeps its value, and says which (a newcomer thought it had changed).
                    let outcome = parse_number(&raw)
                        .map_err(|reason| format!("“{quoted}”: {reason}; still {}.", text.get_untracked()))
                        .and_then(|value| on_change.run(value));
                    error.set(outcome.err());
                }
            />
            <span class="control__error" id=error_id role="status">{move || error.get()}</span>
        </div>
    }
}
