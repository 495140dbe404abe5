//! Browser plumbing as hooks, in the shape of leptos-use: each `use_*`
//! function starts listening when it is called and stops when its owner
//! (the component that called it) is dropped, and gives back signals.

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use leptos::reactive::graph::{AnySubscriber, Subscriber, ToAnySubscriber};
use leptos::reactive::traits::{DefinedAt, ReadUntracked, Track};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// How many memos [`use_scoped_memo`] and [`use_scoped`] have made on
    /// this thread whose owner is not cleaned up yet.
    static SCOPED_READERS: Cell<u32> = const { Cell::new(0) };
}

/// The scoped memos alive now: as many after a reader has moved every
/// control 400 times as after 40, if every view that went took its readers
/// with it (`tests/e2e/forget.test.mjs`).
pub fn scoped_readers() -> u32 {
    SCOPED_READERS.with(Cell::get)
}

/// A memo for a view that can be dropped: it reads what `fun` reads, and
/// when its owner (the view) is cleaned up it takes itself out of the list
/// of every signal and memo it read.
///
/// Leptos 0.8's reactive graph (reactive_graph 0.2.16) never does that for
/// a dropped reader: a row removed, a part rebuilt on a change of shape, a
/// question or a notice gone leaves a dead entry in every source it read
/// that outlives it, which every later change of that source copies and
/// every reader that runs again searches (the README, "Performance"; fixed
/// upstream in 0.3, not released). So a view that can be dropped reads a
/// figure's parameters and data, the pointed-at key and the page's settings
/// through this memo, or through [`use_scoped`], made with it; the readers
/// in the memo's own list go with the memo.
/// Its function is `Memo::new`'s (given the value before, if any).
pub fn use_scoped_memo<T>(fun: impl Fn(Option<&T>) -> T + Send + Sync + 'static) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    scoped(ArcMemo::new(fun))
}

/// A long-lived signal or memo, `source`, read by a view that can be
/// dropped: one relay, a memo made with [`use_scoped_memo`]'s care, reads
/// `source` and is read in its place. Reads are as `source`'s (`with`,
/// `get`, `track`); every change of `source` reaches the readers as before.
/// For a part that reads a source in many places (a figure's body).
pub fn use_scoped<S>(source: S) -> Scoped<S>
where
    S: Track + Clone + Send + Sync + 'static,
{
    let tracked = source.clone();
    // Boxed, so that the relay's code exists once, whatever it relays.
    let track: Box<Relaying> = Box::new(move |_| tracked.track());
    // Always "changed": the relay passes on every change of its source.
    let relay = scoped(ArcMemo::new_with_compare(track, |_, _| true));
    Scoped { source, relay }
}

/// `memo`, taken out of its sources' lists when the current owner is cleaned up.
fn scoped<T: Send + Sync + 'static>(memo: ArcMemo<T>) -> Memo<T> {
    leaves_with_owner(memo.to_any_subscriber());
    memo.into()
}

/// Takes `reader` out of its sources' lists when the current owner is
/// cleaned up. Not generic, so that its code exists once. An owner runs its
/// cleanups before it disposes of the memos it holds, so the reader, a
/// memo of that owner, is still there to take out.
fn leaves_with_owner(reader: AnySubscriber) {
    SCOPED_READERS.with(|n| n.set(n.get() + 1));
    on_cleanup(move || {
        reader.clear_sources(&reader);
        SCOPED_READERS.with(|n| n.set(n.get().saturating_sub(1)));
    });
}

/// What a relay runs: it tracks its source.
type Relaying = dyn Fn(Option<&()>) + Send + Sync;

/// A source read through a relay that leaves with the owner it was made under ([`use_scoped`]).
/// Copy when the source is, like a signal.
#[derive(Clone, Copy)]
pub struct Scoped<S> {
    source: S,
    relay: Memo<()>,
}

impl<S> DefinedAt for Scoped<S> {
    fn defined_at(&self) -> Option<&'static Location<'static>> {
        None
    }
}

impl<S> Track for Scoped<S> {
    /// Tracks the relay, and brings it up to date: a memo is lazy, and
    /// only one that has run reads, and so follows, its source.
    fn track(&self) {
        self.relay.with(|_| ());
    }
}

impl<S: ReadUntracked> ReadUntracked for Scoped<S> {
    type Value = S::Value;

    fn try_read_untracked(&self) -> Option<Self::Value> {
        self.source.try_read_untracked()
    }
}

/// Whether a CSS media query matches, following changes (`prefers-reduced-motion: reduce`).
pub fn use_media_query(query: &'static str) -> Signal<bool> {
    let Some(list) = window().match_media(query).ok().flatten() else {
        return Signal::stored(false);
    };
    let matches = RwSignal::new(list.matches());
    let observed = list.clone();
    let listener = Closure::<dyn Fn()>::new(move || matches.set(observed.matches()));
    if list
        .add_event_listener_with_callback("change", listener.as_ref().unchecked_ref())
        .is_ok()
    {
        let listener = StoredValue::new_local(listener);
        on_cleanup(move || {
            listener.with_value(|listener| {
                _ = list.remove_event_listener_with_callback(
                    "change",
                    listener.as_ref().unchecked_ref(),
                );
            })
        });
    }
    matches.into()
}

/// Whether the reader asked for less motion.
pub fn use_reduced_motion() -> Signal<bool> {
    use_media_query("(prefers-reduced-motion: reduce)")
}

/// Whether the reader's colour scheme is dark.
pub fn use_prefers_dark() -> Signal<bool> {
    use_media_query("(prefers-color-scheme: dark)")
}

/// Calls `tick` every `period` while `active` is true, until the owner is
/// dropped: no timer runs while it is false.
pub fn use_interval(period: Duration, active: Signal<bool>, tick: impl Fn() + Clone + 'static) {
    let running = StoredValue::new_local(None::<IntervalHandle>);
    let stop = move || running.update_value(|r| r.take().into_iter().for_each(|h| h.clear()));
    Effect::new(move |_| {
        if !active.get() {
            stop();
        } else if running.with_value(Option::is_none) {
            running.set_value(set_interval_with_handle(tick.clone(), period).ok());
        }
    });
    on_cleanup(stop);
}

/// Runs what it is given once calls have rested for its delay: each call
/// replaces the one before that has not run yet. Copy, like a signal.
///
/// One timer at a time, moved on rather than cleared: a timer's callback
/// is a closure the browser frees only by calling it, so clearing a timer
/// at every step of a drag left one closure behind a step.
#[derive(Clone, Copy)]
pub struct Debounced {
    pending: StoredValue<Pending, LocalStorage>,
    delay: Duration,
}

/// What waits to run, and from when (`performance.now()`, ms).
#[derive(Default)]
struct Pending {
    act: Option<Box<dyn FnOnce()>>,
    due: f64,
    timer_set: bool,
}

impl Debounced {
    pub fn new(delay: Duration) -> Self {
        Self {
            pending: StoredValue::new_local(Pending::default()),
            delay,
        }
    }

    pub fn call(&self, act: impl FnOnce() + 'static) {
        let delay = self.delay.as_millis() as f64;
        let start_timer = self.pending.try_update_value(|pending| {
            pending.act = Some(Box::new(act));
            pending.due = now() + delay;
            !std::mem::replace(&mut pending.timer_set, true)
        });
        if start_timer == Some(true) {
            self.wait(self.delay);
        }
    }

    /// Runs the waiting act once its time has come, or waits the rest.
    fn wait(self, delay: Duration) {
        let fired = move || {
            let due = self.pending.try_update_value(|pending| {
                let left = pending.due - now();
                if left > 0.5 {
                    return Err(left);
                }
                pending.timer_set = false;
                Ok(pending.act.take())
            });
            match due {
                Some(Ok(Some(act))) => act(),
                Some(Err(left)) => self.wait(Duration::from_millis(left.ceil() as u64)),
                // Its owner gone, or nothing left to do.
                _ => {}
            }
        };
        if set_timeout_with_handle(fired, delay).is_err() {
            self.pending
                .update_value(|pending| pending.timer_set = false);
        }
    }
}

/// The browser's clock, `performance.now()`, in milliseconds (0 without one).
pub fn now() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Lets the browser paint and handle input for at least `millis` before the next chunk.
pub async fn yield_to_browser(millis: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        _ = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(resolve.unchecked_ref(), millis);
    });
    _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The clock's tick in milliseconds: browsers coarsen `performance.now()`
/// against timing attacks, to 100 µs or more. Waits out the rest of one
/// tick, then times a whole one; infinite when the clock did not move
/// within a bounded number of reads (tens of milliseconds' worth at most).
pub fn clock_tick() -> f64 {
    const READS: u32 = 100_000;
    let next_change = |from: f64| (0..READS).map(|_| now()).find(|&t| t != from);
    match next_change(now()) {
        Some(edge) => next_change(edge).map_or(f64::INFINITY, |next| next - edge),
        None => f64::INFINITY,
    }
}

/// Whether the page is hidden (a background tab, a minimised window).
/// Browsers slow their timers there but still run them: work that should
/// wait asks this before it starts.
pub fn page_hidden() -> bool {
    document().hidden()
}

/// An `IntersectionObserver` calling `callback` as elements come within
/// `margin` (a CSS length) of the viewport or leave it.
fn watcher(
    callback: &js_sys::Function,
    margin: &str,
) -> Result<web_sys::IntersectionObserver, JsValue> {
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin(margin);
    web_sys::IntersectionObserver::new_with_options(callback, &options)
}

/// Whether the element `node` refers to is within `margin` (a CSS length:
/// "1000px"; "0px" for the viewport itself) of the viewport, following it
/// as the reader scrolls (an `IntersectionObserver`; where the browser has
/// none, true at once). Animations and experiments run only while it is
/// (and not in a hidden tab: [`page_hidden`]).
pub fn use_on_screen<E>(node: NodeRef<E>, margin: &'static str) -> Signal<bool>
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let in_view = RwSignal::new(false);
    let seen = move |now: bool| {
        if in_view.get_untracked() != now {
            in_view.set(now);
        }
    };
    let observer = StoredValue::new_local(
        None::<(
            web_sys::IntersectionObserver,
            Closure<dyn Fn(js_sys::Array)>,
        )>,
    );
    node.on_load(move |element| {
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The last entry is the element's latest state.
            if let Some(entry) = entries
                .iter()
                .filter_map(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
                .next_back()
            {
                seen(entry.is_intersecting());
            }
        });
        match watcher(callback.as_ref().unchecked_ref(), margin) {
            Ok(watch) => {
                watch.observe(element.unchecked_ref());
                observer.set_value(Some((watch, callback)));
            }
            Err(_) => seen(true),
        }
    });
    on_cleanup(move || {
        observer.update_value(|o| {
            if let Some((watch, _)) = o.take() {
                watch.disconnect();
            }
        })
    });
    in_view.into()
}

/// Runs `then` once, when `element` first comes within `margin` (a CSS
/// length) of the viewport; at once where the browser has no
/// `IntersectionObserver`. For elements the app did not create (the page's
/// own, in `index.html`); [`use_on_screen`] follows the app's.
pub fn when_near(element: web_sys::HtmlElement, margin: &str, then: impl FnOnce() + 'static) {
    let then = Rc::new(Cell::new(Some(then)));
    let pending = then.clone();
    let callback = Closure::<dyn Fn(js_sys::Array, web_sys::IntersectionObserver)>::new(
        move |entries: js_sys::Array, watch: web_sys::IntersectionObserver| {
            let near = entries
                .iter()
                .filter_map(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
                .any(|entry| entry.is_intersecting());
            if !near {
                return;
            }
            if let Some(then) = pending.take() {
                watch.disconnect();
                then();
            }
        },
    );
    match watcher(callback.as_ref().unchecked_ref(), margin) {
        Ok(watch) => {
            watch.observe(&element);
            // Kept for the page's life: the page's own elements never go away.
            callback.forget();
        }
        Err(_) => {
            if let Some(then) = then.take() {
                then();
            }
        }
    }
}

/// An element's size in CSS pixels, from a `ResizeObserver` (so reading it
/// never forces a layout); 0 × 0 until the element is mounted and measured.
#[derive(Clone, Copy, Debug)]
pub struct ElementSize {
    pub width: Signal<f64>,
    pub height: Signal<f64>,
}

/// The size of the element `node` refers to, once it is mounted.
pub fn use_element_size<E>(node: NodeRef<E>) -> ElementSize
where
    E: leptos::html::ElementType,
    E::Output: JsCast + Clone + 'static,
{
    let width = RwSignal::new(0.0);
    let height = RwSignal::new(0.0);
    let observer =
        StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn Fn(js_sys::Array)>)>);
    node.on_load(move |element| {
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
                let rect = entry.content_rect();
                width.set(rect.width());
                height.set(rect.height());
            }
        });
        if let Ok(resize) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            resize.observe(element.unchecked_ref());
            observer.set_value(Some((resize, callback)));
        }
    });
    on_cleanup(move || {
        observer.with_value(|o| {
            if let Some((resize, _)) = o {
                resize.disconnect();
            }
        })
    });
    ElementSize {
        width: width.into(),
        height: height.into(),
    }
}

/// The shortest time between two rewrites of the URL. Chromium's
/// `history.replaceState` costs as much as a whole update of a figure (the
/// README gives the measurement) and ignores calls made more than about 200
/// times in ten seconds. So the URL follows a drag up to ten times a second,
/// from a timer and then in the browser's next idle period, never inside an
/// input's own work.
const URL_INTERVAL: Duration = Duration::from_millis(100);

/// The longest an idle period is waited for: idle periods can be rare on a busy page.
const IDLE_TIMEOUT_MS: u32 = 200;

#[derive(Default)]
struct UrlWriter {
    /// The query to write when the timer fires.
    pending: RefCell<Option<String>>,
    scheduled: Cell<bool>,
}

impl UrlWriter {
    fn write_soon(self: &Rc<Self>, search: String) {
        *self.pending.borrow_mut() = Some(search);
        if self.scheduled.replace(true) {
            return;
        }
        let writer = Rc::clone(self);
        let when_idle = move || {
            let idle = Rc::clone(&writer);
            let callback = Closure::once_into_js(move || idle.flush());
            let options = web_sys::IdleRequestOptions::new();
            options.set_timeout(IDLE_TIMEOUT_MS);
            if window()
                .request_idle_callback_with_options(callback.unchecked_ref(), &options)
                .is_err()
            {
                writer.flush();
            }
        };
        if set_timeout_with_handle(when_idle, URL_INTERVAL).is_err() {
            self.flush();
        }
    }

    fn flush(&self) {
        self.scheduled.set(false);
        if let Some(search) = self.pending.borrow_mut().take() {
            let url = if search.is_empty() {
                window().location().pathname().unwrap_or_default()
            } else {
                search
            };
            if let Ok(history) = window().history() {
                _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
            }
        }
    }
}

/// A function that replaces the page's query with the one it is given, at
/// most every 100 ms and in an idle period (the last query given wins).
pub fn use_url_writer() -> impl Fn(String) + Clone + 'static {
    let writer = Rc::new(UrlWriter::default());
    move |search| writer.write_soon(search)
}

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::reactive::owner::Owner;

    /// A memo made for a view that can be dropped takes itself out of the
    /// list of what it read when its owner is cleaned up: the signal it read
    /// no longer reaches it, and the count of scoped readers falls back.
    #[test]
    fn a_scoped_memo_leaves_with_its_owner() {
        let root = Owner::new();
        root.set();
        let source = RwSignal::new(1);
        let before = scoped_readers();
        let view = root.child();
        let (doubled, relayed) = view.with(|| {
            let doubled = use_scoped_memo(move |_| source.get() * 2);
            let relayed = use_scoped(source);
            (doubled, relayed)
        });
        assert_eq!(scoped_readers(), before + 2);
        assert_eq!((doubled.get_untracked(), relayed.get_untracked()), (2, 1));
        source.set(2);
        assert_eq!((doubled.get_untracked(), relayed.get_untracked()), (4, 2));
        view.cleanup();
        assert_eq!(scoped_readers(), before);
        // The memo went with its owner.
        source.set(3);
        assert_eq!(doubled.try_get_untracked(), None);
    }

    #[test]
    fn a_relay_of_a_derived_signal_follows_it() {
        let root = Owner::new();
        root.set();
        let source = RwSignal::new(1);
        let derived = Signal::derive(move || source.get() * 10);
        let view = root.child();
        let relayed = view.with(|| use_scoped(derived));
        let seen = Memo::new(move |_| relayed.get());
        assert_eq!(seen.get_untracked(), 10);
        source.set(2);
        assert_eq!(seen.get_untracked(), 20);
        source.set(3);
        assert_eq!(seen.get_untracked(), 30);
    }
}
