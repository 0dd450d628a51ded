//! The word that makes accumulates to a segment window atomic across the two ways they
//! arrive: applied directly by a process of the target's host, or by the target's handler
//! for a message. It sits in the bytes just before the window's memory, in the segment
//! every process of the host maps (at the start of a shared window's region), and is held only while one accumulate runs (never
//! across a poll), so a wait for it is short.

use std::sync::atomic::{AtomicU32, Ordering};

/// Bytes kept before a segment window's memory for its guard (a cache line of its own).
pub const GUARD_BYTES: usize = 64;

/// Holds the guard at `addr` until dropped.
struct Held(&'static AtomicU32);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Release);
    }
}

/// Runs `f` holding the guard word at `addr` (none when `None`: the window has no
/// guard, its accumulates all run in its owner's process, one at a time).
pub fn guarded<T>(addr: Option<usize>, f: impl FnOnce() -> T) -> T {
    let Some(addr) = addr else { return f() };
    // SAFETY: `addr` is the guard word of a live segment window (the 64-aligned bytes
    // before its memory, zeroed when the window was made), mapped in this process until
    // the collective MPI_Win_free; every process touches it only atomically.
    let word = unsafe { AtomicU32::from_ptr(addr as *mut u32) };
    while word
        .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    let _held = Held(word);
    f()
}

/// Clears a fresh guard word.
pub fn reset(addr: usize) {
    // SAFETY: as in `guarded`; no other process knows the window yet.
    unsafe { AtomicU32::from_ptr(addr as *mut u32) }.store(0, Ordering::Release);
}
