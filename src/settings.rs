//! Settings of the page rather than of one figure, each kept in the URL:
//! the colour scheme (`theme`), the unit of byte readouts (`units`), and the
//! training state's bytes a parameter (`bytes`, held in every figure's
//! scenario so that an embedded figure carries it too).

use leptos::prelude::*;

use crate::figures::FigureSet;
use crate::model::memory::BytesPerParam;
use crate::model::query::{read_choice, Notice, Pairs, Query};
use crate::model::scenario::BYTES_CHOICES;
use crate::model::units::ByteUnit;
use crate::widgets::Toggle;

/// Settings of the page rather than of a figure, kept in the URL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageSettings {
    /// `theme=light|dark`: one colour scheme, whatever the reader's (or the
    /// embedding page's) preference; without it the page follows that preference.
    pub theme: Option<&'static str>,
    /// `units=gb|gib`: how byte readouts are written.
    pub units: ByteUnit,
}

impl PageSettings {
    const THEMES: [&'static str; 2] = ["light", "dark"];

    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        Self {
            theme: read_choice(query, "theme", &Self::THEMES, notices),
            units: read_choice(query, "units", &ByteUnit::IDS, notices)
                .and_then(ByteUnit::from_id)
                .unwrap_or_default(),
        }
    }

    pub fn write(self, pairs: &mut Pairs) {
        if let Some(theme) = self.theme {
            pairs.push(("theme".to_string(), theme.to_string()));
        }
        if self.units != ByteUnit::default() {
            pairs.push(("units".to_string(), self.units.id().to_string()));
        }
    }

    /// Fixes the colour scheme (`data-theme` on the root element; see `style/tokens.css`).
    pub fn apply(self) {
        if let (Some(theme), Some(root)) = (self.theme, document().document_element()) {
            _ = root.set_attribute("data-theme", theme);
        }
    }
}

/// GB or GiB for every byte readout on the page; kept in the URL (`units`).
#[component]
pub fn UnitsToggle(
    /// Whether to say what the two units are (the full page does; an embedded figure stays compact).
    #[prop(optional)]
    explained: bool,
) -> impl IntoView {
    let page = use_context::<RwSignal<PageSettings>>()
        .unwrap_or_else(|| RwSignal::new(PageSettings::default()));
    let options = ByteUnit::ALL
        .iter()
        .map(|unit| (unit.id().to_string(), unit.label().to_string()))
        .collect();
    view! {
        <div class="settings__item">
            <Toggle
                label="Byte readouts in"
                param="units"
                options=options
                selected=Signal::derive(move || page.with(|p| p.units.id().to_string()))
                on_change=Callback::new(move |id: String| {
                    if let Some(unit) = ByteUnit::from_id(&id) {
                        page.update(|p| p.units = unit);
                    }
                })
            />
            {explained.then(|| view! {
                <p class="settings__note">
                    "GB is 10⁹ bytes, as GPU makers and the papers count; GiB is 2³⁰ bytes, as "
                    <code>"nvidia-smi"</code>
                    " and operating systems count, so 80 GB is 74.5 GiB. Only the readouts change; the text keeps GB."
                </p>
            })}
        </div>
    }
}

/// The training state's convention for every figure, explained where it is chosen.
#[component]
fn BytesToggle(
    /// Every figure's parameters.
    figures: FigureSet,
) -> impl IntoView {
    let options = BYTES_CHOICES
        .iter()
        .map(|total| (total.to_string(), format!("{total} B")))
        .collect();
    view! {
        <div class="settings__item">
            <Toggle
                label="Training state, bytes a parameter"
                param="bytes"
                options=options
                selected=Signal::derive(move || figures.bytes_per_param().total().to_string())
                on_change=Callback::new(move |total: String| {
                    if let Some(bytes) = total.parse().ok().and_then(BytesPerParam::from_total) {
                        figures.set_bytes_per_param(bytes);
                    }
                })
            />
            <p class="settings__note">
                "16 is ZeRO's count, and the seeds': bf16 weights and gradients (2 + 2 bytes) and Adam's fp32 "
                "master weights, momentum and variance (12). Megatron-LM and DeepSpeed's bf16 optimizer keep the "
                "gradients in fp32 instead: 2 + 4 + 12 = 18. Accumulating fp16 gradients into a separate fp32 "
                "buffer makes it 2 + 2 + 4 + 12 = 20. With 18 or 20 the data-parallel all-reduce sends fp32 "
                "gradients, 4 bytes a parameter rather than 2. Every figure follows this choice."
            </p>
        </div>
    }
}

/// The full page's settings: units and the training state's convention.
#[component]
pub fn Settings(
    /// Every figure's parameters.
    figures: FigureSet,
) -> impl IntoView {
    crate::widgets::scoped("settings", move || {
        view! {
            <details class="settings">
                <summary class="settings__summary">"Units and conventions"</summary>
                <UnitsToggle explained=true/>
                <BytesToggle figures=figures/>
            </details>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theme_is_read_checked_and_kept_in_urls() {
        let mut notices = Vec::new();
        let dark = PageSettings::from_query(&Query::parse("?theme=Dark"), &mut notices);
        assert_eq!(dark.theme, Some("dark"));
        assert!(notices.is_empty());
        let mut pairs = Vec::new();
        dark.write(&mut pairs);
        assert_eq!(pairs, [("theme".to_string(), "dark".to_string())]);
        let odd = PageSettings::from_query(&Query::parse("?theme=purple"), &mut notices);
        assert_eq!(odd, PageSettings::default());
        assert_eq!(notices[0].key, "theme");
    }
}
