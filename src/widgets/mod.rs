//! Shared controls and readouts. They know nothing of training: a figure
//! hands them values, text and callbacks.

mod choice;
mod notices;
mod readout;
mod slider;
mod toggle;

pub use choice::Choice;
pub use notices::Notices;
pub use readout::Readout;
pub use slider::Slider;
pub use toggle::Toggle;
