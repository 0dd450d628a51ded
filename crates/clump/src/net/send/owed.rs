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
//!
//! The thread's list is owned by its bundles and endpoints together ([`Held`] behind an
//! `Rc`), not by a thread-local: an endpoint closed while its thread exits (the C
//! interface frees what is left from a thread-local destructor, and those run in no
//! order the program controls) still finds the list and sends what it owes.

use crate::endpoint::EndpointCore;
use crate::proto::held::Deadline;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Instant;

/// The endpoints of one thread that may hold credits, and when the oldest are due.
pub(crate) struct Held {
    holders: RefCell<Vec<Weak<EndpointCore>>>,
    deadline: Cell<Deadline>,
}

impl Held {
    /// The calling thread's list, which every bundle made on it shares. The thread-local
    /// only finds it (a weak reference); once it is destroyed (the thread exits), a
    /// bundle made then gets a list of its own.
    pub(crate) fn of_this_thread() -> Rc<Held> {
        thread_local! {
            static THREAD: RefCell<Weak<Held>> = const { RefCell::new(Weak::new()) };
        }
        let fresh = || {
            Rc::new(Held {
                holders: RefCell::new(Vec::new()),
                deadline: Cell::new(Deadline::NONE),
            })
        };
        THREAD
            .try_with(|t| {
                if let Some(held) = t.borrow().upgrade() {
                    return held;
                }
                let held = fresh();
                *t.borrow_mut() = Rc::downgrade(&held);
                held
            })
            .unwrap_or_else(|_| fresh())
    }

    /// Holds the credits `ep` owes (a poll found them not due yet) until a request
    /// carries them or they are due.
    pub(crate) fn hold(&self, ep: &Rc<EndpointCore>) {
        let weak = Rc::downgrade(ep);
        let mut list = self.holders.borrow_mut();
        if !list.iter().any(|w| w.ptr_eq(&weak)) {
            list.push(weak);
        }
        let mut deadline = self.deadline.get();
        if !deadline.is_set() {
            deadline.hold(Instant::now());
            self.deadline.set(deadline);
        }
    }

    /// `ep` sent what it owed: it holds nothing any more.
    pub(crate) fn released(&self, ep: &EndpointCore) {
        if !self.deadline.get().is_set() {
            return;
        }
        let mut list = self.holders.borrow_mut();
        list.retain(|w| !std::ptr::eq(w.as_ptr(), ep));
        if list.is_empty() {
            self.deadline.set(Deadline::NONE);
        }
    }

    /// Sends the held credits of every endpoint of the thread if the oldest are due: the
    /// check of every poll (one clock read, and only while some are held).
    #[inline]
    pub(crate) fn send_due(&self) {
        let deadline = self.deadline.get();
        if deadline.is_set() && deadline.due(Instant::now()) {
            self.send_all();
        }
    }

    /// Sends the held credits of every endpoint of the thread now: before a wait sleeps,
    /// and while a sender waits for credit.
    pub(crate) fn send_all(&self) {
        if !self.deadline.get().is_set() {
            return;
        }
        self.deadline.set(Deadline::NONE);
        let holders = self.holders.take();
        for ep in holders.iter().filter_map(Weak::upgrade) {
            super::send_owed(&ep);
        }
    }
}
