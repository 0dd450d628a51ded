//! Thread-local tables that C handles index. A handle is a slot number with a process-wide
//! unique generation, so a stale handle, one from another thread, or a made-up pointer is
//! recognised and refused (`AM_ERR_BAD_ARG`) instead of being dereferenced.

use crate::codes::{AmResult, BAD_ARG, IN_USE, RESOURCE};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bits of a handle that hold the slot.
const SLOT_BITS: u32 = 16;
const MAX_SLOTS: usize = 1 << SLOT_BITS;

static GENERATION: AtomicU64 = AtomicU64::new(1);

/// A table of objects owned by one thread.
pub struct Table<T> {
    slots: Vec<Option<(u64, T)>>,
}

impl<T> Table<T> {
    pub const fn new() -> Self {
        Table { slots: Vec::new() }
    }

    /// Stores `v`; returns its handle (never 0).
    pub fn insert(&mut self, v: T) -> AmResult<usize> {
        let gen = GENERATION.fetch_add(1, Ordering::Relaxed);
        let slot = match self.slots.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.slots.len() < MAX_SLOTS => {
                self.slots.push(None);
                self.slots.len() - 1
            }
            None => return Err(RESOURCE),
        };
        self.slots[slot] = Some((gen, v));
        Ok(((gen << SLOT_BITS) | slot as u64) as usize)
    }

    fn slot(handle: usize) -> (u64, usize) {
        let h = handle as u64;
        (h >> SLOT_BITS, (h & (MAX_SLOTS as u64 - 1)) as usize)
    }

    pub fn get(&self, handle: usize) -> AmResult<&T> {
        let (gen, slot) = Self::slot(handle);
        match self.slots.get(slot) {
            Some(Some((g, v))) if *g == gen => Ok(v),
            _ => Err(BAD_ARG),
        }
    }

    pub fn get_mut(&mut self, handle: usize) -> AmResult<&mut T> {
        let (gen, slot) = Self::slot(handle);
        match self.slots.get_mut(slot) {
            Some(Some((g, v))) if *g == gen => Ok(v),
            _ => Err(BAD_ARG),
        }
    }

    pub fn remove(&mut self, handle: usize) -> AmResult<T> {
        self.get(handle)?;
        let (_, slot) = Self::slot(handle);
        Ok(self.slots[slot]
            .take()
            .map(|(_, v)| v)
            .expect("checked just above"))
    }

    /// Removes and returns every object for which `pred` holds.
    pub fn drain_where(&mut self, mut pred: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut out = Vec::new();
        for s in &mut self.slots {
            if s.as_ref().is_some_and(|(_, v)| pred(v)) {
                out.extend(s.take().map(|(_, v)| v));
            }
        }
        out
    }
}

/// Runs `f` on a thread-local table. `f` must not call into clump (handlers could run and
/// need the table): take what the call needs (a cloned handle) and call after.
pub fn with<T, R>(
    table: &'static std::thread::LocalKey<RefCell<Table<T>>>,
    f: impl FnOnce(&mut Table<T>) -> AmResult<R>,
) -> AmResult<R> {
    table.with(|t| match t.try_borrow_mut() {
        Ok(mut t) => f(&mut t),
        // Re-entered from a destructor run inside `f`: refuse rather than panic.
        Err(_) => Err(IN_USE),
    })
}
