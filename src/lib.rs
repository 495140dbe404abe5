//! Parallax: an interactive explainer of how large neural networks are
//! trained across many GPUs.
//!
//! - [`model`]: the estimator, pure Rust, the one source of every number;
//! - [`figures`]: one module per figure, each a pure `data()` and a thin view;
//! - [`widgets`]: controls and readouts that know nothing of training;
//! - [`settings`]: the page's own settings (theme, units, bytes a parameter);
//! - [`hooks`]: browser plumbing (sizes, media queries, timers, the URL);
//! - [`runs`]: published runs put through the planner;
//! - [`app`]: the route; [`page`], the whole explainer; [`embedded`], one
//!   figure alone for an iframe.

pub mod app;
pub mod beyond;
pub mod content;
pub mod embedded;
pub mod exercises;
pub mod figures;
pub mod hooks;
pub mod model;
pub mod page;
pub mod runs;
pub mod settings;
pub mod widgets;
