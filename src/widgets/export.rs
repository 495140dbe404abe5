//! A figure saved as a file: an SVG that wraps the figure as the page drew
//! it (its markup, the page's own style sheets, each chart canvas as an
//! image) and a PNG rendered from that SVG at the screen's pixel ratio.
//! Both come from the same view, and so from the same `data()`, as the
//! figure on the page.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CssStyleSheet, Element, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement};

/// Parts of a figure's section that are about the page or the reader's
/// hands, not the figure: an image shows the figure's state in its
/// captions, readouts and equations, not in sliders and questions.
const LEFT_OUT: &str =
    ".share, .settings__item, .step__text, .step__pager, .figure__controls, .figure__try, \
     .compare__bar, .fig-dp__ring-buttons, .schedules";

/// An SVG file's text and its size in CSS pixels.
pub struct FigureSvg {
    pub text: String,
    pub width: u32,
    pub height: u32,
}

/// Every rule of the page's own style sheets, as one text.
fn page_css(document: &web_sys::Document) -> String {
    let sheets = document.style_sheets();
    let mut css = String::new();
    for index in 0..sheets.length() {
        let Some(sheet) = sheets
            .item(index)
            .and_then(|s| s.dyn_into::<CssStyleSheet>().ok())
        else {
            continue;
        };
        let Ok(rules) = sheet.css_rules() else {
            continue;
        };
        for rule in (0..rules.length()).filter_map(|i| rules.item(i)) {
            css.push_str(&rule.css_text());
            css.push('\n');
        }
    }
    css
}

/// The colour scheme the page shows now, so the file looks the same.
fn current_scheme(document: &web_sys::Document) -> &'static str {
    let fixed = document
        .document_element()
        .and_then(|root| root.get_attribute("data-theme"));
    let dark = match fixed.as_deref() {
        Some("dark") => true,
        Some(_) => false,
        None => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|list| list.matches()),
    };
    if dark {
        "dark"
    } else {
        "light"
    }
}

/// The height `copy` takes at `width` CSS pixels, laid out off screen
/// (what was left out of it no longer takes room).
fn measured_height(document: &web_sys::Document, copy: &Element, width: f64) -> Option<f64> {
    let holder: web_sys::HtmlElement = document.create_element("div").ok()?.dyn_into().ok()?;
    // Through the CSS object model: a style attribute would break the page's CSP.
    let style = holder.style();
    for (property, value) in [
        ("position", "absolute".to_string()),
        ("left", "-100000px".to_string()),
        ("top", "0".to_string()),
        ("width", format!("{width}px")),
    ] {
        _ = style.set_property(property, &value);
    }
    document.body()?.append_child(&holder).ok()?;
    holder.append_child(copy).ok()?;
    let height = copy.get_bounding_client_rect().height();
    holder.remove();
    Some(height)
}

/// The elements under `root` that match `selector`, as `T`.
fn elements<T: JsCast>(root: &Element, selector: &str) -> Vec<T> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|index| list.item(index)?.dyn_into().ok())
        .collect()
}

/// The figure in `section` as a standalone SVG document.
pub fn figure_svg(section: &Element) -> Option<FigureSvg> {
    let document = section.owner_document()?;
    let copy: Element = section.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
    // A clone's canvases are blank: put each original's pixels in its place.
    let originals = elements::<HtmlCanvasElement>(section, "canvas");
    for (original, blank) in originals.iter().zip(elements::<Element>(&copy, "canvas")) {
        let image = document.create_element("img").ok()?;
        _ = image.set_attribute("src", &original.to_data_url().ok()?);
        _ = image.set_attribute(
            "alt",
            &blank.get_attribute("aria-label").unwrap_or_default(),
        );
        _ = image.set_attribute("class", "plot-canvas");
        _ = image.set_attribute("width", &original.client_width().to_string());
        _ = blank.replace_with_with_node_1(&image);
    }
    for part in elements::<Element>(&copy, LEFT_OUT) {
        part.remove();
    }
    let width = section.get_bounding_client_rect().width().ceil();
    let height = measured_height(&document, &copy, width)?;
    let markup = web_sys::XmlSerializer::new()
        .ok()?
        .serialize_to_string(&copy)
        .ok()?;
    let (width, height) = (width as u32, height.ceil() as u32);
    let text = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" data-theme=\"{scheme}\">\
         <foreignObject width=\"100%\" height=\"100%\">\
         <div xmlns=\"http://www.w3.org/1999/xhtml\" class=\"export\">\
         <style>{css}\n.export {{ background: var(--bg); color: var(--text); \
         font: 16px/1.5 var(--font-body); }}</style>{markup}</div></foreignObject></svg>",
        scheme = current_scheme(&document),
        css = super::escape(&page_css(&document)),
    );
    Some(FigureSvg {
        text,
        width,
        height,
    })
}

/// One readout as the page shows it: its `data-readout`, label, exact value, unit and text.
struct Shown {
    key: String,
    label: String,
    value: String,
    unit: String,
    text: String,
}

/// Every readout in `section`, in page order, once each.
fn shown_readouts(section: &Element) -> Vec<Shown> {
    let mut all: Vec<Shown> = Vec::new();
    for element in elements::<Element>(section, "[data-readout]") {
        let attribute = |name: &str| element.get_attribute(name).unwrap_or_default();
        let inner = |selector: &str| {
            element
                .query_selector(selector)
                .ok()
                .flatten()
                .and_then(|e| e.text_content())
                .unwrap_or_default()
        };
        let key = attribute("data-readout");
        if all.iter().any(|r| r.key == key) {
            continue;
        }
        let label = element
            .get_attribute("data-label")
            .unwrap_or_else(|| inner(".readout__label"));
        all.push(Shown {
            label,
            value: attribute("data-value"),
            unit: attribute("data-unit"),
            text: inner(".readout__value"),
            key,
        });
    }
    all
}

/// Quotes a CSV field.
fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Quotes a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The readouts as CSV: a row a plan (A, and B when comparing), a column a
/// readout, its unit in the header, and the URL that produced them.
fn readouts_csv(all: &[Shown], url: &str) -> String {
    let a: Vec<&Shown> = all.iter().filter(|r| !r.key.starts_with("b.")).collect();
    let mut header = vec!["url".to_string(), "plan".to_string()];
    header.extend(
        a.iter()
            .map(|r| csv_field(&format!("{} ({})", r.key, r.unit))),
    );
    let mut out = header.join(",");
    for plan in ["", "b."] {
        let values: Vec<String> = a
            .iter()
            .filter_map(|r| {
                all.iter()
                    .find(|s| s.key == format!("{plan}{}", r.key))
                    .map(|s| s.value.clone())
            })
            .collect();
        if values.len() == a.len() {
            out.push_str(&format!(
                "\n{},{},{}",
                csv_field(url),
                if plan.is_empty() { "A" } else { "B" },
                values.join(",")
            ));
        }
    }
    out.push('\n');
    out
}

/// The readouts as JSON: the URL, then each readout with its label, exact
/// value, unit and text.
fn readouts_json(all: &[Shown], url: &str) -> String {
    let items: Vec<String> = all
        .iter()
        .map(|r| {
            format!(
                "{{\"id\":{},\"label\":{},\"value\":{},\"unit\":{},\"text\":{}}}",
                json_string(&r.key),
                json_string(&r.label),
                if r.value.parse::<f64>().is_ok_and(f64::is_finite) {
                    r.value.clone()
                } else {
                    "null".to_string()
                },
                json_string(&r.unit),
                json_string(&r.text)
            )
        })
        .collect();
    format!(
        "{{\"url\":{},\"readouts\":[{}]}}\n",
        json_string(url),
        items.join(",")
    )
}

/// Saves the readouts of the figure in `section` as `name.csv` or
/// `name.json`; says what was saved.
pub fn save_readouts(section: &Element, name: &str, json: bool) -> String {
    let all = shown_readouts(section);
    let url = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let (text, kind, extension) = if json {
        (readouts_json(&all, &url), "application/json", "json")
    } else {
        (readouts_csv(&all, &url), "text/csv", "csv")
    };
    let href = format!(
        "data:{kind};charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&text))
    );
    match download(&href, &format!("{name}.{extension}")) {
        Some(()) => format!("Saved {name}.{extension}, {} readouts.", all.len()),
        None => format!("This browser could not save the {extension} file."),
    }
}

/// Offers `href` to the reader as a file called `name`.
fn download(href: &str, name: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let link: HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
    link.set_href(href);
    link.set_download(name);
    link.click();
    Some(())
}

fn svg_data_url(svg: &FigureSvg) -> String {
    format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&svg.text))
    )
}

/// Saves the figure in `section` as `name.svg`; says what was saved.
pub fn save_svg(section: &Element, name: &str) -> String {
    match figure_svg(section)
        .and_then(|svg| download(&svg_data_url(&svg), &format!("{name}.svg")).map(|()| svg))
    {
        Some(svg) => format!("Saved {name}.svg, {} × {} px.", svg.width, svg.height),
        None => "This browser could not make the SVG.".to_string(),
    }
}

/// Saves the figure in `section` as `name.png` at the screen's pixel ratio;
/// says what was saved, with the image's size in pixels.
pub async fn save_png(section: Element, name: String) -> String {
    match render_png(&section, &name).await {
        Ok((width, height)) => format!("Saved {name}.png, {width} × {height} px."),
        Err(_) => "This browser could not make the PNG.".to_string(),
    }
}

async fn render_png(section: &Element, name: &str) -> Result<(u32, u32), JsValue> {
    let svg = figure_svg(section).ok_or(JsValue::NULL)?;
    let document = section.owner_document().ok_or(JsValue::NULL)?;
    let image: HtmlImageElement = document.create_element("img")?.dyn_into()?;
    image.set_src(&svg_data_url(&svg));
    wasm_bindgen_futures::JsFuture::from(image.decode()).await?;
    let scale = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .max(1.0);
    let (width, height) = (
        (f64::from(svg.width) * scale).round() as u32,
        (f64::from(svg.height) * scale).round() as u32,
    );
    let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
    canvas.set_width(width);
    canvas.set_height(height);
    let context: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d")?.ok_or(JsValue::NULL)?.dyn_into()?;
    context.draw_image_with_html_image_element_and_dw_and_dh(
        &image,
        0.0,
        0.0,
        f64::from(width),
        f64::from(height),
    )?;
    download(&canvas.to_data_url()?, &format!("{name}.png")).ok_or(JsValue::NULL)?;
    Ok((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(key: &str, value: &str, text: &str) -> Shown {
        Shown {
            key: key.to_string(),
            label: format!("Label \"{key}\""),
            value: value.to_string(),
            unit: "bytes".to_string(),
            text: text.to_string(),
        }
    }

    /// Two plans: a header with the units, a row for A and one for B, each with the URL.
    #[test]
    fn readouts_as_csv_and_json() {
        let all = [
            shown("state-per-gpu", "1120000000000", "1,120 GB"),
            shown("b.state-per-gpu", "140000000000", "140.0 GB"),
        ];
        let url = "http://x/?fig=planner&b.stage=3";
        assert_eq!(
            readouts_csv(&all, url),
            "url,plan,\"state-per-gpu (bytes)\"\n\"http://x/?fig=planner&b.stage=3\",A,1120000000000\n\
             \"http://x/?fig=planner&b.stage=3\",B,140000000000\n"
        );
        assert_eq!(
            readouts_json(&all[..1], url),
            "{\"url\":\"http://x/?fig=planner&b.stage=3\",\"readouts\":[{\"id\":\"state-per-gpu\",\
             \"label\":\"Label \\\"state-per-gpu\\\"\",\"value\":1120000000000,\"unit\":\"bytes\",\"text\":\"1,120 GB\"}]}\n"
        );
    }

    #[test]
    fn escapes_for_xml() {
        assert_eq!(
            super::super::escape("a > b & \"c\" <d>"),
            "a &gt; b &amp; &quot;c&quot; &lt;d&gt;"
        );
    }
}
