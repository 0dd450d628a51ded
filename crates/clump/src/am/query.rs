//! Queries beyond the core API: whether a request could be sent without waiting
//! (`AM_RequestXferAsync`), whether a message waits over shared memory (for layers that
//! spin on it), and the full name of a message's sender (`AM_GetSourceEndpoint`).

use super::endpoint::Endpoint;
use crate::endpoint::handlers::{Origin, Token};
use crate::endpoint::route::{Requester, Route, ShmRequester};
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result};
use crate::name::{EndpointName, NO_ADDR};
use crate::transport::net::NetPeer;

impl Endpoint {
    /// Whether a request through translation `dest` would go out without waiting for
    /// credit (it may still wait briefly for a slot in the destination's queue). False
    /// if `dest` is not mapped.
    pub fn can_send_now(&self, dest: u32) -> bool {
        matches!(would_block(&self.core, dest, false), Ok(false))
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
        let mapped = self.ep.tables.translations.with(|table| {
            table.iter().flatten().find(|t| t.name.id == id).map(|t| t.name)
        });
        Some(mapped.unwrap_or(EndpointName { host, id, addr }))
    }
}

/// Whether a request through translation `dest` would wait now for credit (or, over
/// the network, for the peer's backlog to drain; over shared memory, a `medium` one also
/// for a free bulk block, which every sender to the destination shares). A destination
/// that cannot be reached would not: its message comes back to handler 0 at once.
/// One look at the translation, no route taken (a sender that waits asks often). Here, on
/// the AM floor, because it asks both transports.
pub(crate) fn would_block(ep: &EndpointCore, dest: u32, medium: bool) -> Result<bool> {
    /// What the translation says, read before the flow's credit is.
    enum Via {
        /// A shared-memory block, open under the translation's tag or not, and whether
        /// its request queue has a bulk block free (asked only for a medium request).
        Shm { open: bool, block_free: bool },
        Net(NetPeer),
        /// Not mapped yet: nothing in flight through it.
        Unmapped,
    }
    let via = ep.tables.translations.with(|table| {
        let Some(t) = table.get(dest as usize).and_then(|t| t.as_ref()) else {
            return Err(Error::NoTranslation(dest));
        };
        Ok(match &t.route {
            Some(Route::Shm(remote)) => Via::Shm {
                open: remote.open_under(t.tag),
                block_free: !medium || remote.request_block_free(),
            },
            Some(Route::Net(peer)) => Via::Net(*peer),
            None => Via::Unmapped,
        })
    })?;
    if ep.flow.with(|f| f.dead(dest)).is_some() {
        return Ok(false);
    }
    Ok(match via {
        // A closed block, or one under another tag, returns the message at once.
        Via::Shm { open, block_free } => open && !(block_free && ep.has_credit(dest)),
        Via::Net(peer) => !crate::transport::net::send::may_request(ep, dest, &peer),
        Via::Unmapped => false,
    })
}
