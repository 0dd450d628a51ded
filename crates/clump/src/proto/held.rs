//! When credits held back for a request to carry them must go (pure: the caller gives
//! the time), and the list of the endpoints that hold some ([`Held`]). `net/send/owed.rs`
//! sends them; this decides when they may wait no longer.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::{Duration, Instant};

/// How long held credits wait for a request to carry them: a few round trips of a
/// loopback ping-pong, well below the least retransmission timeout (1 ms) and the
/// reliability machine's ack delay (200 µs), so that the ack of the requests rides on
/// the answer rather than going alone.
pub(crate) const CREDIT_DELAY: Duration = Duration::from_micros(50);

/// When held credits must go: [`CREDIT_DELAY`] after the oldest was held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
    /// Nothing held.
    pub const NONE: Deadline = Deadline(None);

    /// Credits were held at `now`: the deadline of the oldest stands, or this one's.
    pub fn hold(&mut self, now: Instant) {
        self.0.get_or_insert(now + CREDIT_DELAY);
    }

    /// Whether held credits are due at `now` (none held: never).
    pub fn due(&self, now: Instant) -> bool {
        self.0.is_some_and(|at| now >= at)
    }

    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }
}


/// The endpoints of one thread that may hold credits, and when the oldest are due. Owned
/// (`Rc`) by the thread's bundles and endpoints together, not by a thread-local: an
/// endpoint closed while its thread exits (the C interface frees what is left from a
/// thread-local destructor, and those run in no order the program controls) still finds
/// the list and sends what it owes.
pub(crate) struct Held<E> {
    holders: RefCell<Vec<Weak<E>>>,
    deadline: Cell<Deadline>,
}

impl<E> Held<E> {
    pub fn new() -> Held<E> {
        Held {
            holders: RefCell::new(Vec::new()),
            deadline: Cell::new(Deadline::NONE),
        }
    }

    /// `ep` holds credits since `now` (a poll found them not due yet).
    pub fn hold(&self, ep: &Rc<E>, now: Instant) {
        let weak = Rc::downgrade(ep);
        let mut list = self.holders.borrow_mut();
        if !list.iter().any(|w| w.ptr_eq(&weak)) {
            list.push(weak);
        }
        let mut deadline = self.deadline.get();
        if !deadline.is_set() {
            deadline.hold(now);
            self.deadline.set(deadline);
        }
    }

    /// `ep` sent what it owed: it holds nothing any more.
    pub fn released(&self, ep: &E) {
        if !self.deadline.get().is_set() {
            return;
        }
        let mut list = self.holders.borrow_mut();
        list.retain(|w| !std::ptr::eq(w.as_ptr(), ep));
        if list.is_empty() {
            self.deadline.set(Deadline::NONE);
        }
    }

    /// Whether credits are held and the oldest are due at `now`.
    #[inline]
    pub fn due(&self, now: Instant) -> bool {
        self.deadline.get().due(now)
    }

    /// Whether any credits are held.
    #[inline]
    pub fn any(&self) -> bool {
        self.deadline.get().is_set()
    }

    /// The endpoints that hold credits, which are to send them now: the list empties.
    pub fn take(&self) -> Vec<Weak<E>> {
        self.deadline.set(Deadline::NONE);
        self.holders.take()
    }
}

#[cfg(test)]
mod tests {
    use super::{Deadline, CREDIT_DELAY};
    use std::time::{Duration, Instant};

    #[test]
    fn held_credits_are_due_from_the_oldest() {
        let t0 = Instant::now();
        let mut d = Deadline::default();
        assert!(!d.due(t0 + Duration::from_secs(3600)), "nothing held is never due");
        d.hold(t0);
        d.hold(t0 + CREDIT_DELAY / 2);
        assert!(!d.due(t0 + CREDIT_DELAY - Duration::from_micros(1)));
        assert!(d.due(t0 + CREDIT_DELAY), "due from the first hold, not the last");
        d = Deadline::default();
        assert!(!d.is_set() && !d.due(t0 + CREDIT_DELAY));
        d.hold(t0 + CREDIT_DELAY);
        assert!(!d.due(t0 + CREDIT_DELAY), "the clock restarts once they went");
    }
}
