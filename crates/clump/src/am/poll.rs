//! Polling an endpoint: local events (returned messages, finished gets), then each
//! transport's poll side; its shared-memory requests alone for a layer that waits for one.
//! And the progress a waiting sender makes.

use super::endpoint::Endpoint;
use crate::endpoint::handlers::in_handler;
use crate::endpoint::transport::Transport;
use crate::endpoint::EndpointCore;
use crate::transport::net::transport::Net;
use crate::transport::shm::transport::Shm;
use crate::poll::BASE_BATCH;
use crate::transport::{net, shm};
use std::rc::Rc;

/// Messages one poll handles per queue at most, so a busy queue cannot starve the others.
const POLL_BUDGET: usize = 64;

/// What one look at an endpoint found waiting (see [`EndpointCore::look`]).
#[derive(Clone, Copy)]
pub(crate) struct Waiting {
    reply: bool,
    request: bool,
    /// Local events, deferred answers or owed credits.
    rest: bool,
}

impl EndpointCore {
    /// Handles what is waiting on this endpoint's shared-memory side and its local events;
    /// returns how many messages ran.
    pub(crate) fn poll_endpoint(self: &Rc<Self>) -> usize {
        match self.look() {
            Some(waiting) => self.poll_waiting(waiting),
            None => 0,
        }
    }

    /// One look at what waits on this endpoint, running no handler (so a bundle may look
    /// while it holds its list, and take a reference only to an endpoint with work).
    /// `None` when nothing waits: the slots the last poll read go back then.
    #[inline(always)]
    pub(crate) fn look(&self) -> Option<Waiting> {
        if self.freed.get() {
            return None;
        }
        self.watch_peers();
        let reply = shm::poll::reply_waiting(self);
        let request = shm::poll::request_waiting(self);
        // Local events, deferred answers and owed credits are rare: one look at all three.
        let rest = !self.local.with(|l| l.is_empty())
            || !self.shm.deferred.with(|d| d.is_empty())
            || !self.shm.acks.with(|a| a.is_empty());
        // The common poll of a spinning program finds nothing: it looks at the two queue
        // heads and leaves, so that a packet that lands is seen within a few instructions.
        if !(reply || request || rest) {
            shm::poll::settle(self);
            return None;
        }
        Some(Waiting {
            reply,
            request,
            rest,
        })
    }

    /// Runs what [`EndpointCore::look`] found. A poll that finds a reply (what a requester
    /// waits for) runs only that side. Inline: it only picks the sides to run.
    #[inline(always)]
    pub(crate) fn poll_waiting(self: &Rc<Self>, w: Waiting) -> usize {
        let n = if w.rest {
            self.poll_replies()
        } else if w.reply {
            shm::poll::poll_replies(self, POLL_BUDGET)
        } else {
            0
        };
        if w.request || w.rest {
            n + shm::poll::poll_requests(self, 2 * POLL_BUDGET - n)
        } else {
            n
        }
    }

    /// Runs local events and the shared-memory replies (never a request handler).
    #[inline]
    pub(crate) fn poll_replies(self: &Rc<Self>) -> usize {
        let mut n = 0;
        while n < POLL_BUDGET {
            let Some(event) = self.local.with(|l| l.pop_front()) else {
                break;
            };
            self.handle_local(event);
            n += 1;
        }
        n + Shm::poll(self, POLL_BUDGET, false)
    }

    /// Whether a poll would find anything to do (the network's machine included, not
    /// its socket).
    pub(crate) fn has_work(&self) -> bool {
        Shm::has_work(self)
            || !self.local.with(|l| l.is_empty())
            || !self.shm.deferred.with(|d| d.is_empty())
            || Net::has_work(self)
    }
}

impl Endpoint {
    /// Whether a request waits in this endpoint's shared-memory queue (one look at its
    /// next slot).
    #[inline]
    pub fn shm_request_waiting(&self) -> bool {
        shm::poll::request_waiting(&self.core)
    }

    /// Runs the handlers of the requests waiting in this endpoint's shared-memory queue
    /// and nothing else (no replies, local events or network): for a layer waiting for a
    /// request from this host that a look found, whose full polls (`Bundle::poll`) do
    /// the rest. Returns how many ran.
    pub fn poll_shm_requests(&self) -> usize {
        if self.core.freed.get() {
            return 0;
        }
        shm::poll::poll_requests(&self.core, POLL_BUDGET)
    }
}

/// Progress for a sender of `ep` that waits for space, given its bundle's full poll:
/// the whole bundle outside handlers (so this process keeps serving requests and cannot
/// deadlock its peers), only replies and local events inside one (replies return
/// credits; nested request handlers are not run).
pub(crate) fn progress_while_waiting(
    ep: &Rc<EndpointCore>,
    poll_bundle: impl FnOnce() -> crate::error::Result<usize>,
) -> crate::error::Result<()> {
    // The peer may be waiting for the credits this thread holds back (`net/send/owed.rs`).
    net::send::owed::send_all(&ep.net.held);
    if in_handler() {
        ep.poll_replies();
        Net::poll(ep, BASE_BATCH, false);
        return Ok(());
    }
    poll_bundle().map(|_| ())
}
