//! Numbers in running text that follow a figure: each copies the text of
//! the figure's element (a readout's value) whenever it changes, so it
//! reads as the figure shows it, in the page's byte unit too. Nothing here
//! knows what the numbers mean.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Keeps `shown`'s text that of `source`, now and whenever what `source`
/// holds changes.
pub fn follow_text(source: &web_sys::Element, shown: web_sys::Element) {
    let watched = source.clone();
    let copy = move || shown.set_text_content(watched.text_content().as_deref());
    copy();
    let closure = Closure::<dyn Fn()>::new(copy);
    if let Ok(observer) = web_sys::MutationObserver::new(closure.as_ref().unchecked_ref()) {
        let options = web_sys::MutationObserverInit::new();
        options.set_child_list(true);
        options.set_character_data(true);
        options.set_subtree(true);
        _ = observer.observe_with_options(source, &options);
        // Kept for the page's life: the page's own elements never go away.
        closure.forget();
    }
}
