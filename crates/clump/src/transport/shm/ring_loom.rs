//! Model checking of the packet ring and the bulk pool with loom:
//! `RUSTFLAGS="--cfg loom" cargo test -p clump --lib --release shm::ring_loom`.

use super::bulk::{BulkPool, BulkState};
use super::ring::test_support::HeapRing;
use super::ring::{Cursor, PushError};
use crate::sync::{AtomicU32, AtomicU64, Ordering};
use crossbeam_utils::CachePadded;
use loom::sync::Arc;
use loom::thread;

/// Explores every interleaving up to a bounded number of preemptions, as crossbeam's and
/// rtrb's loom tests do: spinning producers make the unbounded space infinite.
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.max_branches = 100_000;
    builder.check(f);
}

/// Pushes `v`, waiting while the ring is full.
fn push_waiting(ring: &HeapRing<u64>, v: u64) {
    loop {
        match ring.ring().push(|b| *b = v) {
            Ok(()) => return,
            Err(PushError::Full) => thread::yield_now(),
            Err(PushError::Closed) => unreachable!(),
        }
    }
}

/// Drains `want` items (stopping early if the model says no more can come).
fn consume(ring: &HeapRing<u64>, want: usize) -> Vec<u64> {
    let r = ring.ring();
    let mut got = Vec::new();
    let mut head = 0;
    while got.len() < want {
        match r.peek(head) {
            Some(&v) => {
                got.push(v);
                r.release(head);
                head += 1;
            }
            None => thread::yield_now(),
        }
    }
    got
}

#[test]
fn two_producers_one_consumer_deliver_each_item_once() {
    model(|| {
        let ring = Arc::new(HeapRing::<u64>::new(4));
        let producers: Vec<_> = [vec![10u64, 11], vec![20]]
            .into_iter()
            .map(|items| {
                let ring = ring.clone();
                thread::spawn(move || {
                    for v in items {
                        ring.ring().push(|b| *b = v).unwrap();
                    }
                })
            })
            .collect();
        let mut got = consume(&ring, 3);
        for p in producers {
            p.join().unwrap();
        }
        // Each producer's items in order, every item exactly once.
        let first: Vec<u64> = got.iter().copied().filter(|v| *v < 20).collect();
        assert_eq!(first, vec![10, 11]);
        got.sort();
        assert_eq!(got, vec![10, 11, 20]);
    });
}

#[test]
fn a_full_ring_refuses_until_the_consumer_releases() {
    model(|| {
        let ring = Arc::new(HeapRing::<u64>::new(2));
        ring.ring().push(|b| *b = 1).unwrap();
        ring.ring().push(|b| *b = 2).unwrap();
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || push_waiting(&ring, 3))
        };
        assert_eq!(consume(&ring, 3), vec![1, 2, 3]);
        producer.join().unwrap();
    });
}

/// A consumer that hands slots back one read late (as the poll side does) still lets a
/// producer that waits for room through: the slot it waits for goes back at the next
/// read, or when the consumer finds the ring empty.
#[test]
fn a_cursor_releasing_late_lets_a_waiting_producer_through() {
    model(|| {
        let ring = Arc::new(HeapRing::<u64>::new(2));
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || (1..=3).for_each(|v| push_waiting(&ring, v)))
        };
        let r = ring.ring();
        let cursor = Cursor::default();
        let mut got = Vec::new();
        while got.len() < 3 {
            match r.peek(cursor.head()) {
                Some(&v) => {
                    got.push(v);
                    cursor.advance(&r);
                }
                None => {
                    cursor.release_all(&r);
                    thread::yield_now();
                }
            }
        }
        producer.join().unwrap();
        assert_eq!(got, vec![1, 2, 3]);
    });
}

#[test]
fn a_slot_read_in_place_stays_the_readers_while_it_polls_again() {
    use std::cell::Cell;
    model(|| {
        // Cells, so that the second look at a packet really reads the slot again.
        let ring = Arc::new(HeapRing::<Cell<u64>>::new(2));
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || {
                for v in 1..=3 {
                    while ring.ring().push(|b| b.set(v)).is_err() {
                        thread::yield_now();
                    }
                }
            })
        };
        let r = ring.ring();
        let cursor = Cursor::default();
        let mut got = Vec::new();
        while got.len() < 3 {
            let read = cursor.read(&r, |v| {
                let first = v.get();
                // A handler that polls while its packet is read in place.
                let nested = cursor.read(&r, |w| w.get());
                cursor.release_all(&r);
                thread::yield_now();
                assert_eq!(v.get(), first, "a slot was handed back while being read");
                (first, nested)
            });
            match read {
                Some((v, nested)) => {
                    got.push(v);
                    got.extend(nested);
                }
                None => {
                    cursor.release_all(&r);
                    thread::yield_now();
                }
            }
        }
        producer.join().unwrap();
        assert_eq!(got, vec![1, 2, 3]);
    });
}

#[test]
fn close_stops_producers_and_keeps_what_was_claimed() {
    model(|| {
        let ring = Arc::new(HeapRing::<u64>::new(2));
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || ring.ring().push(|b| *b = 7))
        };
        let end = ring.ring().close();
        let got = consume(&ring, end as usize);
        let pushed = producer.join().unwrap();
        // Either the push made it in before the close and is drained, or it was refused.
        match pushed {
            Ok(()) => assert_eq!(got, vec![7]),
            Err(e) => {
                assert_eq!(e, PushError::Closed);
                assert!(got.is_empty());
            }
        }
    });
}

#[test]
fn bulk_blocks_are_never_claimed_twice() {
    model(|| {
        let states: Arc<Vec<BulkState>> = Arc::new(
            (0..2)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
        );
        let owners = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let claimers: Vec<_> = (1..=2u64)
            .map(|who| {
                let (states, owners) = (states.clone(), owners.clone());
                thread::spawn(move || {
                    let pool = BulkPool::new(&states);
                    // Both scan from the same block: the contended case.
                    if let Some(b) = pool.claim(0) {
                        assert_eq!(
                            owners[b as usize].swap(who, Ordering::Relaxed),
                            0,
                            "claimed twice"
                        );
                        owners[b as usize].store(0, Ordering::Relaxed);
                        pool.free(b);
                    }
                })
            })
            .collect();
        for c in claimers {
            c.join().unwrap();
        }
    });
}
