//! What the test command counts in the browser, where a count does not
//! depend on the machine's speed (`tests/e2e/forget.test.mjs`): the bytes
//! the heap has handed out since the app started, and the scoped readers
//! alive ([`crate::hooks::scoped_readers`]). Both are read by the test
//! through the wasm module's exports; the page never calls them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use wasm_bindgen::prelude::wasm_bindgen;

/// The system allocator, counting the bytes it hands out: a block's size
/// when it is allocated, and what a reallocation adds to it.
struct Counted;

static HANDED_OUT: AtomicU64 = AtomicU64::new(0);

fn count(bytes: usize) {
    HANDED_OUT.fetch_add(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; counting touches no memory it returns.
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counted = Counted;

/// Bytes the heap has handed out since the app started (a running total:
/// its growth over a change is the work that change allocated).
#[wasm_bindgen]
pub fn parallax_allocated() -> f64 {
    HANDED_OUT.load(Ordering::Relaxed) as f64
}

/// Scoped readers alive ([`crate::hooks::scoped_readers`]).
#[wasm_bindgen]
pub fn parallax_scoped_readers() -> u32 {
    crate::hooks::scoped_readers()
}
