//! The launch worker's wasm (`src/launch-worker.js` runs it in a dedicated
//! worker): the parsers of pasted launch configurations (`launch::read`,
//! with `shlex`, `toml` and `serde_json`), kept out of the page's bundle
//! and fetched when a reader first presses "Read".

use wasm_bindgen::prelude::wasm_bindgen;

/// What `text` sets, or why it was not read, in `launch::wire`'s form.
#[wasm_bindgen]
pub fn answer(text: &str) -> String {
    parallax::launch::wire::encode(&parallax::launch::read(text))
}

/// Nothing to start: the worker calls [`answer`] for each paste.
fn main() {}
