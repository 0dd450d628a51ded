//! The packet queue: a bounded many-producer, one-consumer ring of 128-byte slots.
//!
//! 001 claims a packet with two CAS operations (advance the tail, then flip the packet from
//! free to claimed). This ring needs one: each slot carries a sequence number (Vyukov's
//! bounded queue), so a producer sees from the slot at the tail whether it is free, and a
//! full queue is detected without claiming anything. Producers never read the consumer's
//! head and the consumer never writes the tail, so the two sides share no cache line
//! except the slot being handed over.
//!
//! Slot `i` starts with sequence `i`. A producer at position `p` may fill the slot when its
//! sequence is `p`, then publishes it by storing `p + 1`; the consumer at head `h` reads the
//! slot when its sequence is `h + 1` and frees it by storing `h + capacity`.
//!
//! The tail's top bit closes the ring: once set, producers get [`PushError::Closed`] and
//! the owner drains what was claimed before (see `Endpoint` drop).

use crate::sync::{AtomicU64, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;

const CLOSED: u64 = 1 << 63;

/// Why a push did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushError {
    /// Every slot is in use; the consumer must drain some first.
    Full,
    /// The ring's owner closed it: its endpoint is gone.
    Closed,
}

/// The producers' shared state: only the tail. It lives in shared memory.
#[repr(C)]
pub struct RingHeader {
    tail: CachePadded<AtomicU64>,
}

/// One packet's storage. 128 bytes: two cache lines, which the adjacent-line prefetcher of
/// current x86 parts moves together, so neighbouring slots never share a prefetch pair.
#[repr(C, align(128))]
pub struct Slot<T> {
    seq: AtomicU64,
    body: UnsafeCell<T>,
}

// SAFETY: a slot's body is only accessed by the one party the sequence number names
// (the producer that claimed it, or the consumer after publication), so sharing slots
// between threads is sound for bodies that may move between threads.
unsafe impl<T: Send> Sync for Slot<T> {}

/// A view of a ring: its header and slots, wherever they live.
pub struct Ring<'a, T> {
    header: &'a RingHeader,
    slots: &'a [Slot<T>],
    mask: u64,
}

impl<'a, T> Ring<'a, T> {
    /// Wraps a header and its slots. `slots.len()` must be a power of two; the ring must
    /// have been initialised once with [`Ring::init`] before any push or pop.
    pub fn new(header: &'a RingHeader, slots: &'a [Slot<T>]) -> Self {
        // With one slot, "free for the next lap" and "published" would be the same sequence.
        assert!(
            slots.len().is_power_of_two() && slots.len() >= 2,
            "ring capacity must be a power of two >= 2"
        );
        Ring {
            header,
            slots,
            mask: slots.len() as u64 - 1,
        }
    }

    /// Gives every slot its starting sequence. Only the owner calls it, before publishing.
    pub fn init(&self) {
        self.header.tail.store(0, Ordering::Relaxed);
        for (i, slot) in self.slots.iter().enumerate() {
            slot.seq.store(i as u64, Ordering::Relaxed);
        }
    }

    /// Claims the slot at the tail, lets `fill` write the packet, and publishes it.
    /// `fill` cannot fail, so a claimed slot is always published.
    #[inline(always)]
    pub fn push(&self, fill: impl FnOnce(&mut T)) -> Result<(), PushError> {
        let mut pos = self.header.tail.load(Ordering::Relaxed);
        let slot = loop {
            if pos & CLOSED != 0 {
                return Err(PushError::Closed);
            }
            let slot = &self.slots[(pos & self.mask) as usize];
            let seq = slot.seq.load(Ordering::Acquire);
            let lag = seq.wrapping_sub(pos) as i64;
            if lag == 0 {
                match self.header.tail.compare_exchange_weak(
                    pos,
                    pos + 1,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break slot,
                    Err(now) => pos = now,
                }
            } else if lag < 0 {
                return Err(PushError::Full);
            } else {
                // Another producer took this position; look again.
                pos = self.header.tail.load(Ordering::Relaxed);
            }
        };
        // SAFETY: the successful CAS made this producer the only owner of the slot until it
        // stores the new sequence; the consumer does not read it before that store.
        slot.body.with_mut(|body| fill(unsafe { &mut *body }));
        slot.seq.store(pos + 1, Ordering::Release);
        // Bring the next slot's state close while the consumer reads this one: the next
        // push (a reply, the next request of a stream) then finds it in cache instead of
        // waiting for the line the consumer last wrote to cross the cores.
        #[cfg(not(loom))]
        std::hint::black_box(
            self.slots[((pos + 1) & self.mask) as usize]
                .seq
                .load(Ordering::Relaxed),
        );
        Ok(())
    }

    /// The packet at `head` if it has been published. Only the ring's one consumer calls it.
    #[inline]
    pub fn peek(&self, head: u64) -> Option<&'a T> {
        let slot = &self.slots[(head & self.mask) as usize];
        if slot.seq.load(Ordering::Acquire) != head + 1 {
            return None;
        }
        // SAFETY: the sequence says the producer published the slot (Acquire pairs with its
        // Release) and no producer writes it again until `release` hands it back.
        Some(slot.body.with(|body| unsafe { &*body }))
    }

    /// Hands the slot at `head` back to the producers. The reference from `peek` must not
    /// be used afterwards.
    #[inline]
    pub fn release(&self, head: u64) {
        let slot = &self.slots[(head & self.mask) as usize];
        slot.seq.store(head + self.mask + 1, Ordering::Release);
    }

    /// Stops further pushes; returns the position one past the last claimed slot, which
    /// the consumer drains up to.
    pub fn close(&self) -> u64 {
        self.header.tail.fetch_or(CLOSED, Ordering::AcqRel) & !CLOSED
    }

    /// Positions claimed so far (including ones still being filled).
    pub fn claimed(&self) -> u64 {
        self.header.tail.load(Ordering::Relaxed) & !CLOSED
    }

    /// Whether a packet is waiting at `head` (the consumer's cheap emptiness check).
    #[inline]
    pub fn ready(&self, head: u64) -> bool {
        self.slots[(head & self.mask) as usize]
            .seq
            .load(Ordering::Acquire)
            == head + 1
    }
}

/// The one consumer's place in a ring, kept in its own process: the next position to
/// read, the first one read but not yet handed back to the producers, and the oldest
/// slot a handler is still reading in place (no hand-back reaches it).
///
/// A slot goes back one read later, or when the next poll starts, not as soon as its
/// packet is copied out: handing it back is a store to a line the producers share, and a
/// store made while the consumer answers the packet would hold up the answer, whose
/// claim (a locked instruction) waits for every earlier store to reach the cache. So at
/// most one slot per ring is held between polls.
#[derive(Debug)]
pub struct Cursor {
    head: std::cell::Cell<u64>,
    held: std::cell::Cell<u64>,
    pinned: std::cell::Cell<u64>,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor {
            head: Default::default(),
            held: Default::default(),
            pinned: std::cell::Cell::new(u64::MAX),
        }
    }
}

/// Unpins a slot read in place when its reader returns (or unwinds).
struct Unpin<'c> {
    pinned: &'c std::cell::Cell<u64>,
    outer: u64,
}

impl Drop for Unpin<'_> {
    fn drop(&mut self) {
        self.pinned.set(self.outer);
    }
}

impl Cursor {
    /// The next position to read.
    #[inline]
    pub fn head(&self) -> u64 {
        self.head.get()
    }

    /// Whether a packet waits at the head.
    #[inline]
    pub fn ready<T>(&self, ring: &Ring<'_, T>) -> bool {
        ring.ready(self.head.get())
    }

    /// Moves past the packet at the head, which the caller has copied out of the slot
    /// `peek` showed it, and hands back the slots read before it. The reference from
    /// `peek` must not be used after the next `advance` or `release_all`.
    #[inline]
    pub fn advance<T>(&self, ring: &Ring<'_, T>) {
        let head = self.head.get();
        self.head.set(head + 1);
        self.release_before(ring, head);
    }

    /// Moves past the packet at the head, if one waits, and lets `f` read it in place,
    /// without a copy. The head moves first, so that `f` may poll this ring again (a
    /// handler that waits) without meeting the packet twice; the slot stays pinned
    /// while `f` runs: neither those nested reads nor `release_all` hand it back.
    #[inline]
    pub fn read<T, R>(&self, ring: &Ring<'_, T>, f: impl FnOnce(&T) -> R) -> Option<R> {
        let head = self.head.get();
        let packet = ring.peek(head)?;
        self.head.set(head + 1);
        self.release_before(ring, head);
        let outer = self.pinned.replace(self.pinned.get().min(head));
        let _unpin = Unpin {
            pinned: &self.pinned,
            outer,
        };
        Some(f(packet))
    }

    /// Hands back every slot read so far (but none still read in place).
    #[inline]
    pub fn release_all<T>(&self, ring: &Ring<'_, T>) {
        self.release_before(ring, self.head.get());
    }

    #[inline]
    fn release_before<T>(&self, ring: &Ring<'_, T>, end: u64) {
        let end = end.min(self.pinned.get());
        let mut pos = self.held.get();
        if pos >= end {
            return;
        }
        while pos < end {
            ring.release(pos);
            pos += 1;
        }
        self.held.set(pos);
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A ring on the heap, for unit and loom tests.
    pub struct HeapRing<T> {
        pub header: Box<RingHeader>,
        pub slots: Box<[Slot<T>]>,
    }

    impl<T: Default> HeapRing<T> {
        pub fn new(capacity: usize) -> Self {
            let header = Box::new(RingHeader {
                tail: CachePadded::new(AtomicU64::new(0)),
            });
            let slots = (0..capacity)
                .map(|_| Slot {
                    seq: AtomicU64::new(0),
                    body: UnsafeCell::new(T::default()),
                })
                .collect();
            let ring = HeapRing { header, slots };
            ring.ring().init();
            ring
        }
        pub fn ring(&self) -> Ring<'_, T> {
            Ring::new(&self.header, &self.slots)
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::test_support::HeapRing;
    use super::*;

    #[test]
    fn fifo_then_full_then_reuse() {
        let heap = HeapRing::<u64>::new(4);
        let ring = heap.ring();
        for v in 0..4 {
            ring.push(|b| *b = v).unwrap();
        }
        assert_eq!(ring.push(|b| *b = 99), Err(PushError::Full));
        for head in 0..4 {
            assert_eq!(ring.peek(head), Some(&head));
            ring.release(head);
        }
        assert_eq!(ring.peek(4), None);
        ring.push(|b| *b = 7).unwrap();
        assert_eq!(ring.peek(4), Some(&7));
    }

    #[test]
    fn closed_ring_refuses_pushes_and_reports_its_end() {
        let heap = HeapRing::<u64>::new(4);
        let ring = heap.ring();
        ring.push(|b| *b = 1).unwrap();
        assert_eq!(ring.close(), 1);
        assert_eq!(ring.push(|b| *b = 2), Err(PushError::Closed));
        assert_eq!(ring.peek(0), Some(&1));
    }

    #[test]
    fn a_cursor_hands_each_slot_back_one_read_late() {
        let heap = HeapRing::<u64>::new(2);
        let ring = heap.ring();
        let cursor = Cursor::default();
        ring.push(|b| *b = 1).unwrap();
        ring.push(|b| *b = 2).unwrap();
        let take = || {
            let v = *ring.peek(cursor.head())?;
            cursor.advance(&ring);
            Some(v)
        };
        assert_eq!(take(), Some(1));
        // Slot 0 is still held: the ring has no room yet.
        assert_eq!(ring.push(|b| *b = 3), Err(PushError::Full));
        assert_eq!(take(), Some(2));
        ring.push(|b| *b = 3).unwrap();
        assert_eq!(ring.push(|b| *b = 4), Err(PushError::Full));
        cursor.release_all(&ring);
        ring.push(|b| *b = 4).unwrap();
        assert_eq!(take(), Some(3));
        assert_eq!(take(), Some(4));
        assert_eq!(take(), None);
        assert!(!cursor.ready(&ring));
        assert_eq!(cursor.head(), 4);
    }

    #[test]
    fn a_slot_read_in_place_is_not_handed_back_by_nested_reads() {
        let heap = HeapRing::<u64>::new(2);
        let ring = heap.ring();
        let cursor = Cursor::default();
        ring.push(|b| *b = 1).unwrap();
        ring.push(|b| *b = 2).unwrap();
        let outer = cursor.read(&ring, |&v| {
            // A handler that polls again: reads the next packet and hands back what it can.
            let inner = cursor.read(&ring, |&w| w);
            cursor.release_all(&ring);
            assert_eq!(
                ring.push(|b| *b = 3),
                Err(PushError::Full),
                "both slots are still being read or held"
            );
            (v, inner)
        });
        assert_eq!(outer, Some((1, Some(2))));
        assert_eq!(cursor.read(&ring, |&v| v), None);
        cursor.release_all(&ring);
        ring.push(|b| *b = 3).unwrap();
        ring.push(|b| *b = 4).unwrap();
        assert_eq!(cursor.read(&ring, |&v| v), Some(3));
    }

    #[test]
    fn many_threads_deliver_every_item_exactly_once() {
        const PRODUCERS: u64 = 4;
        const EACH: u64 = 20_000;
        let heap = HeapRing::<u64>::new(64);
        let seen = std::thread::scope(|s| {
            for p in 0..PRODUCERS {
                let ring = heap.ring();
                s.spawn(move || {
                    for i in 0..EACH {
                        while ring.push(|b| *b = p * EACH + i).is_err() {
                            std::thread::yield_now();
                        }
                    }
                });
            }
            let ring = heap.ring();
            let mut seen = vec![false; (PRODUCERS * EACH) as usize];
            let mut last = vec![None::<u64>; PRODUCERS as usize];
            let mut head = 0;
            while head < PRODUCERS * EACH {
                match ring.peek(head) {
                    Some(&v) => {
                        assert!(!seen[v as usize], "item {v} delivered twice");
                        seen[v as usize] = true;
                        // Each producer's items arrive in the order it pushed them.
                        let p = (v / EACH) as usize;
                        assert!(last[p].is_none_or(|l| l < v));
                        last[p] = Some(v);
                        ring.release(head);
                        head += 1;
                    }
                    None => std::thread::yield_now(),
                }
            }
            seen
        });
        assert!(seen.iter().all(|&s| s));
    }
}
