//! A global allocator that counts allocations and reallocations, for the no-allocation tests (`mod counting_alloc;` installs it in that test binary only).
//!
//! Counts are per thread: a test measures the allocations of its own thread, so the tests of
//! this binary may run concurrently (libtest runs each test on its own thread, and its main
//! thread allocates while it reports results). The measured code must therefore run on the test's
//! thread, as the library's posing and self-collision queries do (they spawn no threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // `const`-initialised and without a destructor: reading it never allocates, registers
    // nothing and works during thread teardown, as an allocator needs.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwards the caller's layout to the system allocator unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwards a pointer allocated by `System` with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and reallocations so far on the calling thread.
pub fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}
