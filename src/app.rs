//! The route: the full explainer, or one figure alone for embedding, chosen
//! from the URL (`?fig=<slug>` embeds, `?step=<slug>` opens the explainer
//! at a figure). The URL is read once here and written back from one effect.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::embedded::Embedded;
use crate::figures::{find, Figure, Live, FIGURES};
use crate::hooks::use_url_writer;
use crate::model::memory::BytesPerParam;
use crate::model::query::{read_choice, repeated_keys, to_search, Notice, Pairs, Query};
use crate::model::scenario::read_bytes_per_param;
use crate::page::{assumed_in, take_over_page};
use crate::settings::{provide_settings, PageBytes, PageSettings};

/// What the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The whole explainer, opened at the figure with this index in [`FIGURES`].
    Explainer { step: usize },
    /// One figure alone, sized for an iframe.
    Embed(usize),
}

impl Route {
    /// Reads `fig` and `step`; unknown slugs fall back to the explainer with a notice.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let slugs: Vec<&str> = FIGURES.iter().map(|f| f.slug()).collect();
        let index = |key, notices: &mut Vec<Notice>| {
            read_choice(query, key, &slugs, notices)
                .and_then(find)
                .map(|(i, _)| i)
        };
        if let Some(figure) = index("fig", notices) {
            return Route::Embed(figure);
        }
        Route::Explainer {
            step: index("step", notices).unwrap_or(0),
        }
    }

    /// The index of the figure whose parameters the URL holds.
    pub fn figure(&self) -> usize {
        match *self {
            Route::Explainer { step } => step,
            Route::Embed(figure) => figure,
        }
    }

    /// The URL for this route with `active`'s parameters: `?fig=...` or
    /// `?step=...`, then the figure's own pairs, then the page's settings.
    pub fn search(
        &self,
        active: &Figure,
        figure_pairs: &[(String, String)],
        page: PageSettings,
    ) -> String {
        let key = match self {
            Route::Embed(_) => "fig",
            Route::Explainer { .. } => "step",
        };
        let mut pairs = vec![(key.to_string(), active.slug().to_string())];
        pairs.extend_from_slice(figure_pairs);
        page.write(&mut pairs);
        to_search(&pairs)
    }
}

/// Installs the panic message, then starts the app on the page `index.html` holds.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&info.to_string()));
        show_crash_message();
    }));
    let Some(root) = document().get_element_by_id("app") else {
        return;
    };
    if let Ok(root) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(root) {
        leptos::mount::mount_to(root, App).forget();
    }
}

/// Replaces a dead page with a short explanation and a way out.
fn show_crash_message() {
    let document = document();
    let (Ok(note), Ok(link), Some(body)) = (
        document.create_element("div"),
        document.create_element("a"),
        document.body(),
    ) else {
        return;
    };
    note.set_class_name("crash");
    _ = note.set_attribute("role", "alert");
    note.set_text_content(Some(
        "Something went wrong and this figure stopped working. ",
    ));
    _ = link.set_attribute("href", &window().location().href().unwrap_or_default());
    link.set_text_content(Some("Reload the page"));
    _ = note.append_child(&link);
    _ = body.prepend_with_node_1(&note);
}

/// The page's own address with another query: origin and path of this page.
pub fn page_url(search: &str) -> String {
    let location = window().location();
    format!(
        "{}{}{search}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default()
    )
}

/// The app: reads the URL once, keeps each figure's parameters in a signal,
/// and mirrors them back into the URL from a single effect.
#[component]
pub fn App() -> impl IntoView {
    let query = Query::parse(&window().location().search().unwrap_or_default());
    if query.get("panic-test").is_some() {
        panic!("panic-test: a deliberate panic, to check that the reader sees a message");
    }
    let mut notices = Vec::new();
    repeated_keys(&query, &mut notices);
    let route = Route::from_query(&query, &mut notices);
    let initial = PageSettings::from_query(&query, &mut notices);
    initial.apply();
    let page = provide_settings(initial);
    // The figure in the URL reads its parameters from it; the others start at their defaults.
    let empty = Query::default();
    let figures: Vec<Live> = FIGURES
        .iter()
        .enumerate()
        .map(|(index, figure)| {
            (figure.start)(
                if index == route.figure() {
                    &query
                } else {
                    &empty
                },
                &mut notices,
            )
        })
        .collect();
    // The bytes-a-parameter convention is the page's: the URL sets it for every
    // figure (its notice, if any, came with the URL's figure).
    let bytes = read_bytes_per_param(&query, BytesPerParam::MIXED_PRECISION_ADAM, &mut Vec::new());
    figures.iter().for_each(|f| f.set_bytes_per_param(bytes));
    provide_context(PageBytes(RwSignal::new(bytes)));
    let figures = StoredValue::new(figures);
    // The figures that last took an assumption from another (src/page.rs):
    // the URL keeps naming the figure the reader changed.
    let carried = StoredValue::new(Vec::new());
    write_url_on_change(route, figures, page, carried);
    // For tests and scripts waiting on the app; and a `?fig=` that names no
    // figure falls back to the page, which src/route.js had hidden.
    if let Some(root) = document().document_element() {
        _ = root.set_attribute("data-app", "started");
        if matches!(route, Route::Explainer { .. }) {
            _ = root
                .class_list()
                .remove_2("embed-route", "embed-route--pending");
        }
    }
    match route {
        Route::Embed(index) => {
            // The figure alone, in place of the page the document holds.
            if let Some(root) = document().get_element_by_id("app") {
                root.set_inner_html("");
            }
            view! { <Embedded index=index figures=figures notices=notices/> }.into_any()
        }
        Route::Explainer { step } => {
            take_over_page(
                figures,
                carried,
                assumed_in(&query, figures, step),
                notices,
                query.get("step").is_some().then_some(step),
            );
            ().into_any()
        }
    }
}

/// Writes the URL whenever a parameter changes, naming the figure that
/// changed last (not one that only took another's assumption, `carried`);
/// not on the first run, so an opened link stays exactly as it was shared.
fn write_url_on_change(
    route: Route,
    figures: StoredValue<Vec<Live>>,
    page: RwSignal<PageSettings>,
    carried: StoredValue<Vec<usize>>,
) {
    let write = use_url_writer();
    Effect::new(move |previous: Option<(usize, Vec<Pairs>, PageSettings)>| {
        let current: Vec<Pairs> = figures.with_value(|all| all.iter().map(|f| f.pairs()).collect());
        let settings = page.get();
        let Some((active, before, settings_before)) = previous else {
            return (route.figure(), current, settings);
        };
        let carried = carried.try_update_value(std::mem::take).unwrap_or_default();
        let changed = before
            .iter()
            .zip(&current)
            .enumerate()
            .position(|(index, (old, new))| old != new && !carried.contains(&index));
        let active = match route {
            Route::Embed(index) => index,
            Route::Explainer { .. } => changed.unwrap_or(active),
        };
        if changed.is_some() || settings != settings_before {
            write(route.search(FIGURES[active], &current[active], settings));
        }
        (active, current, settings)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(search: &str) -> (Route, Vec<Notice>) {
        let mut notices = Vec::new();
        (
            Route::from_query(&Query::parse(search), &mut notices),
            notices,
        )
    }

    fn index(slug: &str) -> usize {
        find(slug).unwrap().0
    }

    #[test]
    fn fig_embeds_and_step_opens_the_explainer() {
        assert_eq!(route("?fig=why").0, Route::Embed(index("why")));
        assert_eq!(route("?fig=3d").0, Route::Embed(index("3d")));
        assert_eq!(route("?step=pp").0, Route::Explainer { step: index("pp") });
        assert_eq!(route("").0, Route::Explainer { step: 0 });
    }

    #[test]
    fn the_url_names_the_route_and_the_active_figure() {
        let pairs = vec![("gpus".to_string(), "16".to_string())];
        let page = PageSettings::default();
        let dp = FIGURES[index("dp")];
        assert_eq!(
            Route::Embed(index("dp")).search(dp, &pairs, page),
            "?fig=dp&gpus=16"
        );
        let zero = FIGURES[index("zero")];
        assert_eq!(
            Route::Explainer { step: 0 }.search(zero, &pairs, page),
            "?step=zero&gpus=16"
        );
    }

    #[test]
    fn unknown_figures_fall_back_with_a_notice() {
        let (page, notices) = route("?fig=<script>");
        assert_eq!(page, Route::Explainer { step: 0 });
        assert_eq!(notices[0].key, "fig");
        let (_, notices) = route("?step=nope");
        assert_eq!(notices[0].key, "step");
    }
}
