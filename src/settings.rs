//! Settings of the page rather than of one figure, each kept in the URL:
//! the colour scheme (`theme`), the unit of byte readouts (`units`), whether
//! an embedded figure shows its share panel and settings (`chrome`), whether
//! a figure asks its built-in questions (`quiz`), and the
//! training state's bytes a parameter (`bytes`, held in every figure's
//! scenario so that an embedded figure carries it too).

use leptos::prelude::*;

use crate::figures::Live;
use crate::model::choice::{options, Choice};
use crate::model::memory::BytesPerParam;
use crate::model::query::{read_choice, read_option, Notice, Pairs, Query};
use crate::model::units::ByteUnit;
use crate::widgets::{provide_byte_unit, scoped, Toggle};

/// Settings of the page rather than of a figure, kept in the URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageSettings {
    /// `theme=light|dark`: one colour scheme, whatever the reader's (or the
    /// embedding page's) preference; without it the page follows that preference.
    pub theme: Option<&'static str>,
    /// `units=gb|gib`: how byte readouts are written.
    pub units: ByteUnit,
    /// `chrome=0`: an embedded figure without its share panel and settings.
    pub chrome: bool,
    /// `quiz=0`: every figure without its built-in questions (a course
    /// author asking their own).
    pub quiz: bool,
}

impl Default for PageSettings {
    fn default() -> Self {
        Self {
            theme: None,
            units: ByteUnit::Decimal,
            chrome: true,
            quiz: true,
        }
    }
}

impl PageSettings {
    const THEMES: [&'static str; 2] = ["light", "dark"];

    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        Self {
            theme: read_choice(query, "theme", &Self::THEMES, notices),
            units: read_option(query, "units", notices).unwrap_or_default(),
            chrome: read_choice(query, "chrome", &["0", "1"], notices) != Some("0"),
            quiz: read_choice(query, "quiz", &["0", "1"], notices) != Some("0"),
        }
    }

    pub fn write(self, pairs: &mut Pairs) {
        if let Some(theme) = self.theme {
            pairs.push(("theme".to_string(), theme.to_string()));
        }
        if self.units != ByteUnit::default() {
            pairs.push(("units".to_string(), self.units.id().to_string()));
        }
        for (key, shown) in [("chrome", self.chrome), ("quiz", self.quiz)] {
            if !shown {
                pairs.push((key.to_string(), "0".to_string()));
            }
        }
    }

    /// Fixes the colour scheme (`data-theme` on the root element; see `style/tokens.css`).
    pub fn apply(self) {
        if let (Some(theme), Some(root)) = (self.theme, document().document_element()) {
            _ = root.set_attribute("data-theme", theme);
        }
    }
}

/// The training state's bytes a parameter, the page's one convention: read
/// from the URL, changed only by the settings, and pushed into every figure
/// (which write it to the URL).
#[derive(Clone, Copy, Debug)]
pub struct PageBytes(pub RwSignal<BytesPerParam>);

/// The page's settings, shared with every part of the page.
#[derive(Clone, Copy, Debug)]
pub struct SettingsContext(pub RwSignal<PageSettings>);

/// Provides the page's settings (and the unit of byte readouts) to everything below.
pub fn provide_settings(settings: PageSettings) -> RwSignal<PageSettings> {
    let signal = RwSignal::new(settings);
    provide_context(SettingsContext(signal));
    provide_byte_unit(Signal::derive(move || signal.with(|s| s.units)));
    signal
}

/// The page's settings (the defaults where none were provided).
pub fn use_settings() -> RwSignal<PageSettings> {
    use_context::<SettingsContext>().map_or_else(|| RwSignal::new(PageSettings::default()), |c| c.0)
}

/// GB or GiB for every byte readout on the page; kept in the URL (`units`).
#[component]
pub fn UnitsToggle(
    /// Whether to say what the two units are (the full page does; an embedded figure stays compact).
    #[prop(optional)]
    explained: bool,
) -> impl IntoView {
    let page = use_settings();
    scoped("settings", move || {
        view! {
            <div class="settings__item">
                <Toggle
                    label="Byte readouts in"
                    param="units"
                    options={options::<ByteUnit>()}
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
                        " and operating systems count, so 80 GB is 74.5 GiB. The readouts and the numbers quoting them change; the rest of the text keeps GB."
                    </p>
                })}
            </div>
        }
    })
}

/// What the bytes-a-parameter setting means, said once where it is chosen.
const BYTES_NOTE: &str = "16 is ZeRO's count, and the one the explainer's numbers use: bf16 weights and gradients \
(2 + 2 bytes) and Adam's fp32 master weights, momentum and variance (12). Megatron-LM and DeepSpeed's bf16 \
optimizer keep the gradients in fp32 instead: 2 + 4 + 12 = 18. Accumulating fp16 gradients into a separate fp32 \
buffer makes it 2 + 2 + 4 + 12 = 20. With 18 or 20 the data-parallel all-reduce sends fp32 gradients, 4 bytes a \
parameter rather than 2. Every figure follows this choice.";

/// The full page's settings: units and the training state's convention.
#[component]
pub fn Settings(
    /// Every figure on the page.
    figures: StoredValue<Vec<Live>>,
) -> impl IntoView {
    // The convention is the page's: every figure holds the same one.
    let bytes = use_context::<PageBytes>().map_or_else(
        || RwSignal::new(BytesPerParam::MIXED_PRECISION_ADAM),
        |b| b.0,
    );
    let set_bytes = Callback::new(move |id: String| {
        if let Some(chosen) = BytesPerParam::from_id(&id) {
            bytes.set(chosen);
            figures.with_value(|all| all.iter().for_each(|f| f.set_bytes_per_param(chosen)));
        }
    });
    view! {
        <details class="settings">
            <summary class="settings__summary">"Units and conventions"</summary>
            <UnitsToggle explained=true/>
            {scoped("settings", move || view! {
                <div class="settings__item">
                    <Toggle
                        label="Training state, bytes a parameter"
                        param="bytes"
                        options={options::<BytesPerParam>()}
                        selected=Signal::derive(move || bytes.get().id().to_string())
                        on_change=set_bytes
                    />
                    <p class="settings__note">{BYTES_NOTE}</p>
                </div>
            })}
        </details>
    }
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

    #[test]
    fn chrome_0_hides_the_chrome_and_is_kept() {
        let mut notices = Vec::new();
        let bare = PageSettings::from_query(&Query::parse("?chrome=0"), &mut notices);
        assert!(!bare.chrome && notices.is_empty());
        let mut pairs = Vec::new();
        bare.write(&mut pairs);
        assert_eq!(pairs, [("chrome".to_string(), "0".to_string())]);
        assert!(PageSettings::from_query(&Query::parse("?chrome=2"), &mut notices).chrome);
        assert_eq!(notices[0].key, "chrome");
    }

    /// `quiz=0` (issue 37) hides the questions, and is kept beside `chrome=0`.
    #[test]
    fn quiz_0_hides_the_questions_and_is_kept() {
        let mut notices = Vec::new();
        let bare = PageSettings::from_query(&Query::parse("?quiz=0&chrome=0"), &mut notices);
        assert!(!bare.quiz && !bare.chrome && notices.is_empty());
        let mut pairs = Vec::new();
        bare.write(&mut pairs);
        let written: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(written, [("chrome", "0"), ("quiz", "0")]);
        assert!(PageSettings::default().quiz);
        assert!(PageSettings::from_query(&Query::parse("?quiz=no"), &mut notices).quiz);
        assert_eq!(notices[0].key, "quiz");
    }
}
