//! How many micro-batches does it take to hide the bubble? The pipeline
//! timeline for p stages and m micro-batches, and a chart of the bubble
//! against m (to 256) for every schedule at this p.

use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::pipeline_parallel::{
    data as timeline_data, PpData, PpParams, ScheduleControls, StageControls, Timeline,
};
use super::ReadoutData;
use crate::model::pipeline::{bubble, micro_batches_for_bubble_below, Schedule};
use crate::model::query::{Notice, Pairs, Query};
use crate::model::units::Fraction;
use crate::widgets::{
    Canvas, InWords, LegendMark, NumberQuestion, Palette, PlotCanvas, ReadoutPanel,
};

/// The chart's micro-batch axis runs to 256.
pub const CHART_MAX_MICRO: u32 = 256;
/// The target of the module's question: a bubble under 10%.
pub const TARGET: f64 = 0.1;
/// Micro-batch counts searched for `micro-for-10pct`.
const SEARCH_MAX: u32 = 1 << 20;

/// The `bubble` figure's defaults: 4 stages, 8 micro-batches, GPipe.
pub fn defaults() -> PpParams {
    PpParams {
        micro: 8,
        ..PpParams::default()
    }
}

/// Reads the figure's parameters: the `pp` figure's, with its own defaults.
pub fn read_params(query: &Query, notices: &mut Vec<Notice>) -> PpParams {
    PpParams::read(query, notices, &defaults())
}

/// Appends the parameters that differ from this figure's defaults.
pub fn write_params(params: &PpParams, pairs: &mut Pairs) {
    params.write_against(pairs, &defaults());
}

/// One schedule's curve: (micro-batches, bubble) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: &'static str,
    pub points: Vec<(f64, f64)>,
}

/// Everything the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct BubbleChart {
    pub stages: u32,
    pub curves: Vec<Curve>,
    /// Index of the current schedule's curve.
    pub current_curve: usize,
    /// The current (m, bubble).
    pub current: (f64, f64),
}

/// Everything the `bubble` view draws.
#[derive(Clone, Debug, PartialEq)]
pub struct BubbleData {
    /// The schedule's timeline, as the `pp` figure draws it.
    pub timeline: PpData,
    pub chart: BubbleChart,
    pub bubble: ReadoutData,
    pub micro_for_10pct: ReadoutData,
    pub summary: String,
}

/// Computes the figure from its parameters.
pub fn data(params: &PpParams) -> BubbleData {
    let p = params.stages.max(1);
    let timeline = timeline_data(params);
    let value = timeline.bubble.value;
    let curves = Schedule::ALL
        .iter()
        .map(|&schedule| Curve {
            label: schedule.label(),
            points: (1..=CHART_MAX_MICRO)
                .map(|m| (f64::from(m), bubble(schedule, p, m, params.chunks)))
                .collect(),
        })
        .collect();
    let needed =
        micro_batches_for_bubble_below(params.schedule, p, params.chunks, TARGET, SEARCH_MAX);
    let needed_text = needed.map_or_else(|| "none".to_string(), |m| m.to_string());
    let summary = format!(
        "With {p} stages and {m} micro-batches, {schedule} idles each GPU for {bubble} of the step. A bubble under 10% \
         takes {needed} micro-batches at {p} stages under this schedule. The chart shows the bubble falling slowly as \
         micro-batches are added, for each schedule; GPipe and 1F1B share one curve.",
        m = params.micro,
        schedule = params.schedule.label(),
        bubble = Fraction(value),
        needed = needed_text,
    );
    BubbleData {
        timeline,
        chart: BubbleChart {
            stages: p,
            curves,
            current_curve: Schedule::ALL
                .iter()
                .position(|&s| s == params.schedule)
                .unwrap_or(0),
            current: (f64::from(params.micro), value),
        },
        bubble: ReadoutData::new(
            "bubble",
            "Bubble (idle time)",
            value,
            Fraction(value).to_string(),
        ),
        micro_for_10pct: ReadoutData::new(
            "micro-for-10pct",
            "Micro-batches for a bubble under 10%",
            needed.map_or(0.0, f64::from),
            needed_text,
        ),
        summary,
    }
}

/// Draws the bubble-against-micro-batches chart on any plotters backend.
/// `scale` multiplies font sizes and strokes (the device pixel ratio).
pub fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &BubbleChart,
    palette: &Palette,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |css: f64| Palette::px(scale, css);
    let mut ctx = ChartBuilder::on(area)
        .margin(px(8.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(44.0))
        .caption(
            format!("Bubble against micro-batches at {} stages", chart.stages),
            palette.font(13.0, palette.text, scale),
        )
        .build_cartesian_2d((1f64..f64::from(CHART_MAX_MICRO)).log_scale(), 0f64..1f64)?;
    let mut mesh = ctx.configure_mesh();
    palette.theme_mesh(&mut mesh, scale);
    mesh.x_desc("micro-batches m (log scale)")
        .y_desc("bubble")
        .x_label_formatter(&|m| format!("{m:.0}"))
        .y_label_formatter(&|b| format!("{:.0}%", b * 100.0))
        .draw()?;
    for (index, curve) in chart.curves.iter().enumerate() {
        let colour = palette.series[index % palette.series.len()];
        let width = if index == chart.current_curve {
            3.0
        } else {
            1.5
        };
        ctx.draw_series(LineSeries::new(
            curve.points.iter().copied(),
            colour.stroke_width(px(width) as u32),
        ))?;
    }
    let marker = palette.series[chart.current_curve % palette.series.len()];
    ctx.draw_series(std::iter::once(Circle::new(
        chart.current,
        px(6.0),
        marker.filled(),
    )))?;
    ctx.draw_series(std::iter::once(Circle::new(
        chart.current,
        px(9.0),
        palette.text.stroke_width(px(1.5) as u32),
    )))?;
    let entries: Vec<_> = (chart.curves.iter().enumerate())
        .map(|(index, curve)| {
            let colour = palette.series[index % palette.series.len()];
            (curve.label, colour, LegendMark::Line)
        })
        .collect();
    palette.draw_legend(&ctx, scale, &entries)?;
    Ok(())
}

/// The `bubble` figure.
#[component]
pub fn BubbleFigure(
    /// The figure's parameters, shared with the URL.
    params: RwSignal<PpParams>,
) -> impl IntoView {
    let data = Memo::new(move |_| params.with(data));
    // One copy a change, shared by the timeline's parts (the schedule is simulated once, in `data`).
    let timeline = Memo::new(move |_| data.with(|d| d.timeline.clone()));
    let draw = Callback::new(move |(backend, palette, scale): (Canvas, Palette, f64)| {
        let area = backend.into_drawing_area();
        _ = area.fill(&TRANSPARENT);
        data.with(|d| _ = draw_chart(&area, &d.chart, &palette, scale));
        _ = area.present();
    });
    let answer = Signal::derive(move || {
        micro_batches_for_bubble_below(Schedule::GPipe, 4, 1, TARGET, SEARCH_MAX)
            .map_or(0.0, f64::from)
    });
    view! {
        <div class="figure__controls">
            <StageControls params=params/>
            <ScheduleControls params=params/>
        </div>
        <div class="figure__diagram fig-pp">
            <Timeline data=timeline/>
        </div>
        <div class="figure__chart">
            <PlotCanvas draw=draw height=260 label=Signal::derive(move || data.with(|d| d.summary.clone()))/>
        </div>
        <ReadoutPanel data=data picks=vec![|d| d.bubble.clone(), |d| d.micro_for_10pct.clone()]/>
        <InWords text=Signal::derive(move || data.with(|d| d.summary.clone()))/>
        <section class="figure__try" aria-label="Try the bubble question">
            <p class="figure__try-title">"Try: work it out first"</p>
            <NumberQuestion
                id="bubble-10pct"
                prompt="With 4 stages under GPipe, how many micro-batches bring the bubble below 10%?"
                answer=answer
                tolerance=0.0
                hint="Set (p − 1)/(m + p − 1) < 0.1 with p = 4 and solve for the smallest whole m."
                solution=Signal::derive(move || {
                    let m = answer.get();
                    format!(
                        "3/(m + 3) < 0.1 means m + 3 > 30, so m > 27: {m:.0} micro-batches (bubble {}). At 27 it is exactly 10%.",
                        Fraction(bubble(Schedule::GPipe, 4, m as u32, 1))
                    )
                })
            />
        </section>
    }
}

/// The explanation under the figure.
#[component]
pub fn BubbleText() -> impl IntoView {
    view! {
        <p>
            "The bubble (p − 1)/(m + p − 1) shrinks only as fast as m grows: halving it means roughly doubling the "
            "micro-batches. But micro-batches come out of a fixed global batch, shared among the data-parallel "
            "replicas, so large runs cannot simply add more. That is why schedules that fill the gaps matter: "
            "interleaving divides the fill-and-drain time by the number of model chunks on each GPU, and the "
            "zero-bubble schedule moves the weight-gradient half of each backward pass into the idle slots."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_module() {
        let d = data(&defaults());
        assert!((d.bubble.value - 0.2727).abs() < 0.0001);
        assert_eq!(d.bubble.text, "27.3%");
        assert_eq!(
            (d.micro_for_10pct.value, d.micro_for_10pct.text.as_str()),
            (28.0, "28")
        );
        assert_eq!(d.chart.curves.len(), 4);
        assert_eq!(d.chart.current, (8.0, d.bubble.value));
    }

    #[test]
    fn other_stage_counts_and_schedules() {
        let eight = data(&PpParams {
            stages: 8,
            ..defaults()
        });
        assert_eq!(eight.micro_for_10pct.text, "64");
        let zb = data(&PpParams {
            schedule: Schedule::ZeroBubbleH1,
            ..defaults()
        });
        assert_eq!(zb.micro_for_10pct.text, "10");
        assert_eq!(zb.chart.current_curve, 3);
    }

    /// The SVG backend is a native dev-dependency only.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_chart_renders_to_svg_with_its_labels() {
        use plotters::backend::SVGBackend;
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 260)).into_drawing_area();
            draw_chart(&area, &data(&defaults()).chart, &Palette::default(), 1.0).unwrap();
            area.present().unwrap();
        }
        assert!(svg.contains("Bubble against micro-batches at 4 stages"));
        assert!(svg.contains("GPipe") && svg.contains("Zero bubble (ZB-H1)"));
        assert!(svg.matches("<circle").count() >= 2);
    }

    #[test]
    fn bubble_urls_have_their_own_defaults() {
        let mut pairs = Vec::new();
        write_params(&defaults(), &mut pairs);
        assert!(pairs.is_empty());
        let mut notices = Vec::new();
        assert_eq!(read_params(&Query::parse(""), &mut notices).micro, 8);
        write_params(
            &PpParams {
                micro: 4,
                ..defaults()
            },
            &mut pairs,
        );
        assert_eq!(pairs, [("micro".to_string(), "4".to_string())]);
    }
}
