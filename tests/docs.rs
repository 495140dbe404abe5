//! The documentation generated from the figure registry, kept in step with
//! the code: the course authors' page (`src/embed.html`, copied to `dist/`)
//! and the README's table of URL keys and readouts. The test fails when a
//! committed file differs from what the registry gives;
//! `PARALLAX_BLESS=1 cargo test --test docs` writes them again.
#![cfg(not(target_arch = "wasm32"))]

use parallax::figures::param::KeyDoc;
use parallax::figures::{Figure, FIGURES};
use parallax::model::presets::{GPUS, MODELS};
use parallax::model::query::Query;
use parallax::model::scenario::SHARED_KEYS;
use parallax::widgets::{escape, iframe_snippet};

/// The placeholder host in snippets: authors put their own.
const HOST: &str = "https://your-host/parallax/";

/// `code` spans in a help text (`like this`) as HTML.
fn inline_code(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

fn keys(figure: &Figure) -> Vec<KeyDoc> {
    (figure.native.keys)()
}

/// A value other than any preset's, for each shared key.
fn probe(key: &str) -> &'static str {
    match key {
        "model" => "llama3-70b",
        "gpu" => "a100-80gb",
        "params" => "70B",
        "layers" => "36",
        "hidden" => "6144",
        "ffn" => "16384",
        "heads" => "48",
        "kv-heads" => "4",
        "vocab" => "50000",
        "seq" => "3072",
        "experts" => "8",
        "top-k" => "2",
        "tflops" => "500",
        "busy-util" => "0.5",
        "flop" => "6nd-attn",
        "attention" => "standard",
        "tokens" => "1T",
        "batch" => "256",
        "bytes" => "18",
        "precision" => "fp8",
        "moments" => "bf16",
        "software" => "torchtitan",
        other => panic!("give the shared key {other} a value to probe"),
    }
}

/// The shared keys a figure reads: those it has a control for, and those
/// that change one of its readouts (issue 37: the planner's entry left out
/// `bytes`, `layers`, `hidden` and `vocab`, which its run cards' links set).
fn shared_keys_read(figure: &Figure) -> Vec<&'static str> {
    let values = |query: &Query| -> Vec<f64> {
        (figure.native.readouts)(query, &mut Vec::new())
            .iter()
            .map(|r| r.value)
            .collect()
    };
    let defaults = values(&Query::default());
    let controls = keys(figure);
    SHARED_KEYS
        .iter()
        .flat_map(|(keys, _)| keys.split(", "))
        // The lab's own `layers` and `batch` are not the shared ones.
        .filter(|key| !controls.iter().any(|k| !k.shared && k.key == *key))
        .filter(|key| {
            controls.iter().any(|k| k.shared && k.key == *key)
                || values(&Query::parse(&format!("?{key}={}", probe(key)))) != defaults
        })
        .collect()
}

fn example_query(figure: &Figure) -> String {
    format!("?fig={}&{}", figure.slug(), figure.about.example)
}

fn embed_page() -> String {
    let ids = |ids: Vec<&str>| {
        ids.iter()
            .map(|id| format!("<code>{id}</code>"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut shared: Vec<String> = SHARED_KEYS
        .iter()
        .map(|(key, help)| {
            let keys = key
                .split(", ")
                .map(|k| format!("<code>{k}</code>"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("        <li>{keys}: {}</li>", inline_code(help))
        })
        .collect();
    shared[0].push_str(&format!(
        "\n        <li>Models: {}</li>",
        ids(MODELS.iter().map(|m| m.id).collect())
    ));
    shared[1].push_str(&format!(
        "\n        <li>GPUs: {}</li>",
        ids(GPUS.iter().map(|g| g.id).collect())
    ));
    let figures: Vec<String> = FIGURES
        .iter()
        .map(|figure| {
            let slug = figure.slug();
            let own: Vec<KeyDoc> = keys(figure).into_iter().filter(|k| !k.shared).collect();
            let mut params: Vec<String> = own
                .iter()
                .map(|k| format!("          <li><code>{}</code>: {} {}.</li>", k.key, inline_code(k.help), inline_code(&k.values)))
                .collect();
            // A key with two controls (a slider and a box) is listed once.
            params.dedup_by(|a, b| a.split("</code>").next() == b.split("</code>").next());
            let shared: Vec<String> = shared_keys_read(figure).iter().map(|key| format!("<code>{key}</code>")).collect();
            if !shared.is_empty() {
                let lead = if params.is_empty() { "The shared parameters above" } else { "And the shared parameters above" };
                params.push(format!("          <li>{lead}: {}.</li>", shared.join(", ")));
            }
            let example = example_query(figure);
            let snippet = iframe_snippet(&format!("{HOST}{example}"), &format!("Parallax: {}", figure.about.title));
            format!(
                r#"    <section class="figure-entry" id="{slug}" data-figure="{slug}" data-example="{example_attr}">
      <h2>{title} <code>?fig={slug}</code></h2>
      <p>{subtitle}.</p>
      <ul class="params">
{params}
      </ul>
      <p>Example: <a href="./{example_attr}">{example_html}</a></p>
      <pre tabindex="0"><code>{snippet}</code></pre>
      <iframe src="./{example_attr}" title="{title}, live preview of the example" loading="lazy"></iframe>
    </section>"#,
                example_attr = escape(&example),
                example_html = escape(&example),
                title = escape(figure.about.title),
                subtitle = escape(figure.about.subtitle),
                params = params.join("\n"),
                snippet = escape(&snippet),
            )
        })
        .collect();
    format!(
        r#"<!DOCTYPE html>
<!-- Generated from the figure registry by tests/docs.rs: do not edit by hand
     (PARALLAX_BLESS=1 cargo test --test docs writes it again). -->
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'">
    <title>Parallax: embedding a figure</title>
    <link rel="stylesheet" href="./embed.css">
    <link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='6' fill='%233451c6'/%3E%3Cg fill='%23fff'%3E%3Crect x='6' y='7' width='6' height='18' rx='1.5'/%3E%3Crect x='13' y='7' width='6' height='18' rx='1.5' opacity='.8'/%3E%3Crect x='20' y='7' width='6' height='18' rx='1.5' opacity='.6'/%3E%3C/g%3E%3C/svg%3E">
  </head>
  <body>
    <main>
      <h1>Embedding a Parallax figure</h1>
      <p>Every figure of <a href="./">the explainer</a> can stand alone in an iframe on your own page.
        Each figure below has its parameters, an example and a live preview of that example. Set the
        preview up the way you want it and copy the embed code from its "Share or embed" panel (under
        the figure), or adapt the snippet shown here, replacing <code>{HOST}</code> with wherever these
        files are served from. Add <code>&amp;chrome=0</code> to show the figure without that panel, and
        <code>&amp;quiz=0</code> without its questions.</p>
      <h2>Parameters the figures share</h2>
      <ul class="params">
{shared}
      </ul>
      <p>Numbers may be written <code>8</code>, <code>0.5</code>, <code>2e12</code>, <code>50B</code>, <code>2T</code> or <code>1,024</code>.
        A value the figure cannot use is replaced by its default or its nearest allowed value, and the figure says so.</p>
      <h2>How the embedded figure looks</h2>
      <ul class="params">
        <li><code>chrome</code>: <code>0</code> shows the figure alone, without its share panel and settings (default <code>1</code>)</li>
        <li><code>quiz</code>: <code>0</code> leaves out the figure's built-in questions, for a page that asks its own (default <code>1</code>). The bubble's readout <code>micro-for-10pct</code>, the answer to its question, goes too. With <code>chrome=0</code>: the figure and nothing else</li>
        <li><code>theme</code>: <code>light</code> or <code>dark</code>, where the figure should not follow the reader's preference</li>
        <li><code>units</code>: byte readouts in <code>gb</code> (default) or <code>gib</code></li>
      </ul>
      <h2>Fitting the iframe to the figure</h2>
      <p>An embedded figure posts <code>{{ type: "parallax:resize", figure, height }}</code> to your page
        whenever its height changes, and listens to nothing. The snippets load <code>embed.js</code> from the
        same folder as the figures, which sets every Parallax iframe's height from those messages. Where your
        page cannot load a script from another host, these lines on the page itself do the same:</p>
      <pre tabindex="0"><code>&lt;script&gt;
  addEventListener('message', (event) =&gt; {{
    if (event.data?.type !== 'parallax:resize') return;
    for (const frame of document.querySelectorAll('iframe')) {{
      if (frame.contentWindow === event.source) frame.style.height = event.data.height + 'px';
    }}
  }});
&lt;/script&gt;</code></pre>
      <h2>The figures</h2>
{figures}
    </main>
    <script src="./embed.js"></script>
  </body>
</html>
"#,
        shared = shared.join("\n"),
        figures = figures.join("\n"),
    )
}

/// The README's section on URL keys and readouts, in Markdown.
fn readme_section() -> String {
    let mut out = String::from(
        "<!-- keys:start: generated from the figure registry by tests/docs.rs -->\n\
         Shared keys, read by every figure that shows their control (and by the others where they change a number):\n\n\
         | key | meaning |\n|---|---|\n",
    );
    for (key, meaning) in SHARED_KEYS {
        out.push_str(&format!("| `{key}` | {meaning} |\n"));
    }
    out.push_str(
        "\nEach figure's own keys, with their values and defaults, and its readouts with their values at the defaults:\n",
    );
    for figure in FIGURES {
        out.push_str(&format!(
            "\n**`{}`** ({}): ",
            figure.slug(),
            figure.about.title
        ));
        let mut own: Vec<String> = keys(figure)
            .iter()
            .filter(|k| !k.shared)
            .map(|k| format!("`{}` {}", k.key, k.values))
            .collect();
        // A key with two controls (a slider and a box) is one key.
        own.dedup();
        let shared: Vec<String> = shared_keys_read(figure)
            .iter()
            .map(|key| format!("`{key}`"))
            .collect();
        out.push_str(&match (own.is_empty(), shared.is_empty()) {
            (false, false) => format!("{}; reads the shared {}", own.join("; "), shared.join(", ")),
            (false, true) => own.join("; "),
            (true, _) => format!("reads the shared {}", shared.join(", ")),
        });
        let readouts = (figure.native.readouts)(&Query::default(), &mut Vec::new());
        let readouts: Vec<String> = readouts
            .iter()
            .map(|r| format!("`{}` {} ({})", r.id, r.text, r.unit.name()))
            .collect();
        out.push_str(&format!(". Readouts: {}.\n", readouts.join(", ")));
    }
    out.push_str("<!-- keys:end -->");
    out
}

/// Compares a generated text with the committed file, or writes it when blessing.
fn check(path: &str, generated: &str, committed: &str) {
    if std::env::var_os("PARALLAX_BLESS").is_some() {
        std::fs::write(path, generated).expect("write the generated file");
    } else {
        assert!(committed == generated, "{path} is not what the registry generates: run PARALLAX_BLESS=1 cargo test --test docs");
    }
}

#[test]
fn the_embed_page_is_generated_from_the_registry() {
    check(
        concat!(env!("CARGO_MANIFEST_DIR"), "/src/embed.html"),
        &embed_page(),
        include_str!("../src/embed.html"),
    );
}

#[test]
fn the_readmes_keys_are_generated_from_the_registry() {
    let readme = include_str!("../README.md");
    let start = readme
        .find("<!-- keys:start")
        .expect("the README has a keys section");
    let end = readme
        .find("<!-- keys:end -->")
        .expect("the README's keys section ends")
        + "<!-- keys:end -->".len();
    let generated = format!("{}{}{}", &readme[..start], readme_section(), &readme[end..]);
    check(
        concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"),
        &generated,
        readme,
    );
}

/// Each figure's example link reads without a notice.
#[test]
fn every_example_is_a_clean_link() {
    for figure in FIGURES {
        let mut notices = Vec::new();
        (figure.native.readouts)(&Query::parse(&example_query(figure)), &mut notices);
        assert!(notices.is_empty(), "{}: {notices:?}", figure.slug());
    }
}

/// The GB/GiB setting is offered with a figure exactly when one of its
/// readouts is a byte count, at its defaults and at its example.
#[test]
fn shows_bytes_is_what_the_readouts_say() {
    use parallax::widgets::Unit;
    for figure in FIGURES {
        for query in ["", &example_query(figure)] {
            let readouts = (figure.native.readouts)(&Query::parse(query), &mut Vec::new());
            let bytes = readouts.iter().any(|r| r.unit == Unit::Bytes);
            assert_eq!(figure.shows_bytes, bytes, "{} at ?{query}", figure.slug());
        }
    }
}
