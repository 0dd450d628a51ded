//! Credit-only answers held back for a request to carry them. Sent at the end of every
//! poll, each costs a datagram of its own: a ping-pong of requests whose handlers do not
//! reply (MPI's eager messages) sends two datagrams per message, where the answer could
//! ride in front of the request that follows it (`bundle_request` in `reliable.rs`).
//!
//! Held credits still go out in bounded time, whatever the program polls: the endpoints
//! that hold some are listed per thread (an endpoint lives on one), and any poll of any
//! bundle of the thread sends them all once the oldest has waited
//! [`crate::proto::held::CREDIT_DELAY`]; so does any wait before it sleeps, and a sender
//! waiting for credit at each round (its peer may be waiting for ours). Half a window
//! owed goes at once (`AckRuns::half_window_owed`, the rule shared memory follows too).

use crate::endpoint::EndpointCore;
use crate::proto::held::Deadline;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Instant;

thread_local! {
    /// Endpoints of this thread that may hold credits, and when the oldest are due.
    static HOLDERS: RefCell<Vec<Weak<EndpointCore>>> = const { RefCell::new(Vec::new()) };
    static DEADLINE: Cell<Deadline> = const { Cell::new(Deadline::NONE) };
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
            DEADLINE.set(Deadline::NONE);
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
    DEADLINE.set(Deadline::NONE);
    let holders = HOLDERS.take();
    for ep in holders.iter().filter_map(Weak::upgrade) {
        super::send_owed(&ep);
    }
}
