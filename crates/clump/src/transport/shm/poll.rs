//! The poll side of Active Messages over shared memory: run the handlers of waiting
//! requests and replies.
//!
//! Each packet is read in place, the head moved past it before its handler runs, so a
//! handler that sends (and so polls while it waits) never meets its own packet again;
//! the slot stays pinned while the handler runs and goes back to the senders at the
//! next read or poll after it (see [`Cursor`]), so that handing it back never holds up
//! the handler's reply. Bulk blocks are held until the handler returns.

use crate::endpoint::handlers::{Answer, Reply};
use crate::endpoint::EndpointCore;
use crate::error::ReturnReason;
use crate::message::{Kind, Message, Returned, MAX_ARGS};
use crate::transport::shm::block::BULK_BLOCKS;
use crate::transport::shm::packet::{Packet, PacketKind};
use crate::transport::shm::ring::Cursor;
use crate::transport::shm::send::{deliver_request, flush_acks, flush_deferred, return_request};
use crate::transport::shm::short;
use std::rc::Rc;

/// Runs up to `budget` waiting requests; returns how many ran. Credits owed for those
/// whose handlers did not reply go back at the end, one ack per run of requests.
pub(crate) fn poll_requests(ep: &Rc<EndpointCore>, budget: usize) -> usize {
    let ring = ep.shm.own.block.get().request.ring();
    let cursor = &ep.shm.requests;
    cursor.release_all(&ring);
    let mut n = 0;
    while n < budget
        && cursor
            .read(&ring, |p| {
                if short::is_short(p) {
                    short::run_request(ep, p)
                } else {
                    with_request_bulk(ep, p, |medium| run_request(ep, p, medium))
                }
            })
            .is_some()
    {
        n += 1;
    }
    // Not at the end of every poll that ran a request: its caller (a receive that just
    // completed) carries on first, and the requester often sends again before it needs
    // the credit.
    let window = ep.flow.with(|f| f.window());
    if ep.shm.acks.with(|a| a.due(n, window)) {
        flush_acks(ep);
    }
    n
}

/// Finishes deferred answers, then runs up to `budget` waiting replies.
pub(crate) fn poll_replies(ep: &Rc<EndpointCore>, budget: usize) -> usize {
    if !ep.shm.deferred.with(|d| d.is_empty()) {
        flush_deferred(ep);
    }
    let ring = ep.shm.own.block.get().reply.ring();
    let cursor = &ep.shm.replies;
    cursor.release_all(&ring);
    let mut n = 0;
    let run = |p: &Packet| {
        if short::is_short(p) && p.bulk as usize >= BULK_BLOCKS {
            short::run_reply(ep, p)
        } else {
            handle_reply(ep, p)
        }
    };
    while n < budget && cursor.read(&ring, run).is_some() {
        n += 1;
    }
    n
}

/// Whether a request waits in this endpoint's queue.
#[inline]
pub(crate) fn request_waiting(ep: &EndpointCore) -> bool {
    ep.shm.requests.ready(&ep.shm.own.block.get().request.ring())
}

/// Whether a reply waits in this endpoint's queue.
#[inline]
pub(crate) fn reply_waiting(ep: &EndpointCore) -> bool {
    ep.shm.replies.ready(&ep.shm.own.block.get().reply.ring())
}

/// Whether a request or reply waits in this endpoint's queues.
#[inline]
pub(crate) fn has_work(ep: &EndpointCore) -> bool {
    ep.message_queued()
}

/// Hands back the queue slots the last poll read (see [`Cursor`]), for a poll that finds
/// nothing else to do.
#[inline]
pub(crate) fn settle(ep: &EndpointCore) {
    let b = ep.shm.own.block.get();
    ep.shm.requests.release_all(&b.request.ring());
    ep.shm.replies.release_all(&b.reply.ring());
}

/// Sends the credits this endpoint owes, if any: before waiting, when no poll would.
pub(crate) fn return_credits(ep: &EndpointCore) {
    if !ep.shm.acks.with(|a| a.is_empty()) {
        flush_acks(ep);
    }
}

/// Lends a request's medium payload (if it names a valid bulk block) to `f`, then frees
/// the block whatever `f` did with the message.
#[inline]
fn with_request_bulk(ep: &EndpointCore, p: &Packet, f: impl FnOnce(Option<&[u8]>)) {
    let queue = &ep.shm.own.block.get().request;
    let holds_bulk = p.kind == PacketKind::Medium as u8 && (p.bulk as usize) < BULK_BLOCKS;
    f(if holds_bulk {
        queue.read_bulk(p.bulk.into(), p.len)
    } else {
        None
    });
    if holds_bulk {
        queue.bulk().free(p.bulk.into());
    }
}

#[inline]
fn run_request(ep: &Rc<EndpointCore>, p: &Packet, medium: Option<&[u8]>) {
    let kind = match PacketKind::from_u8(p.kind).and_then(PacketKind::message_kind) {
        Some(k) if p.nargs as usize <= MAX_ARGS => k,
        _ => return return_request(ep, p, ReturnReason::BadArgs, &[]),
    };
    let segment = (kind == Kind::Long)
        .then(|| ep.current_segment())
        .flatten();
    let payload = match kind {
        Kind::Medium => match medium {
            Some(bytes) => bytes,
            None => return return_request(ep, p, ReturnReason::BadLength, &[]),
        },
        Kind::Long => match segment.as_ref().and_then(|s| s.bytes(p.offset, p.len as u64)) {
            Some(bytes) => bytes,
            None => return return_request(ep, p, ReturnReason::BadSegmentOffset, &[]),
        },
        _ => &[],
    };
    let msg = Message {
        kind,
        handler: p.handler,
        args: &p.args[..p.nargs as usize],
        payload,
        offset: p.used_offset(),
    };
    deliver_request(ep, p, &msg, medium.unwrap_or(&[]));
}

#[inline(never)]
fn handle_reply(ep: &Rc<EndpointCore>, p: &Packet) {
    let queue = &ep.shm.own.block.get().reply;
    let holds_bulk = (p.bulk as usize) < BULK_BLOCKS;
    let bulk = if holds_bulk {
        queue.read_bulk(p.bulk.into(), p.len)
    } else {
        None
    };
    // The credit comes back first: the handler may send again.
    ep.flow.with(|f| f.answered(p.credit_slot, p.credits.into()));
    let args = &p.args[..(p.nargs as usize).min(MAX_ARGS)];
    let segment;
    let answer = match PacketKind::from_u8(p.kind) {
        Some(PacketKind::Ack) => Answer::Credit,
        Some(PacketKind::Returned) => Answer::Returned(Returned {
            reason: ReturnReason::from_u8(p.reason).unwrap_or(ReturnReason::BadArgs),
            request: true,
            kind: PacketKind::from_u8(p.orig_kind)
                .and_then(PacketKind::message_kind)
                .unwrap_or(Kind::Short),
            handler: p.handler,
            args,
            payload: bulk.unwrap_or(&[]),
            offset: p.used_offset(),
            translation: Some(p.credit_slot),
        }),
        Some(k) if p.nargs as usize <= MAX_ARGS && k.message_kind().is_some() => {
            let kind = k.message_kind().unwrap_or(Kind::Short);
            segment = (kind == Kind::Long).then(|| ep.current_segment()).flatten();
            let payload = match kind {
                Kind::Medium if p.len == 0 => Some(&[][..]),
                Kind::Medium => bulk,
                Kind::Long => segment.as_ref().and_then(|s| s.bytes(p.offset, p.len as u64)),
                _ => Some(&[][..]),
            };
            Answer::Reply(Reply {
                kind,
                handler: p.handler,
                args,
                payload,
                offset: p.used_offset(),
                medium: bulk.unwrap_or(&[]),
            })
        }
        _ => Answer::Malformed {
            handler: p.handler,
            args,
            offset: p.used_offset(),
        },
    };
    ep.run_answer(p.src, answer);
    if holds_bulk {
        queue.bulk().free(p.bulk.into());
    }
}

/// Closes a freed endpoint's queues: senders see it gone, and the requests still queued
/// go back to their senders as `EndpointGone`.
pub(crate) fn close(ep: &EndpointCore) {
    let block = ep.shm.own.block.get();
    block.header.closed.store(1, crate::sync::Ordering::Release);
    let ring = block.request.ring();
    let end = ring.close();
    let cursor: &Cursor = &ep.shm.requests;
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while cursor.head() < end && std::time::Instant::now() < deadline {
        let Some(slot) = ring.peek(cursor.head()) else {
            // A sender claimed the slot and is still filling it.
            std::thread::yield_now();
            continue;
        };
        let packet = slot.copy_used();
        cursor.advance(&ring);
        with_request_bulk(ep, &packet, |medium| {
            return_request(ep, &packet, ReturnReason::EndpointGone, medium.unwrap_or(&[]))
        });
    }
    cursor.release_all(&ring);
    flush_acks(ep);
}

/// Returned requests must reach their senders even though no one polls a freed endpoint.
pub(crate) fn finish_answers(ep: &EndpointCore) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while !ep.shm.deferred.with(|d| d.is_empty()) && std::time::Instant::now() < deadline {
        flush_deferred(ep);
        std::thread::yield_now();
    }
}
