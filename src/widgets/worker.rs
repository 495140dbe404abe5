//! A question put to a dedicated worker, its answer handed back: for work
//! whose code the page fetches only when a reader first asks for it (the
//! worker's script and wasm are not in the page's bundle), and which runs
//! off the thread that draws the page. One worker a script, started on the
//! first question and kept for the page's life; questions and answers are
//! text, matched by a number each.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// What waits for an answer: `None` when the worker could not start or
/// could not answer.
type Answered = Box<dyn FnOnce(Option<String>)>;

struct Running {
    worker: web_sys::Worker,
    next: u32,
    waiting: HashMap<u32, Answered>,
}

thread_local! {
    static RUNNING: RefCell<HashMap<&'static str, Running>> = RefCell::new(HashMap::new());
}

/// Posts `question` to the worker at `script` (a URL relative to the page)
/// and calls `answered` with its answer. The worker receives `[number,
/// question]` and posts `[number, answer]`, `answer` text or `null`.
pub fn ask(script: &'static str, question: &str, answered: impl FnOnce(Option<String>) + 'static) {
    let mut answered: Option<Answered> = Some(Box::new(answered));
    RUNNING.with(|running| {
        let mut running = running.borrow_mut();
        if !running.contains_key(script) {
            let worker = start(script)?;
            running.insert(
                script,
                Running {
                    worker,
                    next: 0,
                    waiting: HashMap::new(),
                },
            );
        }
        let entry = running.get_mut(script)?;
        let number = entry.next;
        entry.next = entry.next.wrapping_add(1);
        let message = js_sys::Array::of2(&JsValue::from(number), &JsValue::from_str(question));
        entry.worker.post_message(&message).ok()?;
        entry.waiting.insert(number, answered.take()?);
        Some(())
    });
    // Not posted (a browser without workers, a script refused): the caller
    // hears at once.
    if let Some(answered) = answered {
        answered(None);
    }
}

/// A worker for `script`, its answers routed to what waits for them. Its
/// two handlers live as long as the page: one worker a script, never
/// replaced while it runs.
fn start(script: &'static str) -> Option<web_sys::Worker> {
    let worker = web_sys::Worker::new(script).ok()?;
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let data = js_sys::Array::from(&event.data());
            let Some(number) = data.get(0).as_f64() else {
                return;
            };
            let waiting = RUNNING.with(|running| {
                running
                    .borrow_mut()
                    .get_mut(script)
                    .and_then(|entry| entry.waiting.remove(&(number as u32)))
            });
            // Called with no borrow held: it may ask again.
            if let Some(answered) = waiting {
                answered(data.get(1).as_string());
            }
        });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        // The script or its wasm did not load: everything waiting fails,
        // and the next question starts a worker again.
        fail_all(script);
        RUNNING.with(|running| running.borrow_mut().remove(script));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// Answers everything waiting on `script` with `None`.
fn fail_all(script: &'static str) {
    let waiting: Vec<Answered> = RUNNING.with(|running| {
        running
            .borrow_mut()
            .get_mut(script)
            .map(|entry| {
                entry
                    .waiting
                    .drain()
                    .map(|(_, answered)| answered)
                    .collect()
            })
            .unwrap_or_default()
    });
    for answered in waiting {
        answered(None);
    }
}
