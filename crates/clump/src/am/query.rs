//! Queries beyond the core API: whether a request could be sent without waiting
//! (`AM_RequestXferAsync`), whether a message waits over shared memory (for layers that
//! spin on it), and the full name of a message's sender (`AM_GetSourceEndpoint`).

use super::endpoint::Endpoint;
use crate::endpoint::handlers::{Origin, Token};
use crate::endpoint::route::{Requester, Route, ShmRequester};
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result};
use crate::name::{EndpointName, NO_ADDR};

impl Endpoint {
    /// Whether a request through translation `dest` would go out without waiting for
    /// credit (it may still wait briefly for a slot in the destination's queue). False
    /// if `dest` is not mapped.
    pub fn can_send_now(&self, dest: u32) -> bool {
        matches!(would_block(&self.core, dest), Ok(false))
    }

    /// Whether a message waits in this endpoint's shared-memory queues: one look at the
    /// next slot of each, for a receiver that expects a message from this host and looks
    /// between polls (a poll costs far more than a look).
    #[inline]
    pub fn shm_ready(&self) -> bool {
        crate::transport::shm::poll::has_work(&self.core)
    }
}

impl Token<'_> {
    /// The name of the endpoint that sent the message: the name this endpoint maps it
    /// under if it does, else one built from what the message says: a sender over the
    /// network by its address (host 0, which no real host has: host ids are hashes of the
    /// boot id, so mapping the name routes over the network), a sender through shared
    /// memory on this host. `None` for a get's completion.
    pub fn source_name(&self) -> Option<EndpointName> {
        let (id, addr, host) = match self.origin {
            Origin::Request(Requester::Shm(ShmRequester { src, .. })) | Origin::Reply { src } => {
                (src, NO_ADDR, self.ep.name.host)
            }
            Origin::Request(Requester::Net(r)) => (r.from.id, r.from.addr, 0),
            Origin::Local => return None,
        };
        let table = self.ep.tables.translations.borrow();
        let mapped = table.iter().flatten().find(|t| t.name.id == id);
        Some(mapped.map_or(EndpointName { host, id, addr }, |t| t.name))
    }
}

/// Whether a request through translation `dest` would wait now for credit (or, over
/// the network, for the peer's backlog to drain). A destination that cannot be
/// reached would not: its message comes back to handler 0 at once.
/// One look at the translation, no route taken (a sender that waits asks often). Here, on
/// the AM floor, because it asks both transports.
pub(crate) fn would_block(ep: &EndpointCore, dest: u32) -> Result<bool> {
    let table = ep.tables.translations.borrow();
    let Some(t) = table.get(dest as usize).and_then(|t| t.as_ref()) else {
        return Err(Error::NoTranslation(dest));
    };
    if ep.flow.with(|f| f.dead(dest)).is_some() {
        return Ok(false);
    }
    Ok(match &t.route {
        // A closed block, or one under another tag, returns the message at once.
        Some(Route::Shm(remote)) => remote.open_under(t.tag) && !ep.has_credit(dest),
        Some(Route::Net(peer)) => !crate::transport::net::send::may_request(ep, dest, peer),
        // Not mapped yet: nothing in flight through it.
        None => false,
    })
}
