//! A figure saved as a file: a plain SVG of the figure as the page drew it
//! (its boxes, text, diagrams and equations, each chart canvas as an
//! image; drawn by `src/drawing.js`, which the page fetches the first time
//! a reader saves a figure), and a PNG rendered from that SVG at the
//! screen's pixel ratio. Both come from the same view, and so from the same
//! `data()`, as the figure on the page.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement};

/// Parts of a figure's section that are about the page or the reader's
/// hands, not the figure: an image shows the figure's state in its
/// captions, readouts and equations, not in sliders and questions.
const LEFT_OUT: &str =
    ".share, .settings__item, .step__text, .step__pager, .figure__controls, .figure__try, \
     .compare__bar, .fig-dp__ring-buttons, .schedules, .button";

/// An SVG file's text and its size in CSS pixels.
struct FigureSvg {
    text: String,
    width: u32,
    height: u32,
}

/// `object[name]`, as a function.
fn function(object: &JsValue, name: &str) -> Result<js_sys::Function, JsValue> {
    js_sys::Reflect::get(object, &name.into())?.dyn_into()
}

/// The figure in `section` as a standalone SVG document, drawn by
/// `src/drawing.js` (loaded by `parallaxDrawing`, which `src/boot.js` defines).
async fn figure_svg(section: &Element) -> Result<FigureSvg, JsValue> {
    let window = web_sys::window().ok_or(JsValue::NULL)?;
    let loading = function(&window, "parallaxDrawing")?.call0(&JsValue::NULL)?;
    let module = JsFuture::from(loading.dyn_into::<js_sys::Promise>()?).await?;
    let drawn: js_sys::Array = function(&module, "figureSvg")?
        .call2(&JsValue::NULL, section, &LEFT_OUT.into())?
        .dyn_into()?;
    let size = |index| drawn.get(index).as_f64().unwrap_or(0.0) as u32;
    Ok(FigureSvg {
        text: drawn.get(0).as_string().unwrap_or_default(),
        width: size(1),
        height: size(2),
    })
}

/// The elements under `root` that match `selector`.
fn elements(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|index| list.item(index)?.dyn_into().ok())
        .collect()
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
    for element in elements(section, "[data-readout]") {
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

/// Saves the figure in `section` as `name.svg`, or as `name.png` at the
/// screen's pixel ratio; says what was saved, with its size in pixels.
pub async fn save_figure(section: Element, name: String, png: bool) -> String {
    let (kind, extension) = if png { ("PNG", "png") } else { ("SVG", "svg") };
    let saved = async {
        let svg = figure_svg(&section).await?;
        if png {
            render_png(&section, &svg, &name).await
        } else {
            download(&svg_data_url(&svg), &format!("{name}.svg")).ok_or(JsValue::NULL)?;
            Ok((svg.width, svg.height))
        }
    };
    match saved.await {
        Ok((width, height)) => format!("Saved {name}.{extension}, {width} × {height} px."),
        Err(_) => format!("This browser could not make the {kind}."),
    }
}

async fn render_png(section: &Element, svg: &FigureSvg, name: &str) -> Result<(u32, u32), JsValue> {
    let document = section.owner_document().ok_or(JsValue::NULL)?;
    let image: HtmlImageElement = document.create_element("img")?.dyn_into()?;
    image.set_src(&svg_data_url(svg));
    JsFuture::from(image.decode()).await?;
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
