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

/// A figure's row of readouts, each picked from the figure's computed data,
/// so each updates on its own when the data changes.
#[component]
pub fn ReadoutPanel<D>(
    /// The figure's computed data.
    data: Memo<D>,
    /// Which readouts to show, in order.
    picks: Vec<fn(&D) -> ReadoutData>,
) -> impl IntoView
where
    D: PartialEq + Send + Sync + 'static,
{
    view! {
        <div class="figure__readouts">
            {picks
                .into_iter()
                .map(|pick| view! { <Readout data=Signal::derive(move || data.with(pick))/> })
                .collect_view()}
        </div>
    }
}

/// The "In words" text alternative of a figure, announced as it changes.
#[component]
pub fn InWords(
    /// The sentence describing the figure's current state.
    #[prop(into)]
    text: Signal<String>,
) -> impl IntoView {
    view! {
        <p class="figure__in-words" aria-live="polite">
            <strong>"In words. "</strong>
            {move || text.get()}
        </p>
    }
}
