//! Browser tests of the shared widgets: mounted in headless Chromium with
//! wasm-bindgen-test, driven through the DOM as a reader would.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use parallax::figures::ReadoutData;
use parallax::widgets::{Readout, Slider};
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
    let data = RwSignal::new(ReadoutData::new(
        "training-state",
        "Training state",
        107.84e9,
        "107.8 GB",
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

    data.set(ReadoutData::new(
        "training-state",
        "Training state",
        13.5e9,
        "13.5 GB",
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
