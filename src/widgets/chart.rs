//! The one canvas wrapper: owns a `<canvas>`, sizes it by
//! `devicePixelRatio` so charts stay sharp, redraws from one effect when the
//! figure's data or the window's size changes.

use leptos::prelude::*;
use plotters::chart::{ChartContext, MeshStyle};
use plotters::coord::{ranged1d::Ranged, CoordTranslate};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

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
        mesh.label_style(self.font(11.0, self.muted, scale))
            .axis_desc_style(self.font(11.0, self.muted, scale))
            .light_line_style(self.grid.mix(0.3))
            .bold_line_style(self.grid.mix(0.8))
            .axis_style(self.muted);
    }

    /// Draws a chart's legend in the upper right corner.
    pub fn draw_legend<'a, DB, CT>(
        &self,
        ctx: &mut ChartContext<'a, DB, CT>,
        scale: f64,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend + 'a,
        CT: CoordTranslate,
    {
        ctx.configure_series_labels()
            .label_font(self.font(11.0, self.text, scale))
            .background_style(WHITE.mix(0.0))
            .border_style(self.grid)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
    }
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

/// Calls `changed` whenever the reader's light or dark preference changes;
/// stops when the returned value is dropped.
fn watch_colour_scheme(changed: impl Fn() + 'static) -> Option<impl Drop> {
    struct Listener(web_sys::MediaQueryList, Closure<dyn Fn()>);
    impl Drop for Listener {
        fn drop(&mut self) {
            _ = self
                .0
                .remove_event_listener_with_callback("change", self.1.as_ref().unchecked_ref());
        }
    }
    let list = window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()?;
    let callback = Closure::<dyn Fn()>::new(changed);
    list.add_event_listener_with_callback("change", callback.as_ref().unchecked_ref())
        .ok()?;
    Some(Listener(list, callback))
}

/// How a figure draws its chart: onto a canvas backend, with the page's
/// palette and the device pixel ratio (to scale fonts and strokes).
pub type Draw = Callback<(CanvasBackend, Palette, f64)>;

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
    // Bumped when the window's size or the reader's colour scheme changes.
    let redraws = RwSignal::new(0u32);
    let redraw = move || redraws.update(|n| *n = n.wrapping_add(1));
    let handle = window_event_listener(leptos::ev::resize, move |_| redraw());
    on_cleanup(move || handle.remove());
    // Owned by the component: dropped, and so unsubscribed, when it is.
    StoredValue::new_local(watch_colour_scheme(move || {
        PALETTE.with(|cached| cached.set(None));
        redraw();
    }));
    Effect::new(move |_| {
        redraws.track();
        let Some(element) = canvas.get() else {
            return;
        };
        let element: web_sys::HtmlCanvasElement = element.unchecked_into();
        // Through the CSS object model: a style attribute would break the page's CSP.
        _ = web_sys::HtmlElement::style(&element).set_property("height", &format!("{height}px"));
        let ratio = window().device_pixel_ratio().max(1.0);
        let width = f64::from(element.client_width().max(1));
        element.set_width((width * ratio) as u32);
        element.set_height((f64::from(height) * ratio) as u32);
        if let Some(backend) = CanvasBackend::with_canvas_object(element) {
            draw.run((backend, current_palette(), ratio));
        }
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
