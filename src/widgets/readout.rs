//! One number a figure shows, with the attributes the URL contract
//! publishes: `data-readout` (its id) and `data-value` (exact, in base units).

use leptos::prelude::*;

use super::scope::{is_tied, use_tie};
use crate::hooks::{use_scoped, use_scoped_memo};

use crate::model::units::{
    format_ratio, group_thousands, ByteUnit, Bytes, Flop, Fraction, Seconds,
};

/// What a readout's value counts, in base units: how it is written for
/// people, and the unit an export's header names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Seconds,
    Flop,
    /// Parameters, GPUs, micro-batches, layers.
    Count,
    /// A share of a whole, 0 to 1.
    Fraction,
    /// A dimensionless ratio.
    Ratio,
    /// 1 for yes, 0 for no.
    YesNo,
}

impl Unit {
    /// The unit as an export's header names it.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Seconds => "seconds",
            Unit::Flop => "FLOP",
            Unit::Count => "count",
            Unit::Fraction => "fraction",
            Unit::Ratio => "ratio",
            Unit::YesNo => "1 = yes, 0 = no",
        }
    }
}

/// Which way a readout is better, for comparing two plans side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Less is better: bytes, time, arithmetic, a bubble.
    Lower,
    /// More is better: a yes, a throughput.
    Higher,
    /// Describes a plan without being better or worse: a GPU count, a device's memory.
    Neither,
    /// Describes a selection rather than a plan (a selected rank): not compared.
    NotCompared,
}

impl Unit {
    /// The direction a readout of this unit takes unless it says otherwise:
    /// sizes, times, arithmetic and shares lower, a yes higher, counts and ratios neither.
    fn better(self) -> Better {
        match self {
            Unit::Bytes | Unit::Seconds | Unit::Flop | Unit::Fraction => Better::Lower,
            Unit::YesNo => Better::Higher,
            Unit::Count | Unit::Ratio => Better::Neither,
        }
    }
}

/// A readout as a figure's `data()` computes it: its id, what it is, its
/// exact value in base units and that value written for people.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadoutData {
    /// The URL contract's readout id.
    pub id: &'static str,
    /// What the number is, for people.
    pub label: String,
    /// The exact value in base units.
    pub value: f64,
    /// The value formatted as the seeds format it.
    pub text: String,
    pub unit: Unit,
    /// Which way it is better, when two plans are compared.
    pub better: Better,
    /// What the value assumes, shown beside it (`at 40% of 989 TFLOP/s`).
    pub note: Option<String>,
    /// `b.` for plan B's readouts when two plans are compared, else empty.
    pub plan: &'static str,
}

impl ReadoutData {
    /// A readout whose text the figure writes itself.
    pub fn new(
        id: &'static str,
        label: impl Into<String>,
        value: f64,
        text: impl Into<String>,
        unit: Unit,
    ) -> Self {
        Self {
            id,
            label: label.into(),
            value,
            text: text.into(),
            unit,
            better: unit.better(),
            note: None,
            plan: "",
        }
    }

    /// The readout, better in the direction `better` rather than its unit's.
    pub fn better(self, better: Better) -> Self {
        Self { better, ..self }
    }

    /// Its `data-readout`: the id, after `b.` for plan B's.
    pub fn key(&self) -> String {
        format!("{}{}", self.plan, self.id)
    }

    /// The same readout as plan B's.
    pub fn of_plan_b(self) -> Self {
        Self { plan: "b.", ..self }
    }

    /// The readout with what it assumes shown beside it.
    pub fn with_note(self, note: impl Into<String>) -> Self {
        Self {
            note: Some(note.into()),
            ..self
        }
    }

    /// A byte count, written in GB (the page may show it in GiB): `107.8 GB`.
    pub fn bytes(id: &'static str, label: impl Into<String>, bytes: Bytes) -> Self {
        Self::new(id, label, bytes.value(), bytes.to_string(), Unit::Bytes)
    }

    /// A duration: `17.1 years`, `0.47 s`.
    pub fn seconds(id: &'static str, label: impl Into<String>, time: Seconds) -> Self {
        Self::new(id, label, time.value(), time.to_string(), Unit::Seconds)
    }

    /// An amount of arithmetic: `8.1e22 FLOP`.
    pub fn flop(id: &'static str, label: impl Into<String>, flop: Flop) -> Self {
        Self::new(id, label, flop.value(), flop.to_string(), Unit::Flop)
    }

    /// A whole count, grouped in thousands: `1,024`.
    pub fn count(id: &'static str, label: impl Into<String>, count: f64) -> Self {
        Self::new(id, label, count, group_thousands(count), Unit::Count)
    }

    /// A share of a whole, as a percentage: `42.9%`.
    pub fn fraction(id: &'static str, label: impl Into<String>, share: f64) -> Self {
        Self::new(
            id,
            label,
            share,
            Fraction(share).to_string(),
            Unit::Fraction,
        )
    }

    /// A ratio with `decimals` decimals: `1.35×`.
    pub fn ratio(id: &'static str, label: impl Into<String>, ratio: f64, decimals: usize) -> Self {
        Self::new(id, label, ratio, format_ratio(ratio, decimals), Unit::Ratio)
    }

    /// A yes or no: 1 or 0, `Yes` or `No`.
    pub fn yes_no(id: &'static str, label: impl Into<String>, yes: bool) -> Self {
        Self::new(
            id,
            label,
            f64::from(u8::from(yes)),
            if yes { "Yes" } else { "No" },
            Unit::YesNo,
        )
    }

    /// The value as the page shows it: byte counts in the reader's unit.
    pub fn shown(&self, unit: ByteUnit) -> String {
        match (self.unit, unit) {
            (Unit::Bytes, ByteUnit::Binary) => Bytes(self.value).in_unit(ByteUnit::Binary),
            _ => self.text.clone(),
        }
    }
}

/// The unit the page shows byte counts in, provided by the app (GB when absent).
#[derive(Clone, Copy, Debug)]
pub struct ByteUnitSetting(pub Signal<ByteUnit>);

/// Provides the unit every readout below shows bytes in.
pub fn provide_byte_unit(unit: Signal<ByteUnit>) {
    provide_context(ByteUnitSetting(unit));
}

fn use_byte_unit() -> Signal<ByteUnit> {
    use_context::<ByteUnitSetting>().map_or_else(|| Signal::stored(ByteUnit::Decimal), |s| s.0)
}

#[component]
pub fn Readout(
    /// The readout's id, label, exact value and formatted text.
    #[prop(into)]
    data: Signal<ReadoutData>,
) -> impl IntoView {
    // Read once a change, and passed on only when it differs: callers hand in
    // derived signals that clone the readout on every read, and the view
    // below reads it four times. A readout may be dropped (a row of a panel,
    // a part rebuilt): what it reads from outside it, it reads through a
    // memo or relays that leave with it.
    let data = use_scoped_memo(move |_| data.get());
    let unit = use_byte_unit();
    let unit = use_scoped(unit);
    let tie = use_scoped(use_tie());
    // The note's element comes and goes with the note; a new note only
    // rewrites its text (rebuilt, its class was set again each change).
    let has_note = Memo::new(move |_| data.with(|d| d.note.is_some()));
    view! {
        <div
            class="readout"
            class:tied=move || tie.with(|t| data.with(|d| is_tied(t, d.id)))
            data-readout=move || data.with(ReadoutData::key)
            data-value=move || data.with(|d| d.value.to_string())
            data-unit=move || data.with(|d| d.unit.name())
        >
            <span class="readout__label">{move || data.with(|d| d.label.clone())}</span>
            <span class="readout__value">{move || data.with(|d| d.shown(unit.get()))}</span>
            {move || has_note.get().then(|| {
                let data = use_scoped(data);
                view! { <span class="readout__note">{move || data.with(|d| d.note.clone().unwrap_or_default())}</span> }
            })}
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
    let text = use_scoped(text);
    view! {
        <p class="figure__in-words" aria-live="polite">
            <strong>"In words. "</strong>
            {move || text.get()}
        </p>
    }
}
