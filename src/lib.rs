//! Parallax: an interactive explainer of how large neural networks are
//! trained across many GPUs.
//!
//! - [`model`]: the estimator, pure Rust, the one source of every number;
//! - [`figures`]: one module per figure, each a pure `data()` and a thin view;
//! - [`widgets`]: controls and readouts that know nothing of training;
//! - [`settings`]: the page's own settings (theme, units, bytes a parameter);
//! - [`app`]: the shell that shows the explainer or one embedded figure.

pub mod app;
pub mod content;
pub mod exercises;
pub mod figures;
pub mod model;
pub mod settings;
pub mod widgets;
