//! The estimator and the launch module, compiled on their own for the fuzz
//! targets: the same source files as the app's `src/model` and
//! `src/launch`, without the UI crates around them.

#[path = "../../../src/launch/mod.rs"]
pub mod launch;
#[path = "../../../src/model/mod.rs"]
pub mod model;
