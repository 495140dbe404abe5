//! "Share": the link to a figure's current state and an `<iframe>` snippet
//! for course pages, each with a copy button that works without the
//! clipboard API (it selects the text instead and says so), and the figure
//! saved as an SVG or a PNG file.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlTextAreaElement;

use super::export;

/// Height the iframe snippet proposes, in CSS pixels; the embedded page also
/// reports its real height (see the README).
pub const IFRAME_HEIGHT: u32 = 720;

/// The `<iframe>` snippet for an embed URL.
pub fn iframe_snippet(url: &str, title: &str) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
    };
    format!(
        "<iframe src=\"{}\" title=\"{}\" loading=\"lazy\" width=\"100%\" height=\"{IFRAME_HEIGHT}\" style=\"border:0\"></iframe>",
        escape(url),
        escape(title)
    )
}

/// Copies the text of `field`: through the clipboard API when the browser
/// offers it, else by selecting the text for the reader to copy.
fn copy(field: &HtmlTextAreaElement, status: RwSignal<&'static str>) {
    const SELECTED: &str = "Selected: press Ctrl+C (⌘C) to copy.";
    field.select();
    // `navigator.clipboard` is missing outside secure contexts (a course page
    // on plain http): calling it there would throw.
    let navigator = window().navigator();
    let has_clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into())
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !has_clipboard {
        status.set(SELECTED);
        return;
    }
    let promise = navigator.clipboard().write_text(&field.value());
    leptos::task::spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        status.set(if copied {
            "Copied."
        } else {
            "Selected: press Ctrl+C (⌘C) to copy."
        });
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

#[component]
pub fn Share(
    /// Absolute URL of the figure's current state in the explainer.
    #[prop(into)]
    link: Signal<String>,
    /// Absolute URL of the figure alone, for the iframe.
    #[prop(into)]
    embed: Signal<String>,
    /// The figure's title, for the iframe's `title`.
    title: &'static str,
    /// The figure's slug, naming the saved files (`parallax-<slug>.svg`).
    slug: &'static str,
) -> impl IntoView {
    let snippet =
        Signal::derive(move || iframe_snippet(&embed.get(), &format!("Parallax: {title}")));
    let status = RwSignal::new(String::new());
    let name = format!("parallax-{slug}");
    // The figure is the section around this control.
    let section = move |event: &leptos::ev::MouseEvent| {
        event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|button| button.closest("section.figure").ok().flatten())
    };
    let svg_name = name.clone();
    let save_svg = move |event: leptos::ev::MouseEvent| {
        if let Some(figure) = section(&event) {
            status.set(export::save_svg(&figure, &svg_name));
        }
    };
    let save_png = move |event: leptos::ev::MouseEvent| {
        if let Some(figure) = section(&event) {
            status.set("Drawing the PNG…".to_string());
            let name = name.clone();
            leptos::task::spawn_local(async move {
                status.set(export::save_png(figure, name).await);
            });
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
            {move || open.get().then(|| view! {
                <CopyField label="Link" text=link rows=2/>
                <CopyField label="Embed code" text=snippet rows=3/>
            })}
            <div class="share__actions share__files">
                <button type="button" class="button" on:click=save_svg>"Save as SVG"</button>
                <button type="button" class="button" on:click=save_png>"Save as PNG"</button>
                <span class="share__status" role="status">{move || status.get()}</span>
            </div>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_is_escaped_and_lazy() {
        let snippet = iframe_snippet("https://x.test/?fig=why&tokens=1T", "Parallax: \"why\"");
        assert_eq!(
            snippet,
            "<iframe src=\"https://x.test/?fig=why&amp;tokens=1T\" title=\"Parallax: &quot;why&quot;\" loading=\"lazy\" width=\"100%\" height=\"720\" style=\"border:0\"></iframe>"
        );
    }
}
