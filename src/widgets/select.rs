//! A labelled native `<select>` for a preset or a mode.

use leptos::prelude::*;

use super::scope::control_id;
use crate::hooks::{use_scoped, use_scoped_memo};

#[component]
pub fn Select(
    /// Visible label, also the select's accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// (id, text) of each option, in order.
    options: Vec<(&'static str, &'static str)>,
    /// The id of the selected option.
    #[prop(into)]
    selected: Signal<String>,
    /// Called with the id the reader picks.
    on_change: Callback<String>,
    /// (id, where its numbers come from) for the options that are presets:
    /// the selected one's source shows on hover and in a "Source" disclosure.
    #[prop(optional)]
    sources: Vec<(&'static str, &'static str)>,
) -> impl IntoView {
    let selected = use_scoped(selected);
    let id = control_id(param);
    // A memo: the disclosure is rebuilt only when the source itself changes.
    let source = use_scoped_memo(move |_| {
        selected.with(|s| {
            sources
                .iter()
                .find(|(id, _)| id == s)
                .map(|(_, source)| *source)
        })
    });
    view! {
        <div class="control control--choice">
            <label class="control__label" for=id.clone()>{label}</label>
            <select
                id=id
                class="control__select"
                title=move || source.get()
                data-param=param
                prop:value=move || selected.get()
                on:change=move |event| on_change.run(event_target_value(&event))
            >
                {options
                    .into_iter()
                    .map(|(value, text)| {
                        view! { <option value=value selected=move || selected.with(|s| s == value)>{text}</option> }
                    })
                    .collect_view()}
            </select>
            {move || source.get().map(|source| view! {
                <details class="control__source">
                    <summary>"Source"</summary>
                    <p>{source}</p>
                </details>
            })}
        </div>
    }
}
