//! The slots of the one-step collectives in shared memory (the algorithm is coll_shm.rs's):
//! each rank's area in its clump segment, mapped by every process of its host.
//!
//! Each segment holds, for each of the first [`AREAS`] communicator contexts, two slots
//! that the context's successive collectives use in turn: `[seq][len][whole][data]`
//! (`whole`: the length of the contribution a part belongs to, for data sent in parts). A slot is
//! written again two calls later, and by then every member has published the call in
//! between, which it does only after it has read this one: no acknowledgement is needed.
//! A contribution larger than the slot is published as "does not fit", and then every
//! member takes the message algorithm, so the choice is the same on all of them.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use clump::spmd::Spmd;
use clump::PeerSegment;

use crate::error::Result;

/// The communicator contexts with slots (world, self and the first ones created).
pub(crate) const AREAS: usize = 16;
/// Slots per context: successive calls alternate between them.
const TURNS: usize = 2;
/// The sequence number and the lengths ahead of a slot's data (the data starts in the same
/// cache line, so a small contribution travels in one line).
pub(crate) const HEAD: usize = 24;
const LINE: usize = 64;
/// The length published by a rank whose contribution does not fit its slot.
const TOO_BIG: u64 = u64::MAX;

/// The slot size for contributions of up to `cap` bytes (0: no slots).
fn slot_size(cap: usize) -> usize {
    if cap == 0 {
        0
    } else {
        (HEAD + cap).next_multiple_of(LINE)
    }
}

/// Gives this process's endpoint the segment its slots live in: call before the ranks
/// next synchronise, so that every peer finds it mapped afterwards.
pub fn reserve(spmd: &Spmd, cap: usize) -> Result<()> {
    let len = AREAS * TURNS * slot_size(cap);
    if len > 0 {
        spmd.ep.set_segment(len)?;
    }
    Ok(())
}

pub struct Slots {
    /// Each job rank's slot area as mapped here; null for ranks on other hosts.
    pub(crate) bases: Vec<*mut u8>,
    /// Each job rank's slot size (0: none).
    pub(crate) sizes: Vec<usize>,
    /// Whether each job rank mapped every peer of its host (traded at init).
    pub(crate) ready: Vec<bool>,
    /// The collectives each context has run through the slots.
    pub(crate) calls: [Cell<u64>; AREAS],
    /// Keeps the peers' mappings alive as long as `bases` points into them.
    _maps: Vec<PeerSegment>,
}

impl Slots {
    /// Maps the slots of this host's processes (`leaders`: each rank's host leader), once
    /// every rank has reserved its own; then trades whether that worked, so that every
    /// rank knows which communicators may use them.
    pub fn map(spmd: &mut Spmd, leaders: &[u32]) -> Result<Slots> {
        let me = spmd.rank() as usize;
        let n = spmd.size() as usize;
        let mut bases = vec![std::ptr::null_mut(); n];
        let mut sizes = vec![0; n];
        let mut maps = Vec::new();
        let mut ok = true;
        for r in (0..n).filter(|&r| leaders.get(r) == leaders.get(me)) {
            let found = if r == me {
                spmd.ep.segment_ptr()
            } else {
                spmd.ep.peer_segment(r as u32).map(|seg| {
                    let at = (seg.as_ptr(), seg.len());
                    maps.push(seg);
                    at
                })
            };
            match found {
                Some((base, len)) if !base.is_null() && (base as usize).is_multiple_of(LINE) => {
                    bases[r] = base;
                    sizes[r] = len / (AREAS * TURNS);
                }
                _ => ok = false,
            }
        }
        ok &= sizes[me] > 0;
        let flags = spmd.allgather(&[ok as u8])?;
        Ok(Slots {
            bases,
            sizes,
            ready: flags.iter().map(|f| f.first() == Some(&1)).collect(),
            calls: Default::default(),
            _maps: maps,
        })
    }

    /// The slot of job rank `r` for call `k` of context `ctx`.
    pub(crate) fn slot(&self, r: u32, ctx: usize, k: u64) -> Slot {
        let size = self.sizes[r as usize];
        let turn = (k % TURNS as u64) as usize;
        // SAFETY: `serve` admitted only members whose area this process mapped, of
        // `AREAS * TURNS` slots of `size` bytes each, and `ctx < AREAS`.
        let at = unsafe { self.bases[r as usize].add((ctx * TURNS + turn) * size) };
        Slot { at, size }
    }
}

/// One slot in shared memory.
pub(crate) struct Slot {
    pub(crate) at: *mut u8,
    pub(crate) size: usize,
}

impl Slot {
    fn word(&self, i: usize) -> &AtomicU64 {
        // SAFETY: the slot is 64-byte aligned and at least `HEAD` bytes in a mapping that
        // lives as long as `Slots`; every process touches these words only atomically.
        unsafe { AtomicU64::from_ptr(self.at.add(i * 8).cast()) }
    }

    pub(crate) fn seq(&self) -> &AtomicU64 {
        self.word(0)
    }

    /// Writes `pieces` one after the other, a part of a contribution of `whole` bytes (or
    /// that it does not fit), and publishes call `k`.
    pub(crate) fn publish(&self, k: u64, whole: usize, pieces: &[&[u8]]) {
        let len: usize = pieces.iter().map(|p| p.len()).sum();
        let fits = HEAD + len <= self.size;
        if fits {
            let mut at = HEAD;
            for p in pieces {
                // SAFETY: this process alone writes its slot, and no member reads it now:
                // the last reader of its previous contents published the call in between.
                // The pieces end within the slot (checked above). One memcpy each (not
                // `copy`): its `rep movsb` writes whole lines without first fetching them
                // from the peers' caches, where the slot was last read.
                unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), self.at.add(at), p.len()) };
                at += p.len();
            }
        }
        let len = if fits { len as u64 } else { TOO_BIG };
        self.word(1).store(len, Ordering::Relaxed);
        self.word(2).store(whole as u64, Ordering::Relaxed);
        self.seq().store(k, Ordering::Release);
    }

    /// The length of the whole contribution the published part belongs to.
    pub(crate) fn whole(&self) -> u64 {
        self.word(2).load(Ordering::Relaxed)
    }

    /// The published data, `None` if it did not fit.
    ///
    /// # Safety
    /// Call `k` of this slot must have been published (seen with acquire ordering), and the
    /// slice not be used once this process has published its next call.
    pub(crate) unsafe fn data(&self) -> Option<&[u8]> {
        let len = self.word(1).load(Ordering::Relaxed);
        if len == TOO_BIG || HEAD as u64 + len > self.size as u64 {
            return None;
        }
        // SAFETY: the writer published `len` bytes after the head and leaves them until
        // this process has published its next call (the caller's contract).
        Some(unsafe { std::slice::from_raw_parts(self.at.add(HEAD), len as usize) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_whole_cache_lines_with_room_for_the_head() {
        assert_eq!(slot_size(0), 0);
        assert_eq!(slot_size(8), 64);
        assert_eq!(slot_size(40), 64);
        assert_eq!(slot_size(41), 128);
        assert_eq!(slot_size(4096), 4096 + 64);
    }

    #[test]
    fn a_slot_publishes_its_data_or_that_it_does_not_fit() {
        let mut mem = vec![0u64; 16]; // 128 bytes, 8-byte aligned
        let slot = Slot {
            at: mem.as_mut_ptr().cast(),
            size: 64,
        };
        slot.publish(3, 9, &[b"hel", b"", b"lo"]);
        assert_eq!(slot.seq().load(Ordering::Acquire), 3);
        assert_eq!(slot.whole(), 9);
        // SAFETY: call 3 was published just above by this thread.
        assert_eq!(unsafe { slot.data() }, Some(&b"hello"[..]));
        slot.publish(4, 65, &[&[7u8; 64 - HEAD + 1]]);
        assert_eq!(slot.seq().load(Ordering::Acquire), 4);
        // SAFETY: as above, call 4.
        assert_eq!(unsafe { slot.data() }, None);
    }
}
