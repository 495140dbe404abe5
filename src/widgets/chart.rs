//! The one canvas wrapper: owns a `<canvas>`, sizes it by
//! `devicePixelRatio` so charts stay sharp, redraws from one effect when the
//! figure's data or the window's size changes.

use leptos::prelude::*;
use plotters::chart::{ChartContext, MeshStyle};
use plotters::coord::{ranged1d::Ranged, CoordTranslate};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::hooks::{use_element_size, use_prefers_dark};

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
        ("sans-serif", size * scale).into_font().color(&colour)
    }

    /// Gives a chart's grid, axes and labels the palette's colours.
    pub fn theme_mesh<X, Y, DB>(&self, mesh: &mut MeshStyle<'_, '_, X, Y, DB>, scale: f64)
    where
        X: Ranged,
        Y: Ranged,
        DB: DrawingBackend,
    {
        mesh.label_style(self.font(13.0, self.muted, scale))
            .axis_desc_style(self.font(13.0, self.muted, scale))
            .light_line_style(self.grid.mix(0.3))
            .bold_line_style(self.grid.mix(0.8))
            .axis_style(self.muted);
    }

    /// Draws a legend in the upper right corner of a chart's plotting area.
    /// Drawn here rather than by plotters' series labels, which size their
    /// text by laying out a `<span>` in the page: a forced layout of the
    /// whole page on every redraw.
    pub fn draw_legend<DB, CT>(
        &self,
        ctx: &ChartContext<'_, DB, CT>,
        scale: f64,
        entries: &[(&str, RGBColor, LegendMark)],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend,
        CT: CoordTranslate,
    {
        let area = ctx.plotting_area().strip_coord_spec();
        let font = self.font(13.0, self.text, scale);
        let (pad, mark, gap) = (
            Self::px(scale, 6.0),
            Self::px(scale, 16.0),
            Self::px(scale, 6.0),
        );
        let (mut widest, mut line) = (0, 0);
        for (label, ..) in entries {
            let (width, height) = area.estimate_text_size(label, &font)?;
            widest = widest.max(width as i32);
            line = line.max(height as i32);
        }
        let line = line + Self::px(scale, 3.0);
        let (box_width, box_height) = (
            2 * pad + mark + gap + widest,
            2 * pad + line * entries.len() as i32,
        );
        let left = area.dim_in_pixel().0 as i32 - box_width - pad;
        area.draw(&Rectangle::new(
            [(left, pad), (left + box_width, pad + box_height)],
            self.grid.stroke_width(1),
        ))?;
        for (row, &(label, colour, kind)) in entries.iter().enumerate() {
            let (x, y) = (left + pad, 2 * pad + line * row as i32 + line / 2);
            match kind {
                LegendMark::Line => area.draw(&PathElement::new(
                    vec![(x, y), (x + mark, y)],
                    colour.stroke_width(Self::px(scale, 3.0) as u32),
                ))?,
                LegendMark::Dot => area.draw(&Circle::new(
                    (x + mark / 2, y),
                    Self::px(scale, 4.0),
                    colour.filled(),
                ))?,
            }
            let anchored = font.pos(Pos::new(HPos::Left, VPos::Center));
            area.draw(&Text::new(label.to_string(), (x + mark + gap, y), anchored))?;
        }
        Ok(())
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
    /// Plain numbers with as many decimals as plotters' ticks need.
    Plain,
}

impl AxisLabel {
    pub fn text(self, value: f64) -> String {
        match self {
            AxisLabel::Whole if value.fract() != 0.0 => String::new(),
            AxisLabel::Whole => format!("{value:.0}"),
            AxisLabel::PowerOfTwo => format!("{:.0}", value.exp2()),
            AxisLabel::Percent => format!("{:.0}%", value * 100.0),
            AxisLabel::Plain => format!("{value}"),
        }
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

/// Draws `chart` on any plotters backend; `scale` is the device pixel ratio,
/// by which fonts and strokes grow. Bold lines are drawn last, over the others.
pub fn draw_line_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &LineChart,
    palette: &Palette,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |css: f64| Palette::px(scale, css);
    let colour = |index: usize| palette.series[index % palette.series.len()];
    let mut ctx = ChartBuilder::on(area)
        .margin(px(8.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(52.0))
        .caption(&chart.title, palette.font(15.0, palette.text, scale))
        .build_cartesian_2d(
            chart.x_range.0..chart.x_range.1,
            chart.y_range.0..chart.y_range.1,
        )?;
    let mut mesh = ctx.configure_mesh();
    palette.theme_mesh(&mut mesh, scale);
    let (x_label, y_label) = (chart.x_label, chart.y_label);
    mesh.x_desc(chart.x_desc)
        .y_desc(chart.y_desc)
        .x_labels(chart.x_labels)
        .x_label_formatter(&|x| x_label.text(*x))
        .y_label_formatter(&|y| y_label.text(*y))
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
        entries.push((label, palette.text, LegendMark::Line));
    }
    palette.draw_legend(&ctx, scale, &entries)?;
    Ok(())
}

/// How a legend entry shows its series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LegendMark {
    Line,
    Dot,
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
}
