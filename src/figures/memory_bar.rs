//! One GPU's memory as a stacked bar against its capacity, with a legend of
//! readouts: shared by `why` (the training state) and `planner` (state and
//! activations).

use leptos::prelude::*;

use crate::hooks::use_scoped;
use crate::model::units::Bytes;
use crate::widgets::{rows, Readout, ReadoutData};

/// One part of the bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// CSS modifier naming the part (`weights`, `gradients`, ...).
    pub class: &'static str,
    /// Width as a share of the bar's scale, in percent.
    pub percent: f64,
    pub readout: ReadoutData,
}

/// Everything the bar draws.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryBarData {
    pub segments: Vec<Segment>,
    /// Where the capacity line sits, in percent of the bar.
    pub capacity_percent: f64,
    pub capacity_label: String,
    /// The memory kept back below the capacity line, in percent of the bar.
    pub reserve_percent: f64,
    /// Whether the parts add up to more than the capacity less the reserve.
    pub over: bool,
    /// Bytes the bar's full width stands for.
    pub scale: f64,
}

impl MemoryBarData {
    /// Lays out `parts` (CSS class, readout id, label, bytes) against
    /// `capacity`; the bar's scale is the larger of the two totals.
    pub fn new(parts: &[(&'static str, &'static str, &str, Bytes)], capacity: Bytes) -> Self {
        let total: f64 = parts.iter().map(|part| part.3.value()).sum();
        let scale = total.max(capacity.value()).max(f64::MIN_POSITIVE);
        let segments = parts
            .iter()
            .map(|&(class, id, label, bytes)| Segment {
                class,
                percent: bytes.value() / scale * 100.0,
                readout: ReadoutData::bytes(id, label, bytes),
            })
            .collect();
        Self {
            segments,
            capacity_percent: capacity.value() / scale * 100.0,
            capacity_label: format!("{} GPU", capacity.capacity_in_gb()),
            reserve_percent: 0.0,
            over: total > capacity.value(),
            scale,
        }
    }

    /// The same bar with `reserve` of the capacity kept back: drawn below
    /// the capacity line, and the parts are over when they reach into it.
    pub fn with_reserve(self, reserve: Bytes) -> Self {
        let total: f64 = self.segments.iter().map(|s| s.readout.value).sum();
        let capacity = self.capacity_percent / 100.0 * self.scale;
        let reserve = reserve.value().min(capacity);
        Self {
            reserve_percent: reserve / self.scale * 100.0,
            over: total > capacity - reserve,
            ..self
        }
    }

    /// The same bar drawn on a wider scale (two plans' bars side by side).
    pub fn on_scale(&self, scale: f64) -> Self {
        let factor = self.scale / scale.max(self.scale);
        Self {
            segments: self
                .segments
                .iter()
                .map(|s| Segment {
                    percent: s.percent * factor,
                    ..s.clone()
                })
                .collect(),
            capacity_percent: self.capacity_percent * factor,
            reserve_percent: self.reserve_percent * factor,
            scale: scale.max(self.scale),
            ..self.clone()
        }
    }
}

/// Where a capacity line's label is centred on the line, in percent of
/// the bar; nearer an end it runs inward from the line. Its longest text,
/// "85.5 GB (79.6 GiB) GPU" (about 150 px), is half of a phone's bar.
pub const CENTRED_LABEL: (f64, f64) = (35.0, 65.0);

/// The stacked bar and its legend.
#[component]
pub fn MemoryBar(
    /// The bar's parts and capacity, in percent of its width.
    #[prop(into)]
    data: Signal<MemoryBarData>,
    /// Without the legend of readouts (two plans' bars, their readouts in a table).
    #[prop(optional)]
    bare: bool,
) -> impl IntoView {
    // Two plans' bars go when the comparison does: the bar reads its data
    // through a relay that leaves with it.
    let data = use_scoped(data);
    view! {
        <div class="membar" class:membar--over=move || data.with(|d| d.over)>
            {rows(data, |d| &d.segments, |segment| view! {
                <div
                    class=move || segment.with(|s| format!("membar__segment membar__segment--{}", s.class))
                    style:width=move || segment.with(|s| format!("{:.3}%", s.percent))
                    title=move || segment.with(|s| s.readout.label.clone())
                ></div>
            })}
            <div
                class="membar__reserve"
                title="Kept in reserve"
                style:left=move || data.with(|d| format!("{:.3}%", d.capacity_percent - d.reserve_percent))
                style:width=move || data.with(|d| format!("{:.3}%", d.reserve_percent))
            ></div>
            <div
                class="membar__capacity"
                class:capacity--end=move || data.with(|d| d.capacity_percent > CENTRED_LABEL.1)
                class:capacity--start=move || data.with(|d| d.capacity_percent < CENTRED_LABEL.0)
                style:left=move || format!("{:.3}%", data.with(|d| d.capacity_percent))
            >
                <span class="membar__capacity-label">{move || data.with(|d| d.capacity_label.clone())}</span>
            </div>
        </div>
        {(!bare).then(|| view! {
            <ul class="membar__legend">
                {rows(data, |d| &d.segments, |segment| view! {
                    <li class=move || segment.with(|s| format!("membar__key membar__key--{}", s.class))>
                        <Readout data=Signal::derive(move || segment.with(|s| s.readout.clone()))/>
                    </li>
                })}
            </ul>
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_the_larger_of_total_and_capacity() {
        let over = MemoryBarData::new(
            &[("a", "a", "A", Bytes(60e9)), ("b", "b", "B", Bytes(100e9))],
            Bytes(80e9),
        );
        assert!(over.over);
        assert_eq!(over.capacity_percent, 50.0);
        assert_eq!(over.segments.iter().map(|s| s.percent).sum::<f64>(), 100.0);
        assert_eq!(over.capacity_label, "80 GB GPU");
        // 10 GB kept back of 80: the usable line at 70 GB, and 65 GB of parts under it.
        let kept = MemoryBarData::new(&[("a", "a", "A", Bytes(65e9))], Bytes(80e9))
            .with_reserve(Bytes(10e9));
        assert_eq!(kept.reserve_percent, 12.5);
        assert!(!kept.over);
        assert!(
            MemoryBarData::new(&[("a", "a", "A", Bytes(75e9))], Bytes(80e9))
                .with_reserve(Bytes(10e9))
                .over
        );
        let under = MemoryBarData::new(&[("a", "a", "A", Bytes(20e9))], Bytes(80e9));
        assert!(!under.over);
        assert_eq!(
            (under.capacity_percent, under.segments[0].percent),
            (100.0, 25.0)
        );
        // On the over bar's 160 GB scale: 20 GB is 12.5%, 80 GB 50%.
        let common = under.on_scale(over.scale);
        assert_eq!(
            (common.capacity_percent, common.segments[0].percent),
            (50.0, 12.5)
        );
    }
}
