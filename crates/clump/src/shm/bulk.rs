//! The bulk queue: fixed blocks that carry medium payloads beside the packet queue (001).
//!
//! A sender claims a free block (one CAS), copies the payload in, and names the block in
//! the packet it pushes; the receiver hands the block to the handler in place and frees it
//! afterwards. Blocks are freed in whatever order packets are consumed, so claiming scans
//! from a shared cursor instead of assuming ring order.

use crate::sync::{AtomicU32, Ordering};
use crossbeam_utils::CachePadded;

const FREE: u32 = 0;
const BUSY: u32 = 1;

/// The shared part of a bulk queue: a claim cursor and one state word per block, each on
/// its own cache line so that senders claiming different blocks do not interfere.
#[repr(C)]
pub struct BulkHeader {
    cursor: CachePadded<AtomicU32>,
}

pub type BulkState = CachePadded<AtomicU32>;

#[cfg(test)]
impl BulkHeader {
    pub fn new_for_test() -> BulkHeader {
        BulkHeader {
            cursor: CachePadded::new(AtomicU32::new(0)),
        }
    }
}

/// A view of a bulk queue's bookkeeping (the block data lives beside it).
pub struct BulkPool<'a> {
    header: &'a BulkHeader,
    states: &'a [BulkState],
}

impl<'a> BulkPool<'a> {
    pub fn new(header: &'a BulkHeader, states: &'a [BulkState]) -> Self {
        BulkPool { header, states }
    }

    /// Claims a free block, or `None` when all are in use.
    #[inline]
    pub fn claim(&self) -> Option<u32> {
        let n = self.states.len() as u32;
        let start = self.header.cursor.fetch_add(1, Ordering::Relaxed);
        (0..n).map(|i| (start.wrapping_add(i)) % n).find(|&b| {
            let state = &self.states[b as usize];
            state.load(Ordering::Relaxed) == FREE
                && state
                    .compare_exchange(FREE, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
        })
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

    #[test]
    fn claims_each_block_once_until_freed() {
        let header = BulkHeader::new_for_test();
        let states: Vec<BulkState> = (0..4)
            .map(|_| CachePadded::new(AtomicU32::new(FREE)))
            .collect();
        let pool = BulkPool::new(&header, &states);
        let mut got: Vec<u32> = (0..4).map(|_| pool.claim().unwrap()).collect();
        assert_eq!(pool.claim(), None);
        got.sort();
        assert_eq!(got, vec![0, 1, 2, 3]);
        pool.free(2);
        assert_eq!(pool.claim(), Some(2));
    }
}
