//! Shared controls and readouts. They know nothing of training: a figure
//! hands them values, text and callbacks.

mod chart;
mod export;
mod math;
mod notices;
mod number_input;
mod question;
mod readout;
mod rows;
mod scope;
mod select;
mod share;
mod slider;
mod toggle;
mod worker;

pub use chart::{
    draw_line_chart, line_chart_drawing, AxisLabel, Canvas, LegendMark, LineChart, Palette,
    PlotCanvas, Series,
};
pub use math::{num, Equation, Equations, Piece, Symbol};
pub use notices::Notices;
pub use number_input::NumberInput;
pub use question::{NumberQuestion, Prediction};
pub use readout::{provide_byte_unit, Better, InWords, Readout, ReadoutData, Unit};
pub use rows::rows;
pub use scope::{control_id, is_tied, scoped, use_tie, ControlScope};
pub use select::Select;
pub use share::{copy_text, iframe_snippet, Share};
pub use slider::Slider;
pub use toggle::{Buttons, Toggle};
pub use worker::ask;

/// Text as HTML or XML, for character data and attribute values alike:
/// `&`, `<`, `>` and `"` as entities. The one escaper of the app.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
