//! The estimator, compiled on its own for the fuzz targets: the same source
//! files as the app's `src/model`, without the UI crates around them.

#[path = "../../../src/model/mod.rs"]
pub mod model;
