//! Queries the AM-II C interface needs beyond the core API: whether a request could be
//! sent without waiting (`AM_RequestXferAsync`) and the full name of a message's sender
//! (`AM_GetSourceEndpoint`).

use crate::endpoint::Endpoint;
use crate::name::{this_host, EndpointName, NO_ADDR};
use crate::shm::block::REPLY_SLOTS;
use crate::token::{Origin, Token};

impl Endpoint {
    /// Whether a request through translation `dest` would go out without waiting for
    /// credit (it may still wait briefly for a slot in the destination's queue). False
    /// if `dest` is not mapped.
    pub fn can_send_now(&self, dest: u32) -> bool {
        let core = &self.core;
        let table = core.translations.borrow();
        match table.get(dest as usize).and_then(|t| t.as_ref()) {
            Some(t) => {
                t.outstanding.len() < core.credits && core.outstanding_total.get() < REPLY_SLOTS
            }
            None => false,
        }
    }
}

impl Token<'_> {
    /// The name of the endpoint that sent the message: the name this endpoint maps it
    /// under if it does, else its name on this host. `None` for a get's completion.
    pub fn source_name(&self) -> Option<EndpointName> {
        let src = match self.origin {
            Origin::Request { src, .. } | Origin::Reply { src } => src,
            Origin::Local => return None,
        };
        let table = self.ep.translations.borrow();
        let mapped = table.iter().flatten().find(|t| t.name.id == src);
        Some(mapped.map_or(
            EndpointName {
                host: this_host(),
                id: src,
                addr: NO_ADDR,
            },
            |t| t.name,
        ))
    }
}
