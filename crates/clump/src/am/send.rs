//! The request verbs: each request or get is checked, routed once by its translation's
//! route (`endpoint/route.rs`), and handed to the shared-memory or the network transport
//! (`endpoint/transport.rs`); a refused cross-memory attach is routed again here
//! (`endpoint/fallback.rs`), never by the shared-memory transport itself.
//!
//! Everything the sender can check it checks here, before touching the destination (001:
//! the tag in the destination block, then the queue): what fails comes back to handler 0
//! at the next poll, never silently lost.

use super::endpoint::Endpoint;
use crate::endpoint::handlers::in_reply_handler;
use crate::endpoint::fallback::Fallback;
use crate::endpoint::route::Route;
use crate::endpoint::transport::{Sent, Transport};
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result};
use crate::message::{HandlerIndex, Kind, Outgoing, MAX_LONG};
use crate::transport::net::transport::Net;
use crate::transport::net::NetPeer;
use crate::transport::shm;
use crate::transport::shm::segment::check_range;
use crate::transport::shm::transport::Shm;
use std::rc::Rc;

impl Endpoint {
    /// Sends a short request: handler `handler` runs at translation `dest` with `args`.
    #[inline]
    pub fn request(&self, dest: u32, handler: HandlerIndex, args: &[u32]) -> Result<()> {
        if in_reply_handler() {
            return from_reply_handler();
        }
        match short_fast_path(&self.core, dest, handler, args) {
            None => Ok(()),
            Some(o) => send_short(&self.core, dest, o),
        }
    }

    /// Sends a short request as [`Endpoint::request`] does if it can go without waiting
    /// for credit; `Ok(false)`, having sent nothing, when it would wait (the caller keeps
    /// it for later: a layer whose sends must not block, MPI's `Isend`).
    #[inline]
    pub fn try_request(&self, dest: u32, handler: HandlerIndex, args: &[u32]) -> Result<bool> {
        if in_reply_handler() {
            return from_reply_handler().map(|()| false);
        }
        match short_fast_path(&self.core, dest, handler, args) {
            None => Ok(true),
            Some(o) => try_send(&self.core, dest, o),
        }
    }

    /// Sends a medium request as [`Endpoint::request_medium`] does if it can go without
    /// waiting for credit; `Ok(false)`, having sent nothing, when it would wait.
    pub fn try_request_medium(
        &self,
        dest: u32,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
    ) -> Result<bool> {
        let o = Outgoing {
            kind: Kind::Medium,
            handler,
            args,
            payload,
            offset: 0,
        };
        try_send(&self.core, dest, o)
    }

    /// Sends a medium request: `payload` (at most [`crate::MAX_MEDIUM`] bytes) reaches the handler.
    pub fn request_medium(
        &self,
        dest: u32,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
    ) -> Result<()> {
        send_request(
            &self.core,
            dest,
            Outgoing {
                kind: Kind::Medium,
                handler,
                args,
                payload,
                offset: 0,
            },
        )
    }

    /// Sends a long request: `payload` is written at `dest_offset` of the destination's
    /// segment (one copy), then the handler runs there.
    pub fn request_long(
        &self,
        dest: u32,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
        dest_offset: usize,
    ) -> Result<()> {
        send_request(
            &self.core,
            dest,
            Outgoing {
                kind: Kind::Long,
                handler,
                args,
                payload,
                offset: dest_offset as u64,
            },
        )
    }

    /// Pulls `len` bytes at `src_offset` of the destination's segment into this endpoint's
    /// segment at `dst_offset`; then local handler `handler` runs with `args` at a later poll.
    pub fn get(
        &self,
        dest: u32,
        handler: HandlerIndex,
        args: &[u32],
        src_offset: usize,
        len: usize,
        dst_offset: usize,
    ) -> Result<()> {
        get(
            &self.core,
            dest,
            Outgoing {
                kind: Kind::Get,
                handler,
                args,
                payload: &[],
                offset: src_offset as u64,
            },
            len,
            dst_offset,
        )
    }
}

/// Sends short request `args` by the fast path, through the same route as every send;
/// the request back when the general path must decide.
#[inline(always)]
fn short_fast_path<'a>(
    ep: &Rc<EndpointCore>,
    dest: u32,
    handler: HandlerIndex,
    args: &'a [u32],
) -> Option<Outgoing<'a>> {
    let o = Outgoing {
        kind: Kind::Short,
        handler,
        args,
        payload: &[],
        offset: 0,
    };
    let sent = shm::short::try_request(ep, dest, &o);
    (!sent).then_some(o)
}

/// The refusal of a request from a reply handler, out of line: the check sits on the
/// fastest path there is.
#[cold]
#[inline(never)]
fn from_reply_handler() -> Result<()> {
    Err(Error::RequestFromReplyHandler)
}

/// A short request the fast path could not send: waits for credit or room, maps the
/// translation, or returns it. Out of line: the caller inlines only the fast path.
#[inline(never)]
fn send_short(ep: &Rc<EndpointCore>, dest: u32, o: Outgoing<'_>) -> Result<()> {
    send_request(ep, dest, o)
}

/// Sends `o` unless it would wait for credit (then `Ok(false)`, nothing sent). Out of
/// line: the short fast path comes first.
#[inline(never)]
fn try_send(ep: &Rc<EndpointCore>, dest: u32, o: Outgoing<'_>) -> Result<bool> {
    if in_reply_handler() {
        return from_reply_handler().map(|()| false);
    }
    if super::query::would_block(ep, dest, o.kind == Kind::Medium)? {
        return Ok(false);
    }
    send_request(ep, dest, o).map(|()| true)
}

#[inline]
fn send_request(ep: &Rc<EndpointCore>, dest: u32, o: Outgoing<'_>) -> Result<()> {
    if in_reply_handler() {
        return from_reply_handler();
    }
    ep.check_live()?;
    o.validate()?;
    match ep.route(dest)? {
        Err(reason) => ep.bounce(&o, dest, reason),
        Ok(Route::Net(peer)) => Net::request(ep, dest, &peer, &o).map(drop),
        Ok(Route::Shm(remote)) => match Shm::request(ep, dest, &remote, &o)? {
            Sent::Done => Ok(()),
            Sent::Refused(e) => match ep.segment_fallback(dest, &e) {
                Fallback::Network(peer) => Net::request(ep, dest, &peer, &o).map(drop),
                Fallback::Return(reason) => ep.bounce(&o, dest, reason),
            },
        },
    }
}

fn get(
    ep: &Rc<EndpointCore>,
    dest: u32,
    o: Outgoing<'_>,
    len: usize,
    dst_offset: usize,
) -> Result<()> {
    if in_reply_handler() {
        return from_reply_handler();
    }
    ep.check_live()?;
    o.validate()?;
    if len > MAX_LONG {
        return Err(Error::BadArg(format!(
            "get of {len} bytes exceeds the limit of {MAX_LONG}"
        )));
    }
    let local = ep
        .current_segment()
        .ok_or_else(|| Error::BadArg("get needs a local segment".into()))?;
    check_range(dst_offset, len, local.len())?;
    let net_get = |peer: &NetPeer| Net::get(ep, dest, peer, &o, len, dst_offset).map(drop);
    match ep.route(dest)? {
        Err(reason) => ep.bounce(&o, dest, reason),
        Ok(Route::Net(peer)) => net_get(&peer),
        Ok(Route::Shm(remote)) => match Shm::get(ep, dest, &remote, &o, len, dst_offset)? {
            Sent::Done => Ok(()),
            Sent::Refused(e) => match ep.segment_fallback(dest, &e) {
                Fallback::Network(peer) => net_get(&peer),
                Fallback::Return(reason) => ep.bounce(&o, dest, reason),
            },
        },
    }
}
