//! "Share": the link to a figure's current state and an `<iframe>` snippet
//! for course pages, each with a copy button that works without the
//! clipboard API (it selects the text instead and says so), and the figure
//! saved as an SVG or a PNG file.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlTextAreaElement;

use super::export;
use crate::hooks::use_scoped;

/// Height the iframe snippet proposes, in CSS pixels, until `embed.js` fits
/// it to the figure (the embedded page reports its real height).
pub const IFRAME_HEIGHT: u32 = 720;

/// The embed code for an embed URL: the iframe, and the script from the
/// same folder that fits every Parallax iframe on the page to its figure.
pub fn iframe_snippet(url: &str, title: &str) -> String {
    use super::escape;
    let folder = url.split('?').next().unwrap_or(url);
    let folder = &folder[..folder.rfind('/').map_or(0, |slash| slash + 1)];
    format!(
        "<iframe src=\"{}\" title=\"{}\" loading=\"lazy\" width=\"100%\" height=\"{IFRAME_HEIGHT}\" style=\"border:0\"></iframe>\n<script src=\"{}embed.js\" async></script>",
        escape(url),
        escape(title),
        escape(folder)
    )
}

/// Copies the text of `field`: through the clipboard API when the browser
/// offers it, else by selecting the text for the reader to copy.
fn copy(field: &HtmlTextAreaElement, status: RwSignal<&'static str>) {
    field.select();
    copy_text(
        &field.value(),
        status,
        "Selected: press Ctrl+C (⌘C) to copy.",
    );
}

/// Copies `text` through the clipboard API; where the browser has none or
/// refuses, says `fallback` in `status` (how the reader copies it instead).
pub fn copy_text(text: &str, status: RwSignal<&'static str>, fallback: &'static str) {
    // `navigator.clipboard` is missing outside secure contexts (a course page
    // on plain http): calling it there would throw.
    let navigator = window().navigator();
    let has_clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into())
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !has_clipboard {
        status.set(fallback);
        return;
    }
    let promise = navigator.clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        status.set(if copied { "Copied." } else { fallback });
    });
}

#[component]
fn CopyField(
    /// Visible label of the field.
    label: &'static str,
    /// The text to copy.
    #[prop(into)]
    text: Signal<String>,
    /// Rows of the text area.
    rows: u32,
) -> impl IntoView {
    // Made while the panel is open, gone when it closes: it reads the
    // figure's link through a relay that leaves with it.
    let text = use_scoped(text);
    let field = NodeRef::<leptos::html::Textarea>::new();
    let status = RwSignal::new("");
    view! {
        <label class="share__field">
            <span class="share__label">{label}</span>
            <textarea class="share__text" node_ref=field readonly rows=rows prop:value=move || text.get()></textarea>
        </label>
        <div class="share__actions">
            <button
                type="button"
                class="button"
                on:click=move |_| {
                    if let Some(element) = field.get() {
                        copy(element.unchecked_ref(), status);
                    }
                }
            >
                {format!("Copy {}", label.to_ascii_lowercase())}
            </button>
            <span class="share__status" role="status">{move || status.get()}</span>
        </div>
    }
}

/// The colour schemes an embed may be given: the reader's, or one fixed.
const THEMES: [(&str, Option<&str>); 3] = [
    ("The reader's", None),
    ("Light", Some("light")),
    ("Dark", Some("dark")),
];

#[component]
pub fn Share(
    /// Absolute URL of the figure's current state in the explainer.
    #[prop(into)]
    link: Signal<String>,
    /// Absolute URL of the figure alone for an iframe, given its theme (`None`
    /// follows the reader's) and whether it shows its share panel and settings.
    embed: Callback<(Option<&'static str>, bool), String>,
    /// The figure's title, for the iframe's `title`.
    title: &'static str,
    /// The figure's slug, naming the saved files (`parallax-<slug>.svg`).
    slug: &'static str,
    /// The embed's colour scheme until the reader picks one: the page's own.
    theme: Option<&'static str>,
) -> impl IntoView {
    let theme = RwSignal::new(theme);
    let chrome = RwSignal::new(true);
    let snippet = Signal::derive(move || {
        iframe_snippet(
            &embed.run((theme.get(), chrome.get())),
            &format!("Parallax: {title}"),
        )
    });
    let status = RwSignal::new(String::new());
    let name = format!("parallax-{slug}");
    let theme_id = super::control_id("embed-theme");
    let chrome_id = super::control_id("embed-chrome");
    // The figure is the section around this control.
    let section = move |event: &leptos::ev::MouseEvent| {
        event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|button| button.closest("section.figure").ok().flatten())
    };
    let readouts_name = name.clone();
    let save_readouts = move |json: bool| {
        let name = readouts_name.clone();
        move |event: leptos::ev::MouseEvent| {
            if let Some(figure) = section(&event) {
                status.set(export::save_readouts(
                    &figure,
                    &format!("{name}-readouts"),
                    json,
                ));
            }
        }
    };
    let save_figure = move |png: bool| {
        let name = name.clone();
        move |event: leptos::ev::MouseEvent| {
            if let Some(figure) = section(&event) {
                status.set(format!("Drawing the {}…", if png { "PNG" } else { "SVG" }));
                let name = name.clone();
                leptos::task::spawn_local(async move {
                    status.set(export::save_figure(figure, name, png).await);
                });
            }
        }
    };
    // The link and the snippet exist only while the panel is open, so an
    // input does not rebuild them for a closed panel (5% of an update).
    let open = RwSignal::new(false);
    let toggled = move |event: leptos::ev::Event| {
        let details = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        open.set(details.is_some_and(|d| d.has_attribute("open")));
    };
    view! {
        <details class="share" on:toggle=toggled>
            <summary class="share__summary">"Share or embed"</summary>
            {move || open.get().then(|| {
                let (chosen, bare) = (use_scoped(theme), use_scoped(chrome));
                view! {
                <CopyField label="Link" text=link rows=2/>
                <div class="share__options">
                    <label class="share__option" for=chrome_id.clone()>
                        <input
                            type="checkbox"
                            id=chrome_id.clone()
                            prop:checked=move || !bare.get()
                            on:change=move |event| chrome.set(!event_target_checked(&event))
                        />
                        " Figure only: no share panel or settings in the embed"
                    </label>
                    <label class="share__option" for=theme_id.clone()>"Colours "</label>
                    <select
                        id=theme_id.clone()
                        class="control__select share__theme"
                        on:change=move |event| {
                            let picked = event_target_value(&event);
                            theme.set(THEMES.iter().find(|(label, _)| *label == picked).and_then(|(_, t)| *t));
                        }
                    >
                        {THEMES.iter().map(|(label, value)| view! {
                            <option value=*label selected=move || chosen.get() == *value>{*label}</option>
                        }).collect_view()}
                    </select>
                </div>
                <CopyField label="Embed code" text=snippet rows=4/>
                <p class="share__note">
                    "The script fits the iframe to the figure as it changes. "
                    <a href="embed.html">"Every figure's options, for course authors"</a>
                </p>
                }
            })}
            <div class="share__actions share__files">
                <button type="button" class="button" on:click=save_figure(false)>"Save as SVG"</button>
                <button type="button" class="button" on:click=save_figure(true)>"Save as PNG"</button>
                <button type="button" class="button" on:click=save_readouts(false)>"Readouts as CSV"</button>
                <button type="button" class="button" on:click=save_readouts(true)>"Readouts as JSON"</button>
                <span class="share__status" role="status">{move || status.get()}</span>
            </div>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_is_escaped_lazy_and_fits_itself() {
        let snippet = iframe_snippet("https://x.test/c/?fig=why&tokens=1T", "Parallax: \"why\"");
        assert_eq!(
            snippet,
            "<iframe src=\"https://x.test/c/?fig=why&amp;tokens=1T\" title=\"Parallax: &quot;why&quot;\" loading=\"lazy\" width=\"100%\" height=\"720\" style=\"border:0\"></iframe>\n<script src=\"https://x.test/c/embed.js\" async></script>"
        );
        assert!(iframe_snippet("https://x.test/c/index.html?fig=dp", "t")
            .ends_with("<script src=\"https://x.test/c/embed.js\" async></script>"));
    }
}
