//! The one canvas wrapper: owns a `<canvas>`, sizes it by
//! `devicePixelRatio` so charts stay sharp, redraws from one effect when the
//! figure's data or the window's size changes.

use std::time::Duration;

use leptos::prelude::*;
use plotters::chart::MeshStyle;
use plotters::coord::{ranged1d::Ranged, types::RangedCoordf64};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::hooks::{use_element_size, use_prefers_dark, Debounced};
use crate::model::units::{group_thousands, readable};

/// Colours of the shared palette, read from the page's CSS tokens so that
/// charts follow the light or dark theme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    pub text: RGBColor,
    pub muted: RGBColor,
    pub grid: RGBColor,
    pub series: [RGBColor; 4],
}

impl Default for Palette {
    /// The light theme's tokens (`style/tokens.css`).
    fn default() -> Self {
        Self {
            text: RGBColor(0x1c, 0x1c, 0x21),
            muted: RGBColor(0x55, 0x55, 0x5f),
            grid: RGBColor(0xd6, 0xd2, 0xc8),
            series: [
                RGBColor(0x3a, 0x6b, 0xc9),
                RGBColor(0xc2, 0x6a, 0x12),
                RGBColor(0x23, 0x87, 0x5f),
                RGBColor(0x5a, 0x4f, 0xc4),
            ],
        }
    }
}

impl Palette {
    /// A length of `css` pixels at the device pixel ratio `scale`.
    pub fn px(scale: f64, css: f64) -> i32 {
        (css * scale).round() as i32
    }

    /// The charts' font at `size` CSS pixels.
    pub fn font(&self, size: f64, colour: RGBColor, scale: f64) -> TextStyle<'static> {
        // The family as a value, not the name "sans-serif": plotters lowercases
        // a name with `str::to_lowercase`, whose Unicode tables were 25 KB of
        // the wasm.
        (FontFamily::SansSerif, size * scale)
            .into_font()
            .color(&colour)
    }

    /// Gives a chart's grid, axes and labels the palette's colours.
    pub fn theme_mesh<X, Y, DB>(&self, mesh: &mut MeshStyle<'_, '_, X, Y, DB>, scale: f64)
    where
        X: Ranged,
        Y: Ranged,
        DB: DrawingBackend,
    {
        mesh.label_style(self.label_font(scale))
            .axis_desc_style(self.label_font(scale))
            .light_line_style(self.grid.mix(0.3))
            .bold_line_style(self.grid.mix(0.8))
            .axis_style(self.muted);
    }

    /// The style of axis labels, and of the tick labels whose room the
    /// chart measures: the same font for both.
    fn label_font(&self, scale: f64) -> TextStyle<'static> {
        self.font(13.0, self.muted, scale)
    }
}

/// A line chart as data: what both of the app's charts draw. One drawing
/// function serves both, so plotters' chart code is in the bundle once.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_desc: &'static str,
    pub y_desc: &'static str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// How many labels the x axis carries, at most.
    pub x_labels: usize,
    /// How x and y values are written as axis labels.
    pub x_label: AxisLabel,
    pub y_label: AxisLabel,
    pub lines: Vec<Series>,
    pub dots: Vec<Series>,
    /// A point ringed, the reader's current setting.
    pub marker: Option<(f64, f64)>,
    /// A dashed vertical line at this x, with its legend label.
    pub rule: Option<(f64, &'static str)>,
}

/// How an axis writes its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisLabel {
    /// Whole numbers, and nothing between them: `1`, `2`, `3`.
    Whole,
    /// Values drawn as their base-2 logarithm, labelled with the power: `1`, `2`, `4`.
    PowerOfTwo,
    /// Shares as percentages: `25%`.
    Percent,
    /// Plain numbers with the decimals of the step between ticks: `0.05`, `0.10`.
    Plain,
    /// Values drawn as the base-10 logarithm of a time, labelled in
    /// seconds: `0.01 s`, `1 s`, `10,000 s`.
    LogSeconds,
}

impl AxisLabel {
    /// A tick's label on an axis whose ticks need `decimals` decimals (those
    /// of the step between ticks). Rounding to them is what keeps a tick computed as
    /// 0.30000000000000004 from being written out in full.
    pub fn text(self, value: f64, decimals: usize) -> String {
        match self {
            AxisLabel::Whole => {
                // Within half a unit of the last decimal of a whole number, it is that number.
                let whole = value.round();
                if (value - whole).abs() < 0.5 * 10f64.powi(-(decimals as i32)) {
                    format!("{whole:.0}")
                } else {
                    String::new()
                }
            }
            // Only whole powers: a tick between them (a range of 1 to 3) has no label.
            AxisLabel::PowerOfTwo => {
                if AxisLabel::Whole.text(value, decimals).is_empty() {
                    String::new()
                } else {
                    group_thousands(value.round().exp2())
                }
            }
            AxisLabel::Percent => format!("{:.*}%", decimals.saturating_sub(2), value * 100.0),
            AxisLabel::Plain => format!("{value:.decimals$}"),
            AxisLabel::LogSeconds => format!("{} s", readable(10f64.powf(value))),
        }
    }
}

/// The ticks plotters labels on an axis over `range` with at most `labels`
/// labels: its mesh asks the range for its key points the same way.
fn ticks(range: (f64, f64), labels: usize) -> Vec<f64> {
    RangedCoordf64::from(range.0..range.1).key_points(labels)
}

/// The decimals the labels of `ticks` need: those of the step between
/// them. Plotters' steps are 1, 2 or 5 times a power of ten, so the power
/// fixes them (0.05 needs 2, 0.5 one, 5 none); the nudge keeps a step
/// computed as 0.09999999999999998 at one decimal.
fn tick_decimals(ticks: &[f64]) -> usize {
    match ticks {
        [first, second, ..] => (-((second - first).log10() + 1e-6).floor()).max(0.0) as usize,
        _ => 0,
    }
}

/// One series of a [`LineChart`].
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: &'static str,
    pub points: Vec<(f64, f64)>,
    /// Its colour: an index into the palette's series.
    pub colour: usize,
    /// Drawn thicker (the reader's current choice).
    pub bold: bool,
}

/// At most this many labels on a y axis: legible on the app's charts, 264 to 280 px high.
const Y_LABELS: usize = 6;

/// Draws `chart` on any plotters backend; `scale` is the device pixel ratio,
/// by which fonts and strokes grow. Bold lines are drawn last, over the
/// others; the legend goes under the chart, where it covers no data.
pub fn draw_line_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &LineChart,
    palette: &Palette,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |css: f64| Palette::px(scale, css);
    let colour = |index: usize| palette.series[index % palette.series.len()];
    let (x_label, y_label) = (chart.x_label, chart.y_label);
    let x_ticks = ticks(chart.x_range, chart.x_labels);
    let x_decimals = tick_decimals(&x_ticks);
    let y_ticks = ticks(chart.y_range, Y_LABELS);
    let y_decimals = tick_decimals(&y_ticks);
    // The last x label is centred on its tick, which may be the plot's
    // right edge: the margin there must hold half of it, or it is clipped.
    let overhang = match x_ticks.last() {
        Some(&last) => {
            let text = x_label.text(last, x_decimals);
            area.estimate_text_size(&text, &palette.label_font(scale))?
                .0 as i32
                / 2
        }
        None => 0,
    };
    // The y labels' area holds the widest of them beside the axis's title.
    let mut widest = 0;
    for &tick in &y_ticks {
        let text = y_label.text(tick, y_decimals);
        widest = widest.max(
            area.estimate_text_size(&text, &palette.label_font(scale))?
                .0 as i32,
        );
    }
    let (margin, y_label_area) = (px(8.0), px(52.0).max(widest + px(28.0)));
    let right = margin.max(overhang + px(2.0));

    let mut entries: Vec<(&str, RGBColor, LegendMark)> = chart
        .lines
        .iter()
        .map(|s| (s.label, colour(s.colour), LegendMark::Line))
        .collect();
    entries.extend(
        chart
            .dots
            .iter()
            .map(|s| (s.label, colour(s.colour), LegendMark::Dot)),
    );
    if let Some((_, label)) = chart.rule {
        entries.push((label, palette.text, LegendMark::Dashed));
    }
    // Under the plot, lined up with its left edge and no wider; from the
    // canvas's margin when an entry is wider than that (a phone's 294 px
    // left 230 for "network all-reduce overtakes compute").
    let (width, height) = area.dim_in_pixel();
    let legend = Legend::lay_out(
        area,
        palette,
        scale,
        entries,
        (margin + y_label_area, margin),
        width as i32 - right,
    )?;
    let (plot_area, legend_area) = area.split_vertically((height as i32 - legend.height).max(0));
    // A title wider than the canvas (a phone's) is set smaller, down to 10 px.
    let title_width = area
        .estimate_text_size(&chart.title, &palette.font(15.0, palette.text, scale))?
        .0 as f64;
    let room = f64::from(width) - 2.0 * f64::from(margin);
    let title_size = (15.0 * (room / title_width).min(1.0)).max(10.0);

    // The title above its own area: the top y label, centred on the plot's
    // top edge, then sits in the margin below it rather than under a title
    // that a phone's width stretches over it.
    let plot_area =
        plot_area.titled(&chart.title, palette.font(title_size, palette.text, scale))?;
    let mut ctx = ChartBuilder::on(&plot_area)
        .margin(margin)
        .margin_right(right)
        .x_label_area_size(px(40.0))
        .y_label_area_size(y_label_area)
        .build_cartesian_2d(
            chart.x_range.0..chart.x_range.1,
            chart.y_range.0..chart.y_range.1,
        )?;
    let mut mesh = ctx.configure_mesh();
    palette.theme_mesh(&mut mesh, scale);
    mesh.x_desc(chart.x_desc)
        .y_desc(chart.y_desc)
        .x_labels(chart.x_labels)
        .y_labels(Y_LABELS)
        .x_label_formatter(&|x| x_label.text(*x, x_decimals))
        .y_label_formatter(&|y| y_label.text(*y, y_decimals))
        .draw()?;
    if let Some((x, _)) = chart.rule {
        ctx.draw_series(DashedLineSeries::new(
            [(x, chart.y_range.0), (x, chart.y_range.1)],
            px(5.0) as u32,
            px(4.0) as u32,
            palette.text.stroke_width(px(1.5) as u32),
        ))?;
    }
    let (bold, plain): (Vec<&Series>, Vec<&Series>) = chart.lines.iter().partition(|s| s.bold);
    for series in plain.into_iter().chain(bold) {
        let width = if series.bold { 3.5 } else { 1.5 };
        ctx.draw_series(LineSeries::new(
            series.points.iter().copied(),
            colour(series.colour).stroke_width(px(width) as u32),
        ))?;
    }
    for series in &chart.dots {
        let fill = colour(series.colour).filled();
        ctx.draw_series(series.points.iter().map(|&p| Circle::new(p, px(4.5), fill)))?;
    }
    if let Some(point) = chart.marker {
        let current = chart
            .lines
            .iter()
            .find(|s| s.bold)
            .map_or(palette.text, |s| colour(s.colour));
        ctx.draw_series(std::iter::once(Circle::new(
            point,
            px(6.0),
            current.filled(),
        )))?;
        ctx.draw_series(std::iter::once(Circle::new(
            point,
            px(9.0),
            palette.text.stroke_width(px(1.5) as u32),
        )))?;
    }
    legend.draw(
        &legend_area.margin(0, 0, legend.left, right),
        palette,
        scale,
    )
}

/// How a legend entry shows its series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LegendMark {
    Line,
    /// A dashed line, as a chart's rule is drawn.
    Dashed,
    Dot,
}

/// A chart's legend, laid out in rows that wrap on narrow screens. Drawn
/// here rather than by plotters' series labels, which sit inside the
/// plotting area (over the data) and size their text by laying out a
/// `<span>` in the page, a forced layout of the whole page on every redraw.
struct Legend<'a> {
    entries: Vec<(&'a str, RGBColor, LegendMark)>,
    /// Each entry's row and left edge, in pixels from the legend's left.
    places: Vec<(usize, i32)>,
    /// The height of a row, in pixels.
    line: i32,
    /// The height it takes under the chart, its bottom margin included, in pixels.
    height: i32,
    /// Its left edge, in pixels from the canvas's.
    left: i32,
}

impl<'a> Legend<'a> {
    /// The legend's font, in the palette's text colour.
    fn font(palette: &Palette, scale: f64) -> TextStyle<'static> {
        palette.font(13.0, palette.text, scale)
    }

    /// The width of an entry's mark and the gap after it, in pixels.
    fn mark(scale: f64) -> (i32, i32) {
        (Palette::px(scale, 16.0), Palette::px(scale, 6.0))
    }

    /// Lays `entries` out in rows from the first of `lefts` that leaves
    /// room for the widest, else from the second, up to `right` (pixels
    /// from the canvas's left edge), measuring their labels on `area`.
    fn lay_out<DB: DrawingBackend>(
        area: &DrawingArea<DB, plotters::coord::Shift>,
        palette: &Palette,
        scale: f64,
        entries: Vec<(&'a str, RGBColor, LegendMark)>,
        lefts: (i32, i32),
        right: i32,
    ) -> Result<Self, DrawingAreaErrorKind<DB::ErrorType>> {
        let font = Self::font(palette, scale);
        let (mark, gap) = Self::mark(scale);
        let (mut widths, mut line) = (Vec::with_capacity(entries.len()), 0);
        for (label, ..) in &entries {
            let (width, height) = area.estimate_text_size(label, &font)?;
            widths.push(mark + gap + width as i32);
            line = line.max(height as i32);
        }
        let line = line + Palette::px(scale, 4.0);
        let widest = widths.iter().copied().max().unwrap_or(0);
        let left = if widest <= right - lefts.0 {
            lefts.0
        } else {
            lefts.1
        };
        let places = flow(&widths, right - left, Palette::px(scale, 16.0));
        let rows = places.last().map_or(0, |&(row, _)| row as i32 + 1);
        Ok(Self {
            entries,
            places,
            line,
            height: rows * line + Palette::px(scale, 8.0),
            left,
        })
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
        palette: &Palette,
        scale: f64,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let font = Self::font(palette, scale).pos(Pos::new(HPos::Left, VPos::Center));
        let (mark, gap) = Self::mark(scale);
        let stroke = Palette::px(scale, 3.0) as u32;
        for (&(label, colour, kind), &(row, left)) in self.entries.iter().zip(&self.places) {
            let (x, y) = (left, self.line * row as i32 + self.line / 2);
            match kind {
                LegendMark::Line => area.draw(&PathElement::new(
                    vec![(x, y), (x + mark, y)],
                    colour.stroke_width(stroke),
                ))?,
                LegendMark::Dashed => {
                    // Two dashes and a gap, as the rule's 5 px dashes 4 px apart.
                    let dash = (mark - Palette::px(scale, 4.0)) / 2;
                    for start in [x, x + mark - dash] {
                        area.draw(&PathElement::new(
                            vec![(start, y), (start + dash, y)],
                            colour.stroke_width(Palette::px(scale, 1.5) as u32),
                        ))?;
                    }
                }
                LegendMark::Dot => area.draw(&Circle::new(
                    (x + mark / 2, y),
                    Palette::px(scale, 4.0),
                    colour.filled(),
                ))?,
            }
            area.draw(&Text::new(
                label.to_string(),
                (x + mark + gap, y),
                font.clone(),
            ))?;
        }
        Ok(())
    }
}

/// Places items of `widths` left to right, `spacing` apart, in rows no
/// wider than `room`: each item's row and left edge. An item wider than the
/// room has a row to itself.
fn flow(widths: &[i32], room: i32, spacing: i32) -> Vec<(usize, i32)> {
    let (mut row, mut left) = (0, 0);
    widths
        .iter()
        .map(|&width| {
            if left > 0 && left + width > room {
                row += 1;
                left = 0;
            }
            let place = (row, left);
            left += width + spacing;
            place
        })
        .collect()
}

/// Parses a computed colour, `rgb(58, 107, 201)`.
fn rgb(text: &str) -> Option<RGBColor> {
    let inner = text.trim().strip_prefix("rgb(")?.strip_suffix(')')?;
    let mut channels = inner.split(',').map(|c| c.trim().parse::<u8>().ok());
    let colour = RGBColor(channels.next()??, channels.next()??, channels.next()??);
    channels.next().is_none().then_some(colour)
}

thread_local! {
    /// The palette last read from the page; cleared when the colour scheme
    /// changes (the only time it can), so redraws do not re-read the styles.
    static PALETTE: std::cell::Cell<Option<Palette>> = const { std::cell::Cell::new(None) };
}

/// The page's palette, read once per colour scheme.
fn current_palette() -> Palette {
    PALETTE.with(|cached| {
        cached.get().unwrap_or_else(|| {
            let palette = page_palette();
            cached.set(Some(palette));
            palette
        })
    })
}

/// The palette as the page's CSS currently resolves it. The tokens are
/// `light-dark()` pairs, which a custom property keeps unresolved, so each
/// is resolved as the colour of a hidden probe element.
fn page_palette() -> Palette {
    let fallback = Palette::default();
    let document = document();
    let Some(probe) = document
        .create_element("span")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return fallback;
    };
    probe.set_hidden(true);
    let Some(body) = document.body() else {
        return fallback;
    };
    _ = body.append_child(&probe);
    let computed = window().get_computed_style(&probe).ok().flatten();
    let token = |name: &str, default: RGBColor| {
        _ = probe.style().set_property("color", &format!("var({name})"));
        computed
            .as_ref()
            .and_then(|style| style.get_property_value("color").ok())
            .and_then(|value| rgb(&value))
            .unwrap_or(default)
    };
    let palette = Palette {
        text: token("--text", fallback.text),
        muted: token("--muted", fallback.muted),
        grid: token("--border", fallback.grid),
        series: [
            token("--weights", fallback.series[0]),
            token("--gradients", fallback.series[1]),
            token("--optimizer", fallback.series[2]),
            token("--compute", fallback.series[3]),
        ],
    };
    probe.remove();
    palette
}

/// The canvas backend, measuring text with the canvas's own `measureText`.
/// Without it plotters sizes every axis label by adding a styled `<span>`
/// to the page and reading its size, a forced layout of the whole page per
/// label; a chart's redraw took 6-10 ms, most of it in those layouts.
pub struct Canvas {
    backend: CanvasBackend,
    context: web_sys::CanvasRenderingContext2d,
}

impl Canvas {
    fn new(element: web_sys::HtmlCanvasElement) -> Option<Self> {
        let context = element
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<web_sys::CanvasRenderingContext2d>()
            .ok()?;
        let backend = CanvasBackend::with_canvas_object(element)?;
        Some(Self { backend, context })
    }

    /// Clears every pixel.
    fn clear(&self) {
        let (width, height) = self.backend.get_size();
        self.context
            .clear_rect(0.0, 0.0, f64::from(width), f64::from(height));
    }
}

/// Every drawing call is the canvas backend's; only text measuring is ours.
impl DrawingBackend for Canvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.backend.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.draw_pixel(point, color)
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.draw_line(from, to, style)
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend
            .draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.draw_path(path, style)
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.backend.draw_text(text, style, pos)
    }

    /// Width and height in canvas pixels, in the font `draw_text` uses.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.context.set_font(&format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str(),
        ));
        let Ok(metrics) = self.context.measure_text(text) else {
            // Measured as plotters would, through the page.
            return self.backend.estimate_text_size(text, style);
        };
        let height = metrics.font_bounding_box_ascent() + metrics.font_bounding_box_descent();
        Ok((metrics.width().ceil() as u32, height.ceil() as u32))
    }
}

/// How a figure draws its chart: onto the canvas, with the page's palette
/// and the device pixel ratio (to scale fonts and strokes).
pub type Draw = Callback<(Canvas, Palette, f64)>;

/// How long a chart's curves rest before it is drawn again: a slider
/// dragged through them moves them many times a second, and a drawing at
/// each step made long frames.
const REDRAW_AFTER: Duration = Duration::from_millis(150);

/// Draws the line chart `chart` holds over the whole canvas, and again once
/// it has changed and rested ([`REDRAW_AFTER`]): what a figure with one
/// chart gives [`PlotCanvas`].
pub fn line_chart_drawing(chart: Memo<LineChart>) -> Draw {
    let rested = RwSignal::new(0u32);
    let debounced = Debounced::new(REDRAW_AFTER);
    Effect::new(move |first: Option<()>| {
        chart.track();
        if first.is_some() {
            debounced.call(move || rested.update(|n| *n = n.wrapping_add(1)));
        }
    });
    Callback::new(move |(backend, palette, scale): (Canvas, Palette, f64)| {
        rested.track();
        let area = backend.into_drawing_area();
        _ = area.fill(&TRANSPARENT);
        chart.with_untracked(|chart| _ = draw_line_chart(&area, chart, &palette, scale));
        _ = area.present();
    })
}

#[component]
pub fn PlotCanvas(
    /// Draws the chart; it is re-run whenever the signals it reads change.
    draw: Draw,
    /// Height in CSS pixels.
    height: u32,
    /// A text alternative for the chart.
    #[prop(into)]
    label: Signal<String>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // A window resize can change the device pixel ratio.
    let resized = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n = n.wrapping_add(1))
    });
    on_cleanup(move || handle.remove());
    let dark = use_prefers_dark();
    // The canvas's CSS width; 0 until it is first measured.
    let width = use_element_size(canvas).width;
    canvas.on_load(move |element| {
        // Through the CSS object model: a style attribute would break the page's CSP.
        _ = web_sys::HtmlElement::style(&element).set_property("height", &format!("{height}px"));
    });
    Effect::new(move |scheme: Option<bool>| {
        resized.track();
        let scheme_now = dark.get();
        if scheme.is_some_and(|was| was != scheme_now) {
            // The palette's tokens resolve differently now.
            PALETTE.with(|cached| cached.set(None));
        }
        let width = width.get();
        let Some(element) = canvas.get().filter(|_| width > 0.0) else {
            return scheme_now;
        };
        let element: web_sys::HtmlCanvasElement = element.unchecked_into();
        let ratio = window().device_pixel_ratio().max(1.0);
        let size = ((width * ratio) as u32, (f64::from(height) * ratio) as u32);
        // Only when it changes: resizing a canvas is costly (and clears it).
        if (element.width(), element.height()) != size {
            element.set_width(size.0);
            element.set_height(size.1);
        }
        if let Some(canvas) = Canvas::new(element) {
            canvas.clear();
            draw.run((canvas, current_palette(), ratio));
        }
        scheme_now
    });
    view! {
        <canvas
            node_ref=canvas
            class="plot-canvas"
            role="img"
            aria-label=move || label.get()
        ></canvas>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computed_colours() {
        assert_eq!(rgb("rgb(58, 107, 201)"), Some(RGBColor(58, 107, 201)));
        assert_eq!(rgb(" rgb(0,0,0) "), Some(RGBColor(0, 0, 0)));
        assert_eq!(rgb("rgba(1, 2, 3, 0.5)"), None);
        assert_eq!(rgb("rgb(1, 2)"), None);
        assert_eq!(rgb("rgb(1, 2, 3, 4)"), None);
        assert_eq!(rgb("rgb(256, 2, 3)"), None);
        assert_eq!(rgb("#3a6bc9"), None);
    }

    /// The text elements of `chart` drawn to SVG at `width` × `height`: (x, y, text).
    #[cfg(not(target_arch = "wasm32"))]
    fn texts(chart: &LineChart, width: u32, height: u32) -> Vec<(i32, i32, String)> {
        use plotters::backend::SVGBackend;
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            draw_line_chart(&area, chart, &Palette::default(), 1.0).unwrap();
            area.present().unwrap();
        }
        let attribute = |element: &str, name: &str| -> i32 {
            let start = element.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            let end = start + element[start..].find('"').unwrap();
            element[start..end].parse().unwrap()
        };
        svg.split("<text")
            .skip(1)
            .map(|element| {
                let content =
                    &element[element.find('>').unwrap() + 1..element.find("</text>").unwrap()];
                (
                    attribute(element, "x"),
                    attribute(element, "y"),
                    content.trim().to_string(),
                )
            })
            .collect()
    }

    /// A chart shaped like the bubble chart (log2 of 1 to 256 micro-batches)
    /// with a rule and dots as the lab has, so that every legend mark shows.
    #[cfg(not(target_arch = "wasm32"))]
    fn bubble_like(y_range: (f64, f64), y_label: AxisLabel) -> LineChart {
        let line = |label, colour| Series {
            label,
            points: vec![(0.0, y_range.1), (8.0, y_range.0)],
            colour,
            bold: colour == 0,
        };
        LineChart {
            title: "Bubble against micro-batches".to_string(),
            x_desc: "micro-batches m (log scale)",
            y_desc: "bubble",
            x_range: (0.0, 8.0),
            y_range,
            x_labels: 9,
            x_label: AxisLabel::PowerOfTwo,
            y_label,
            lines: vec![
                line("GPipe and 1F1B", 0),
                line("Interleaved 1F1B", 1),
                line("Zero bubble (ZB-H1)", 2),
            ],
            dots: vec![Series {
                label: "measured",
                points: vec![(8.0, y_range.1)],
                colour: 3,
                bold: false,
            }],
            marker: Some((3.0, y_range.1 / 2.0)),
            rule: Some((2.0, "your k")),
        }
    }

    /// 0.1 + 0.2 is 0.30000000000000004 in binary floating point: the tick
    /// that was written out in full and clipped to `0000004`.
    #[test]
    fn tick_labels_round_to_the_step_between_ticks() {
        assert_eq!(tick_decimals(&[0.0, 0.05, 0.1]), 2);
        assert_eq!(tick_decimals(&[0.0, 0.2]), 1);
        // 0.3 − 0.2 is 0.09999999999999998: still a step of one decimal.
        assert_eq!(tick_decimals(&[0.2, 0.3]), 1);
        assert_eq!(tick_decimals(&[0.0, 5.0, 10.0]), 0);
        assert_eq!(tick_decimals(&[20.0, 40.0]), 0);
        assert_eq!(tick_decimals(&[1.0]), 0);
        assert_eq!(AxisLabel::Plain.text(0.1 + 0.2, 1), "0.3");
        assert_eq!(AxisLabel::Plain.text(0.1 + 0.2, 2), "0.30");
        assert_eq!(AxisLabel::Plain.text(0.15000000000000002, 2), "0.15");
        assert_eq!(AxisLabel::Plain.text(40.0, 0), "40");
        assert_eq!(AxisLabel::Percent.text(0.6000000000000001, 1), "60%");
        assert_eq!(AxisLabel::Percent.text(0.005, 3), "0.5%");
        assert_eq!(AxisLabel::Whole.text(3.0000000000000004, 0), "3");
        assert_eq!(AxisLabel::Whole.text(1.5, 1), "");
        assert_eq!(AxisLabel::Whole.text(2.0000000000000004, 1), "2");
        // Powers of two at whole powers only, grouped: 2¹⁰; nothing at 2^0.5.
        assert_eq!(AxisLabel::PowerOfTwo.text(10.0, 0), "1,024");
        assert_eq!(AxisLabel::PowerOfTwo.text(0.5, 1), "");
        assert_eq!(AxisLabel::PowerOfTwo.text(2.0000000000000004, 1), "4");
        // Times on a log axis, in seconds: 10⁻², 10⁰, 10², 10⁴ and half a decade.
        let seconds: Vec<String> = [-2.0, 0.0, 2.0, 4.0, 0.5]
            .map(|decade| AxisLabel::LogSeconds.text(decade, 0))
            .into();
        assert_eq!(seconds, ["0.01 s", "1 s", "100 s", "10,000 s", "3.2 s"]);
        assert_eq!(AxisLabel::PowerOfTwo.text(8.0, 0), "256");
    }

    /// Plotters steps by 1, 2 or 5 times a power of ten with at most
    /// `Y_LABELS` (6) labels: over 0 to 0.33 a step of 0.05 would need 7
    /// (0 to 0.30), so it is 0.1; over 0 to 0.22 a step of 0.05 needs 5.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn y_labels_of_small_ranges_are_clean() {
        for (top, expected) in [
            (0.33, vec!["0.0", "0.1", "0.2", "0.3"]),
            (0.22, vec!["0.00", "0.05", "0.10", "0.15", "0.20"]),
        ] {
            let all = texts(&bubble_like((0.0, top), AxisLabel::Plain), 640, 280);
            // The y labels are the texts right-aligned at the y axis, left of the plot.
            let mut labels: Vec<&(i32, i32, String)> = all
                .iter()
                .filter(|(x, _, text)| *x < 60 && !text.is_empty() && text != "bubble")
                .collect();
            // From the bottom of the axis up.
            labels.sort_by_key(|&&(_, y, _)| std::cmp::Reverse(y));
            let found: Vec<&str> = labels.iter().map(|(.., text)| text.as_str()).collect();
            assert_eq!(found, expected, "0 to {top}");
        }
    }

    /// At a phone's 360 px and a wide screen's 1,440 px: the legend lies
    /// under the axis description (so under the plot and its data), wraps
    /// rather than running off, and stays inside the canvas.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_legend_lies_under_the_plot() {
        for width in [360, 1440] {
            let (height, chart) = (280, bubble_like((0.0, 1.0), AxisLabel::Percent));
            let all = texts(&chart, width, height);
            let find = |label: &str| all.iter().find(|(.., text)| text == label).unwrap().1;
            let description = find(chart.x_desc);
            let legend = [
                "GPipe and 1F1B",
                "Zero bubble (ZB-H1)",
                "measured",
                "your k",
            ];
            for label in legend {
                let y = find(label);
                assert!(
                    y > description && y < height as i32,
                    "{width} px: {label} at y {y}"
                );
            }
            let rows: std::collections::BTreeSet<i32> = legend.iter().map(|l| find(l)).collect();
            assert_eq!(
                rows.len() > 1,
                width == 360,
                "{width} px: legend rows {rows:?}"
            );
        }
    }

    /// The last x label, centred on the right end of the axis, fits inside
    /// the canvas: the bubble chart's 256, and a longer 1024 (which the
    /// 8 px margin alone clipped even in the tests' narrow estimated font),
    /// written as the page writes thousands.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_last_x_label_fits() {
        use plotters::backend::SVGBackend;
        for (end, label) in [(8.0, "256"), (10.0, "1,024")] {
            for width in [360, 1440] {
                let mut chart = bubble_like((0.0, 1.0), AxisLabel::Percent);
                (chart.x_range, chart.x_labels) = ((0.0, end), end as usize + 1);
                let all = texts(&chart, width, 280);
                let (x, ..) = all.iter().find(|(.., text)| text == label).unwrap();
                let mut probe = String::new();
                let area = SVGBackend::with_string(&mut probe, (width, 280)).into_drawing_area();
                let font = Palette::default().label_font(1.0);
                let (text_width, _) = area.estimate_text_size(label, &font).unwrap();
                assert!(
                    *x + text_width as i32 / 2 <= width as i32,
                    "{width} px: {label} centred at {x}"
                );
            }
        }
    }

    /// A legend entry wider than the room under the plot starts at the
    /// canvas's margin instead, and ends inside the canvas: at a phone's
    /// 294 px the rule's "network all-reduce overtakes compute" ran off it.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_long_legend_entry_fits() {
        use plotters::backend::SVGBackend;
        let label = "network all-reduce overtakes compute";
        for width in [260, 294, 360, 1440] {
            let mut chart = bubble_like((0.0, 1.0), AxisLabel::Percent);
            chart.rule = Some((3.0, label));
            let all = texts(&chart, width, 280);
            let (x, ..) = all.iter().find(|(.., text)| text == label).unwrap();
            let mut probe = String::new();
            let area = SVGBackend::with_string(&mut probe, (width, 280)).into_drawing_area();
            let font = Legend::font(&Palette::default(), 1.0);
            let (text_width, _) = area.estimate_text_size(label, &font).unwrap();
            assert!(
                *x + text_width as i32 <= width as i32,
                "{width} px: {label} from {x}, {text_width} px wide"
            );
        }
    }

    #[test]
    fn legend_entries_flow_into_rows() {
        // 100 + 20 + 100 = 220 fits in 250; the third would end at 340.
        assert_eq!(flow(&[100, 100, 100], 250, 20), [(0, 0), (0, 120), (1, 0)]);
        // Exactly filling the room is fitting.
        assert_eq!(flow(&[50, 50], 120, 20), [(0, 0), (0, 70)]);
        // Too wide for any row: a row of its own, and the next starts another.
        assert_eq!(flow(&[300, 10], 250, 20), [(0, 0), (1, 0)]);
        assert_eq!(flow(&[], 250, 20), []);
    }
}
