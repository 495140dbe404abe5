//! Lists drawn from a figure's data, one view per item, that a change of the
//! data updates in place rather than rebuilds.

use std::sync::Arc;

use leptos::prelude::*;

#[cfg(doc)]
use crate::hooks::use_scoped;
use crate::hooks::use_scoped_memo;

/// One `row` per item of the list `items` picks from `data`, keyed by
/// position. Each row reads its item through its own memo, so when the data
/// changes only the attributes and text that differ are touched; when the
/// list grows or shrinks, rows are added or dropped at its end and the others
/// are left alone. (Rebuilding lists of views took about 40% of an update.)
///
/// A row reads `data` through its item's memo, which leaves with the row
/// ([`use_scoped_memo`]): Leptos 0.8 keeps a dropped reader in the list of
/// what it read, and rows that read the figure's memos left thousands of
/// dead entries in a minute of dragging, every input growing slower (the
/// README, under "Performance"). A row's view reads only its item and what
/// it makes itself; a value every row needs goes into each item, and a
/// long-lived source a row must read (the pointed-at key, the byte unit) is
/// read through [`use_scoped`].
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
    // The list itself may be dropped with a part it belongs to.
    let length = use_scoped_memo(move |_| data.with(|d| items(d).len()));
    by_position(
        length,
        Arc::new(move |i| {
            // The row's first item: present, as the list is this long now.
            let Some(first) = data.with_untracked(|d| items(d).get(i).cloned()) else {
                return ().into_any();
            };
            // A row about to be dropped keeps its last item.
            let item = use_scoped_memo(move |previous: Option<&T>| {
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
