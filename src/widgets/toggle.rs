//! A labelled group of mutually exclusive options, drawn as segmented
//! buttons, and a row of preset buttons. Native radio inputs underneath the
//! segments: arrow keys move the choice and screen readers announce "2 of 4".

use leptos::prelude::*;

use super::scope::control_id;
use crate::hooks::use_scoped;

#[component]
pub fn Toggle(
    /// Visible label of the group, its accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// (id, text) of each option, in order; the id is what the URL holds.
    options: Vec<(&'static str, &'static str)>,
    /// The id of the selected option.
    #[prop(into)]
    selected: Signal<String>,
    /// Called with the id the reader picks.
    on_change: Callback<String>,
) -> impl IntoView {
    let selected = use_scoped(selected);
    let name = control_id(param);
    view! {
        <fieldset class="control control--toggle" data-param=param>
            <legend class="control__label">{label}</legend>
            <div class="control__segments">
                {options
                    .into_iter()
                    .map(|(value, text)| {
                        let id = format!("{name}-{value}");
                        view! {
                            <input
                                class="control__radio"
                                type="radio"
                                id=id.clone()
                                name=name.clone()
                                value=value
                                data-param=param
                                prop:checked=move || selected.with(|s| s == value)
                                on:change=move |_| on_change.run(value.to_string())
                            />
                            <label class="control__segment" for=id>{text}</label>
                        }
                    })
                    .collect_view()}
            </div>
        </fieldset>
    }
}

/// Buttons that each apply one option (a named layout); the one matching
/// the current state shows as pressed.
#[component]
pub fn Buttons(
    /// Visible label of the group, its accessible name.
    label: &'static str,
    /// The URL key the options stand for, published as `data-param`.
    param: &'static str,
    /// (id, text) of each option.
    options: Vec<(&'static str, &'static str)>,
    /// The id of the option the state matches, if any.
    #[prop(into)]
    selected: Signal<String>,
    /// Called with the id of the button pressed.
    on_change: Callback<String>,
) -> impl IntoView {
    let selected = use_scoped(selected);
    view! {
        <div class="control control--buttons" role="group" aria-label=label>
            <span class="control__label" aria-hidden="true">{label}</span>
            <div class="control__buttons">
                {options
                    .into_iter()
                    .map(|(value, text)| {
                        view! {
                            <button
                                type="button"
                                class="button"
                                data-param=param
                                data-preset=value
                                aria-pressed=move || selected.with(|s| s == value).to_string()
                                on:click=move |_| on_change.run(value.to_string())
                            >
                                {text}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
        </div>
    }
}
