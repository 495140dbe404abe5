//! Where splitting the work n ways stops paying, for data and tensor
//! parallelism alike: each GPU's compute falls as C₁/n while a ring
//! all-reduce grows towards twice one message's time, 2(n − 1)/n × T, so
//! the two meet at n = 1 + C₁/(2T)
//! (`model::data_parallel::allreduce_meets_compute_at`,
//! `model::tensor::allreduces_meet_compute_at`). Pipeline parallelism's
//! chart, the bubble against micro-batches, is drawn and explained by the
//! same [`view`] (`pipeline_parallel::crossover`).

use leptos::prelude::*;

use crate::model::comm::Link;
use crate::model::units::{group_thousands, trimmed, Seconds};
use crate::widgets::{line_chart_drawing, AxisLabel, LineChart, PlotCanvas, Series};

/// What a crossover chart draws.
pub struct Crossover<'a> {
    pub title: String,
    pub x_desc: &'static str,
    pub y_desc: &'static str,
    /// The largest n drawn: past it the work cannot be split further.
    pub top: f64,
    /// The reader's link: its all-reduce is drawn bold and its crossing ruled.
    pub link: Link,
    /// Where compute and all-reduce meet over the reader's link, unrounded.
    pub meeting: f64,
    /// The reader's n, marked on the compute curve.
    pub at: u32,
    /// One GPU's compute and its all-reduce at n over a link.
    pub time: &'a dyn Fn(u32, Link) -> (Seconds, Seconds),
}

/// The n a chart samples: 33, evenly spaced in log₂ n from 1 to `top`.
fn samples(top: f64) -> Vec<u32> {
    let top = top.max(2.0).log2();
    let mut n: Vec<u32> = (0..=32)
        .map(|k| (top * f64::from(k) / 32.0).exp2().round() as u32)
        .collect();
    n.dedup();
    n
}

/// Compute and each link's all-reduce against n, both on log scales.
pub fn chart(c: &Crossover) -> LineChart {
    let n = samples(c.top);
    let curve = |from: u32, time: &dyn Fn(u32) -> Seconds| -> Vec<(f64, f64)> {
        n.iter()
            .filter(|&&n| n >= from)
            .map(|&n| (f64::from(n).log2(), time(n).value().log10()))
            .collect()
    };
    let allreduce = |over: Link, label, colour| Series {
        label,
        points: curve(2, &|n| (c.time)(n, over).1),
        colour,
        bold: over == c.link,
    };
    let lines = vec![
        Series {
            label: "Compute",
            points: curve(1, &|n| (c.time)(n, c.link).0),
            colour: 0,
            bold: true,
        },
        allreduce(Link::NvLink, "All-reduce, NVLink", 1),
        allreduce(Link::Network, "All-reduce, network", 2),
    ];
    let (low, high) = lines
        .iter()
        .flat_map(|series| &series.points)
        .fold((f64::MAX, f64::MIN), |(low, high), &(_, y)| {
            (low.min(y), high.max(y))
        });
    let (_, within) = rounded(c.meeting, c.top);
    LineChart {
        title: c.title.clone(),
        x_desc: c.x_desc,
        y_desc: c.y_desc,
        x_range: (0.0, c.top.max(2.0).log2()),
        y_range: (low.floor(), high.ceil().max(low.floor() + 1.0)),
        x_labels: 6,
        x_label: AxisLabel::PowerOfTwo,
        y_label: AxisLabel::LogSeconds,
        lines,
        dots: Vec::new(),
        marker: Some((
            f64::from(c.at).log2(),
            (c.time)(c.at, c.link).0.value().log10(),
        )),
        rule: within.then(|| {
            let label = match c.link {
                Link::NvLink => "NVLink all-reduce overtakes compute",
                Link::Network => "network all-reduce overtakes compute",
            };
            (c.meeting.log2(), label)
        }),
    }
}

/// A meeting point as the GPU count it takes (rounded up), and whether the
/// work splits that many ways (at most `top`).
pub fn rounded(meeting: f64, top: f64) -> (f64, bool) {
    let n = meeting.ceil();
    (n, n <= top)
}

/// What the words add after the other link's meeting point: nothing when
/// the work splits that far, else that it lies `beyond` it (", beyond the
/// batch"), "too" when the reader's link's point does as well.
pub fn other_beyond(other_within: bool, within: bool, beyond: &str) -> String {
    match (other_within, within) {
        (true, _) => String::new(),
        (false, true) => format!(", beyond {beyond}"),
        (false, false) => format!(", beyond {beyond} too"),
    }
}

/// A meeting point as the formula gives it, to a tenth: `2,098.2`, `7.2`.
pub fn exact(meeting: f64) -> String {
    let tenths = (meeting.min(1e15) * 10.0).round() as u64;
    format!("{}.{}", group_thousands((tenths / 10) as f64), tenths % 10)
}

/// One GPU's compute C₁ and one message's time T as the words write them:
/// in one unit, C₁'s, so that a reader divides them as they stand, and to
/// as many significant figures (three at least, fifteen, all an `f64`
/// holds, at most) as it takes for 1 + C₁/(2T), worked from the written
/// values, to give the meeting point [`exact`] writes (to 10¹⁰ GPUs, as
/// tested: past 5 × 10¹⁰ the nudge of one part in 10¹² below moves the
/// meeting by more than half a tenth, so that no number of figures passes
/// it). At two figures,
/// 33 ms and 2.7 ms gave a student t = 7.1 where the words said 7.2; with
/// C₁ in s and T in ms, a reader's 1,130.784/(2 × 29.95556) was 19.9.
pub fn operands(compute: Seconds, message: Seconds) -> (String, String) {
    let meeting = |c: f64, t: f64| exact(1.0 + c / (2.0 * t));
    let wanted = meeting(compute.value(), message.value());
    let unit = unit_of(compute.value());
    let mut written = (String::new(), String::new());
    for figures in 3..=15 {
        let (c, c_text) = written_time(compute.value(), figures, unit);
        let (t, t_text) = written_time(message.value(), figures, unit);
        written = (c_text, t_text);
        // Nudged both ways, so not at a tie either: 18.054/(2 × 0.00272) is
        // 3,319.75 on paper, a hair under in an f64, and a reader rounds it up.
        if [1.0 + 1e-12, 1.0 - 1e-12]
            .iter()
            .all(|nudge| meeting(c * nudge, t) == wanted)
        {
            break;
        }
    }
    written
}

/// The unit a time reads best in: seconds, or ms or µs below a tenth of a
/// second, as (units a second, name).
fn unit_of(seconds: f64) -> (f64, &'static str) {
    if seconds >= 0.1 {
        (1.0, "s")
    } else if seconds >= 1e-4 {
        (1e3, "ms")
    } else {
        (1e6, "µs")
    }
}

/// A time in `unit` to `figures` significant figures, trailing zeros
/// dropped and thousands grouped: the value as written, in seconds, and its
/// text (`1,130.8 s`, `0.2983 ms`).
fn written_time(seconds: f64, figures: i32, (scale, unit): (f64, &str)) -> (f64, String) {
    let digits = trimmed(seconds * scale, figures);
    let value = digits.parse::<f64>().map_or(seconds, |v| v / scale);
    let text = match digits.split_once('.') {
        Some((whole, fraction)) => {
            format!(
                "{}.{fraction}",
                group_thousands(whole.parse().unwrap_or(0.0))
            )
        }
        None => group_thousands(digits.parse().unwrap_or(0.0)),
    };
    (value, format!("{text} {unit}"))
}

/// A crossover chart and the words under it, which describe it to a screen
/// reader too (the canvas's own label only names it).
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    pub chart: LineChart,
    pub words: String,
}

/// The chart and its words, worked out by `explain` again only when
/// `inputs` change (the model, GPU, rate, link and the reader's n, which
/// moves the marker along the curves), and drawn again once they rest.
pub fn view<K>(inputs: Memo<K>, explain: fn(&K) -> Explained) -> impl IntoView
where
    K: Clone + PartialEq + Send + Sync + 'static,
{
    let explained = Memo::new(move |_| inputs.with(explain));
    let chart = Memo::new(move |_| explained.with(|e| e.chart.clone()));
    let words = move || explained.with(|e| e.words.clone());
    let label = chart.with_untracked(|c| {
        let scales = if c.y_label == AxisLabel::LogSeconds {
            "on log scales"
        } else {
            "against a log scale"
        };
        format!(
            "Chart: {}, {scales}, described in the paragraph below",
            c.title
        )
    });
    view! {
        <div class="figure__chart">
            <PlotCanvas draw=line_chart_drawing(chart) height=280 label=label/>
            <p class="figure__crossover">{words}</p>
        </div>
    }
}
