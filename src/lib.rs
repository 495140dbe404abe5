//! Parallax: an interactive explainer of how large neural networks are
//! trained across many GPUs.
//!
//! - [`model`]: the estimator, pure Rust, the one source of every number;
//! - [`launch`]: a plan as each launch tool takes it (Megatron-LM,
//!   Megatron-Bridge, torchtitan, DeepSpeed), pure Rust, reading `model`;
//! - [`figures`]: one module per figure, each a pure `data()` and a thin view;
//! - [`widgets`]: controls and readouts that know nothing of training;
//! - [`settings`]: the page's own settings (theme, units, bytes a parameter);
//! - [`hooks`]: browser plumbing (sizes, media queries, timers, the URL)
//!   and the reader a view that can be dropped reads through;
//! - [`runs`]: published runs put through the planner, and [`exercises`]
//!   (both drawn into the page at build time, `tests/page.rs`: not in the wasm);
//! - [`app`]: the route; [`page`], the app taking the page over (its prose
//!   is in `src/content`, made into `index.html` at build time);
//!   [`embedded`], one figure alone for an iframe.
// Drawing the page at build time (tests/page.rs, with leptos's `ssr`
// feature) nests view types deeper than the default limit of 128.
#![recursion_limit = "256"]

pub mod app;
pub mod beyond;
#[cfg(target_arch = "wasm32")]
mod counted;
pub mod embedded;
#[cfg(not(target_arch = "wasm32"))]
pub mod exercises;
pub mod figures;
pub mod hooks;
pub mod launch;
pub mod model;
pub mod page;
#[cfg(not(target_arch = "wasm32"))]
pub mod runs;
pub mod settings;
pub mod widgets;
