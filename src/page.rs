//! The full page: the explainer's steps, then the course module's planner,
//! bubble figure and lab, the exercises, what lies beyond three dimensions,
//! and the afterword. Every section is drawn from the registry.

use leptos::prelude::*;

use crate::app::{page_url, Route};
use crate::content::{Afterword, Beyond};
use crate::exercises::Exercises;
use crate::figures::{Figure, Live, Part, FIGURES};
use crate::hooks::use_near_viewport;
use crate::model::query::Notice;
use crate::runs::PublishedRuns;
use crate::settings::{use_settings, PageSettings, Settings};
use crate::widgets::{scoped, Notices, Share};

/// The share control of one figure: its state as a link to the explainer and as an embed.
#[component]
pub fn FigureShare(
    /// Every figure's parameters.
    figures: StoredValue<Vec<Live>>,
    /// The figure's place in the registry.
    index: usize,
) -> impl IntoView {
    let figure = FIGURES[index];
    let page = use_settings();
    let url = move |route: Route, settings: PageSettings| {
        let pairs = figures.with_value(|all| all[index].pairs());
        page_url(&route.search(figure, &pairs, settings))
    };
    let link = Signal::derive(move || url(Route::Explainer { step: index }, page.get()));
    // The embed keeps the reader's units; its theme and chrome are the author's choice, in the panel.
    let embed = Callback::new(move |(theme, chrome): (Option<&'static str>, bool)| {
        url(
            Route::Embed(index),
            PageSettings {
                theme,
                chrome,
                ..page.get()
            },
        )
    });
    let theme = page.with_untracked(|p| p.theme);
    view! { <Share link=link embed=embed title=figure.about.title slug=figure.slug() theme=theme/> }
}

/// How near the viewport a figure is built: a screen or so ahead of the reader.
const NEAR: &str = "1200px 0px 1200px 0px";

/// One figure's section on the full page.
fn section(
    figure: &'static Figure,
    index: usize,
    live: Live,
    figures: StoredValue<Vec<Live>>,
    kicker: String,
    pager: AnyView,
) -> impl IntoView {
    let slug = figure.slug();
    // Built when it comes near the viewport (its readouts, diagram and lab
    // with it): the page's start-up builds only what the reader sees.
    let holder = NodeRef::<leptos::html::Div>::new();
    let near = use_near_viewport(holder, NEAR);
    view! {
        <section class="step figure" id=slug aria-labelledby=format!("{slug}-title")>
            <p class="step__number">{kicker}</p>
            <h2 class="figure__title" id=format!("{slug}-title")>{figure.about.title}</h2>
            <p class="figure__subtitle">{figure.about.subtitle}</p>
            <div class="figure__live" class:figure__live--waiting=move || !near.get() node_ref=holder>
                <Show when=move || near.get()>{
                    let live = live.clone();
                    scoped(slug, move || live.view())
                }</Show>
            </div>
            <FigureShare figures=figures index=index/>
            <div class="step__text" inner_html=figure.about.text></div>
            {pager}
        </section>
    }
}

/// Links to the previous and next steps of the explainer; the last step leads into part two.
fn pager(steps: &[(usize, &'static Figure)], position: usize) -> AnyView {
    let previous = position.checked_sub(1).map(|i| steps[i].1);
    let next = steps.get(position + 1).map(|&(_, f)| {
        (
            format!("Step {}: {} →", position + 2, f.about.title),
            f.slug(),
        )
    });
    let next = next.or_else(|| {
        FIGURES
            .iter()
            .find(|f| f.about.part == Part::Course)
            .map(|f| (format!("Part two: {} →", f.about.title), f.slug()))
    });
    view! {
        <nav class="step__pager" aria-label=format!("Around step {}", position + 1)>
            {previous.map(|p| view! {
                <a class="step__link step__link--previous" href=format!("#{}", p.slug())>{format!("← Step {position}: {}", p.about.title)}</a>
            })}
            {next.map(|(text, slug)| view! { <a class="step__link step__link--next" href=format!("#{slug}")>{text}</a> })}
        </nav>
    }
    .into_any()
}

/// The page's title, lede and contents, around the figures' links: static HTML.
fn header(steps: &str, course: &str) -> String {
    format!(
        r##"<p class="page-header__kicker">Parallax</p>
<h1 class="page-header__title">Training one network on many GPUs</h1>
<p class="page-header__lede">A model too large for one GPU, and too slow to train on one, has to be split: its batch, its
training state, its matrices, its layers. Each step below is one way of splitting, with live numbers you can push around.</p>
<nav class="steps-nav" aria-label="Contents"><ol class="steps-nav__list">{steps}</ol>
<p class="steps-nav__part">Part two: planner and lab</p>
<ul class="steps-nav__list">{course}<li><a href="#published-runs">Checked against published runs</a></li><li><a href="#exercises">Exercises</a></li><li><a href="#beyond">Beyond three dimensions</a></li></ul></nav>"##
    )
}

/// The second part's title and lede.
const PART_TWO: &str = r#"<h2 class="part-title" id="course">Training across many GPUs: planner and lab</h2>
<p class="part-lede">The second part puts the pieces to work: plan a run and see whether it fits, find how many
micro-batches hide the bubble, and run a real checkpointing experiment in your browser.</p>"#;

/// The whole page.
#[component]
pub fn Page(
    /// Every figure's parameters.
    figures: StoredValue<Vec<Live>>,
    /// Notes about URL parameters that could not be used.
    notices: Vec<Notice>,
    /// The figure to scroll to (`?step=`), if the URL names one.
    open_at: Option<usize>,
) -> impl IntoView {
    let of_part = |part| {
        FIGURES
            .iter()
            .copied()
            .enumerate()
            .filter(move |(_, f)| f.about.part == part)
    };
    let steps: Vec<(usize, &'static Figure)> = of_part(Part::Explainer).collect();
    let live = move |index: usize| figures.with_value(|all| all[index].clone());
    let links = |part| -> String {
        of_part(part)
            .map(|(_, f)| {
                format!(
                    r##"<li><a href="#{}">{}</a></li>"##,
                    f.slug(),
                    f.about.title
                )
            })
            .collect()
    };
    if let Some(index) = open_at {
        request_animation_frame(move || {
            if let Some(element) = document().get_element_by_id(FIGURES[index].slug()) {
                element.scroll_into_view();
            }
        });
    }
    let count = steps.len();
    view! {
        <header class="page-header">
            <div inner_html=header(&links(Part::Explainer), &links(Part::Course))></div>
            <Settings figures=figures/>
        </header>
        <main class="explainer">
            <Notices notices=notices/>
            {steps.iter().enumerate().map(|(position, &(index, figure))| {
                section(figure, index, live(index), figures, format!("Step {} of {count}", position + 1), pager(&steps, position))
            }).collect_view()}
            <div class="part-intro" inner_html=PART_TWO></div>
            {of_part(Part::Course).map(|(index, figure)| {
                section(figure, index, live(index), figures, "Planner and lab".to_string(), ().into_any())
            }).collect_view()}
            <PublishedRuns/>
            <Exercises/>
            <Beyond/>
            <Afterword/>
        </main>
    }
}
