//! The process-wide registries C handles index. A handle is a slot number with a
//! process-wide unique generation, and each slot records the thread that owns its object,
//! so a stale handle, one from another thread, or a made-up pointer is recognised and
//! refused (`AM_ERR_BAD_ARG`) instead of being dereferenced.
//!
//! A lookup takes no lock and reads no thread-local: in a shared library every
//! thread-local access is a call to `__tls_get_addr`, and `AM_Poll` looks its bundle up
//! on every call. The calling thread is known by its thread pointer instead. Only the
//! owner ever gets at an object, so objects need not be `Send`; and a thread's objects
//! are freed when it exits (see [`crate::state`]), before another thread can have its
//! thread pointer. Objects made once threads share the process (an `AM_PAR` bundle and
//! what is made after it) are owned by the process lock instead: any thread reaches them
//! while it holds the lock, which orders one holder's touches before the next's, so they
//! need not be `Send` either; they outlive the thread that made them.

use crate::codes::{AmResult, BAD_ARG, RESOURCE};
use std::rc::Rc;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Bits of a handle that hold the slot.
const SLOT_BITS: u32 = 16;
/// Slots of a registry: objects of one kind that may live at once in the process.
pub const MAX_SLOTS: usize = 1 << SLOT_BITS;

static GENERATION: AtomicUsize = AtomicUsize::new(1);

/// The calling thread, as slots record their owner: its thread pointer, unique among live
/// threads, never 0. On x86-64 it is read straight from `%fs:0` (no call into libc).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn this_thread() -> usize {
    let tp: usize;
    // SAFETY: a plain load, from memory every thread has: the x86-64 TLS ABI has the
    // thread control block begin with a pointer to itself, at `%fs:0`, so that compiled
    // code can read the thread pointer this way (glibc's `pthread_self` is the same
    // address).
    unsafe {
        std::arch::asm!(
            "mov {}, fs:0",
            out(reg) tp,
            options(nostack, readonly, preserves_flags, pure)
        )
    };
    tp
}

/// The calling thread, as slots record their owner: unique among live threads, never 0.
#[cfg(not(target_arch = "x86_64"))]
pub fn this_thread() -> usize {
    // SAFETY: pthread_self has no preconditions and cannot fail.
    unsafe { libc::pthread_self() as usize }
}

/// The owner of an object made while threads share the process (`am::serial`, turned on
/// by an `AM_PAR` bundle, `MPI_THREAD_SERIALIZED` or above, or OpenSHMEM's): any thread
/// that holds the process lock, which every entry point takes then. Never a thread
/// pointer (those are aligned addresses).
const ANY_THREAD: usize = usize::MAX;

/// Whether the calling thread may use an object whose slot records `owner`.
#[inline(always)]
fn may_use(owner: usize) -> bool {
    owner == this_thread() || shared_and_locked(owner)
}

#[cold]
fn shared_and_locked(owner: usize) -> bool {
    owner == ANY_THREAD && am::serial::holds_lock()
}

/// A handle from a generation and a slot (or a token from a serial and a slot).
pub fn join(high: usize, slot: usize) -> usize {
    (high << SLOT_BITS) | slot
}

/// The generation (or serial) and the slot of a handle (or token).
pub fn split(handle: usize) -> (usize, usize) {
    (handle >> SLOT_BITS, handle & (MAX_SLOTS - 1))
}

struct Slot<T> {
    /// The live handle of the object here; 0 when the slot is free.
    key: AtomicUsize,
    /// The owner's `this_thread()`; 0 when the slot is free.
    owner: AtomicUsize,
    /// The object, from `Rc::into_raw` (the registry's reference); null when free.
    ptr: AtomicPtr<T>,
}

/// Objects of one kind, each owned by the thread that inserted it (or by the process
/// lock). Slots change only under `writers`, and only their owner removes them: a lookup
/// that finds itself the owner of a slot whose key matches sees the object that owner
/// inserted and has not removed.
pub struct Registry<T> {
    slots: [Slot<T>; MAX_SLOTS],
    /// Held while slots change; guards how many slots have ever been used.
    writers: Mutex<usize>,
}

impl<T> Registry<T> {
    pub const fn new() -> Self {
        Registry {
            slots: [const {
                Slot {
                    key: AtomicUsize::new(0),
                    owner: AtomicUsize::new(0),
                    ptr: AtomicPtr::new(std::ptr::null_mut()),
                }
            }; MAX_SLOTS],
            writers: Mutex::new(0),
        }
    }

    fn writers(&self) -> MutexGuard<'_, usize> {
        // The slots stay consistent through a panic: each is claimed or freed by a
        // sequence of stores that cannot panic.
        self.writers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores `v`, owned by this thread (by the process lock's holder, once threads share
    /// the process); returns its handle (never 0). `claim` readies
    /// what the caller keeps per slot for the new object, before anything can reach it.
    pub fn insert(&self, v: Rc<T>, claim: impl FnOnce(usize)) -> AmResult<usize> {
        let mut used = self.writers();
        let slot = (0..MAX_SLOTS)
            .find(|&i| self.slots[i].key.load(Ordering::Relaxed) == 0)
            .ok_or(RESOURCE)?;
        *used = (*used).max(slot + 1);
        let gen = GENERATION.fetch_add(1, Ordering::Relaxed);
        let handle = join(gen, slot);
        claim(slot);
        let s = &self.slots[slot];
        s.ptr.store(Rc::into_raw(v).cast_mut(), Ordering::Relaxed);
        let owner = match am::serial::is_shared() {
            true => ANY_THREAD,
            false => this_thread(),
        };
        s.owner.store(owner, Ordering::Relaxed);
        s.key.store(handle, Ordering::Release);
        Ok(handle)
    }

    /// Whether `handle` names an object in the registry, whichever thread's it is.
    #[inline]
    pub fn holds(&self, handle: usize) -> bool {
        self.slots[split(handle).1].key.load(Ordering::Acquire) == handle
    }

    /// The handle of the object in the slot `handle_or_token` names (a token names its
    /// endpoint's slot), if it is this thread's.
    #[inline]
    pub fn slot_key(&self, handle_or_token: usize) -> Option<usize> {
        let s = &self.slots[split(handle_or_token).1];
        let key = s.key.load(Ordering::Acquire);
        (key != 0 && may_use(s.owner.load(Ordering::Relaxed))).then_some(key)
    }

    /// The handle of the object at the slot `handle_or_token` names and the object, if it
    /// is this thread's.
    ///
    /// # Safety
    /// The reference must be dropped before the object can be removed: before anything
    /// runs that could call [`Registry::remove`] or [`Registry::drain_where`] (a call into
    /// clump or into the program).
    #[inline]
    pub unsafe fn peek(&self, handle_or_token: usize) -> Option<(usize, &T)> {
        let key = self.slot_key(handle_or_token)?;
        let s = &self.slots[split(handle_or_token).1];
        // SAFETY: the slot is this thread's (or the lock's, which this thread holds), so
        // `ptr` is the registry's reference to the object its owner inserted (published
        // before the key); only the owner can remove it (for the lock's, a thread that
        // holds it, not meanwhile: this one does), and the caller promises not to before
        // the reference is gone.
        Some((key, unsafe { &*s.ptr.load(Ordering::Relaxed) }))
    }

    /// A counted reference to the object `handle` names, if this thread owns it: it keeps
    /// the object alive through calls that may free it (a handler may free its endpoint).
    #[inline]
    pub fn get(&self, handle: usize) -> AmResult<Rc<T>> {
        // SAFETY: the reference is only used to take a counted one, at once.
        match unsafe { self.peek(handle) } {
            Some((key, v)) if key == handle => {
                // SAFETY: `v` lives in an `Rc` (`insert` took it from `Rc::into_raw`)
                // whose count the registry holds one of, and only its owner, this
                // thread (or the lock's holder, this thread), touches the count.
                Ok(unsafe {
                    Rc::increment_strong_count(v);
                    Rc::from_raw(v)
                })
            }
            _ => Err(BAD_ARG),
        }
    }

    /// Takes the object `handle` names out of the registry.
    pub fn remove(&self, handle: usize) -> AmResult<Rc<T>> {
        let _writers = self.writers();
        if self.slot_key(handle) != Some(handle) {
            return Err(BAD_ARG);
        }
        Ok(self.take(split(handle).1))
    }

    /// Empties `slot`, which holds an object of this thread, and returns the object.
    fn take(&self, slot: usize) -> Rc<T> {
        let s = &self.slots[slot];
        s.owner.store(0, Ordering::Relaxed);
        let ptr = s.ptr.swap(std::ptr::null_mut(), Ordering::Relaxed);
        // Last: a slot with key 0 is free for any thread to claim.
        s.key.store(0, Ordering::Release);
        // SAFETY: `ptr` came from `Rc::into_raw` in `insert`; now that the slot is cleared
        // (under `writers`) the registry's reference passes to the caller.
        unsafe { Rc::from_raw(ptr) }
    }

    /// Removes and returns every object of this thread for which `pred` holds.
    pub fn drain_where(&self, mut pred: impl FnMut(&T) -> bool) -> Vec<Rc<T>> {
        let used = self.writers();
        (0..*used)
            // SAFETY: no object can be removed while `writers` is held: `pred` would block
            // (or panic) on the lock before it could.
            .filter(|&i| unsafe { self.peek(i) }.is_some_and(|(_, v)| pred(v)))
            .map(|i| self.take(i))
            .collect()
    }
}
