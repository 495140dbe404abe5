//! The shell: the full explainer, or one figure alone for embedding, chosen
//! from the URL (`?fig=<slug>` embeds, `?step=<slug>` opens the explainer at
//! a figure). The URL is read once here and written back from one effect.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{closure::Closure, JsCast, JsValue};

use crate::content::Afterword;
use crate::exercises::Exercises;
use crate::figures::beyond::Beyond;
use crate::figures::{explanation, FigureId, FigureSet};
use crate::model::query::{read_choice, to_search, Notice, Pairs, Query};
use crate::settings::{PageSettings, Settings, UnitsToggle};
use crate::widgets::{scoped, ByteUnitSetting, Notices, Share};

/// What the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The whole explainer, scrolled to `step`.
    Explainer { step: FigureId },
    /// One figure alone, sized for an iframe.
    Embed(FigureId),
}

impl Route {
    /// Reads `fig` and `step`; unknown slugs fall back to the explainer with a notice.
    pub fn from_query(query: &Query, notices: &mut Vec<Notice>) -> Self {
        let slugs: Vec<&str> = FigureId::ALL.iter().map(|f| f.slug()).collect();
        if let Some(figure) =
            read_choice(query, "fig", &slugs, notices).and_then(FigureId::from_slug)
        {
            return Route::Embed(figure);
        }
        let step = read_choice(query, "step", &slugs, notices)
            .and_then(FigureId::from_slug)
            .unwrap_or(FigureId::Why);
        Route::Explainer { step }
    }

    /// The figure whose parameters the URL holds.
    pub fn figure(&self) -> FigureId {
        match *self {
            Route::Explainer { step } => step,
            Route::Embed(figure) => figure,
        }
    }

    /// The URL for this route with `active`'s parameters: `?fig=...` or
    /// `?step=...`, then the figure's own pairs, then the page's settings.
    pub fn search(
        &self,
        active: FigureId,
        figure_pairs: &[(String, String)],
        page: PageSettings,
    ) -> String {
        let mut pairs = match self {
            Route::Embed(figure) => vec![("fig".to_string(), figure.slug().to_string())],
            Route::Explainer { .. } => vec![("step".to_string(), active.slug().to_string())],
        };
        pairs.extend_from_slice(figure_pairs);
        page.write(&mut pairs);
        to_search(&pairs)
    }
}

/// Installs the panic message, then mounts the app in place of the loading note.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&info.to_string()));
        show_crash_message();
    }));
    let document = document();
    let Some(root) = document.get_element_by_id("app") else {
        return;
    };
    root.set_inner_html("");
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
fn page_url(search: &str) -> String {
    let location = window().location();
    format!(
        "{}{}{search}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default()
    )
}

/// Tells the embedding page how tall the figure is, whenever that changes:
/// `{ type: "parallax:resize", figure, height }` (CSS pixels), nothing else.
/// Does nothing when the page is not in a frame.
fn report_height(figure: &'static str) {
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    let Some(main) = document().query_selector("main.embed").ok().flatten() else {
        return;
    };
    if js_sys::Object::is(&parent, &window()) {
        return;
    }
    let measured = main.clone();
    let send = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
        let message = js_sys::Object::new();
        for (key, value) in [
            ("type", JsValue::from_str("parallax:resize")),
            ("figure", JsValue::from_str(figure)),
            ("height", JsValue::from(measured.scroll_height())),
        ] {
            _ = js_sys::Reflect::set(&message, &JsValue::from_str(key), &value);
        }
        _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) =
        web_sys::ResizeObserver::new(wasm_bindgen::JsCast::unchecked_ref(send.as_ref()))
    {
        observer.observe(&main);
    }
    // The observer lives as long as the page.
    send.forget();
}

fn current_search() -> String {
    window().location().search().unwrap_or_default()
}

/// The shortest time between two rewrites of the URL. Chromium's
/// `history.replaceState` costs 0.5 ms a call, up to 5 ms (measured here),
/// as much as a whole update of a figure, and it ignores calls made more than
/// about 200 times in ten seconds. So the URL follows a drag up to ten times
/// a second, from a timer and then in the browser's next idle period (where
/// there is one), never inside an input's own work.
const URL_INTERVAL: Duration = Duration::from_millis(100);

/// Writes the latest query to the URL at most once per [`URL_INTERVAL`].
#[derive(Default)]
struct UrlWriter {
    /// The query to write when the timer fires.
    pending: RefCell<Option<String>>,
    scheduled: Cell<bool>,
}

impl UrlWriter {
    fn write_soon(self: &Rc<Self>, search: String) {
        *self.pending.borrow_mut() = Some(search);
        if self.scheduled.replace(true) {
            return;
        }
        let writer = Rc::clone(self);
        let when_idle = move || {
            let idle = Rc::clone(&writer);
            let callback = Closure::once_into_js(move || idle.flush());
            // Idle periods can be rare in a busy page: never wait over 200 ms more.
            let options = web_sys::IdleRequestOptions::new();
            options.set_timeout(200);
            let requested = window()
                .request_idle_callback_with_options(callback.unchecked_ref(), &options)
                .is_ok();
            if !requested {
                writer.flush();
            }
        };
        if set_timeout_with_handle(when_idle, URL_INTERVAL).is_err() {
            self.flush();
        }
    }

    fn flush(&self) {
        self.scheduled.set(false);
        if let Some(search) = self.pending.borrow_mut().take() {
            replace_search(&search);
        }
    }
}

fn replace_search(search: &str) {
    let location = window().location();
    let url = if search.is_empty() {
        location.pathname().unwrap_or_default()
    } else {
        search.to_string()
    };
    if let Ok(history) = window().history() {
        _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// The app: reads the URL once, keeps each figure's parameters in a signal,
/// and mirrors them back into the URL from a single effect.
#[component]
pub fn App() -> impl IntoView {
    let query = Query::parse(&current_search());
    if query.get("panic-test").is_some() {
        panic!("panic-test: a deliberate panic, to check that the reader sees a message");
    }
    let mut notices = Vec::new();
    let route = Route::from_query(&query, &mut notices);
    let initial = PageSettings::from_query(&query, &mut notices);
    initial.apply();
    let page = RwSignal::new(initial);
    provide_context(page);
    provide_context::<ByteUnitSetting>(Signal::derive(move || page.with(|p| p.units)));
    let figures = FigureSet::new(&query, route.figure(), &mut notices);

    // Write the URL whenever a parameter changes, naming the figure that
    // changed last; not on the first run, so an opened link stays exactly as
    // it was shared.
    let url = Rc::new(UrlWriter::default());
    Effect::new(
        move |previous: Option<(FigureId, Vec<Pairs>, PageSettings)>| {
            let current: Vec<Pairs> = FigureId::ALL.iter().map(|&id| figures.pairs(id)).collect();
            let settings = page.get();
            let Some((active, before, settings_before)) = previous else {
                return (route.figure(), current, settings);
            };
            let changed = FigureId::ALL
                .iter()
                .zip(before.iter().zip(&current))
                .find(|(_, (old, new))| old != new)
                .map(|(&id, _)| id);
            let active = match route {
                Route::Embed(figure) => figure,
                Route::Explainer { .. } => changed.unwrap_or(active),
            };
            if changed.is_some() || settings != settings_before {
                let index = FigureId::ALL
                    .iter()
                    .position(|&id| id == active)
                    .unwrap_or(0);
                url.write_soon(route.search(active, &current[index], settings));
            }
            (active, current, settings)
        },
    );

    match route {
        Route::Embed(id) => {
            request_animation_frame(move || report_height(id.slug()));
            view! {
                <main class="embed" data-figure=id.slug()>
                    <Notices notices=notices/>
                    <section class="figure" aria-labelledby="figure-title">
                        <h1 class="figure__title" id="figure-title">{id.title()}</h1>
                        {figures.view(id)}
                        <FigureShare figures=figures id=id/>
                        {scoped("settings", move || view! { <UnitsToggle/> })}
                    </section>
                </main>
            }
            .into_any()
        }
        Route::Explainer { step } => {
            if query.get("step").is_some() {
                request_animation_frame(move || scroll_to(step.slug()));
            }
            view! { <Explainer figures=figures notices=notices/> }.into_any()
        }
    }
}

/// The whole page: the explainer's six steps, then the course module's
/// planner, bubble figure, lab, exercises and what lies beyond, then the afterword.
#[component]
fn Explainer(
    /// Every figure's parameters.
    figures: FigureSet,
    /// Notes about URL parameters that could not be used.
    notices: Vec<Notice>,
) -> impl IntoView {
    let count = FigureId::STEPS.len();
    let section = move |id: FigureId, kicker: String, pager: AnyView| {
        view! {
            <section class="step figure" id=id.slug() aria-labelledby=format!("{}-title", id.slug())>
                <p class="step__number">{kicker}</p>
                <h2 class="figure__title" id=format!("{}-title", id.slug())>{id.title()}</h2>
                <p class="figure__subtitle">{id.subtitle()}</p>
                {figures.view(id)}
                <FigureShare figures=figures id=id/>
                <div class="step__text">{explanation(id)}</div>
                {pager}
            </section>
        }
    };
    let link = |id: FigureId| view! { <li><a href=format!("#{}", id.slug())>{id.title()}</a></li> };
    view! {
        <header class="page-header">
            <p class="page-header__kicker">"Parallax"</p>
            <h1 class="page-header__title">"Training one network on many GPUs"</h1>
            <p class="page-header__lede">
                "A model too large for one GPU, and too slow to train on one, has to be split: its batch, its "
                "training state, its matrices, its layers. Each step below is one way of splitting, with live "
                "numbers you can push around."
            </p>
            <nav class="steps-nav" aria-label="Contents">
                <ol class="steps-nav__list">{FigureId::STEPS.into_iter().map(link).collect_view()}</ol>
                <p class="steps-nav__part">"Part two: planner and lab"</p>
                <ul class="steps-nav__list">
                    {FigureId::COURSE.into_iter().map(link).collect_view()}
                    <li><a href="#exercises">"Exercises"</a></li>
                    <li><a href="#beyond">"Beyond three dimensions"</a></li>
                </ul>
            </nav>
            <Settings figures=figures/>
        </header>
        <main class="explainer">
            <Notices notices=notices/>
            {FigureId::STEPS
                .into_iter()
                .enumerate()
                .map(|(index, id)| {
                    let previous = index.checked_sub(1).map(|i| FigureId::STEPS[i]);
                    let next = FigureId::STEPS.get(index + 1).copied();
                    let pager = view! {
                        <nav class="step__pager" aria-label=format!("Around step {}", index + 1)>
                            {previous.map(|p| view! {
                                <a class="step__link step__link--previous" href=format!("#{}", p.slug())>
                                    {format!("← Step {}: {}", index, p.title())}
                                </a>
                            })}
                            {next.map(|n| view! {
                                <a class="step__link step__link--next" href=format!("#{}", n.slug())>
                                    {format!("Step {}: {} →", index + 2, n.title())}
                                </a>
                            })}
                        </nav>
                    }
                    .into_any();
                    section(id, format!("Step {} of {count}", index + 1), pager)
                })
                .collect_view()}
            <h2 class="part-title" id="course">"Training across many GPUs: planner and lab"</h2>
            <p class="part-lede">
                "The second part puts the pieces to work: plan a run and see whether it fits, find how many "
                "micro-batches hide the bubble, and run a real checkpointing experiment in your browser."
            </p>
            {FigureId::COURSE
                .into_iter()
                .map(|id| section(id, "Planner and lab".to_string(), ().into_any()))
                .collect_view()}
            <Exercises/>
            <Beyond/>
            <Afterword/>
        </main>
    }
}

/// The share control of one figure: its state as an explainer link and as an embed.
#[component]
fn FigureShare(
    /// Every figure's parameters.
    figures: FigureSet,
    /// The figure to share.
    id: FigureId,
) -> impl IntoView {
    let page = use_context::<RwSignal<PageSettings>>();
    let settings = move || page.map(|p| p.get()).unwrap_or_default();
    let url = move |route: Route| page_url(&route.search(id, &figures.pairs(id), settings()));
    let link = Signal::derive(move || url(Route::Explainer { step: id }));
    let embed = Signal::derive(move || url(Route::Embed(id)));
    view! { <Share link=link embed=embed title=id.title() slug=id.slug()/> }
}

fn scroll_to(id: &str) {
    if let Some(element) = document().get_element_by_id(id) {
        element.scroll_into_view();
    }
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

    #[test]
    fn fig_embeds_and_step_opens_the_explainer() {
        assert_eq!(route("?fig=why").0, Route::Embed(FigureId::Why));
        assert_eq!(route("?fig=3d").0, Route::Embed(FigureId::ThreeD));
        assert_eq!(route("?step=pp").0, Route::Explainer { step: FigureId::Pp });
        assert_eq!(
            route("?step=why").0,
            Route::Explainer {
                step: FigureId::Why
            }
        );
        assert_eq!(
            route("").0,
            Route::Explainer {
                step: FigureId::Why
            }
        );
    }

    #[test]
    fn the_url_names_the_route_and_the_active_figure() {
        let pairs = vec![("gpus".to_string(), "16".to_string())];
        let page = PageSettings::default();
        assert_eq!(
            Route::Embed(FigureId::Dp).search(FigureId::Dp, &pairs, page),
            "?fig=dp&gpus=16"
        );
        let explainer = Route::Explainer {
            step: FigureId::Why,
        };
        assert_eq!(
            explainer.search(FigureId::Zero, &pairs, page),
            "?step=zero&gpus=16"
        );
    }

    #[test]
    fn unknown_figures_fall_back_with_a_notice() {
        let (page, notices) = route("?fig=<script>");
        assert_eq!(
            page,
            Route::Explainer {
                step: FigureId::Why
            }
        );
        assert_eq!(notices[0].key, "fig");
        let (_, notices) = route("?step=nope");
        assert_eq!(notices[0].key, "step");
    }
}
