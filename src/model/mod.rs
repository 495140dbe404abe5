//! The estimator: every number Parallax shows is computed here.
//!
//! Plain data and pure functions, no UI: nothing in this module imports
//! Leptos, web-sys or plotters, so all of it is tested natively
//! (`cargo test`). Each formula's doc comment names its paper and equation.

pub mod activations;
pub mod checkpoint;
pub mod choice;
pub mod comm;
pub mod compare;
pub mod compute;
pub mod data_parallel;
pub mod dualpipe;
pub mod measured;
pub mod memory;
pub mod number;
pub mod peak_memory;
pub mod pipeline;
pub mod planner;
pub mod precision;
pub mod presets;
pub mod query;
pub mod runs;
pub mod scenario;
pub mod schedule;
pub mod search;
pub mod software;
pub mod tensor;
pub mod three_d;
pub mod units;
