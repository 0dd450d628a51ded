//! One-step collectives among the processes of one host, through shared memory: each rank
//! writes its contribution into a slot of its own clump segment and publishes it; every
//! rank reads the others' slots straight from their mapped segments. No message and no
//! round trip, as vendor MPIs do within a node for small data (Open MPI's `coll/sm`).
//!
//! The slots themselves, and how a call is published in one, are slots.rs's.

use std::sync::atomic::Ordering;

use clump::idle::{Backoff, Pause};

use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::runtime::Runtime;
use crate::slots::{Slot, Slots, AREAS, HEAD};

/// Slot checks between two rounds of clump progress while waiting.
const CHECKS_PER_POLL: u32 = 64;

impl Slots {
    /// Whether `comm`'s collectives may go through the slots: the same answer on every
    /// member (it depends only on what all of them traded at init).
    pub fn serve(&self, comm: &Comm, one_host: bool) -> bool {
        one_host
            && comm.ctx() < AREAS
            && comm
                .group()
                .iter()
                .all(|&r| self.ready.get(r as usize) == Some(&true))
    }

    /// The most bytes every member of `comm` can publish in one step (its smallest slot).
    pub fn room(&self, comm: &Comm) -> usize {
        let room = |&r: &u32| {
            self.sizes
                .get(r as usize)
                .map_or(0, |s| s.saturating_sub(HEAD))
        };
        comm.group().iter().map(room).min().unwrap_or(0)
    }
}

/// Waits until `slot` holds call `k`, keeping clump's progress going (a peer may wait for
/// this process's messages before it reaches the collective: a one-sided lock or access
/// its handler serves) and, past the spin budget, letting the core go between looks. While
/// it spins it polls once every [`CHECKS_PER_POLL`] looks; once it lets the core go it
/// polls between yields, since a yield on a shared core can last a time slice and 64 of
/// them would keep a peer's request waiting for a large part of a second. Where threads
/// share MPI, every look lets the process lock go (`Backoff::snooze`): the call this one
/// waits for may be a peer's thread's that waits for another thread of ours.
fn await_call(rt: &Runtime, slot: &Slot, k: u64) -> Result<()> {
    let mut checks = 0u32;
    let mut idle = Backoff::new(rt.spin);
    let mut let_go = false;
    while slot.seq().load(Ordering::Acquire) != k {
        checks = checks.wrapping_add(1);
        if let_go || checks.is_multiple_of(CHECKS_PER_POLL) {
            rt.progress()?;
        }
        let_go = idle.snooze() == Pause::LetGo;
    }
    Ok(())
}

/// One collective step: publishes this member's part of a contribution of `whole` bytes,
/// `pieces` one after the other (no copy to join them first), waits for every member of
/// `comm`, then gives `each(rank, whole, data)` each member's part and whole length in rank
/// order (members that disagree on the whole, and so on the number of parts in which they
/// send it, find out at the first part). `Ok(false)` when some part did not fit: the caller
/// then runs the message algorithm (every member finds the same). Only for communicators
/// [`Slots::serve`] admits.
pub fn exchange(
    rt: &Runtime,
    comm: &Comm,
    whole: usize,
    pieces: &[&[u8]],
    mut each: impl FnMut(usize, u64, &[u8]) -> Result<()>,
) -> Result<bool> {
    let slots = &rt.slots;
    let ctx = comm.ctx();
    let k = slots.calls[ctx].get() + 1;
    slots.calls[ctx].set(k);
    let group = comm.group();
    let me = group[comm.rank() as usize];
    slots.slot(me, ctx, k).publish(k, whole, pieces);
    for &r in group.iter() {
        await_call(rt, &slots.slot(r, ctx, k), k)?;
    }
    // Every member published call `k` (awaited above); the slices below are used only
    // within this call, before this process publishes its next one.
    // SAFETY: that, the contract of `data`.
    let fits = |&r: &u32| unsafe { slots.slot(r, ctx, k).data() }.is_some();
    if !group.iter().all(fits) {
        return Ok(false);
    }
    for (i, &r) in group.iter().enumerate() {
        let slot = slots.slot(r, ctx, k);
        // SAFETY: as above.
        each(i, slot.whole(), unsafe { slot.data() }.unwrap_or_default())?;
    }
    Ok(true)
}

/// Copies `from` into `to` (as long) in pieces below the size where memcpy turns to
/// `rep movsb`, which some processors (AMD's) run many times slower when the two addresses
/// are nearly a multiple of 4 KiB apart: as a send buffer and a receive buffer, or a slot,
/// often are (each page-aligned).
#[inline]
pub fn copy(to: &mut [u8], from: &[u8]) {
    if from.len() <= COPY_PIECE {
        to.copy_from_slice(from);
        return;
    }
    for (to, from) in to.chunks_mut(COPY_PIECE).zip(from.chunks(COPY_PIECE)) {
        to.copy_from_slice(from);
    }
}

/// A piece of a collective's copy: below glibc's smallest threshold for `rep movsb`.
const COPY_PIECE: usize = 1024;

/// The error of a member whose contribution has another length than this one's.
pub fn length_mismatch(rank: usize, got: usize, want: usize) -> Error {
    Error::new(
        ErrorClass::Count,
        format!(
            "collective got {got} bytes from rank {rank}, expected {want}: do all ranks pass the same counts?"
        ),
    )
}
