//! The send side of Active Messages over shared memory: requests into the destination's
//! request queue, gets copied straight between the segments, and answers (replies, acks,
//! returned requests) into the requester's reply queue.
//!
//! Everything the sender can check it checks before touching the destination (001: the
//! tag in the destination block, then the queue). Answers never block: if the requester's
//! reply queue has no room (it always has packet room, by the credit bound, but its bulk
//! blocks may be busy), the answer waits in the replier's deferred list and later polls
//! finish it.

use crate::endpoint::route::Route;
use crate::endpoint::wait::{Stall, StallOutcome};
use crate::endpoint::{Deferred, EndpointCore, LocalEvent};
use crate::error::{Result, ReturnReason};
use crate::endpoint::handlers::Origin;
use crate::endpoint::route::{Requester, ShmRequester};
use crate::endpoint::transport::Sent;
use crate::message::{copy_args, ArgBuf, Kind, Message, Outgoing};
use crate::name::EndpointId;
use crate::transport::shm::block::BULK_BLOCKS;
use crate::transport::shm::bulk::home_block;
use crate::transport::shm::packet::{Packet, PacketKind, MAX_ACK, NO_BULK};
use crate::transport::shm::remote::{Remote, RemoteRef, SegMapping};
use crate::transport::shm::ring::PushError;
use std::rc::Rc;
use std::sync::Arc;

/// Sends request `o` through translation `dest` into `remote`'s request queue, waiting
/// for credit and space as needed. `segment` is the destination's segment for a long one.
#[inline]
pub(crate) fn request(
    ep: &Rc<EndpointCore>,
    dest: u32,
    remote: &RemoteRef,
    o: &Outgoing<'_>,
    segment: Option<Arc<SegMapping>>,
) -> Result<Sent> {
    // Only a send that waits needs the route (for the destination's health) and a clock.
    let route = || Route::Shm(remote.clone());
    let mut stall = Stall::new();
    if !ep.has_credit(dest) {
        while !ep.has_credit(dest) {
            ep.count(|s| s.credit_waits += 1);
            let ready = || ep.has_credit(dest);
            if let StallOutcome::Gone(reason) = ep.stall(dest, &route(), &mut stall, &ready)? {
                return bounced(ep, o, dest, reason);
            }
        }
        // A handler run while waiting may have freed this endpoint.
        ep.check_live()?;
    }
    let queue = &remote.block.get().request;
    let bulk = if o.kind == Kind::Medium {
        let block = loop {
            if let Some(b) = remote.claim_request_block() {
                break b;
            }
            ep.count(|s| s.queue_full_waits += 1);
            // Whether a block is free shows only by claiming one: the next round does.
            if let StallOutcome::Gone(reason) = ep.stall(dest, &route(), &mut stall, &|| false)? {
                return bounced(ep, o, dest, reason);
            }
        };
        queue.write_bulk(block, o.payload);
        block as u8
    } else {
        NO_BULK
    };
    if let Some(Err(e)) = segment.map(|seg| seg.write(o.offset as usize, o.payload)) {
        if bulk != NO_BULK {
            queue.bulk().free(bulk.into());
        }
        return Ok(Sent::Refused(e));
    }
    let src_tag = ep.tag();
    let kind = PacketKind::carrying(o.kind) as u8;
    loop {
        let pushed = queue.ring().push(|p| {
            write_request(p, ep.name.id, src_tag, dest, o, kind);
            p.bulk = bulk;
        });
        match pushed {
            Ok(()) => break,
            Err(PushError::Closed) => {
                if bulk != NO_BULK {
                    queue.bulk().free(bulk.into());
                }
                return bounced(ep, o, dest, ReturnReason::EndpointGone);
            }
            Err(PushError::Full) => {
                ep.count(|s| s.queue_full_waits += 1);
                let outcome = ep.stall(dest, &route(), &mut stall, &|| false);
                if !matches!(outcome, Ok(StallOutcome::Retry)) {
                    // Giving up: the claimed bulk block must go back, or the
                    // destination loses it for good.
                    if bulk != NO_BULK {
                        queue.bulk().free(bulk.into());
                    }
                    if let StallOutcome::Gone(reason) = outcome? {
                        return bounced(ep, o, dest, reason);
                    }
                }
            }
        }
    }
    ep.flow.with(|f| f.sent(dest, o.saved(), None));
    ep.count(|s| s.requests_sent += 1);
    remote.notify();
    Ok(Sent::Done)
}

/// `o` came back to handler 0 for `reason` (the transport is done with it).
pub(crate) fn bounced(
    ep: &EndpointCore,
    o: &Outgoing<'_>,
    dest: u32,
    reason: ReturnReason,
) -> Result<Sent> {
    ep.bounce(o, dest, reason).map(|()| Sent::Done)
}

/// Writes request `o` of packet kind `kind` from `src` (tag `src_tag`) through its
/// translation `dest` into `p` (a slot of the destination's request queue): every field
/// the poll side reads of a request, the bulk block (none) included.
#[inline(always)]
pub(crate) fn write_request(
    p: &mut Packet,
    src: EndpointId,
    src_tag: u64,
    dest: u32,
    o: &Outgoing<'_>,
    kind: u8,
) {
    p.kind = kind;
    p.handler = o.handler;
    p.nargs = o.args.len() as u8;
    p.len = o.payload.len() as u32;
    p.bulk = NO_BULK;
    p.credit_slot = dest;
    p.src = src;
    p.src_tag = src_tag;
    copy_args(&mut p.args, o.args);
    if o.kind == Kind::Long {
        // Only a long packet's offset is read (see `Packet`): a short one leaves the
        // slot's second line alone.
        p.offset = o.offset;
    }
}

/// Copies `len` bytes at `o.offset` of the destination's `segment` to `dst_offset` of
/// `local`; the local handler runs at the next poll.
pub(crate) fn get(
    ep: &EndpointCore,
    o: &Outgoing<'_>,
    segment: &SegMapping,
    local: &SegMapping,
    len: usize,
    dst_offset: usize,
) -> Result<Sent> {
    if let Err(e) = segment.copy_to(o.offset as usize, local, dst_offset, len) {
        return Ok(Sent::Refused(e));
    }
    ep.local.with(|l| l.push_back(LocalEvent::GetDone {
        handler: o.handler,
        args: ArgBuf::from_slice(o.args),
        offset: dst_offset as u64,
        len,
    }));
    Ok(Sent::Done)
}

/// Replies `o` to the request that `src` (tag `src_tag`) sent through its translation
/// `credit_slot`. What cannot land comes back to this endpoint's handler 0. The general
/// path, out of line: `short.rs` answers the common case before it.
#[inline(never)]
pub(crate) fn reply(
    ep: &EndpointCore,
    src: EndpointId,
    src_tag: u64,
    credit_slot: u32,
    o: &Outgoing<'_>,
) {
    let Ok(to) = ep.source(src) else {
        // The requester's block cannot be mapped any more: its process is gone.
        ep.return_locally(o.returned(ReturnReason::ReplyRejected, false, None));
        return;
    };
    if to.closed() {
        ep.return_locally(o.returned(ReturnReason::EndpointGone, false, None));
        return;
    }
    let rejected = if to.tag() != src_tag {
        Some(ReturnReason::ReplyRejected)
    } else if o.kind == Kind::Long {
        write_long_reply(ep, &to, o).err()
    } else {
        None
    };
    if let Some(reason) = rejected {
        // The reply cannot land, but the requester's credit must still come back.
        ep.return_locally(o.returned(reason, false, None));
        push_answer(ep, &to, &ack_packet(ep, credit_slot, 1), &[]);
        return;
    }
    let src = ep.name.id;
    if o.kind != Kind::Medium && nothing_queued_before(ep) {
        // Built straight in the requester's slot, no packet staged (as `short.rs` does for
        // the last requester answered).
        match to.block.get().reply.ring().push(|p| write_reply(p, src, credit_slot, o)) {
            Ok(()) => return to.notify(),
            // A freed requester: nobody is left to deliver it to (see `try_push_answer`).
            Err(PushError::Closed) => return,
            Err(PushError::Full) => {} // deferred below, as any answer that does not fit
        }
    }
    let mut p = Packet::default();
    write_reply(&mut p, src, credit_slot, o);
    let medium = if o.kind == Kind::Medium {
        o.payload
    } else {
        &[]
    };
    push_answer(ep, &to, &p, medium);
}

/// Writes reply `o` from `src` to the requester's credit slot `credit_slot` into `p` (a
/// slot of the requester's reply queue, or a packet staged for one): every field the
/// poll side copies out of a reply, the bulk block (none; a medium one's is set where it
/// is claimed) included.
#[inline(always)]
pub(crate) fn write_reply(p: &mut Packet, src: EndpointId, credit_slot: u32, o: &Outgoing<'_>) {
    p.kind = PacketKind::carrying(o.kind) as u8;
    p.handler = o.handler;
    p.nargs = o.args.len() as u8;
    p.reason = 0;
    p.orig_kind = 0;
    p.credits = 1;
    p.credit_slot = credit_slot;
    p.len = o.payload.len() as u32;
    p.src = src;
    p.src_tag = 0;
    p.bulk = NO_BULK;
    copy_args(&mut p.args, o.args);
    if o.kind == Kind::Long {
        p.offset = o.offset;
    }
}

/// Whether no answer of this endpoint waits to go out (owed acks or deferred answers),
/// so that a new one may go straight into its queue and still keep the order.
#[inline]
pub(crate) fn nothing_queued_before(ep: &EndpointCore) -> bool {
    ep.shm.acks.with(|a| a.is_empty()) && ep.shm.deferred.with(|d| d.is_empty())
}

/// Runs request `p` as `msg`: its credit is owed if the handler did not reply, and it
/// goes back to its sender (with `medium`, its payload) if the handler cannot run.
#[inline(always)]
pub(crate) fn deliver_request(ep: &Rc<EndpointCore>, p: &Packet, msg: &Message<'_>, medium: &[u8]) {
    let origin = Origin::Request(Requester::Shm(ShmRequester {
        src: p.src,
        src_tag: p.src_tag,
        credit_slot: p.credit_slot,
    }));
    match ep.call_request_handler(origin, msg) {
        Ok(true) => {}
        Ok(false) => ep.shm.acks.with(|a| a.owe((p.src, p.credit_slot))),
        Err(reason) => return_request(ep, p, reason, medium),
    }
}

/// Sends request `p` that cannot be delivered back to its sender's handler 0, with its
/// medium payload. It takes the place of the reply, so the sender's reply queue has room.
pub(crate) fn return_request(ep: &EndpointCore, p: &Packet, reason: ReturnReason, medium: &[u8]) {
    let Ok(to) = ep.source(p.src) else { return }; // the sender's process is gone
    let mut back = *p;
    back.kind = PacketKind::Returned as u8;
    back.orig_kind = p.kind;
    back.offset = p.used_offset(); // read where it means anything, as the poll side does
    back.reason = reason as u8;
    back.nargs = p.nargs.min(crate::message::MAX_ARGS as u8);
    back.src = ep.name.id;
    back.len = medium.len() as u32;
    back.credits = 1;
    push_answer(ep, &to, &back, medium);
}

/// Writes a long reply's payload into the requester's segment.
fn write_long_reply(
    ep: &EndpointCore,
    to: &Remote,
    o: &Outgoing<'_>,
) -> std::result::Result<(), ReturnReason> {
    let seg = match to.segment(None) {
        Ok(Some(seg)) => seg,
        _ => return Err(ReturnReason::BadSegmentOffset),
    };
    seg.write(o.offset as usize, o.payload)
        .map_err(|e| ep.segment_failure(&e))
}

/// The packet that returns `credits` credits of `credit_slot` for requests whose
/// handlers did not reply.
fn ack_packet(ep: &EndpointCore, credit_slot: u32, credits: u16) -> Packet {
    Packet {
        kind: PacketKind::Ack as u8,
        credit_slot,
        credits,
        src: ep.name.id,
        ..Packet::default()
    }
}

/// Enqueues an answer on `to`'s reply queue, or defers it. Never blocks.
#[inline]
fn push_answer(ep: &EndpointCore, to: &RemoteRef, packet: &Packet, medium: &[u8]) {
    // Acks owed for earlier requests go first, keeping each requester's answers in order.
    if !ep.shm.acks.with(|a| a.is_empty()) {
        flush_acks(ep);
    }
    let remote: &Arc<Remote> = to;
    let deferred = ep.shm.deferred.with(|deferred| {
        let defer =
            !deferred.is_empty() || try_push_answer(remote, packet, medium) == Err(PushError::Full);
        if defer {
            // Keep answers to everyone in order behind the first deferred one.
            deferred.push_back(Deferred {
                to: Rc::new(remote.clone()),
                packet: *packet,
                payload: medium.to_vec(),
            });
        }
        defer
    });
    if deferred {
        ep.count(|s| s.deferred_replies += 1);
    }
}

/// Sends the credits owed for requests whose handlers did not reply, one ack per run.
pub(crate) fn flush_acks(ep: &EndpointCore) {
    let acks = ep.shm.acks.with(|a| a.take());
    for &((src, credit_slot), count) in &acks {
        // A requester whose process is gone needs no credit back.
        if let Ok(to) = ep.source(src) {
            let mut left = count;
            while left > 0 {
                let n = left.min(MAX_ACK);
                push_answer(ep, &to, &ack_packet(ep, credit_slot, n as u16), &[]);
                left -= n;
            }
        }
    }
    ep.shm.acks.with(|a| a.give_back(acks));
}

/// Retries deferred answers in order; stops at the first that still does not fit.
pub(crate) fn flush_deferred(ep: &EndpointCore) {
    ep.shm.deferred.with(|deferred| {
        while let Some(d) = deferred.front() {
            if try_push_answer(&d.to, &d.packet, &d.payload) == Err(PushError::Full) {
                return;
            }
            deferred.pop_front();
        }
    })
}

/// One attempt to enqueue an answer. A closed (freed) requester drops it: nobody is left
/// to deliver it to, and the replier was told through `to.closed()` when it replied.
#[inline]
fn try_push_answer(
    to: &Remote,
    packet: &Packet,
    medium: &[u8],
) -> std::result::Result<(), PushError> {
    let queue = &to.block.get().reply;
    let mut bulk = NO_BULK;
    if packet.len > 0 && medium.len() == packet.len as usize {
        let first = home_block(packet.src.pid, packet.src.fd, BULK_BLOCKS);
        let Some(block) = queue.bulk().claim(first) else {
            return Err(PushError::Full);
        };
        queue.write_bulk(block, medium);
        bulk = block as u8;
    }
    let pushed = queue.ring().push(|p| {
        p.store_used(packet);
        p.bulk = bulk;
    });
    match pushed {
        Ok(()) => {
            to.notify();
            Ok(())
        }
        Err(e) => {
            if bulk != NO_BULK {
                queue.bulk().free(bulk.into());
            }
            if e == PushError::Closed {
                Ok(())
            } else {
                Err(e)
            }
        }
    }
}

impl EndpointCore {
    /// The queue block of a requester, for answering it.
    #[inline]
    pub(crate) fn source(&self, id: EndpointId) -> std::io::Result<RemoteRef> {
        let last = self.shm.sources.with(|s| match &s.last {
            Some((last, r)) if *last == id => Some(r.clone()),
            _ => None,
        });
        match last {
            Some(r) => Ok(r),
            None => self.find_source(id),
        }
    }

    /// [`EndpointCore::source`] for a requester other than the last one answered.
    #[cold]
    #[inline(never)]
    fn find_source(&self, id: EndpointId) -> std::io::Result<RemoteRef> {
        self.shm.sources.with(|sources| {
            let r = match sources.map.get(&id) {
                Some(r) => r.clone(),
                None => {
                    let r = Rc::new(Remote::lookup(id)?);
                    sources.map.insert(id, r.clone());
                    r
                }
            };
            sources.last = Some((id, r.clone()));
            Ok(r)
        })
    }
}
