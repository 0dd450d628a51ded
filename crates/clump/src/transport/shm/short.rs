//! The short round trip's fast path over shared memory: a short request sent while its
//! translation is open, with credit and queue room; a short request whose handler is
//! installed, run with its token on the stack, its short reply built straight in the
//! requester's slot; and a short reply run at once.
//!
//! Each step does its checks in one place, inside one part's closure (`endpoint/part.rs`:
//! nothing there can run a handler or wait) with no reference count taken, and hands anything unusual to the general path (`send.rs`, `poll.rs`) having
//! changed nothing: no credit, a full queue, a translation not mapped yet or dead, a tag
//! that does not match, a missing handler.

use crate::endpoint::handlers::{Origin, Reply};
use crate::endpoint::EndpointCore;
use crate::message::{Kind, Message, Outgoing, MAX_ARGS};
use crate::name::EndpointId;
use crate::transport::shm::packet::{Packet, PacketKind};
use crate::transport::shm::ring::PushError;
use crate::transport::shm::send::{deliver_request, nothing_queued_before, write_reply, write_request};
use std::rc::Rc;

/// Sends short request `o` through translation `dest` if its route (the routing point's
/// [`EndpointCore::with_open_shm`]) is an open queue block and it can go at once; `false`,
/// having sent nothing, when the general path must decide (it checks everything again).
#[inline(always)]
pub(crate) fn try_request(ep: &EndpointCore, dest: u32, o: &Outgoing<'_>) -> bool {
    if ep.freed.get() || o.args.len() > MAX_ARGS || o.handler == 0 {
        return false;
    }
    if !ep.flow.with(|f| f.may_send(dest)) {
        return false;
    }
    let (src, src_tag) = (ep.name.id, ep.tag());
    let sent = ep.with_open_shm(dest, |remote| {
        let pushed = remote.block.get().request.ring().push(
            #[inline(always)]
            |p| write_request(p, src, src_tag, dest, o, PacketKind::Short as u8),
        );
        pushed.is_ok() && {
            remote.notify();
            true
        }
    });
    if sent {
        ep.flow.with(|f| f.sent(dest, o.saved(), None));
        ep.count(|s| s.requests_sent += 1);
    }
    sent
}

/// Whether `p` is a short request or reply this path runs (a valid argument count).
#[inline(always)]
pub(crate) fn is_short(p: &Packet) -> bool {
    p.kind == PacketKind::Short as u8 && p.nargs as usize <= MAX_ARGS
}

/// Runs short request `p` (see [`is_short`]), or returns it to its sender if its handler
/// is not installed.
#[inline(always)]
pub(crate) fn run_request(ep: &Rc<EndpointCore>, p: &Packet) {
    let msg = Message {
        kind: Kind::Short,
        handler: p.handler,
        args: &p.args[..p.nargs as usize],
        payload: &[],
        offset: 0,
    };
    deliver_request(ep, p, &msg, &[]);
}

/// Runs short reply `p` (see [`is_short`]): its credit comes back first (the handler may
/// send again), then its handler runs, or handler 0 hears why it cannot.
#[inline(always)]
pub(crate) fn run_reply(ep: &Rc<EndpointCore>, p: &Packet) {
    ep.flow.with(|f| f.answered(p.credit_slot, p.credits.into()));
    let origin = Origin::Reply { src: p.src };
    let args = &p.args[..p.nargs as usize];
    match ep.handler(p.handler) {
        Some(handler) => {
            let msg = Message {
                kind: Kind::Short,
                handler: p.handler,
                args,
                payload: &[],
                offset: 0,
            };
            ep.run_handler(&*handler, origin, &msg);
        }
        // Reported to handler 0.
        None => ep.call_reply_handler(
            origin,
            &Reply {
                kind: Kind::Short,
                handler: p.handler,
                args,
                payload: Some(&[]),
                offset: 0,
                medium: &[],
            },
        ),
    }
}

/// Writes short reply `o` from `ep` straight into the slot of requester `src` if it is
/// the last requester answered, its block is open under `src_tag` and no earlier answer
/// of `ep` waits to go out; `true` if it did (or dropped it: a freed requester's queue is
/// closed, and nobody is left to deliver it to, as `send.rs` drops any answer to it).
/// `false`, having sent nothing, when the general path (`send::reply`) must answer.
#[inline(always)]
pub(crate) fn try_reply(
    ep: &EndpointCore,
    src: EndpointId,
    src_tag: u64,
    credit_slot: u32,
    o: &Outgoing<'_>,
) -> bool {
    if o.kind != Kind::Short || !nothing_queued_before(ep) {
        return false;
    }
    let from = ep.name.id;
    ep.shm.sources.with(|sources| {
        let Some((id, to)) = sources.last.as_ref() else {
            return false;
        };
        if *id != src || !to.open_under(src_tag) {
            return false;
        }
        let pushed = to.block.get().reply.ring().push(
            #[inline(always)]
            |p| write_reply(p, from, credit_slot, o),
        );
        match pushed {
            Ok(()) => {
                to.notify();
                true
            }
            Err(PushError::Closed) => true,
            Err(PushError::Full) => false,
        }
    })
}
