//! Which figure a control belongs to. On the full page every figure's
//! controls share one document, so element ids and radio-group names must
//! differ between figures: a label `for` another figure's id, or one radio
//! group spanning two figures, would make a click change the wrong figure
//! and leave a group with one tab stop. Every id a control makes is derived
//! here, from the scope its figure provides, and nowhere else.

use leptos::prelude::*;
use leptos::reactive::owner::Owner;
use leptos::tachys::reactive_graph::OwnedView;

/// The prefix of every id and group name made inside a figure: its slug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlScope(pub &'static str);

/// What the reader points at in a figure: the control key or readout id
/// under the pointer or focus, so that its symbol in an equation, its
/// control and its readout light up together.
#[derive(Clone, Copy, Debug)]
pub struct Tie(pub RwSignal<Option<String>>);

/// Whether what is pointed at (`tied`) is tied to `keys`. Either may name
/// several keys, separated by spaces: a symbol that stands for what more
/// than one control sets (X, a GPU's sustained FLOP/s, from the GPU and the
/// share of its peak) lights with each of them, and lights them all.
pub fn is_tied(tied: &Option<String>, keys: &str) -> bool {
    tied.as_deref()
        .is_some_and(|tied| tied.split(' ').any(|t| keys.split(' ').any(|k| k == t)))
}

/// The figure's tie (a lone one outside any figure).
pub fn use_tie() -> RwSignal<Option<String>> {
    use_context::<Tie>().map_or_else(|| RwSignal::new(None), |tie| tie.0)
}

/// The view `build` makes, with its controls' ids prefixed by `prefix`:
/// built under a child owner that holds the scope and the figure's tie, so
/// that sibling figures each see their own.
pub fn scoped<V: IntoView + 'static>(
    prefix: &'static str,
    build: impl FnOnce() -> V,
) -> impl IntoView {
    let owner = Owner::current().map_or_else(Owner::new, |owner| owner.child());
    let view = owner.with(|| {
        provide_context(ControlScope(prefix));
        provide_context(Tie(RwSignal::new(None)));
        build()
    });
    OwnedView::new_with_owner(view, owner)
}

/// The id of the control that writes `param`, unique on the page:
/// `<scope>-<param>` (`zero-stage`, `planner-stage`).
pub fn control_id(param: &str) -> String {
    let ControlScope(prefix) = use_context().unwrap_or(ControlScope("control"));
    format!("{prefix}-{param}")
}
