//! Credit-only answers held back for a request to carry them. Sent at the end of every
//! poll, each costs a datagram of its own: a ping-pong of requests whose handlers do not
//! reply (MPI's eager messages) sends two datagrams per message, where the answer could
//! ride in front of the request that follows it (`bundle_request` in `reliable.rs`).
//!
//! Held credits still go out in bounded time, whatever the program polls: the endpoints
//! that hold some are listed per thread (an endpoint lives on one), and any poll of any
//! bundle of the thread sends them all once the oldest has waited [`CREDIT_DELAY`]; so
//! does any wait before it sleeps, and a sender waiting for credit at each round (its
//! peer may be waiting for ours). Half a window owed goes at once, so a requester
//! streaming on never waits for them.

use crate::endpoint::EndpointCore;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::{Duration, Instant};

/// How long held credits wait for a request to carry them: a few round trips of a
/// loopback ping-pong, well below the least retransmission timeout (1 ms) and the
/// reliability machine's ack delay (200 µs), so that the ack of the requests rides on
/// the answer rather than going alone.
pub(crate) const CREDIT_DELAY: Duration = Duration::from_micros(50);

/// When held credits must go: the pure part of the policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
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

/// Whether `owed` credits go at once rather than wait: half the requester's `window`
/// (a window of one or two never waits).
pub(crate) fn must_go(owed: usize, window: usize) -> bool {
    2 * owed >= window
}

thread_local! {
    /// Endpoints of this thread that may hold credits, and when the oldest are due.
    static HOLDERS: RefCell<Vec<Weak<EndpointCore>>> = const { RefCell::new(Vec::new()) };
    static DEADLINE: Cell<Deadline> = const { Cell::new(Deadline(None)) };
}

/// Holds the credits `ep` owes (a poll found them not due yet) until a request carries
/// them or they are due.
pub(crate) fn hold(ep: &Rc<EndpointCore>) {
    let weak = Rc::downgrade(ep);
    HOLDERS.with_borrow_mut(|list| {
        if !list.iter().any(|w| w.ptr_eq(&weak)) {
            list.push(weak);
        }
    });
    let mut deadline = DEADLINE.get();
    if !deadline.is_set() {
        deadline.hold(Instant::now());
        DEADLINE.set(deadline);
    }
}

/// `ep` sent what it owed: it holds nothing any more.
pub(crate) fn released(ep: &EndpointCore) {
    if !DEADLINE.get().is_set() {
        return;
    }
    HOLDERS.with_borrow_mut(|list| {
        list.retain(|w| !std::ptr::eq(w.as_ptr(), ep));
        if list.is_empty() {
            DEADLINE.set(Deadline::default());
        }
    });
}

/// Sends the held credits of every endpoint of this thread if the oldest are due: the
/// check of every poll (one clock read, and only while some are held).
#[inline]
pub(crate) fn send_due() {
    let deadline = DEADLINE.get();
    if deadline.is_set() && deadline.due(Instant::now()) {
        send_all();
    }
}

/// Sends the held credits of every endpoint of this thread now: before a wait sleeps,
/// and while a sender waits for credit.
pub(crate) fn send_all() {
    if !DEADLINE.get().is_set() {
        return;
    }
    DEADLINE.set(Deadline::default());
    let holders = HOLDERS.take();
    for ep in holders.iter().filter_map(Weak::upgrade) {
        crate::net::send::send_owed(&ep);
    }
}

#[cfg(test)]
mod tests {
    use super::{must_go, Deadline, CREDIT_DELAY};
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

    #[test]
    fn half_a_window_owed_goes_at_once() {
        assert!(!must_go(7, 16));
        assert!(must_go(8, 16));
        assert!(must_go(1, 2), "a window of two never waits");
        assert!(must_go(1, 1));
    }
}
