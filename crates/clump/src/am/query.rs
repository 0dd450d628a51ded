//! Queries beyond the core API: whether a request could be sent without waiting
//! (`AM_RequestXferAsync`), whether a message waits over shared memory (for layers that
//! spin on it), and the full name of a message's sender (`AM_GetSourceEndpoint`).

use super::endpoint::Endpoint;
use crate::endpoint::handlers::{Origin, Token};
use crate::endpoint::route::{Requester, ShmRequester};
use crate::name::{EndpointName, NO_ADDR};

impl Endpoint {
    /// Whether a request through translation `dest` would go out without waiting for
    /// credit (it may still wait briefly for a slot in the destination's queue). False
    /// if `dest` is not mapped.
    pub fn can_send_now(&self, dest: u32) -> bool {
        matches!(self.core.would_block(dest), Ok(false))
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
