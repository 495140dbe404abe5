//! The full page as a document: `index.html`'s body is generated here, at
//! build time and natively, from the prose in `src/content/*.md` and the
//! figure registry, so that it reads before (and without) the app. Each
//! figure's place holds its default readouts, rendered by the app's own
//! `Readout` component from the model; the sections whose numbers never
//! change with the reader (the published runs) are rendered whole, and the
//! interactive parts a content file places with an empty
//! `<div data-slot="name"></div>` (the numeric exercises, the examples
//! beyond three dimensions) are rendered at their defaults for the app to
//! take over in place (`src/page.rs`). The settings panel, closed
//! and hidden without scripts, is only its summary line, so that nothing
//! moves when the app puts the live one in its place.
//!
//! The test fails when the committed page differs from what the content and
//! the registry give; `PARALLAX_BLESS=1 cargo test --test page` writes it again.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use leptos::prelude::*;
use parallax::beyond::{ContextExample, ExpertExample};
use parallax::exercises::Exercises;
use parallax::figures::{find, Figure, Part, FIGURES};
use parallax::model::query::Query;
use parallax::runs::PublishedRuns;
use parallax::settings::{provide_settings, PageSettings};
use parallax::widgets::{escape, InWords, Readout};
use pulldown_cmark::{html, Options, Parser};

const CONTENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/content");
const INDEX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/index.html");
/// The lines around the generated part of `index.html`.
const BEGIN: &str = "<!-- page: generated from src/content and the figure registry by tests/page.rs; do not edit up to the closing mark (PARALLAX_BLESS=1 cargo test --test page writes it again) -->\n";
const END: &str = "<!-- /page -->";

/// A content file's front matter: TOML between `+++` lines.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Front {
    /// The figure whose section the file's prose is.
    figure: Option<String>,
    /// The id of a section of its own.
    section: Option<String>,
    title: Option<String>,
    /// The line above the page's title (the introduction).
    kicker: Option<String>,
}

/// A content file: its front matter and its Markdown body.
struct Content {
    name: String,
    front: Front,
    body: String,
}

impl Content {
    fn read(name: &str) -> Self {
        let path = Path::new(CONTENT).join(format!("{name}.md"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (front, body) = text
            .strip_prefix("+++\n")
            .and_then(|rest| rest.split_once("\n+++\n"))
            .unwrap_or_else(|| panic!("{name}.md: no front matter between `+++` lines"));
        let front = toml::from_str(front).unwrap_or_else(|e| panic!("{name}.md: {e}"));
        Self {
            name: name.to_string(),
            front,
            body: body.to_string(),
        }
    }

    /// A field the file must have.
    fn needs<'a>(&self, field: &'a Option<String>, key: &str) -> &'a str {
        field
            .as_deref()
            .unwrap_or_else(|| panic!("{}.md: no `{key}` in the front matter", self.name))
    }

    /// The body as HTML (CommonMark; `{#id}` after a heading gives it an
    /// id; `{{slug.id}}` is a live number, [`live_number`]).
    fn html(&self) -> String {
        let mut body = String::new();
        let mut rest = self.body.as_str();
        while let Some((before, after)) = rest.split_once("{{") {
            let (name, after) = after.split_once("}}").expect("a `{{` without its `}}`");
            body.push_str(before);
            body.push_str(&live_number(name));
            rest = after;
        }
        body.push_str(rest);
        let mut out = String::new();
        html::push_html(
            &mut out,
            Parser::new_ext(&body, Options::ENABLE_HEADING_ATTRIBUTES),
        );
        out
    }
}

/// A view rendered to HTML as the app would first draw it, without the
/// `<!>` markers Leptos leaves for hydration: the app builds its figures
/// afresh rather than hydrating these, and the bytes are the page's.
fn render<V: IntoView + 'static>(view: impl FnOnce() -> V) -> String {
    view().into_view().to_html().replace("<!>", "")
}

/// Effects never run at build time: the page is the views' first drawing.
struct NoTasks;

impl any_spawner::CustomExecutor for NoTasks {
    fn spawn(&self, _: any_spawner::PinnedFuture<()>) {}
    fn spawn_local(&self, _: any_spawner::PinnedLocalFuture<()>) {}
    fn poll_local(&self) {}
}

/// A number in the prose, `{{slug.id}}`: figure `slug`'s readout `id`,
/// here at the defaults; the app keeps it in step with the figure.
fn live_number(name: &str) -> String {
    let (slug, id) = name.split_once('.').unwrap_or_else(|| {
        panic!("{{{{{name}}}}} is not {{{{figure.readout}}}} or {{{{figure.key}}}}")
    });
    let (_, figure) = find(slug).unwrap_or_else(|| panic!("{{{{{name}}}}}: no figure {slug}"));
    let readout = (figure.native.readouts)(&Query::default(), &mut Vec::new())
        .into_iter()
        .find(|r| r.id == id);
    if let Some(readout) = readout {
        return format!(
            r#"<span class="prose-number" data-of="{slug}" data-shows="{id}" data-follows="[data-readout='{id}'] .readout__value">{}</span>"#,
            escape(&readout.text)
        );
    }
    // A parameter: the number drives the figure's slider (src/boot.js) and follows its text.
    let slider = (figure.native.slider)(id).unwrap_or_else(|| {
        panic!("{{{{{name}}}}}: {slug} has no readout {id} nor a slider of that key")
    });
    format!(
        r#"<span class="prose-number prose-number--drives" data-of="{slug}" data-follows="input[data-param='{id}'] ~ .control__value" data-drives="{id}" role="slider" tabindex="0" aria-label="{label}" aria-valuemin="{min}" aria-valuemax="{max}" aria-valuenow="{value}" aria-valuetext="{text}">{text}</span>"#,
        label = escape(slider.label),
        min = slider.min,
        max = slider.max,
        value = slider.value,
        text = escape(&slider.text),
    )
}

/// What the app puts in a content file's `<div data-slot="name"></div>`,
/// drawn at its defaults.
fn slot(name: &str) -> String {
    match name {
        "exercises" => render(|| view! { <Exercises/> }),
        "beyond-experts" => render(|| view! { <ExpertExample/> }),
        "beyond-context" => render(|| view! { <ContextExample/> }),
        _ => panic!("no slot {name}"),
    }
}

/// A section of prose from `src/content/<name>.md`: its `title` as its
/// heading, its body with every slot drawn.
fn prose_section(name: &str) -> String {
    let content = Content::read(name);
    let id = content.needs(&content.front.section, "section");
    let mut html = content.html();
    let mut from = 0;
    while let Some(start) = html[from..].find(r#"<div data-slot=""#).map(|i| i + from) {
        let name_start = start + r#"<div data-slot=""#.len();
        let name_end = name_start + html[name_start..].find('"').expect("a slot's name");
        let name = html[name_start..name_end].to_string();
        let empty = format!(r#"<div data-slot="{name}"></div>"#);
        assert!(
            html[start..].starts_with(&empty),
            "{name}.md: a slot must be empty"
        );
        let filled = format!(r#"<div data-slot="{name}">{}</div>"#, slot(&name));
        html.replace_range(start..start + empty.len(), &filled);
        from = start + filled.len();
    }
    format!(
        r#"<section class="{id}" id="{id}" aria-labelledby="{id}-title">
<h2 id="{id}-title">{title}</h2>
{html}</section>
"#,
        title = escape(content.needs(&content.front.title, "title")),
    )
}

/// The figures of one part of the page, with their places in the registry.
fn of_part(part: Part) -> impl Iterator<Item = (usize, &'static Figure)> {
    FIGURES
        .iter()
        .copied()
        .enumerate()
        .filter(move |(_, f)| f.about.part == part)
}

/// A figure's place before the app builds it: what it shows in words and
/// its readouts, at the defaults, under a note (seen only without
/// JavaScript) that says the figure needs it. A readout that answers the
/// figure's question is left out: the app shows it only when asked
/// ([`Params::ANSWERS`]). The words come before the readouts: without the app they
/// stand in for the diagram, and on a figure's own page (`?fig=`) they are
/// what a phone shows above the fold before the app arrives, as long as any
/// text the app then draws there, so that the page's largest paint is this
/// one rather than one that waits for the wasm.
fn figure_place(figure: &Figure) -> String {
    let defaults = Query::default();
    let readouts = (figure.native.readouts)(&defaults, &mut Vec::new());
    let readouts: String = readouts
        .into_iter()
        .filter(|data| !figure.native.answers.contains(&data.id))
        .map(|data| render(move || view! { <Readout data=data/> }))
        .collect();
    let summary = (figure.native.summary)(&defaults, &mut Vec::new());
    let in_words = render(move || view! { <InWords text=Signal::stored(summary)/> });
    format!(
        r#"<div class="figure__live figure__live--waiting" data-live="{slug}">
<p class="figure__static-note">The figure itself is drawn in your browser and needs JavaScript; here are its numbers at the defaults.</p>
{in_words}
<div class="figure__readouts">{readouts}</div>
</div>"#,
        slug = figure.slug()
    )
}

/// Links to the previous and next steps; the last step leads into part two.
fn pager(steps: &[&Figure], position: usize) -> String {
    let mut links = String::new();
    if let Some(previous) = position.checked_sub(1).map(|i| steps[i]) {
        links.push_str(&format!(
            r##"<a class="step__link step__link--previous" href="#{}">← Step {position}: {}</a>"##,
            previous.slug(),
            escape(previous.about.title)
        ));
    }
    let next = match steps.get(position + 1) {
        Some(&next) => Some((format!("Step {}: {}", position + 2, next.about.title), next)),
        None => of_part(Part::Course)
            .next()
            .map(|(_, f)| (format!("Part two: {}", f.about.title), f)),
    };
    if let Some((text, next)) = next {
        links.push_str(&format!(
            r##"<a class="step__link step__link--next" href="#{}">{} →</a>"##,
            next.slug(),
            escape(&text)
        ));
    }
    format!(
        r#"<nav class="step__pager" aria-label="Around step {}">{links}</nav>"#,
        position + 1
    )
}

/// One figure's section: kicker, title and subtitle from the registry, its
/// place, its share panel's slot, and its prose from `src/content/<slug>.md`.
fn section(figure: &Figure, kicker: &str, pager: &str) -> String {
    let slug = figure.slug();
    let content = Content::read(slug);
    assert_eq!(
        content.needs(&content.front.figure, "figure"),
        slug,
        "{slug}.md names another figure"
    );
    format!(
        r#"<section class="step figure" id="{slug}" aria-labelledby="{slug}-title">
<p class="step__number">{kicker}</p>
<h2 class="figure__title" id="{slug}-title">{title}</h2>
<p class="figure__subtitle">{subtitle}</p>
{place}
<div class="figure__share" data-share="{slug}"></div>
<div class="step__text">{text}</div>
{pager}</section>
"#,
        title = escape(figure.about.title),
        subtitle = escape(figure.about.subtitle),
        place = figure_place(figure),
        text = content.html(),
    )
}

/// The body of `index.html` between the marks.
fn page() -> String {
    _ = any_spawner::Executor::init_custom_executor(NoTasks);
    let owner = Owner::new();
    owner.with(|| {
        provide_settings(PageSettings::default());
        let intro = Content::read("intro");
        let course = Content::read("course");
        let links = |part| -> String {
            of_part(part)
                .map(|(_, f)| {
                    format!(r##"<li><a href="#{}">{}</a></li>"##, f.slug(), escape(f.about.title))
                })
                .collect()
        };
        let steps: Vec<&Figure> = of_part(Part::Explainer).map(|(_, f)| f).collect();
        let explainer: String = steps
            .iter()
            .enumerate()
            .map(|(position, figure)| {
                let kicker = format!("Step {} of {}", position + 1, steps.len());
                section(figure, &kicker, &pager(&steps, position))
            })
            .collect();
        let planner_and_lab: String = of_part(Part::Course)
            .map(|(_, figure)| section(figure, "Planner and lab", ""))
            .collect();
        format!(
            r##"<header class="page-header">
<p class="page-header__kicker">{kicker}</p>
<h1 class="page-header__title">{title}</h1>
<div class="page-header__lede">{lede}</div>
<nav class="steps-nav" aria-label="Contents"><ol class="steps-nav__list">{steps}</ol>
<p class="steps-nav__part">Part two: planner and lab</p>
<ul class="steps-nav__list">{course_links}<li><a href="#published-runs">Checked against published runs</a></li><li><a href="#exercises">Exercises</a></li><li><a href="#beyond">Beyond three dimensions</a></li></ul></nav>
<div class="page-settings" data-slot="settings"><details class="settings"><summary class="settings__summary">Units and conventions</summary></details></div>
</header>
<main class="explainer">
<div data-slot="notices"></div>
{explainer}<div class="part-intro">
<h2 class="part-title" id="course">{course_title}</h2>
<div class="part-lede">{course_lede}</div>
</div>
{planner_and_lab}{runs}
{exercises}{beyond}{afterword}</main>
"##,
            kicker = escape(intro.needs(&intro.front.kicker, "kicker")),
            title = escape(intro.needs(&intro.front.title, "title")),
            lede = intro.html(),
            steps = links(Part::Explainer),
            course_links = links(Part::Course),
            course_title = escape(course.needs(&course.front.title, "title")),
            course_lede = course.html(),
            runs = render(|| view! { <PublishedRuns/> }),
            exercises = prose_section("exercises"),
            beyond = prose_section("beyond"),
            afterword = prose_section("afterword"),
        )
    })
}

#[test]
fn the_page_is_generated_from_the_content() {
    let committed = std::fs::read_to_string(INDEX).unwrap();
    let (head, rest) = committed
        .split_once(BEGIN)
        .expect("index.html has no generated part");
    let (_, tail) = rest
        .split_once(END)
        .expect("index.html's generated part is not closed");
    let generated = format!("{head}{BEGIN}{}{END}{tail}", page());
    if std::env::var_os("PARALLAX_BLESS").is_some() {
        std::fs::write(INDEX, &generated).unwrap();
    } else {
        assert!(
            committed == generated,
            "index.html is not what src/content and the registry generate: run PARALLAX_BLESS=1 cargo test --test page"
        );
    }
}
