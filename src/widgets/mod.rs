//! Shared controls and readouts. They know nothing of training: a figure
//! hands them values, text and callbacks.

mod chart;
mod choice;
mod export;
mod notices;
mod number_input;
mod question;
mod readout;
mod rows;
mod scope;
mod share;
mod slider;
mod toggle;

pub use chart::{Canvas, LegendMark, Palette, PlotCanvas};
pub use choice::Choice;
pub use notices::Notices;
pub use number_input::NumberInput;
pub use question::{NumberQuestion, Prediction};
pub use readout::{ByteUnitSetting, InWords, Readout, ReadoutPanel};
pub use rows::rows;
pub use scope::{control_id, scoped, ControlScope};
pub use share::Share;
pub use slider::Slider;
pub use toggle::Toggle;
