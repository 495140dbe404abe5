//! The launch worker's wasm (`src/launch-worker.js` runs it in a dedicated
//! worker): the planner's plan written in each launch tool's terms
//! (`launch::launches`), and pasted launch configurations read
//! (`launch::read`, with `shlex`, `toml` and `serde_json`), kept out of the
//! page's bundle and fetched when a reader first opens "Run it with".

use parallax::figures::figure::Params;
use parallax::figures::planner::PlannerParams;
use parallax::launch::wire::{self, Question};
use parallax::model::query::Query;
use wasm_bindgen::prelude::wasm_bindgen;

/// The answer to a question the page asks (`wire::Question`), in
/// `launch::wire`'s form; an empty answer to one it cannot have asked.
#[wasm_bindgen]
pub fn answer(question: &str) -> String {
    match Question::parse(question) {
        Some(Question::Read(text)) => wire::encode(&parallax::launch::read(&text)),
        Some(Question::Export(query)) => {
            // The page wrote the query from parameters it had read: nothing
            // in it is refused, and notices are none.
            let params = PlannerParams::from_query(&Query::parse(&query), &mut Vec::new());
            let plan = params.plan();
            wire::encode_launches(&parallax::launch::launches(&params.launch_run(&plan)))
        }
        None => String::new(),
    }
}

/// Nothing to start: the worker calls [`answer`] for each question.
fn main() {}
