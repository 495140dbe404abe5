//! The figures, one module each, named after the question they answer.
//!
//! Each module owns its parameters (read from and written to the URL), a
//! pure `data()` that turns them into everything the view draws (tested
//! natively), and a thin `#[component]` that maps that data to the page.

pub mod why;

/// A readout as a figure's `data()` computes it: the contract of
/// `shared/spec/figures.md` (`data-readout`, `data-value`, formatted text).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadoutData {
    /// The spec's readout id.
    pub id: &'static str,
    /// What the number is, for people.
    pub label: String,
    /// The exact value in base units (bytes, seconds, FLOP, a count, a ratio).
    pub value: f64,
    /// The value formatted as the seeds format it.
    pub text: String,
}

impl ReadoutData {
    pub fn new(
        id: &'static str,
        label: impl Into<String>,
        value: f64,
        text: impl Into<String>,
    ) -> Self {
        Self {
            id,
            label: label.into(),
            value,
            text: text.into(),
        }
    }
}

/// Every figure, in the order the explainer shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FigureId {
    Why,
}

impl FigureId {
    pub const ALL: [FigureId; 1] = [FigureId::Why];

    /// The slug used by `?fig=` and `?step=`.
    pub fn slug(self) -> &'static str {
        match self {
            FigureId::Why => "why",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|figure| figure.slug() == slug)
    }

    pub fn title(self) -> &'static str {
        match self {
            FigureId::Why => "Why one GPU is not enough",
        }
    }

    pub fn subtitle(self) -> &'static str {
        match self {
            FigureId::Why => {
                "The training state outgrows its memory, and the arithmetic outlasts any deadline"
            }
        }
    }
}
