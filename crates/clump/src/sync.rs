//! Atomics and cells for the lock-free queues: `std` normally, `loom` under `--cfg loom`,
//! so that the same queue code is model-checked.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// Asks for the cache line that holds `value` for writing, without waiting for it: a line
/// another core wrote last then moves while this one does other work, and the write that
/// follows (a bulk block's claim) finds it in cache. A hint only: nothing under loom or on
/// other targets, so the queues call it without a switch of their own.
#[inline(always)]
pub(crate) fn prefetch_for_write<T>(value: &T) {
    // SAFETY: PREFETCHW never faults and writes no memory, register or flag; the x86_64
    // parts that predate it run it as a no-op. The address is that of a live reference.
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    unsafe {
        std::arch::asm!(
            "prefetchw [{0}]",
            in(reg) std::ptr::from_ref(value),
            options(nostack, readonly, preserves_flags)
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = value;
}

/// `std`'s `UnsafeCell` with loom's closure API, so queue code is written once.
#[cfg(not(loom))]
#[derive(Debug, Default)]
#[repr(transparent)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    #[cfg(test)]
    pub(crate) fn new(value: T) -> Self {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}
