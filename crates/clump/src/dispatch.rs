//! Polling an endpoint: run the handlers of waiting requests, replies and local events.
//!
//! Each packet is copied out of its slot and the slot released before its handler runs, so
//! senders get the space back at once and a handler that sends (and so polls while it
//! waits) never meets its own packet again. Bulk blocks are held until the handler returns.

use crate::endpoint::{EndpointCore, LocalEvent};
use crate::error::{Result, ReturnReason};
use crate::message::{Kind, Message, Returned, MAX_ARGS};
use crate::shm::block::BULK_BLOCKS;
use crate::shm::packet::{Packet, PacketKind};
use crate::shm::remote::SegMapping;
use crate::token::{Origin, Token};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

/// Messages one poll handles per queue at most, so a busy queue cannot starve the others.
const POLL_BUDGET: usize = 64;
/// Every this many polls with requests in flight, check that their destinations live.
const LIVENESS_POLLS: u32 = 4096;

thread_local! {
    static HANDLER_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Whether the current thread is inside a handler.
pub(crate) fn in_handler() -> bool {
    HANDLER_DEPTH.with(|d| d.get() > 0)
}

struct InHandler;
impl InHandler {
    fn enter() -> InHandler {
        HANDLER_DEPTH.with(|d| d.set(d.get() + 1));
        InHandler
    }
}
impl Drop for InHandler {
    fn drop(&mut self) {
        HANDLER_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Progress for a sender that waits for space: the whole bundle outside handlers (so this
/// process keeps serving requests and cannot deadlock its peers), only replies and local
/// events inside one (replies return credits; nested request handlers are not run). A
/// sender that waits for the network (`network`) looks at it on every round: what it
/// waits for can only come from there.
pub(crate) fn progress_while_waiting(ep: &Rc<EndpointCore>, network: bool) -> Result<()> {
    if in_handler() {
        ep.poll_replies();
        ep.poll_net(crate::poll::BASE_BATCH, false);
        return Ok(());
    }
    match ep.bundle.borrow().upgrade() {
        Some(bundle) => {
            if network {
                bundle.poll_network_next();
            }
            bundle.poll_all().map(|_| ())
        }
        None => {
            ep.poll_endpoint();
            ep.poll_net(crate::poll::BASE_BATCH, true);
            Ok(())
        }
    }
}

impl EndpointCore {
    /// Handles what is waiting on this endpoint; returns how many messages ran.
    pub(crate) fn poll_endpoint(self: &Rc<Self>) -> usize {
        if self.freed.get() {
            return 0;
        }
        self.watch_peers();
        let mut n = self.poll_replies();
        let ring = self.own.block.get().request.ring();
        while n < 2 * POLL_BUDGET {
            let head = self.req_head.get();
            let Some(p) = ring.peek(head) else { break };
            let packet = p.copy_used();
            ring.release(head);
            self.req_head.set(head + 1);
            self.handle_request(&packet);
            n += 1;
        }
        if !self.pending_acks.borrow().is_empty() {
            self.flush_acks();
        }
        n
    }

    /// Runs deferred replies, local events and the reply queue.
    pub(crate) fn poll_replies(self: &Rc<Self>) -> usize {
        if !self.deferred.borrow().is_empty() {
            self.flush_deferred();
        }
        let mut n = 0;
        while n < POLL_BUDGET {
            let Some(event) = self.local.borrow_mut().pop_front() else {
                break;
            };
            self.handle_local(event);
            n += 1;
        }
        let ring = self.own.block.get().reply.ring();
        for _ in 0..POLL_BUDGET {
            let head = self.rep_head.get();
            let Some(p) = ring.peek(head) else { break };
            let packet = p.copy_used();
            ring.release(head);
            self.rep_head.set(head + 1);
            self.handle_reply(&packet);
            n += 1;
        }
        n
    }

    /// Whether a poll would find anything to do.
    pub(crate) fn has_work(&self) -> bool {
        let b = self.own.block.get();
        b.request.ring().ready(self.req_head.get())
            || b.reply.ring().ready(self.rep_head.get())
            || !self.local.borrow().is_empty()
    }

    fn handle_request(self: &Rc<Self>, p: &Packet) {
        self.with_request_bulk(p, |medium| self.run_request(p, medium));
    }

    /// Lends a request's medium payload (if it names a valid bulk block) to `f`, then frees
    /// the block whatever `f` did with the message.
    fn with_request_bulk(&self, p: &Packet, f: impl FnOnce(Option<&[u8]>)) {
        let queue = &self.own.block.get().request;
        let holds_bulk = p.kind == PacketKind::Medium as u8 && (p.bulk as usize) < BULK_BLOCKS;
        f(if holds_bulk {
            queue.read_bulk(p.bulk, p.len)
        } else {
            None
        });
        if holds_bulk {
            queue.bulk().free(p.bulk);
        }
    }

    fn run_request(self: &Rc<Self>, p: &Packet, medium: Option<&[u8]>) {
        let kind = match PacketKind::from_u8(p.kind) {
            Some(k @ (PacketKind::Short | PacketKind::Medium | PacketKind::Long)) => k,
            _ => return self.bounce_request(p, ReturnReason::BadArgs, &[]),
        };
        if p.nargs as usize > MAX_ARGS {
            return self.bounce_request(p, ReturnReason::BadArgs, &[]);
        }
        let segment = (kind == PacketKind::Long)
            .then(|| self.current_segment())
            .flatten();
        let payload = match kind {
            PacketKind::Medium => match medium {
                Some(bytes) => bytes,
                None => return self.bounce_request(p, ReturnReason::BadLength, &[]),
            },
            PacketKind::Long => match segment_bytes(segment.as_ref(), p.offset, p.len) {
                Some(bytes) => bytes,
                None => return self.bounce_request(p, ReturnReason::BadSegmentOffset, &[]),
            },
            _ => &[],
        };
        let origin = Origin::Request {
            src: p.src,
            src_tag: p.src_tag,
            credit_slot: p.credit_slot,
        };
        let msg = Message {
            kind: kind_of(kind),
            handler: p.handler,
            args: &p.args[..p.nargs as usize],
            payload,
            offset: p.offset,
        };
        match self.call_request_handler(origin, &msg) {
            Ok(true) => {}
            Ok(false) => self.ack_later(p.src, p.credit_slot),
            Err(reason) => self.bounce_request(p, reason, medium.unwrap_or(&[])),
        }
    }

    /// Runs the request handler `msg` names, whichever transport brought it; returns
    /// whether it replied, or why there was no handler to run.
    #[inline]
    pub(crate) fn call_request_handler(
        self: &Rc<Self>,
        origin: Origin,
        msg: &Message<'_>,
    ) -> std::result::Result<bool, ReturnReason> {
        let handler = match msg.handler {
            0 => None,
            h => self.handlers.borrow()[h as usize].clone(),
        };
        let handler = handler.ok_or(ReturnReason::BadHandler)?;
        let mut token = Token {
            ep: self,
            origin,
            replied: false,
        };
        let _depth = InHandler::enter();
        handler(&mut token, msg);
        Ok(token.replied)
    }

    /// Runs the handler of a reply (or of a get's completion, `origin` local), which may
    /// not send; or, if it cannot run (no handler, or the payload, `None`, fell outside
    /// the segment), reports the message to handler 0 here: a reply cannot go back, that
    /// could deadlock.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn call_reply_handler(
        self: &Rc<Self>,
        origin: Origin,
        kind: Kind,
        index: u8,
        args: &[u32],
        payload: Option<&[u8]>,
        offset: u64,
        medium: &[u8],
    ) {
        let handler = self
            .handlers
            .borrow()
            .get(index as usize)
            .cloned()
            .flatten();
        match (handler, payload) {
            (Some(handler), Some(payload)) if index != 0 => {
                let mut token = Token {
                    ep: self,
                    origin,
                    replied: false,
                };
                let msg = Message {
                    kind,
                    handler: index,
                    args,
                    payload,
                    offset,
                };
                let _depth = InHandler::enter();
                handler(&mut token, &msg);
            }
            (_, payload) => self.deliver_returned(&Returned {
                reason: if payload.is_none() {
                    ReturnReason::BadSegmentOffset
                } else {
                    ReturnReason::BadHandler
                },
                request: false,
                kind,
                handler: index,
                args,
                payload: medium,
                offset,
                translation: None,
            }),
        }
    }

    /// Sends a request that cannot be delivered back to its sender's handler 0. It takes
    /// the place of the reply, so the sender's reply queue has room for it.
    fn bounce_request(&self, p: &Packet, reason: ReturnReason, medium: &[u8]) {
        let Ok(to) = self.source(p.src) else { return }; // the sender's process is gone
        let mut back = *p;
        back.kind = PacketKind::Returned as u8;
        back.orig_kind = p.kind;
        back.reason = reason as u8;
        back.nargs = p.nargs.min(MAX_ARGS as u8);
        back.src = self.name.id;
        back.len = medium.len() as u32;
        back.credits = 1;
        self.push_reply(&to, back, medium);
    }

    fn handle_reply(self: &Rc<Self>, p: &Packet) {
        let queue = &self.own.block.get().reply;
        let holds_bulk = (p.bulk as usize) < BULK_BLOCKS;
        let bulk = if holds_bulk {
            queue.read_bulk(p.bulk, p.len)
        } else {
            None
        };
        let free_bulk = || {
            if holds_bulk {
                queue.bulk().free(p.bulk);
            }
        };
        // The credit comes back first: the handler may send again.
        self.return_credit(p.credit_slot, p.credits);
        let args = &p.args[..(p.nargs as usize).min(MAX_ARGS)];
        match PacketKind::from_u8(p.kind) {
            Some(PacketKind::Ack) => {}
            Some(PacketKind::Returned) => {
                let reason = ReturnReason::from_u8(p.reason).unwrap_or(ReturnReason::BadArgs);
                let kind = match PacketKind::from_u8(p.orig_kind) {
                    Some(PacketKind::Medium) => Kind::Medium,
                    Some(PacketKind::Long) => Kind::Long,
                    _ => Kind::Short,
                };
                self.deliver_returned(&Returned {
                    reason,
                    request: true,
                    kind,
                    handler: p.handler,
                    args,
                    payload: bulk.unwrap_or(&[]),
                    offset: p.offset,
                    translation: Some(p.credit_slot),
                });
            }
            Some(kind @ (PacketKind::Short | PacketKind::Medium | PacketKind::Long))
                if p.nargs as usize <= MAX_ARGS =>
            {
                let segment = (kind == PacketKind::Long)
                    .then(|| self.current_segment())
                    .flatten();
                let payload = match kind {
                    PacketKind::Medium if p.len == 0 => Some(&[][..]),
                    PacketKind::Medium => bulk,
                    PacketKind::Long => segment_bytes(segment.as_ref(), p.offset, p.len),
                    _ => Some(&[][..]),
                };
                self.call_reply_handler(
                    Origin::Reply { src: p.src },
                    kind_of(kind),
                    p.handler,
                    args,
                    payload,
                    p.offset,
                    bulk.unwrap_or(&[]),
                );
            }
            _ => self.deliver_returned(&Returned {
                reason: ReturnReason::BadArgs,
                request: false,
                kind: Kind::Short,
                handler: p.handler,
                args,
                payload: &[],
                offset: p.offset,
                translation: None,
            }),
        }
        free_bulk();
    }

    pub(crate) fn return_credit(&self, slot: u32, credits: u32) {
        let mut table = self.translations.borrow_mut();
        if let Some(Some(t)) = table.get_mut(slot as usize) {
            let n = (credits as usize).min(t.outstanding.len());
            t.outstanding.drain(..n);
            self.outstanding_total.set(self.outstanding_total.get() - n);
        }
    }

    fn handle_local(self: &Rc<Self>, event: LocalEvent) {
        match event {
            LocalEvent::Returned(r) => self.deliver_returned(&r.view()),
            LocalEvent::GetDone {
                handler,
                args,
                offset,
                len,
            } => self.run_get_done(handler, args.as_slice(), offset, len, true),
        }
    }

    /// Runs the local handler of a get whose data has landed at `offset` (or, `landed`
    /// false, could not), or reports to handler 0 why it cannot run.
    pub(crate) fn run_get_done(
        self: &Rc<Self>,
        index: u8,
        args: &[u32],
        offset: u64,
        len: usize,
        landed: bool,
    ) {
        let segment = self.current_segment();
        let payload = segment_bytes(segment.as_ref(), offset, len as u32).filter(|_| landed);
        self.call_reply_handler(Origin::Local, Kind::Get, index, args, payload, offset, &[]);
    }

    pub(crate) fn deliver_returned(&self, r: &Returned<'_>) {
        self.count(|s| s.returned += 1);
        let handler = self.on_return.borrow().clone();
        match handler {
            Some(h) => {
                let _depth = InHandler::enter();
                h(r)
            }
            None => eprintln!(
                "clump: undeliverable {:?} {} to handler {} came back ({}); set a return handler to act on it",
                r.kind,
                if r.request { "request" } else { "reply" },
                r.handler,
                r.reason
            ),
        }
    }

    /// A handle on the current segment mapping. Handlers read long payloads and gets
    /// through it, so the mapping outlives the call even if the handler replaces the
    /// endpoint's segment.
    pub(crate) fn current_segment(&self) -> Option<Arc<SegMapping>> {
        self.segment.borrow().clone()
    }

    /// Now and then, with requests in flight, check that their destinations still live.
    fn watch_peers(&self) {
        let polls = self.polls.get().wrapping_add(1);
        self.polls.set(polls);
        if polls.is_multiple_of(LIVENESS_POLLS) {
            self.poll_liveness_now();
        }
    }

    /// Returns the requests in flight to destinations whose process has exited.
    pub(crate) fn poll_liveness_now(&self) {
        if self.outstanding_total.get() == 0 {
            return;
        }
        let dead: Vec<u32> = self
            .translations
            .borrow()
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| {
                        !t.outstanding.is_empty() && t.route.shm().is_some_and(|r| !r.alive())
                    })
                    .map(|_| i as u32)
            })
            .collect();
        for dest in dead {
            self.peer_lost(dest, ReturnReason::PeerGone);
        }
    }
}

fn kind_of(k: PacketKind) -> Kind {
    match k {
        PacketKind::Medium => Kind::Medium,
        PacketKind::Long => Kind::Long,
        _ => Kind::Short,
    }
}

/// Frees an endpoint: closes its queues, returns the requests still queued to their
/// senders, and drops handlers and translations (which may hold handles to it).
pub(crate) fn free_endpoint(ep: &Rc<EndpointCore>) {
    if ep.freed.replace(true) {
        return;
    }
    let block = ep.own.block.get();
    block.header.closed.store(1, crate::sync::Ordering::Release);
    let ring = block.request.ring();
    let end = ring.close();
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while ep.req_head.get() < end && std::time::Instant::now() < deadline {
        let head = ep.req_head.get();
        let Some(p) = ring.peek(head) else {
            // A sender claimed the slot and is still filling it.
            std::thread::yield_now();
            continue;
        };
        let packet = p.copy_used();
        ring.release(head);
        ep.req_head.set(head + 1);
        ep.with_request_bulk(&packet, |medium| {
            ep.bounce_request(&packet, ReturnReason::EndpointGone, medium.unwrap_or(&[]))
        });
    }
    ep.flush_acks();
    ep.close_net();
    // Returned requests must reach their senders even though no one polls this endpoint.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while !ep.deferred.borrow().is_empty() && std::time::Instant::now() < deadline {
        ep.flush_deferred();
        std::thread::yield_now();
    }
    ep.handlers.borrow_mut().iter_mut().for_each(|h| *h = None);
    ep.on_return.borrow_mut().take();
    ep.translations.borrow_mut().clear();
    ep.sources.borrow_mut().clear();
    ep.local.borrow_mut().clear();
    if let Some(bundle) = ep.bundle.borrow().upgrade() {
        bundle.remove(ep);
    }
}

/// `len` bytes at `offset` of `seg`, if they lie inside it; the slice borrows the handle.
pub(crate) fn segment_bytes(seg: Option<&Arc<SegMapping>>, offset: u64, len: u32) -> Option<&[u8]> {
    let seg = seg?;
    let end = offset.checked_add(len as u64)?;
    if end > seg.len as u64 {
        return None;
    }
    // SAFETY: the range lies inside the mapping, which the borrowed handle keeps mapped.
    // Peers write into it only as the program's messages direct; bytes have no invalid values.
    Some(unsafe { std::slice::from_raw_parts(seg.local_ptr()?.add(offset as usize), len as usize) })
}

/// Writes `data` at `offset` of `seg` if it fits; whether it did.
pub(crate) fn segment_write(seg: Option<&Arc<SegMapping>>, offset: u64, data: &[u8]) -> bool {
    seg.is_some_and(|seg| seg.write(offset as usize, data).is_ok())
}
