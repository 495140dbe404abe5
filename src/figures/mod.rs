//! The figures, one module each, named after the question it answers, and
//! the one list of them. A figure module declares its parameters as a table
//! and computes everything it draws in a pure `data()`; its `FIGURE` value
//! is all the rest of the app knows of it (`figure.rs`).
//!
//! Adding a figure: write its module (parameters, `data()`, `impl Params`,
//! `FIGURE`), add its `pub mod` and one line to [`FIGURES`], write its prose
//! in `src/content/<slug>.md`, then run
//! `PARALLAX_BLESS=1 cargo test --test docs --test page` to regenerate the
//! embed page, the README's keys and `index.html` (README, "Adding a figure"). A figure that draws
//! something new styles it in `style/figures.css`.

pub mod cells;
pub mod compare;
pub mod crossover;
pub mod equations;
pub mod figure;
pub mod launch;
pub mod layouts;
pub mod memory_bar;
pub mod notation;
pub mod param;
pub mod shared;
pub mod timeline;

pub mod bubble;
pub mod checkpoint_lab;
pub mod data_parallel;
pub mod pipeline_parallel;
pub mod planner;
pub mod tensor_parallel;
pub mod three_d;
pub mod why;
pub mod zero;

pub use figure::{Figure, Live, Part};
pub use param::Assumed;

/// Every figure, in the order the page shows them.
pub const FIGURES: &[&Figure] = &[
    &why::FIGURE,
    &data_parallel::FIGURE,
    &zero::FIGURE,
    &tensor_parallel::FIGURE,
    &pipeline_parallel::FIGURE,
    &three_d::FIGURE,
    &planner::FIGURE,
    &bubble::FIGURE,
    &checkpoint_lab::FIGURE,
];

/// The figure named `slug`, and its place in [`FIGURES`].
pub fn find(slug: &str) -> Option<(usize, &'static Figure)> {
    FIGURES
        .iter()
        .copied()
        .enumerate()
        .find(|(_, figure)| figure.slug() == slug)
}
