//! A labelled group of mutually exclusive options, drawn as segmented
//! buttons. Native radio inputs underneath: arrow keys move the choice and
//! screen readers announce "2 of 4".

use leptos::prelude::*;

use super::scope::control_id;

#[component]
pub fn Toggle(
    /// Visible label of the group, its accessible name.
    label: &'static str,
    /// The URL key this control writes, published as `data-param`.
    param: &'static str,
    /// (id, text) of each option, in order; the id is what the URL holds.
    options: Vec<(String, String)>,
    /// The id of the selected option.
    #[prop(into)]
    selected: Signal<String>,
    /// Called with the id the reader picks.
    on_change: Callback<String>,
) -> impl IntoView {
    let name = control_id(param);
    view! {
        <fieldset class="control control--toggle" data-param=param>
            <legend class="control__label">{label}</legend>
            <div class="control__segments">
                {options
                    .into_iter()
                    .map(|(value, text)| {
                        let checked_value = value.clone();
                        let id = format!("{name}-{value}");
                        view! {
                            <input
                                class="control__radio"
                                type="radio"
                                id=id.clone()
                                name=name.clone()
                                value=value.clone()
                                data-param=param
                                prop:checked=move || selected.with(|s| *s == checked_value)
                                on:change=move |_| on_change.run(value.clone())
                            />
                            <label class="control__segment" for=id>{text}</label>
                        }
                    })
                    .collect_view()}
            </div>
        </fieldset>
    }
}
