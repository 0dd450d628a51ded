//! The request verbs, and the one routing place: each request or get is checked, its
//! translation resolved, and handed to the shared-memory or the network transport.
//!
//! Everything the sender can check it checks here, before touching the destination (001:
//! the tag in the destination block, then the queue): what fails comes back to handler 0
//! at the next poll, never silently lost.

use super::endpoint::Endpoint;
use crate::endpoint::handlers::in_reply_handler;
use crate::endpoint::route::Route;
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result, ReturnReason};
use crate::message::{HandlerIndex, Kind, Outgoing, MAX_LONG};
use crate::shm::remote::SegMapping;
use crate::shm::segment::check_range;
use crate::{net, shm};
use std::rc::Rc;
use std::sync::Arc;

impl Endpoint {
    /// Sends a short request: handler `handler` runs at translation `dest` with `args`.
    #[inline]
    pub fn request(&self, dest: u32, handler: HandlerIndex, args: &[u32]) -> Result<()> {
        if in_reply_handler() {
            return from_reply_handler();
        }
        let o = Outgoing {
            kind: Kind::Short,
            handler,
            args,
            payload: &[],
            offset: 0,
        };
        if shm::short::try_request(&self.core, dest, &o) {
            return Ok(());
        }
        send_short(&self.core, dest, o)
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

#[inline]
fn send_request(ep: &Rc<EndpointCore>, dest: u32, o: Outgoing<'_>) -> Result<()> {
    if in_reply_handler() {
        return from_reply_handler();
    }
    ep.check_live()?;
    o.validate()?;
    match resolve(ep, dest)? {
        Err(reason) => ep.bounce(&o, dest, reason),
        Ok(Route::Net(peer)) => net::send::request(ep, dest, peer, &o),
        Ok(Route::Shm(remote)) => {
            let segment = if o.kind == Kind::Long {
                match dest_segment(ep, dest, o.offset as usize, o.payload.len()) {
                    Ok(seg) => Some(seg),
                    Err(reason) => return ep.bounce(&o, dest, reason),
                }
            } else {
                None
            };
            shm::send::request(ep, dest, &remote, &o, segment)
        }
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
    match resolve(ep, dest)? {
        Err(reason) => ep.bounce(&o, dest, reason),
        Ok(Route::Net(peer)) => net::send::get(ep, dest, peer, &o, len, dst_offset),
        Ok(Route::Shm(_)) => match dest_segment(ep, dest, o.offset as usize, len) {
            Ok(seg) => shm::send::get(ep, dest, &o, &seg, &local, len, dst_offset),
            Err(reason) => ep.bounce(&o, dest, reason),
        },
    }
}

/// The route to translation `dest`, or the reason a message to it comes back. Over
/// shared memory the tag is checked here, in the destination's block (001); over the
/// network the destination checks it.
#[inline(always)]
fn resolve(ep: &EndpointCore, dest: u32) -> Result<std::result::Result<Route, ReturnReason>> {
    let table = ep.tables.translations.borrow();
    // An error built only where there is one (an `ok_or` would build and drop it on
    // every send).
    let Some(t) = table.get(dest as usize).and_then(|t| t.as_ref()) else {
        return Err(Error::NoTranslation(dest));
    };
    if let Some(reason) = ep.flow.borrow().dead(dest) {
        return Ok(Err(reason));
    }
    Ok(match &t.route {
        Some(Route::Shm(remote)) if remote.closed() => Err(ReturnReason::EndpointGone),
        Some(Route::Shm(remote)) if remote.tag() != t.tag => Err(ReturnReason::BadTag),
        Some(route) => Ok(route.clone()),
        None => {
            drop(table);
            return connect_and_resolve(ep, dest);
        }
    })
}

/// Maps translation `dest` on its first use, then resolves it. Kept out of line so that
/// `resolve` is not recursive and joins the send path.
#[cold]
#[inline(never)]
fn connect_and_resolve(
    ep: &EndpointCore,
    dest: u32,
) -> Result<std::result::Result<Route, ReturnReason>> {
    match ep.connect(dest)? {
        Ok(()) => resolve(ep, dest),
        Err(reason) => Ok(Err(reason)),
    }
}

/// The destination's segment if `offset..offset+len` lies inside it.
fn dest_segment(
    ep: &EndpointCore,
    dest: u32,
    offset: usize,
    len: usize,
) -> std::result::Result<Arc<SegMapping>, ReturnReason> {
    let mut table = ep.tables.translations.borrow_mut();
    // Resolved just before, with no poll in between; a missing entry is still no panic.
    let Some(t) = table.get_mut(dest as usize).and_then(|t| t.as_mut()) else {
        return Err(ReturnReason::EndpointGone);
    };
    let Some(Route::Shm(remote)) = &t.route else {
        return Err(ReturnReason::Unreachable);
    };
    match remote.segment(t.segment.as_ref()) {
        Ok(Some(seg)) => {
            t.segment = Some(seg.clone());
            if seg.fits(offset as u64, len as u64) {
                Ok(seg)
            } else {
                Err(ReturnReason::BadSegmentOffset)
            }
        }
        Ok(None) => Err(ReturnReason::BadSegmentOffset),
        // Alive or gone, the peer's segment cannot be reached: the message never leaves.
        Err(_) => Err(ReturnReason::Unreachable),
    }
}
