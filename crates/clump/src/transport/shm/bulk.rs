//! The bulk queue: fixed blocks that carry medium payloads beside the packet queue (001).
//!
//! A sender claims a free block (one CAS), copies the payload in, and names the block in
//! the packet it pushes; the receiver hands the block to the handler in place and frees it
//! afterwards. Blocks are freed in whatever order packets are consumed, so claiming scans
//! for a free one instead of assuming ring order.
//!
//! Each sender scans from its own first block (see [`home_block`]), so that senders to
//! one receiver start apart and share no claim cursor. An answer scans from there every
//! time: one replier whose requester keeps up reuses the same few blocks, whose lines its
//! last copies left in its cache. A request goes round the pool from there instead (see
//! `Remote::claim_request_block`): a stream of them finds the next block freed long ago,
//! and fetches its state line while it copies the current payload ([`BulkPool::prefetch`]),
//! so that no claim waits for the line the receiver's free took to its core.

use crate::sync::{prefetch_for_write, AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

const FREE: u32 = 0;
const BUSY: u32 = 1;

/// One state word per block, each on its own cache line so that senders claiming
/// different blocks do not interfere.
pub type BulkState = CachePadded<AtomicU32>;

/// The block from which the sending endpoint of process `pid` and queue block descriptor
/// `fd` scans a pool of `blocks` for a free one.
#[inline]
pub fn home_block(pid: u32, fd: u32, blocks: usize) -> u32 {
    ((pid as usize).wrapping_mul(7).wrapping_add(fd as usize) % blocks.max(1)) as u32
}

/// A view of a bulk queue's bookkeeping (the block data lives beside it).
pub struct BulkPool<'a> {
    states: &'a [BulkState],
}

impl<'a> BulkPool<'a> {
    pub fn new(states: &'a [BulkState]) -> Self {
        BulkPool { states }
    }

    /// Claims a free block, the first free one from `first` on (wrapping), or `None` when
    /// all are in use.
    #[inline]
    pub fn claim(&self, first: u32) -> Option<u32> {
        let n = self.states.len() as u32;
        (0..n).map(|i| (first.wrapping_add(i)) % n).find(|&b| {
            let state = &self.states[b as usize];
            state.load(Ordering::Relaxed) == FREE
                && state
                    .compare_exchange(FREE, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
        })
    }

    /// Whether some block is free, looking from `first` on (wrapping) without claiming.
    #[inline]
    pub fn any_free(&self, first: u32) -> bool {
        let n = self.states.len() as u32;
        (0..n).any(|i| {
            self.states[(first.wrapping_add(i) % n) as usize].load(Ordering::Relaxed) == FREE
        })
    }

    /// Asks for block `block`'s state line for writing, ahead of a claim and without
    /// waiting for it: the receiver's last free left the line in its cache, and moving it
    /// while the sender copies a payload keeps that transfer off the next claim.
    #[inline(always)]
    pub fn prefetch(&self, block: u32) {
        if let Some(state) = self.states.get(block as usize) {
            prefetch_for_write(&**state);
        }
    }

    /// Returns a block after its payload has been consumed. Release orders the consumer's
    /// reads of the data before the next sender's writes.
    #[inline]
    pub fn free(&self, block: u32) {
        self.states[block as usize].store(FREE, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn free_states(n: usize) -> Vec<BulkState> {
        (0..n)
            .map(|_| CachePadded::new(AtomicU32::new(FREE)))
            .collect()
    }

    #[test]
    fn any_free_sees_a_free_block_anywhere_and_claims_nothing() {
        let states = free_states(4);
        let pool = BulkPool::new(&states);
        for _ in 0..3 {
            pool.claim(0).unwrap();
        }
        assert!(
            pool.any_free(1),
            "block 3 is free, looking from 1 round to it"
        );
        assert!(pool.any_free(1), "a look claims nothing");
        pool.claim(0).unwrap();
        assert!(!pool.any_free(2));
        pool.free(0);
        assert!(pool.any_free(2), "found by wrapping");
    }

    #[test]
    fn claims_each_block_once_until_freed() {
        let states = free_states(4);
        let pool = BulkPool::new(&states);
        let mut got: Vec<u32> = (0..4).map(|_| pool.claim(1).unwrap()).collect();
        assert_eq!(pool.claim(1), None);
        got.sort();
        assert_eq!(got, vec![0, 1, 2, 3]);
        pool.free(2);
        assert_eq!(pool.claim(1), Some(2));
    }

    #[test]
    fn a_sender_whose_receiver_keeps_up_reuses_its_first_block() {
        let states = free_states(4);
        let pool = BulkPool::new(&states);
        for _ in 0..3 {
            assert_eq!(pool.claim(3), Some(3));
            pool.free(3);
        }
        // Busy, the next one along (wrapping) is taken.
        assert_eq!(pool.claim(3), Some(3));
        assert_eq!(pool.claim(3), Some(0));
    }

    #[test]
    fn prefetching_any_block_is_harmless() {
        let states = free_states(4);
        let pool = BulkPool::new(&states);
        for block in [0, 3, 4, u32::MAX] {
            pool.prefetch(block);
        }
        assert_eq!(pool.claim(0), Some(0), "a prefetch claims nothing");
    }

    #[test]
    fn senders_start_apart_and_within_the_pool() {
        assert_ne!(home_block(100, 5, 16), home_block(101, 5, 16));
        assert_ne!(home_block(100, 5, 16), home_block(100, 6, 16));
        assert!((0..64).all(|pid| home_block(pid, 3, 16) < 16));
    }
}
