//! The request path: checks, credits, and the enqueue into the destination's queue block.
//!
//! Everything the sender can check it checks here, before touching the destination (001:
//! the tag in the destination block, then the queue): what fails comes back to handler 0
//! at the next poll, never silently lost. A send that must wait for credit or queue space
//! polls (so this process keeps serving its peers) and backs off, yielding the core.

use crate::endpoint::{check_range, Endpoint, EndpointCore, LocalEvent, SavedRequest};
use crate::error::{Error, Result, ReturnReason};
use crate::message::{ArgBuf, HandlerIndex, Kind, ReturnedMessage, MAX_ARGS, MAX_LONG, MAX_MEDIUM};
use crate::route::Route;
use crate::segment_fallback::Fallback;
use crate::shm::block::REPLY_SLOTS;
use crate::shm::packet::{PacketKind, NO_BULK};
use crate::shm::remote::SegMapping;
use crate::shm::ring::PushError;
use crate::sync::Ordering;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a send from inside a handler may wait for space before it reports congestion:
/// a handler's wait cannot serve requests, so two handlers waiting on each other would
/// otherwise hang.
const HANDLER_STALL_LIMIT: Duration = Duration::from_secs(10);
/// How often a waiting sender checks that its destination's process is still alive.
const LIVENESS_PERIOD: Duration = Duration::from_millis(10);
/// Local events (returned messages, finished gets) that may wait for a poll before
/// sends that bounce fail instead.
pub(crate) const MAX_PENDING_RETURNS: usize = 4096;

/// A message about to be sent.
pub(crate) struct Outgoing<'a> {
    pub kind: Kind,
    pub handler: HandlerIndex,
    pub args: &'a [u32],
    pub payload: &'a [u8],
    pub offset: u64,
}

impl Outgoing<'_> {
    /// Checks what the caller controls; a failure is an error of the call, nothing is sent.
    pub fn validate(&self) -> Result<()> {
        if self.args.len() > MAX_ARGS {
            return Err(Error::BadArg(format!(
                "{} arguments exceed the limit of {MAX_ARGS}",
                self.args.len()
            )));
        }
        if self.handler == 0 {
            return Err(Error::BadHandlerIndex(0));
        }
        let limit = match self.kind {
            Kind::Short => 0,
            Kind::Medium => MAX_MEDIUM,
            Kind::Long | Kind::Get => MAX_LONG,
        };
        if self.payload.len() > limit {
            return Err(Error::BadArg(format!(
                "{:?} payload of {} bytes exceeds the limit of {limit}",
                self.kind,
                self.payload.len()
            )));
        }
        Ok(())
    }

    pub fn returned(
        &self,
        reason: ReturnReason,
        request: bool,
        translation: Option<u32>,
    ) -> ReturnedMessage {
        ReturnedMessage {
            reason,
            request,
            kind: self.kind,
            handler: self.handler,
            args: ArgBuf::from_slice(self.args),
            payload: if self.kind == Kind::Medium {
                self.payload.to_vec()
            } else {
                Vec::new()
            },
            offset: self.offset,
            translation,
        }
    }
}

impl Endpoint {
    /// Sends a short request: handler `handler` runs at translation `dest` with `args`.
    pub fn request(&self, dest: u32, handler: HandlerIndex, args: &[u32]) -> Result<()> {
        self.core.send_request(
            dest,
            Outgoing {
                kind: Kind::Short,
                handler,
                args,
                payload: &[],
                offset: 0,
            },
        )
    }

    /// Sends a medium request: `payload` (at most [`MAX_MEDIUM`] bytes) reaches the handler.
    pub fn request_medium(
        &self,
        dest: u32,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
    ) -> Result<()> {
        self.core.send_request(
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
        self.core.send_request(
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
        self.core.get(
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

/// Rounds of a wait that spin before it yields or sleeps.
const SPIN_ROUNDS: u32 = 16;

/// State of one wait for credit or space.
pub(crate) struct Stall {
    rounds: u32,
    since: Instant,
    next_check: Instant,
}

pub(crate) enum StallOutcome {
    Retry,
    /// The destination cannot be reached any more, for this reason.
    Gone(ReturnReason),
}

impl Stall {
    pub fn new() -> Stall {
        let now = Instant::now();
        Stall {
            rounds: 0,
            since: now,
            next_check: now + LIVENESS_PERIOD,
        }
    }

    /// Spin a little, then yield, then sleep in growing steps: a waiting process must leave
    /// the core to the peers it waits for (16 processes may share 2 cores).
    pub fn back_off(&mut self) {
        self.rounds += 1;
        match self.rounds {
            0..=SPIN_ROUNDS => (0..1u32 << self.rounds.min(6)).for_each(|_| std::hint::spin_loop()),
            17..=200 => std::thread::yield_now(),
            n => std::thread::sleep(Duration::from_micros(((n - 200) as u64 * 10).min(1000))),
        }
    }
}

impl EndpointCore {
    pub(crate) fn send_request(self: &Rc<Self>, dest: u32, o: Outgoing<'_>) -> Result<()> {
        self.check_live()?;
        o.validate()?;
        let remote = match self.resolve(dest)? {
            Ok(Route::Shm(remote)) => remote,
            Ok(Route::Net(peer)) => return self.send_request_net(dest, peer, o),
            Err(reason) => return self.bounce(&o, dest, reason),
        };
        let route = Route::Shm(remote.clone());
        let segment = if o.kind == Kind::Long {
            match self.dest_segment(dest, o.offset as usize, o.payload.len()) {
                Ok(seg) => Some(seg),
                Err(reason) => return self.bounce(&o, dest, reason),
            }
        } else {
            None
        };
        let mut stall = Stall::new();
        while !self.has_credit(dest) {
            self.count(|s| s.credit_waits += 1);
            if let StallOutcome::Gone(reason) = self.stall(dest, &route, &mut stall)? {
                return self.bounce(&o, dest, reason);
            }
        }
        // A handler run while waiting may have freed this endpoint.
        self.check_live()?;
        let queue = &remote.block.get().request;
        let bulk = if o.kind == Kind::Medium {
            let block = loop {
                if let Some(b) = queue.bulk().claim() {
                    break b;
                }
                self.count(|s| s.queue_full_waits += 1);
                if let StallOutcome::Gone(reason) = self.stall(dest, &route, &mut stall)? {
                    return self.bounce(&o, dest, reason);
                }
            };
            queue.write_bulk(block, o.payload);
            block
        } else {
            NO_BULK
        };
        if let Some(Err(e)) = segment.map(|seg| seg.write(o.offset as usize, o.payload)) {
            return match self.segment_fallback(dest, &e) {
                Fallback::Network(peer) => self.send_request_net(dest, peer, o),
                Fallback::Return(reason) => self.bounce(&o, dest, reason),
            };
        }
        let src_tag = self.own.block.get().header.tag.load(Ordering::Relaxed);
        loop {
            let pushed = queue.ring().push(|p| {
                p.kind = match o.kind {
                    Kind::Medium => PacketKind::Medium,
                    Kind::Long => PacketKind::Long,
                    _ => PacketKind::Short,
                } as u8;
                p.handler = o.handler;
                p.nargs = o.args.len() as u8;
                p.len = o.payload.len() as u32;
                p.bulk = bulk;
                p.credit_slot = dest;
                p.offset = o.offset;
                p.src = self.name.id;
                p.src_tag = src_tag;
                p.args[..o.args.len()].copy_from_slice(o.args);
            });
            match pushed {
                Ok(()) => break,
                Err(PushError::Closed) => {
                    if bulk != NO_BULK {
                        queue.bulk().free(bulk);
                    }
                    return self.bounce(&o, dest, ReturnReason::EndpointGone);
                }
                Err(PushError::Full) => {
                    self.count(|s| s.queue_full_waits += 1);
                    let outcome = self.stall(dest, &route, &mut stall);
                    if !matches!(outcome, Ok(StallOutcome::Retry)) {
                        // Giving up: the claimed bulk block must go back, or the
                        // destination loses it for good.
                        if bulk != NO_BULK {
                            queue.bulk().free(bulk);
                        }
                        if let StallOutcome::Gone(reason) = outcome? {
                            return self.bounce(&o, dest, reason);
                        }
                    }
                }
            }
        }
        self.record_outstanding(dest, &o);
        self.count(|s| s.requests_sent += 1);
        remote.notify();
        Ok(())
    }

    fn get(
        self: &Rc<Self>,
        dest: u32,
        o: Outgoing<'_>,
        len: usize,
        dst_offset: usize,
    ) -> Result<()> {
        self.check_live()?;
        o.validate()?;
        if len > MAX_LONG {
            return Err(Error::BadArg(format!(
                "get of {len} bytes exceeds the limit of {MAX_LONG}"
            )));
        }
        let local = self
            .segment
            .borrow()
            .clone()
            .ok_or_else(|| Error::BadArg("get needs a local segment".into()))?;
        check_range(dst_offset, len, local.len)?;
        match self.resolve(dest)? {
            Err(reason) => return self.bounce(&o, dest, reason),
            Ok(Route::Net(peer)) => return self.get_net(dest, peer, o, len, dst_offset),
            Ok(Route::Shm(_)) => {}
        }
        let seg = match self.dest_segment(dest, o.offset as usize, len) {
            Ok(seg) => seg,
            Err(reason) => return self.bounce(&o, dest, reason),
        };
        if let Err(e) = seg.copy_to(o.offset as usize, &local, dst_offset, len) {
            return match self.segment_fallback(dest, &e) {
                Fallback::Network(peer) => self.get_net(dest, peer, o, len, dst_offset),
                Fallback::Return(reason) => self.bounce(&o, dest, reason),
            };
        }
        self.local.borrow_mut().push_back(LocalEvent::GetDone {
            handler: o.handler,
            args: ArgBuf::from_slice(o.args),
            offset: dst_offset as u64,
            len,
        });
        Ok(())
    }

    /// The route to translation `dest`, or the reason a message to it comes back. Over
    /// shared memory the tag is checked here, in the destination's block (001); over the
    /// network the destination checks it.
    fn resolve(&self, dest: u32) -> Result<std::result::Result<Route, ReturnReason>> {
        let table = self.translations.borrow();
        let t = table
            .get(dest as usize)
            .and_then(|t| t.as_ref())
            .ok_or(Error::NoTranslation(dest))?;
        if let Some(reason) = t.dead {
            return Ok(Err(reason));
        }
        Ok(match &t.route {
            Route::Shm(remote) if remote.closed() => Err(ReturnReason::EndpointGone),
            Route::Shm(remote)
                if remote.block.get().header.tag.load(Ordering::Acquire) != t.tag =>
            {
                Err(ReturnReason::BadTag)
            }
            route => Ok(route.clone()),
        })
    }

    /// The destination's segment if `offset..offset+len` lies inside it.
    fn dest_segment(
        &self,
        dest: u32,
        offset: usize,
        len: usize,
    ) -> std::result::Result<Arc<SegMapping>, ReturnReason> {
        let mut table = self.translations.borrow_mut();
        // Resolved just before, with no poll in between; a missing entry is still no panic.
        let Some(t) = table.get_mut(dest as usize).and_then(|t| t.as_mut()) else {
            return Err(ReturnReason::EndpointGone);
        };
        let Route::Shm(remote) = &t.route else {
            return Err(ReturnReason::Unreachable);
        };
        match remote.segment(t.segment.as_ref()) {
            Ok(Some(seg)) => {
                t.segment = Some(seg.clone());
                check_range(offset, len, seg.len)
                    .map(|_| seg)
                    .map_err(|_| ReturnReason::BadSegmentOffset)
            }
            Ok(None) => Err(ReturnReason::BadSegmentOffset),
            Err(_) => Err(if remote.alive() {
                ReturnReason::Unreachable
            } else {
                ReturnReason::PeerGone
            }),
        }
    }

    pub(crate) fn has_credit(&self, dest: u32) -> bool {
        let table = self.translations.borrow();
        // Handlers run while a send waits and may unmap the entry: that is no panic.
        let in_flight = table
            .get(dest as usize)
            .and_then(|t| t.as_ref())
            .map_or(0, |t| t.outstanding.len());
        in_flight < self.credits && self.outstanding_total.get() < REPLY_SLOTS
    }

    pub(crate) fn record_outstanding(&self, dest: u32, o: &Outgoing<'_>) {
        let mut table = self.translations.borrow_mut();
        if let Some(t) = table.get_mut(dest as usize).and_then(|t| t.as_mut()) {
            t.outstanding.push_back(SavedRequest {
                kind: o.kind,
                handler: o.handler,
                args: ArgBuf::from_slice(o.args),
                offset: o.offset,
            });
            self.outstanding_total.set(self.outstanding_total.get() + 1);
        }
    }

    /// Queues `o` for handler 0 with `reason`; the send itself succeeded in reporting it.
    ///
    /// Returned messages wait in the local event queue for a poll to run handler 0; a
    /// program that keeps sending messages that bounce, and never polls, gets an error
    /// once [`MAX_PENDING_RETURNS`] local events wait, so that the queue stays bounded
    /// and the message stays with its sender.
    pub(crate) fn bounce(&self, o: &Outgoing<'_>, dest: u32, reason: ReturnReason) -> Result<()> {
        let pending = self.local.borrow().len();
        if pending >= MAX_PENDING_RETURNS {
            return Err(Error::ReturnsPending(pending));
        }
        self.return_locally(o.returned(reason, true, Some(dest)));
        Ok(())
    }

    /// One round of waiting for `dest`: make progress, back off, watch the peer's health.
    pub(crate) fn stall(
        self: &Rc<Self>,
        dest: u32,
        route: &Route,
        s: &mut Stall,
    ) -> Result<StallOutcome> {
        self.check_live()?;
        let network = matches!(route, Route::Net(_));
        crate::dispatch::progress_while_waiting(self, network)?;
        // Progress may have found the destination gone (the network gave up on it).
        if let Some(reason) = self.dead_reason(dest) {
            return Ok(StallOutcome::Gone(reason));
        }
        if network && s.rounds > SPIN_ROUNDS {
            // Credits come back in datagrams: sleep until one arrives (or a while passes
            // for the retransmission timers), not for a fixed time.
            s.rounds += 1;
            self.wait_for_datagram(Duration::from_millis(1));
        } else {
            s.back_off();
        }
        let now = Instant::now();
        if now >= s.next_check {
            s.next_check = now + LIVENESS_PERIOD;
            if !route.alive() {
                self.peer_lost(dest, ReturnReason::PeerGone);
                return Ok(StallOutcome::Gone(ReturnReason::PeerGone));
            }
            if crate::dispatch::in_handler() && now - s.since > HANDLER_STALL_LIMIT {
                return Err(Error::Congestion(HANDLER_STALL_LIMIT.as_millis() as u64));
            }
        }
        Ok(StallOutcome::Retry)
    }

    fn dead_reason(&self, dest: u32) -> Option<ReturnReason> {
        let table = self.translations.borrow();
        table.get(dest as usize)?.as_ref()?.dead
    }

    /// The destination of translation `dest` cannot be reached any more (its process
    /// exited, or the network gave up on it): its unanswered requests come back.
    pub(crate) fn peer_lost(&self, dest: u32, reason: ReturnReason) {
        let lost: Vec<SavedRequest> = {
            let mut table = self.translations.borrow_mut();
            let Some(t) = table.get_mut(dest as usize).and_then(|t| t.as_mut()) else {
                return;
            };
            t.dead = Some(reason);
            t.outstanding.drain(..).collect()
        };
        self.outstanding_total
            .set(self.outstanding_total.get() - lost.len());
        for r in lost {
            self.return_locally(ReturnedMessage {
                reason,
                request: true,
                kind: r.kind,
                handler: r.handler,
                args: r.args,
                payload: Vec::new(),
                offset: r.offset,
                translation: Some(dest),
            });
        }
    }
}
