//! How many micro-batches does it take to hide the bubble? The pipeline
//! timeline for p stages and m micro-batches, and a chart of the bubble
//! against m (to 256) for every schedule at this p.

use leptos::prelude::*;

use super::cells::Cells;
use super::equations;
use super::figure::{About, Figure, Params, Part};
use super::param::Param;
use super::timeline::{pipeline_params, timeline, HasPipeline, Pipeline, Timeline, TimelineData};
use crate::model::choice::Choice;
use crate::model::pipeline::{bubble, runnable_micro_batches, runnable_stages, Schedule};
use crate::model::schedule::fewest_micro_batches_below;
use crate::model::units::{counted, Fraction};
use crate::widgets::{
    line_chart_drawing, AxisLabel, Equation, LineChart, NumberQuestion, PlotCanvas, Readout,
    ReadoutData, Series, Unit,
};

pub const FIGURE: Figure = Figure::of::<BubbleParams>(
    About {
        slug: "bubble",
        title: "The pipeline bubble",
        subtitle: "How many micro-batches it takes to keep the pipeline busy",
        part: Part::Course,
        example: "pp=8&micro=32&schedule=1f1b",
    },
    true,
);

/// The chart's micro-batch axis runs to 256.
pub const CHART_MAX_MICRO: u32 = 256;
/// The target of the module's question: a bubble under 10%.
pub const TARGET: f64 = 0.1;

/// The figure's parameters: 4 stages and 8 micro-batches under GPipe, the module's example.
#[derive(Clone, Debug, PartialEq)]
pub struct BubbleParams {
    pub pipeline: Pipeline,
}

impl Default for BubbleParams {
    fn default() -> Self {
        Self {
            pipeline: Pipeline::new(4, 8),
        }
    }
}

impl HasPipeline for BubbleParams {
    fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    fn pipeline_mut(&mut self) -> &mut Pipeline {
        &mut self.pipeline
    }
}

/// The chart's curves: GPipe and 1F1B share one, since their bubbles are
/// equal, and ZB-H1 and DualPipeV another (equal wherever DualPipeV runs, m ≥ 2p).
const CURVES: [(&str, &[Schedule]); 4] = [
    ("GPipe and 1F1B", &[Schedule::GPipe, Schedule::OneFOneB]),
    ("Interleaved 1F1B", &[Schedule::Interleaved]),
    (
        "ZB-H1 and DualPipeV",
        &[Schedule::ZeroBubbleH1, Schedule::DualPipeV],
    ),
    ("DualPipe", &[Schedule::DualPipe]),
];

/// The bubble against m, to 256, for every schedule at `p` stages, the
/// current one bold and ringed at (m, bubble); `pp`'s chart adds its rule.
pub(super) fn chart(p: u32, chunks: u32, current: Schedule, m: u32, bubble_now: f64) -> LineChart {
    LineChart {
        title: format!("Bubble against micro-batches at {p} stages"),
        x_desc: "micro-batches m (log scale)",
        y_desc: "bubble",
        x_range: (0.0, f64::from(CHART_MAX_MICRO).log2()),
        y_range: (0.0, 1.0),
        x_labels: 9,
        // The micro-batch axis is drawn in log2(m): 0 to 8 for 1 to 256.
        x_label: AxisLabel::PowerOfTwo,
        y_label: AxisLabel::Percent,
        lines: CURVES
            .iter()
            .enumerate()
            .map(|(index, &(label, schedules))| Series {
                label,
                // Only where the schedule runs m as it is (interleaving: multiples of p).
                points: (1..=CHART_MAX_MICRO)
                    .filter(|&m| runnable_micro_batches(schedules[0], p, m) == m)
                    .map(|m| (f64::from(m).log2(), bubble(schedules[0], p, m, chunks)))
                    .collect(),
                colour: index,
                bold: schedules.contains(&current),
            })
            .collect(),
        dots: Vec::new(),
        marker: Some((f64::from(m).log2(), bubble_now)),
        rule: None,
    }
}

/// Everything the `bubble` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct BubbleData {
    pub timeline: TimelineData,
    pub chart: LineChart,
    pub bubble: ReadoutData,
    pub micro_for_10pct: ReadoutData,
    /// The bubble, and the inequality that gives `micro-for-10pct`.
    pub equations: Vec<Equation>,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &BubbleParams) -> BubbleData {
    let pipeline = &params.pipeline;
    let p = runnable_stages(pipeline.schedule, pipeline.stages);
    let timeline = timeline(pipeline);
    let value = timeline.bubble;
    let needed = fewest_micro_batches_below(pipeline.schedule, p, pipeline.chunks, TARGET);
    let needed_text = needed.map_or_else(|| "none".to_string(), |m| m.to_string());
    let summary = format!(
        "With {p} stages and {m}, {schedule} idles each GPU for {bubble} of the step. The chart shows \
         the bubble falling slowly as micro-batches are added, for each schedule; GPipe and 1F1B share one curve.",
        m = counted(f64::from(timeline.simulated.micro_batches), "micro-batch", "micro-batches"),
        schedule = pipeline.schedule.label(),
        bubble = Fraction(value),
    );
    let bubble = ReadoutData::fraction("bubble", "Bubble (idle time)", value);
    let micro_for_10pct = ReadoutData::new(
        "micro-for-10pct",
        "Micro-batches for a bubble under 10%",
        needed.map_or(0.0, f64::from),
        needed_text,
        Unit::Count,
    );
    let simulated = &timeline.simulated;
    let equations = vec![equations::bubble(
        pipeline.schedule,
        p,
        simulated.micro_batches,
        simulated.chunks,
        &bubble,
    )];
    BubbleData {
        equations,
        chart: chart(
            p,
            pipeline.chunks,
            pipeline.schedule,
            timeline.simulated.micro_batches,
            value,
        ),
        timeline,
        bubble,
        micro_for_10pct,
        summary,
    }
}

const PIPELINE: [Param<BubbleParams>; 4] = pipeline_params::<BubbleParams>();

impl Params for BubbleParams {
    type Data = BubbleData;

    /// Fractions and micro-batch counts: no byte count.
    const SHOWS_BYTES: bool = false;

    const TABLE: &'static [Param<Self>] = &PIPELINE;

    fn data(&self) -> BubbleData {
        data(self)
    }

    fn readouts(d: &BubbleData) -> Vec<ReadoutData> {
        vec![d.bubble.clone(), d.micro_for_10pct.clone()]
    }

    fn panel(d: &BubbleData) -> Vec<ReadoutData> {
        vec![d.bubble.clone()]
    }

    const ANSWERS: &'static [&'static str] = &["micro-for-10pct"];

    fn summary(d: &BubbleData) -> String {
        d.summary.clone()
    }

    fn equations(d: &BubbleData) -> Vec<Equation> {
        d.equations.clone()
    }

    fn scenario(&self) -> Option<&crate::model::scenario::Scenario> {
        Some(&self.pipeline.scenario)
    }

    fn scenario_mut(&mut self) -> Option<&mut crate::model::scenario::Scenario> {
        Some(&mut self.pipeline.scenario)
    }

    fn diagram(_params: Cells<Self>, data: Memo<BubbleData>) -> AnyView {
        // One copy a change, shared by the timeline's parts (the schedule is simulated once, in `data`).
        let timeline = Memo::new(move |_| data.with(|d| d.timeline.clone()));
        let draw = line_chart_drawing(Memo::new(move |_| data.with(|d| d.chart.clone())));
        view! {
            <div class="figure__diagram fig-pp"><Timeline data=timeline/></div>
            <div class="figure__chart">
                <PlotCanvas draw=draw height=320 label=Signal::derive(move || data.with(|d| d.summary.clone()))/>
            </div>
        }
        .into_any()
    }

    /// The module's question, with the answer (the `micro-for-10pct` readout) kept until the reader asks for it.
    fn questions(_params: Cells<Self>, data: Memo<BubbleData>) -> Option<AnyView> {
        let answer =
            fewest_micro_batches_below(Schedule::GPipe, 4, 1, TARGET).map_or(0.0, f64::from);
        let solution = format!(
            "3/(m + 3) < 0.1 means m + 3 > 30, so m > 27: {answer:.0} micro-batches (bubble {}). At 27 it is exactly 10%. \
             For any p, (p − 1)/(m + p − 1) < 0.1 needs m > 9(p − 1); interleaving v chunks divides that by v, \
             and ZB-H1's (p − 1)/(3m + p − 1) needs only m > 3(p − 1).",
            Fraction(bubble(Schedule::GPipe, 4, answer as u32, 1))
        );
        Some(
            view! {
                <section class="figure__try" aria-label="Try the bubble question">
                    <p class="figure__try-title">"Try: work it out first, for settings of its own, whatever the figure shows"</p>
                    <NumberQuestion
                        id="bubble-10pct"
                        prompt="With 4 stages under GPipe, how many micro-batches bring the bubble below 10%?"
                        answer=answer
                        unit=""
                        tolerance=0.0
                        hint="Set (p − 1)/(m + p − 1) < 0.1 with p = 4 and solve for the smallest whole m."
                        solution=solution
                    />
                    <details class="figure__reveal">
                        <summary>"Show the figure's answer for the current settings"</summary>
                        <Readout data=Signal::derive(move || data.with(|d| d.micro_for_10pct.clone()))/>
                    </details>
                </section>
            }
            .into_any(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(stages: u32, schedule: Schedule) -> BubbleData {
        let mut params = BubbleParams::default();
        params.pipeline.stages = stages;
        params.pipeline.schedule = schedule;
        data(&params)
    }

    /// 8 stages under GPipe: 7/(m + 7) < 0.1 first at m = 64; ZB-H1 at 4
    /// stages: 3/(3m + 3) < 0.1 first at m = 10.
    #[test]
    fn other_stage_counts_and_schedules() {
        assert_eq!(with(8, Schedule::GPipe).micro_for_10pct.value, 64.0);
        let zb = with(4, Schedule::ZeroBubbleH1);
        assert_eq!(zb.micro_for_10pct.value, 10.0);
        let bold = |d: &BubbleData| d.chart.lines.iter().position(|s| s.bold);
        assert_eq!(bold(&zb), Some(2));
        assert_eq!(bold(&with(4, Schedule::OneFOneB)), Some(0));
    }

    /// The interleaved schedule runs only multiples of p micro-batches
    /// (Narayanan et al. 2021, section 2.2.2): at 4 stages its curve starts
    /// at m = 4 (x = log2 4 = 2) with 256/4 = 64 points, where GPipe's has
    /// all 256.
    #[test]
    fn the_interleaved_curve_only_where_it_runs() {
        let lines = with(4, Schedule::Interleaved).chart.lines;
        assert_eq!(
            (lines[1].label, lines[1].points.len()),
            ("Interleaved 1F1B", 64)
        );
        assert_eq!(lines[1].points[0].0, 2.0);
        assert_eq!(lines[0].points.len(), 256);
    }

    /// The SVG backend is a native dev-dependency only.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_chart_renders_to_svg_with_its_labels() {
        use crate::widgets::{draw_line_chart, Palette};
        use plotters::backend::SVGBackend;
        use plotters::prelude::*;
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 260)).into_drawing_area();
            draw_line_chart(
                &area,
                &data(&BubbleParams::default()).chart,
                &Palette::default(),
                1.0,
            )
            .unwrap();
            area.present().unwrap();
        }
        assert!(svg.contains("Bubble against micro-batches at 4 stages"));
        assert!(
            svg.contains("GPipe and 1F1B")
                && svg.contains("ZB-H1 and DualPipeV")
                && svg.contains("DualPipe")
        );
        assert!(svg.matches("<circle").count() >= 2);
    }

    #[test]
    fn bubble_urls_have_their_own_defaults() {
        let mut pairs = Vec::new();
        BubbleParams::default().write(&mut pairs);
        assert!(pairs.is_empty());
        let mut notices = Vec::new();
        let read = BubbleParams::from_query(&crate::model::query::Query::parse(""), &mut notices);
        assert_eq!(read.pipeline.micro, 8);
        let mut four = BubbleParams::default();
        four.pipeline.micro = 4;
        four.write(&mut pairs);
        assert_eq!(pairs, [("micro".to_string(), "4".to_string())]);
    }
}
