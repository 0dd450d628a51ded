//! A `Gas` that the threads of a process share: each call runs inside clump's process lock
//! (`clump::serial::Locked`), and waits let the lock go between polls, so that a thread
//! waiting for its reply lets the others call meanwhile; whichever thread polls runs the
//! handlers. Each thread has a lane of its own, carried by its puts and gets, so that a
//! thread's `sync` completes its own and waits for no other thread's.

use crate::error::Result;
use crate::gas::Gas;
use crate::ptr::GlobalPtr;
use bytemuck::Pod;
use clump::serial::Locked;
use std::sync::Mutex;
use std::thread::ThreadId;

/// One process's view of the global address space, shared by its threads (`Send + Sync`;
/// share it with `Arc` or a scoped thread). Made by [`Gas::into_shared`].
pub struct SharedGas {
    gas: Locked<Gas>,
    /// The threads that have made a put or get, by lane minus one.
    lanes: Mutex<Vec<ThreadId>>,
    rank: u32,
    size: u32,
}

impl Gas {
    /// Hands this rank's `Gas` to its threads. Allocate before: `alloc` needs the `Gas`
    /// alone.
    pub fn into_shared(self) -> SharedGas {
        let (rank, size) = (self.rank(), self.size());
        SharedGas {
            // SAFETY: the `Gas` owns its endpoint, bundle and handler state: no clone of
            // an `Rc` inside it lives outside it. A Rust program has no C face's state
            // (`ProcessLocal`), and the calling thread is in no call of a face.
            gas: unsafe { Locked::new(self) },
            lanes: Mutex::new(Vec::new()),
            rank,
            size,
        }
    }
}

impl SharedGas {
    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    /// Runs `f` on the `Gas` inside the process lock.
    fn with<R>(&self, f: impl FnOnce(&Gas) -> R) -> R {
        // SAFETY: every caller below returns plain values (numbers, results with owned
        // strings) and keeps no reference or `Rc` reached through the `Gas`.
        unsafe { self.gas.with(f) }
    }

    /// The calling thread's lane (from 1; the `Gas`'s own is 0).
    fn lane(&self) -> u32 {
        let me = std::thread::current().id();
        let mut lanes = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        let i = match lanes.iter().position(|t| *t == me) {
            Some(i) => i,
            None => {
                lanes.push(me);
                lanes.len() - 1
            }
        };
        i as u32 + 1
    }

    pub fn read<T: Pod>(&self, p: GlobalPtr<T>) -> Result<T> {
        self.with(|g| g.read(p))
    }

    pub fn read_bulk<T: Pod>(&self, src: GlobalPtr<T>, dst: &mut [T]) -> Result<()> {
        self.with(|g| g.read_bulk(src, dst))
    }

    pub fn write<T: Pod>(&self, p: GlobalPtr<T>, v: T) -> Result<()> {
        self.with(|g| g.write(p, v))
    }

    /// Starts writing `src` at `dst` (copied before return); this thread's `sync`
    /// completes it.
    pub fn put_bulk<T: Pod>(&self, dst: GlobalPtr<T>, src: &[T]) -> Result<()> {
        let lane = self.lane();
        self.with(|g| g.put_bulk_in(lane, dst, src))
    }

    pub fn put<T: Pod>(&self, dst: GlobalPtr<T>, v: T) -> Result<()> {
        self.put_bulk(dst, &[v])
    }

    /// Starts copying `n` elements at `src` to `dst`, which must be on this rank; this
    /// thread's `sync` completes it.
    pub fn get_bulk<T: Pod>(&self, src: GlobalPtr<T>, dst: GlobalPtr<T>, n: usize) -> Result<()> {
        let lane = self.lane();
        self.with(|g| g.get_bulk_in(lane, src, dst, n))
    }

    /// Waits until every put and get this thread started has completed; other threads'
    /// may still be in flight.
    pub fn sync(&self) -> Result<()> {
        let lane = self.lane();
        self.with(|g| g.sync_lane(lane))
    }

    pub fn fetch_add(&self, p: GlobalPtr<u64>, v: u64) -> Result<u64> {
        self.with(|g| g.fetch_add(p, v))
    }

    pub fn compare_swap(&self, p: GlobalPtr<u64>, expect: u64, new: u64) -> Result<u64> {
        self.with(|g| g.compare_swap(p, expect, new))
    }

    /// Runs the handlers of messages that have arrived.
    pub fn poll(&self) -> Result<()> {
        self.with(|g| g.poll())
    }

    /// Collective over the ranks: one thread of each rank calls it at a time.
    pub fn barrier(&self) -> Result<()> {
        self.with(|g| g.barrier())
    }
}
