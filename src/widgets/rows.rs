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
/// list grows or shrinks, rows are drawn or dropped at its end and the others
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
///
/// A position, once the list has reached it, keeps its place in the `For`
/// for as long as the list does; a row past the list's end drops what it
/// drew and draws it again when the list grows back. Why not let `For` drop
/// the row: `For` makes each row's owner a child of the owner it was built
/// under, and reactive_graph 0.2.16 never takes a dropped child out of its
/// parent's list (`OwnerInner::children`, a `Weak` each, pruned only when
/// the parent is cleaned up), so every row dropped left its owner's
/// allocation behind: the 3D grid's pipeline slider grew the wasm memory by
/// 1.3 KB a move, without end (`tests/e2e/soak.test.mjs`). What a row draws
/// is owned by its effect instead, whose children go each time it runs
/// again. So the `For` holds as many positions as the longest list seen.
fn by_position(length: Memo<usize>, row: Arc<dyn Fn(usize) -> AnyView + Send + Sync>) -> AnyView {
    let longest = use_scoped_memo(move |longest: Option<&usize>| {
        length.get().max(longest.copied().unwrap_or(0))
    });
    view! {
        <For
            each=move || 0..longest.get()
            key=|i| *i
            children=move |i| {
                let shown = use_scoped_memo(move |_| i < length.get());
                let row = row.clone();
                // A list of none or one, not an `Option`: a list keeps one
                // marker for good, where `None` would swap the row for a
                // marker of its own, one more node touched each time.
                move || shown.get().then(|| row(i)).into_iter().collect::<Vec<_>>()
            }
        />
    }
    .into_any()
}
