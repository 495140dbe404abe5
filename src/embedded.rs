//! One figure alone, for an iframe on a course page: the figure, its share
//! panel and units toggle (unless `chrome=0`), and its height reported to
//! the page around it.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::figures::{Live, FIGURES};
use crate::hooks::use_element_size;
use crate::model::query::Notice;
use crate::page::FigureShare;
use crate::settings::{use_settings, UnitsToggle};
use crate::widgets::{scoped, Notices};

/// Tells the embedding page how tall the figure is, whenever that changes:
/// `{ type: "parallax:resize", figure, height }` (CSS pixels), nothing else.
/// Does nothing when the page is not in a frame.
fn report_height(figure: &'static str, height: u32) {
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    if js_sys::Object::is(&parent, &window()) {
        return;
    }
    let message = js_sys::Object::new();
    for (key, value) in [
        ("type", JsValue::from_str("parallax:resize")),
        ("figure", JsValue::from_str(figure)),
        ("height", JsValue::from(height)),
    ] {
        _ = js_sys::Reflect::set(&message, &JsValue::from_str(key), &value);
    }
    _ = parent.post_message(&message, "*");
}

/// The figure at `index` of the registry, alone.
#[component]
pub fn Embedded(
    /// Its place in the registry.
    index: usize,
    /// Every figure's parameters (the others are there for the URL writer).
    figures: StoredValue<Vec<Live>>,
    /// Notes about URL parameters that could not be used.
    notices: Vec<Notice>,
) -> impl IntoView {
    let figure = FIGURES[index];
    let slug = figure.slug();
    let chrome = use_settings().with_untracked(|s| s.chrome);
    let main = NodeRef::<leptos::html::Main>::new();
    let size = use_element_size(main);
    Effect::new(move |_| {
        size.height.track();
        if let Some(main) = main.get() {
            report_height(slug, main.scroll_height().max(0) as u32);
        }
    });
    let live = figures.with_value(|all| all[index].clone());
    // The GB/GiB toggle only where there are bytes to show.
    let units = figure.shows_bytes;
    view! {
        <main class="embed" data-figure=slug node_ref=main>
            <Notices notices=notices/>
            <section class="figure" aria-labelledby="figure-title">
                <h1 class="figure__title" id="figure-title">{figure.about.title}</h1>
                {scoped(slug, move || live.view())}
                {chrome.then(|| view! {
                    <FigureShare figures=figures index=index/>
                    {units.then(|| view! { <UnitsToggle/> })}
                })}
            </section>
        </main>
    }
}
