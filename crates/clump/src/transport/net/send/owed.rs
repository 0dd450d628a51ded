//! Credit-only answers held back for a request to carry them. Sent at the end of every
//! poll, each costs a datagram of its own: a ping-pong of requests whose handlers do not
//! reply (MPI's eager messages) sends two datagrams per message, where the answer could
//! ride in front of the request that follows it (`reliable/coalesce.rs`).
//!
//! Held credits still go out in bounded time, whatever the program polls: the endpoints
//! that hold some are listed per thread (an endpoint lives on one; the list is
//! [`crate::proto::held::Held`], owned by the thread's bundles and endpoints), and any
//! poll of any bundle of the thread sends them all once the oldest has waited
//! [`crate::proto::held::CREDIT_DELAY`]; so does any wait before it sleeps, and a sender
//! waiting for credit at each round (its peer may be waiting for ours). Half a window
//! owed goes at once (`AckRuns::half_window_owed`, the rule shared memory follows too).
//!
//! Small requests held for the next poll (`NetPort::send`) are listed here too, so that
//! the same rules send them in bounded time when the program polls another bundle of the
//! thread, or waits.

use crate::endpoint::EndpointCore;
use crate::proto::held::Held;
use crate::thread_finder::{find_or_new, Finder};
use std::rc::{Rc, Weak};
use std::time::Instant;

/// The calling thread's list, which every bundle made on it shares (see
/// `thread_finder.rs`: once the thread's locals are gone, a bundle made then gets a
/// list of its own).
pub(crate) fn of_this_thread() -> Rc<Held<EndpointCore>> {
    thread_local! {
        static THREAD: Finder<Held<EndpointCore>> = const { Finder::new() };
    }
    find_or_new(&THREAD, Held::new)
}

/// Sends the held credits of every endpoint of the thread if the oldest are due: the
/// check of every poll (one clock read, and only while some are held).
#[inline]
pub(crate) fn send_due(held: &Held<EndpointCore>) {
    if held.any() && held.due(Instant::now()) {
        send_all(held);
    }
}

/// Sends the held credits of every endpoint of the thread now: before a wait sleeps,
/// and while a sender waits for credit.
pub(crate) fn send_all(held: &Held<EndpointCore>) {
    if !held.any() {
        return;
    }
    for ep in held.take().iter().filter_map(Weak::upgrade) {
        super::send_owed(&ep);
    }
}
