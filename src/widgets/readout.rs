//! One number a figure shows, with the attributes the spec publishes:
//! `data-readout` (its id) and `data-value` (exact, in base units).

use leptos::prelude::*;

use crate::figures::ReadoutData;

#[component]
pub fn Readout(
    /// The readout's id, label, exact value and formatted text.
    #[prop(into)]
    data: Signal<ReadoutData>,
) -> impl IntoView {
    view! {
        <div
            class="readout"
            data-readout=move || data.with(|d| d.id)
            data-value=move || data.with(|d| d.value.to_string())
        >
            <span class="readout__label">{move || data.with(|d| d.label.clone())}</span>
            <span class="readout__value">{move || data.with(|d| d.text.clone())}</span>
        </div>
    }
}
