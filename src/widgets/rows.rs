//! Lists drawn from a figure's data, one view per item, that a change of the
//! data updates in place rather than rebuilds.

use std::sync::Arc;

use leptos::prelude::*;

/// One `row` per item of the list `items` picks from `data`, keyed by
/// position. Each row reads its item through its own memo, so when the data
/// changes only the attributes and text that differ are touched; when the
/// list grows or shrinks, rows are added or dropped at its end and the others
/// are left alone. (Rebuilding lists of views took about 40% of an update.)
///
/// A row's view reads only its item and what it makes itself, never the
/// figure's signals and memos directly. Leptos 0.8's reactive graph
/// (reactive_graph 0.2) does not take a dropped reader out of the list of
/// the signal or memo it read: a row removed, or a part of it rebuilt,
/// leaves a dead entry in every source it read that outlives it, each
/// change copies that list and each reader that runs again searches it.
/// Rows that read the figure's memos left thousands of dead entries in a
/// minute of dragging, and every input grew slower (the README, under
/// "Performance"). A value every row needs goes into each item, or into a
/// memo the row makes, which goes with it.
pub fn rows<S, D, T, V>(
    data: S,
    items: fn(&D) -> &[T],
    row: impl Fn(Memo<T>) -> V + Send + Sync + 'static,
) -> AnyView
where
    S: With<Value = D> + WithUntracked<Value = D> + Copy + Send + Sync + 'static,
    D: 'static,
    T: Clone + PartialEq + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let length = Memo::new(move |_| data.with(|d| items(d).len()));
    by_position(
        length,
        Arc::new(move |i| {
            // The row's first item: present, as the list is this long now.
            let Some(first) = data.with_untracked(|d| items(d).get(i).cloned()) else {
                return ().into_any();
            };
            // A row about to be dropped keeps its last item.
            let item = Memo::new(move |previous: Option<&T>| {
                data.with(|d| items(d).get(i).cloned())
                    .or_else(|| previous.cloned())
                    .unwrap_or_else(|| first.clone())
            });
            row(item).into_any()
        }),
    )
}

/// The keyed list behind [`rows`], not generic so that its code exists once.
fn by_position(length: Memo<usize>, row: Arc<dyn Fn(usize) -> AnyView + Send + Sync>) -> AnyView {
    view! { <For each=move || 0..length.get() key=|i| *i children=move |i| row(i)/> }.into_any()
}
