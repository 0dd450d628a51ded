//! The machine's one timer queue: a min-heap of (deadline, peer) with lazy deletion.
//!
//! Each peer keeps the deadline it registered last (`registered`); an entry is live only
//! while it equals that value, so moving a deadline later costs nothing (the old entry
//! fires early, finds nothing due, and the peer registers its true next deadline), and
//! moving it earlier is one push. Arming on the hot path is therefore a comparison in
//! the common case, and the top of the heap is never later than the true earliest
//! deadline, which is what a caller that sleeps until [`Timers::next`] needs.

use super::Micros;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Default)]
pub(super) struct Timers {
    heap: BinaryHeap<Reverse<(Micros, usize)>>,
}

impl Timers {
    /// Makes sure `peer` is woken at `at` or earlier.
    pub(super) fn arm(&mut self, registered: &mut Option<Micros>, peer: usize, at: Micros) {
        if registered.is_none_or(|t| at < t) {
            *registered = Some(at);
            self.heap.push(Reverse((at, peer)));
        }
    }

    /// The earliest deadline (possibly of an entry that turns out to be stale).
    pub(super) fn next(&self) -> Option<Micros> {
        self.heap.peek().map(|Reverse((t, _))| *t)
    }

    /// Removes and returns an entry due at `now`.
    pub(super) fn pop_due(&mut self, now: Micros) -> Option<(Micros, usize)> {
        match self.heap.peek() {
            Some(Reverse((t, _))) if *t <= now => self.heap.pop().map(|Reverse(e)| e),
            _ => None,
        }
    }

    /// Drops stale entries at the top, so that [`Timers::next`] is exact there.
    pub(super) fn clean(&mut self, is_live: impl Fn(Micros, usize) -> bool) {
        while let Some(Reverse((t, p))) = self.heap.peek() {
            if is_live(*t, *p) {
                break;
            }
            self.heap.pop();
        }
    }
}
