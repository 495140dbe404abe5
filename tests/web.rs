//! Browser tests of the shared widgets: mounted in headless Chromium with
//! wasm-bindgen-test, driven through the DOM as a reader would.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use parallax::model::units::Bytes;
use parallax::widgets::{
    num, scoped, Equation, Equations, Piece, Readout, ReadoutData, Slider, Toggle,
};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Event, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh container in the document for one test's component.
fn container() -> HtmlElement {
    let document = document();
    let element: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&element).unwrap();
    element
}

/// Lets queued effects and reactive updates run.
async fn tick() {
    leptos::task::tick().await;
}

#[wasm_bindgen_test]
async fn slider_publishes_its_param_range_and_value_text() {
    let root = container();
    let value = RwSignal::new(2e12);
    leptos::mount::mount_to(root.clone(), move || {
        view! {
            <Slider
                label="Training tokens"
                param="tokens"
                min=50e9
                max=2e12
                step=50e9
                value=value
                text=Signal::derive(move || format!("{:.2}T", value.get() / 1e12))
                on_input=Callback::new(move |v| value.set(v))
            />
        }
    })
    .forget();
    tick().await;
    let input: HtmlInputElement = root
        .query_selector("input[type=range]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert_eq!(input.get_attribute("data-param").as_deref(), Some("tokens"));
    assert_eq!(input.min(), "50000000000");
    assert_eq!(input.max(), "2000000000000");
    assert_eq!(input.value(), "2000000000000");
    assert_eq!(
        input.get_attribute("aria-valuetext").as_deref(),
        Some("2.00T")
    );
    let label = root.query_selector("label").unwrap().unwrap();
    assert_eq!(label.get_attribute("for"), Some(input.id()));
    let output = root.query_selector("output").unwrap().unwrap();
    assert_eq!(output.text_content().as_deref(), Some("2.00T"));

    // The reader moves the slider: the callback gets the value, the text follows.
    input.set_value("1000000000000");
    input.dispatch_event(&Event::new("input").unwrap()).unwrap();
    tick().await;
    assert_eq!(value.get_untracked(), 1e12);
    assert_eq!(output.text_content().as_deref(), Some("1.00T"));
    assert_eq!(
        input.get_attribute("aria-valuetext").as_deref(),
        Some("1.00T")
    );

    // A change from elsewhere (the URL, a preset) moves the thumb.
    value.set(5e11);
    tick().await;
    assert_eq!(input.value(), "500000000000");
}

#[wasm_bindgen_test]
async fn readout_publishes_id_exact_value_and_text_and_follows_its_signal() {
    let root = container();
    let data = RwSignal::new(ReadoutData::bytes(
        "training-state",
        "Training state",
        Bytes(107.84e9),
    ));
    leptos::mount::mount_to(root.clone(), move || view! { <Readout data=data/> }).forget();
    tick().await;
    let readout = root.query_selector("[data-readout]").unwrap().unwrap();
    assert_eq!(
        readout.get_attribute("data-readout").as_deref(),
        Some("training-state")
    );
    assert_eq!(
        readout.get_attribute("data-value").as_deref(),
        Some("107840000000")
    );
    assert_eq!(
        readout
            .query_selector(".readout__value")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("107.8 GB")
    );
    assert_eq!(
        readout
            .query_selector(".readout__label")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("Training state")
    );

    data.set(ReadoutData::bytes(
        "training-state",
        "Training state",
        Bytes(13.5e9),
    ));
    tick().await;
    assert_eq!(
        readout.get_attribute("data-value").as_deref(),
        Some("13500000000")
    );
    assert_eq!(
        readout
            .query_selector(".readout__value")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("13.5 GB")
    );
}

/// Two figures with a control for the same key: each toggle's radios share a
/// name only with each other, and each label points at its own radio.
#[wasm_bindgen_test]
async fn toggles_in_two_figures_never_share_a_group_or_an_id() {
    let root = container();
    let picked = RwSignal::new(Vec::<(&'static str, String)>::new());
    let toggle = move |figure: &'static str| {
        scoped(figure, move || {
            view! {
                <Toggle
                    label="Link"
                    param="link"
                    options=vec![("nvlink", "NVLink"), ("network", "Network")]
                    selected=Signal::stored("nvlink".to_string())
                    on_change=Callback::new(move |id: String| picked.update(|p| p.push((figure, id))))
                />
            }
        })
    };
    leptos::mount::mount_to(
        root.clone(),
        move || view! { {toggle("dp")} {toggle("tp")} },
    )
    .forget();
    tick().await;
    let radios = root.query_selector_all("input[type=radio]").unwrap();
    let names: Vec<String> = (0..radios.length())
        .map(|i| {
            radios
                .item(i)
                .unwrap()
                .unchecked_into::<HtmlInputElement>()
                .name()
        })
        .collect();
    assert_eq!(names, ["dp-link", "dp-link", "tp-link", "tp-link"]);
    // The reader clicks tp's "Network" segment: tp's callback, not dp's, hears it.
    let label: HtmlElement = root
        .query_selector("label[for='tp-link-network']")
        .unwrap()
        .unwrap()
        .unchecked_into();
    label.click();
    tick().await;
    assert_eq!(picked.get_untracked(), [("tp", "network".to_string())]);
}

/// `M = 16 × Ψ` with Ψ and its result as values.
fn state_equation(psi: f64, result: &str) -> Equation {
    Equation {
        words: format!("M equals 16 Psi: {result}"),
        left: vec![Piece::Var("M", "", "training-state")],
        rows: vec![
            vec![num(16), Piece::Op("×"), Piece::Sci(psi)],
            vec![Piece::Value(result.to_string(), "training-state")],
        ],
    }
}

/// A new value rewrites the texts of the numbers that changed, in the same
/// elements (Llama 2 7B's 6.74 × 10⁹ to GPT-3's 1.75 × 10¹¹: 16 × Ψ bytes,
/// 107.8 GB to 2.8 TB); a term that appears rebuilds the markup; pointing at
/// a readout toggles a class on its symbol and result.
#[wasm_bindgen_test]
async fn equations_keep_their_elements_when_only_values_change() {
    let root = container();
    let equations = RwSignal::new(vec![state_equation(6.74e9, "107.8 GB")]);
    let tie = RwSignal::new(None::<String>);
    leptos::mount::mount_to(root.clone(), move || {
        scoped("eq", move || {
            let scope_tie = parallax::widgets::use_tie();
            Effect::new(move |_| scope_tie.set(tie.get()));
            view! { <Equations equations=equations glossary=&[]/> }
        })
    })
    .forget();
    tick().await;
    let math = root.query_selector("math").unwrap().unwrap();
    let result = root.query_selector("[data-result]").unwrap().unwrap();
    assert_eq!(result.text_content().as_deref(), Some("107.8 GB"));
    assert_eq!(
        math.get_attribute("aria-label").as_deref(),
        Some("M equals 16 Psi: 107.8 GB")
    );

    equations.set(vec![state_equation(1.75e11, "2.8 TB")]);
    tick().await;
    let same_math = root.query_selector("math").unwrap().unwrap();
    assert!(
        same_math.is_same_node(Some(&math)),
        "the markup was rebuilt"
    );
    assert_eq!(result.text_content().as_deref(), Some("2.8 TB"));
    assert!(math.text_content().unwrap().contains("1.75"));
    assert_eq!(
        math.get_attribute("aria-label").as_deref(),
        Some("M equals 16 Psi: 2.8 TB")
    );

    tie.set(Some("training-state".to_string()));
    tick().await;
    assert_eq!(root.query_selector_all(".tied").unwrap().length(), 2);
    tie.set(None);
    tick().await;
    assert_eq!(root.query_selector_all(".tied").unwrap().length(), 0);

    // 150 has no power of ten: another shape, built anew.
    equations.set(vec![state_equation(150.0, "2.4 KB")]);
    tick().await;
    let rebuilt = root.query_selector("math").unwrap().unwrap();
    assert!(!rebuilt.is_same_node(Some(&math)));
    assert!(rebuilt.query_selector("msup").unwrap().is_none());
    assert_eq!(
        root.query_selector("[data-result]")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("2.4 KB")
    );
}
