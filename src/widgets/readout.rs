//! One number a figure shows, with the attributes the spec publishes:
//! `data-readout` (its id) and `data-value` (exact, in base units).

use leptos::prelude::*;

use crate::figures::ReadoutData;
use crate::model::units::{ByteUnit, Bytes};

/// The unit the page shows byte counts in, provided by the app (GB when absent).
pub type ByteUnitSetting = Signal<ByteUnit>;

#[component]
pub fn Readout(
    /// The readout's id, label, exact value and formatted text.
    #[prop(into)]
    data: Signal<ReadoutData>,
) -> impl IntoView {
    // Read once a change, and passed on only when it differs: callers hand in
    // derived signals that clone the readout on every read, and the view
    // below reads it four times.
    let data = Memo::new(move |_| data.get());
    let unit = use_context::<ByteUnitSetting>().unwrap_or_default();
    // Byte counts follow the page's unit; `data-value` stays in bytes.
    let text = move || {
        data.with(|d| match unit.get() {
            ByteUnit::Binary if d.bytes => Bytes(d.value).in_unit(ByteUnit::Binary),
            _ => d.text.clone(),
        })
    };
    view! {
        <div
            class="readout"
            data-readout=move || data.with(|d| d.id)
            data-value=move || data.with(|d| d.value.to_string())
        >
            <span class="readout__label">{move || data.with(|d| d.label.clone())}</span>
            <span class="readout__value">{text}</span>
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
