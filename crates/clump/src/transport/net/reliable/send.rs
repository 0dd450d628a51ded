//! The sending half of one channel to one peer: the queue of messages, the window of
//! datagrams in flight, acknowledgements, retransmission timers (backing off to
//! `rto_max`, then retrying at that pace for as long as the peer is heard from), fast
//! retransmit and NACK pauses.
//!
//! A message takes consecutive sequence numbers, one per fragment, when it is queued.
//! The machine keeps each message's payload once and encodes a fragment's header
//! whenever it goes out (first time or again); the fragment itself leaves from the
//! payload where it lies, so neither a first send nor a retransmission copies it.

use super::{Micros, ReliableConfig};
use crate::transport::net::fragment::Fragment;
use crate::transport::net::wire::{self, Header, Integrity, WireError};
use std::collections::VecDeque;
use std::sync::Arc;

/// A datagram ready to go: its header's length in the caller's buffer, and the fragment
/// of payload that follows it (none for a packet without payload).
pub(crate) type Encoded = (usize, Option<Fragment>);

/// What every datagram of a channel carries for the opposite one: the cumulative ack
/// and the timestamp it echoes.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckOut {
    pub(super) ack: u32,
    pub(super) echo: Option<u32>,
}

/// The timestamp a datagram sent at `now` carries: the clock's low 32 bits.
pub(super) fn timestamp(now: Micros) -> u32 {
    now as u32
}

/// A queued or partly acknowledged message.
#[derive(Debug)]
pub(super) struct OutMsg {
    /// The whole message's header, with `src`, `dst`, `job` filled and `seq` its first.
    pub(super) header: Header,
    pub(super) payload: Arc<Vec<u8>>,
    pub(super) frags: u32,
    /// Payload bytes per fragment (the last may hold fewer).
    pub(super) frag_len: u32,
}

impl OutMsg {
    fn first(&self) -> u32 {
        self.header.seq
    }

    fn end(&self) -> u32 {
        self.header.seq.wrapping_add(self.frags)
    }

    /// Where the payload of fragment `seq` starts and ends in the message's.
    fn fragment_bounds(&self, seq: u32) -> (usize, usize) {
        let index = seq.wrapping_sub(self.first()) as usize;
        let start = index
            .saturating_mul(self.frag_len as usize)
            .min(self.payload.len());
        let end = start
            .saturating_add(self.frag_len as usize)
            .min(self.payload.len());
        (start, end)
    }

    /// Encodes the header of fragment `seq` of this message, sent at `now` and carrying
    /// `ack`, into `buf`.
    fn encode(
        &self,
        seq: u32,
        now: Micros,
        ack: AckOut,
        integrity: Integrity,
        buf: &mut [u8],
    ) -> Result<Encoded, WireError> {
        let (start, end) = self.fragment_bounds(seq);
        let fragment = Fragment::new(&self.payload, start..end).filter(|f| !f.is_empty());
        let bytes = fragment.as_ref().map_or(&[][..], Fragment::bytes);
        let mut h = self.header;
        h.seq = seq;
        h.ack = Some(ack.ack);
        h.echo = ack.echo;
        h.timestamp = timestamp(now);
        h.frag_offset = if bytes.is_empty() { 0 } else { start as u32 };
        let len = wire::encode_header_into(&h, bytes, buf, integrity)?;
        Ok((len, fragment))
    }
}

/// A datagram in flight.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// When it was first sent: the start of its RTT sample.
    first_sent: Micros,
    /// When it was sent last.
    last_sent: Micros,
    /// When its retransmission timer fires, if it is the oldest (`Micros::MAX` while it
    /// waits in `retx`).
    deadline: Micros,
    /// Its current RTO, doubled at each timeout.
    rto: Micros,
    /// Sent more than once: no RTT sample (Karn).
    retransmitted: bool,
    /// Waiting in the retransmission queue.
    queued: bool,
    /// The receiver said it holds it, ahead of a hole (selective ack).
    sacked: bool,
}

/// What [`SendChannel::on_timer`] found.
#[derive(Debug, Default)]
pub(super) struct Fired {
    /// The oldest datagram timed out and was queued for retransmission.
    pub(super) retransmit: bool,
    /// A NACK pause ended: queued data may go out again.
    pub(super) resumed: bool,
    /// The backed-off RTO of the datagram queued for retransmission.
    pub(super) rto: Micros,
}

#[derive(Debug)]
pub(super) struct SendChannel {
    /// Oldest unacknowledged sequence number.
    una: u32,
    /// Next sequence number to send for the first time.
    nxt: u32,
    /// Sequence number the next queued message starts at.
    next_seq: u32,
    /// Messages with a fragment unsent or unacknowledged, in sequence order.
    msgs: VecDeque<OutMsg>,
    /// Index in `msgs` of the message holding `nxt` (`msgs.len()` when all are sent).
    nxt_msg: usize,
    /// One per datagram in flight: `slots[i]` is sequence number `una + i`.
    slots: VecDeque<Slot>,
    /// Sequence numbers to send again, in the order they were found due.
    retx: VecDeque<u32>,
    /// Payload bytes in `msgs`.
    bytes: usize,
    /// Explicit acks of `una` in a row while data is in flight.
    dup_acks: u8,
    /// The `una` that was fast-retransmitted already (once per hole).
    fast_done: Option<u32>,
    /// The peer's receive queue was full: nothing is sent until then.
    paused_until: Option<Micros>,
    /// The sequence number the peer refused.
    nacked: u32,
    /// Next pause after a NACK; doubles per NACK, capped, reset by progress.
    nack_backoff: Micros,
    /// Retransmissions queued by partial acks, not yet counted by the caller.
    partial_acks: u64,
    /// Payloads of messages acknowledged whole, for the caller to reuse.
    pub(super) finished: Vec<Arc<Vec<u8>>>,
    /// Whether its packets carry a CRC, or travel sealed (`ReliableConfig::integrity`).
    pub(super) integrity: Integrity,
}

impl SendChannel {
    pub(super) fn new(initial_seq: u32, cfg: &ReliableConfig) -> SendChannel {
        SendChannel {
            una: initial_seq,
            nxt: initial_seq,
            next_seq: initial_seq,
            msgs: VecDeque::new(),
            nxt_msg: 0,
            slots: VecDeque::new(),
            retx: VecDeque::new(),
            bytes: 0,
            dup_acks: 0,
            fast_done: None,
            paused_until: None,
            nacked: 0,
            nack_backoff: cfg.nack_delay,
            partial_acks: 0,
            finished: Vec::new(),
            integrity: cfg.integrity,
        }
    }

    /// Queues a message of `frags` fragments; its header's `seq` is set here.
    pub(super) fn push(&mut self, mut msg: OutMsg) {
        msg.header.seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(msg.frags);
        self.bytes += msg.payload.len();
        self.msgs.push_back(msg);
    }

    /// Retransmissions that partial acks queued since the last call.
    pub(super) fn take_partial_acks(&mut self) -> u64 {
        std::mem::take(&mut self.partial_acks)
    }

    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(super) fn messages(&self) -> usize {
        self.msgs.len()
    }

    /// Nothing queued or unacknowledged.
    pub(super) fn is_idle(&self) -> bool {
        self.msgs.is_empty()
    }

    /// A datagram was sent and is not acknowledged yet.
    pub(super) fn has_in_flight(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Messages none of whose fragments was ever sent: the peer cannot have them.
    pub(super) fn unsent_messages(&self) -> usize {
        let started = self
            .msgs
            .get(self.nxt_msg)
            .is_some_and(|m| m.first() != self.nxt);
        (self.msgs.len() - self.nxt_msg.min(self.msgs.len())).saturating_sub(usize::from(started))
    }

    pub(super) fn is_paused(&self) -> bool {
        self.paused_until.is_some()
    }

    #[cfg(test)]
    pub(super) fn paused_until(&self) -> Option<Micros> {
        self.paused_until
    }

    fn in_flight(&self) -> u32 {
        self.nxt.wrapping_sub(self.una)
    }

    /// A datagram could go out now: a retransmission, or new data within the window.
    pub(super) fn has_work(&self, window: u32) -> bool {
        !self.is_paused() && (!self.retx.is_empty() || self.can_send_new(window))
    }

    /// Bytes of the next new datagram (header and fragment), if the window lets it go now.
    pub(super) fn next_new_len(&self, window: u32) -> Option<usize> {
        if !self.can_send_new(window) {
            return None;
        }
        let msg = self.msgs.get(self.nxt_msg)?;
        let (start, end) = msg.fragment_bounds(self.nxt);
        Some(msg.header.wire_len() + (end - start))
    }

    fn can_send_new(&self, window: u32) -> bool {
        self.nxt != self.next_seq && self.in_flight() < window && !self.is_paused()
    }

    /// The message holding `seq`, which must be in `[una, next_seq)`.
    fn msg_of(&self, seq: u32) -> Option<&OutMsg> {
        let rel = seq.wrapping_sub(self.una);
        let i = self
            .msgs
            .partition_point(|m| m.end().wrapping_sub(self.una) <= rel);
        self.msgs.get(i)
    }

    /// Sends the next new datagram (its header into `buf`), if the window allows;
    /// returns it and its retransmission deadline.
    pub(super) fn send_new(
        &mut self,
        now: Micros,
        rto: Micros,
        window: u32,
        ack: AckOut,
        buf: &mut [u8],
    ) -> Option<Result<(Encoded, Micros), WireError>> {
        if !self.can_send_new(window) {
            return None;
        }
        let seq = self.nxt;
        let msg = self.msgs.get(self.nxt_msg)?;
        let encoded = match msg.encode(seq, now, ack, self.integrity, buf) {
            Ok(encoded) => encoded,
            Err(e) => return Some(Err(e)),
        };
        if msg.end() == seq.wrapping_add(1) {
            self.nxt_msg += 1;
        }
        self.nxt = seq.wrapping_add(1);
        let deadline = now.saturating_add(rto);
        self.slots.push_back(Slot {
            first_sent: now,
            last_sent: now,
            deadline,
            rto,
            retransmitted: false,
            queued: false,
            sacked: false,
        });
        Some(Ok((encoded, deadline)))
    }

    /// Sends the next datagram waiting for retransmission (its header into `buf`);
    /// returns it and its new retransmission deadline.
    pub(super) fn send_retx(
        &mut self,
        now: Micros,
        ack: AckOut,
        buf: &mut [u8],
    ) -> Option<Result<(Encoded, Micros), WireError>> {
        if self.is_paused() {
            return None;
        }
        let integrity = self.integrity;
        while let Some(seq) = self.retx.pop_front() {
            let rel = seq.wrapping_sub(self.una) as usize;
            match self.slots.get(rel) {
                Some(slot) if slot.queued => {}
                _ => continue, // acknowledged meanwhile
            }
            let encoded = match self.msg_of(seq)?.encode(seq, now, ack, integrity, buf) {
                Ok(encoded) => encoded,
                Err(e) => return Some(Err(e)),
            };
            let slot = self.slots.get_mut(rel)?;
            slot.queued = false;
            slot.retransmitted = true;
            slot.last_sent = now;
            slot.deadline = now.saturating_add(slot.rto);
            return Some(Ok((encoded, slot.deadline)));
        }
        None
    }

    fn queue_retx(&mut self, rel: usize) -> bool {
        self.queue_retx_at(rel, self.retx.len())
    }

    /// Queues datagram `una + rel` for retransmission at place `at` of the queue, unless
    /// it waits there already.
    fn queue_retx_at(&mut self, rel: usize, at: usize) -> bool {
        let Some(slot) = self.slots.get_mut(rel) else {
            return false;
        };
        if slot.queued {
            return false;
        }
        slot.queued = true;
        slot.deadline = Micros::MAX;
        self.retx.insert(at, self.una.wrapping_add(rel as u32));
        true
    }

    /// Applies a cumulative ack (`ack` = next sequence number the peer expects), which
    /// echoes the timestamp `echo`. Returns `None` if it acknowledges nothing new, else
    /// the RTT sample it yields.
    pub(super) fn on_ack(
        &mut self,
        ack: u32,
        echo: Option<u32>,
        now: Micros,
        rto: Micros,
        nack_delay: Micros,
    ) -> Option<Option<Micros>> {
        let acked = ack.wrapping_sub(self.una);
        if acked == 0 || acked > self.in_flight() {
            return None; // old, or (bogus) beyond what was sent
        }
        // The echoed timestamp is that of the very datagram (first send or retransmission)
        // whose arrival this ack answers, so it times the round trip even when the range
        // holds retransmissions. Without one, Karn's rule over the whole ack: the newest
        // datagram acked gives the sample, unless it was sent again, or a retransmission
        // it was sent before fills a hole in the range (it waited for that, not for the
        // network, and its round trip would inflate the estimate, to `rto_max` under
        // heavy loss).
        let mut newest = None;
        let mut resent_at = None;
        for _ in 0..acked {
            if let Some(slot) = self.slots.pop_front() {
                if slot.retransmitted {
                    resent_at = Some(slot.last_sent.max(resent_at.unwrap_or(0)));
                }
                newest = Some(slot);
            }
        }
        let echoed = echo.and_then(|e| {
            let rtt = timestamp(now).wrapping_sub(e);
            // A value "from the future" is not one this endpoint sent: no sample.
            (rtt < 1 << 31).then_some(Micros::from(rtt))
        });
        let karn = newest
            .filter(|s| !s.retransmitted && resent_at.is_none_or(|t| s.first_sent >= t))
            .map(|s| now.saturating_sub(s.first_sent));
        let sample = echoed.or(karn);
        self.una = ack;
        while let Some(m) = self.msgs.front() {
            // A message is done when its end is at or before `una`; ends of queued
            // messages are at most `next_seq`, so the wrapped distance is small.
            let left = m.end().wrapping_sub(self.una) as i32;
            if left > 0 {
                break;
            }
            self.bytes -= m.payload.len();
            if let Some(m) = self.msgs.pop_front() {
                self.finished.push(m.payload);
            }
            self.nxt_msg = self.nxt_msg.saturating_sub(1);
        }
        if let Some(front) = self.slots.front_mut() {
            if !front.queued {
                // Progress restarts the timer of the new oldest datagram (RFC 6298 5.3).
                front.deadline = front.deadline.max(now.saturating_add(rto));
            }
            // A partial ack (NewReno): the peer got a retransmission but not this
            // datagram, which was sent before it, so it is lost too: resend it now
            // rather than a timeout later.
            let lost = resent_at.is_some_and(|t| front.last_sent < t);
            if lost && self.queue_retx(0) {
                self.partial_acks += 1;
            }
        }
        self.dup_acks = 0;
        self.paused_until = None;
        self.nack_backoff = nack_delay;
        Some(sample)
    }

    /// Applies the selective-ack bitmap of an ack of `ack` (see `wire::SACK_BYTES`), then
    /// queues for retransmission every datagram the receiver lacks although one after it
    /// in sequence, sent no earlier than it was, arrived: it is lost (as RACK, RFC 8985,
    /// with the order of sending standing in for time within one batch). A hole is so
    /// found in one round trip whatever its place in the window, and a lost
    /// retransmission as soon as a later datagram arrives. Returns the datagrams queued.
    pub(super) fn on_sack(&mut self, ack: u32, bitmap: &[u8]) -> u64 {
        if ack != self.una || bitmap.is_empty() {
            return 0;
        }
        // Bit i stands for the datagram after `una + i`: slot i + 1.
        let arrived = |bit: usize| bitmap.get(bit / 8).is_some_and(|b| b >> (bit % 8) & 1 == 1);
        // From the newest back, with the latest send of any datagram sacked after the
        // one at hand; the lost are queued in sequence order, each in front of those
        // found before it (which are newer) and behind what was queued already.
        let behind = self.retx.len();
        let mut evidence: Option<Micros> = None;
        let mut queued = 0;
        for rel in (0..self.slots.len()).rev() {
            let slot = &mut self.slots[rel];
            slot.sacked |= rel > 0 && arrived(rel - 1);
            if slot.sacked {
                evidence = Some(evidence.map_or(slot.last_sent, |t| t.max(slot.last_sent)));
            } else if evidence.is_some_and(|t| slot.last_sent <= t) {
                queued += u64::from(self.queue_retx_at(rel, behind));
            }
        }
        queued
    }

    /// Counts an explicit ack that acknowledged nothing new; the third in a row queues
    /// the oldest datagram for a fast retransmission (once per hole). Returns whether
    /// it did.
    pub(super) fn on_dup_ack(&mut self, ack: u32) -> bool {
        if ack != self.una || self.in_flight() == 0 || self.is_paused() {
            return false;
        }
        self.dup_acks = self.dup_acks.saturating_add(1);
        if self.dup_acks < 3 || self.fast_done == Some(self.una) {
            return false;
        }
        self.fast_done = Some(self.una);
        self.queue_retx(0)
    }

    /// The peer refused `seq` because its receive queue is full: everything before it
    /// arrived (the caller applied that as an ack); pause until the backoff ends.
    /// Returns the end of the pause, or `None` if the NACK is stale.
    pub(super) fn on_nack(&mut self, seq: u32, now: Micros, cap: Micros) -> Option<Micros> {
        if seq != self.una || self.in_flight() == 0 {
            return None;
        }
        let until = match self.paused_until {
            Some(until) => until, // a second NACK of the same attempt
            None => {
                let until = now.saturating_add(self.nack_backoff);
                self.nack_backoff = self.nack_backoff.saturating_mul(2).min(cap).max(1);
                self.paused_until = Some(until);
                until
            }
        };
        self.nacked = seq;
        self.dup_acks = 0;
        Some(until)
    }

    /// A duplicate request arrived from the peer: it did not get the reply that carried
    /// its ack, so the oldest unacknowledged reply is likely lost; resend it if it was
    /// sent at least `age` ago (a younger one is likely still on its way). Only the
    /// oldest: once it arrives, the ack that comes back is partial if later ones were
    /// lost too, and those follow (see `on_ack`); resending every unacknowledged reply
    /// at each duplicate turned one duplicate into dozens in the simulation.
    pub(super) fn resend_oldest(&mut self, now: Micros, age: Micros) -> u64 {
        if self.is_paused() {
            return 0;
        }
        let old = self
            .slots
            .front()
            .is_some_and(|s| s.last_sent.saturating_add(age) <= now);
        u64::from(old && self.queue_retx(0))
    }

    /// Fires what is due at `now`: the end of a NACK pause, retransmission timers.
    /// `rto` is the peer's current base RTO.
    pub(super) fn on_timer(
        &mut self,
        now: Micros,
        rto: Micros,
        heard_at: Micros,
        cfg: &ReliableConfig,
    ) -> Fired {
        let mut fired = Fired::default();
        if let Some(until) = self.paused_until {
            if now < until {
                return fired;
            }
            // The pause is over: send the refused datagram again, and give the others
            // a fresh timer, since nothing was sent while paused.
            self.paused_until = None;
            for slot in self.slots.iter_mut().filter(|s| !s.queued) {
                slot.rto = rto;
                slot.deadline = now.saturating_add(rto);
            }
            if self.nacked == self.una && self.queue_retx(0) {
                if let Some(slot) = self.slots.front_mut() {
                    slot.rto = rto;
                }
            }
            fired.resumed = true;
        }
        // One timer per channel, on the oldest datagram (as TCP): the later ones cannot
        // be acknowledged before it, and resending them all whenever it is lost would
        // resend a whole window the receiver mostly holds already. Later holes are found
        // by partial acks (see `on_ack`) and duplicate acks.
        if let Some(slot) = self.slots.front_mut() {
            if !slot.queued && slot.deadline <= now {
                // Backing off spares a path or peer that has gone quiet; one that was
                // heard from since this datagram went out is there and losing datagrams
                // at random, and waiting longer for it only slows delivery.
                let quiet = heard_at <= slot.last_sent;
                let factor = if quiet { 2 } else { 1 };
                slot.rto = slot.rto.saturating_mul(factor).clamp(cfg.rto_min, cfg.rto_max);
                fired.rto = slot.rto;
                fired.retransmit = self.queue_retx(0);
            }
        }
        fired
    }

    /// The earliest moment [`SendChannel::on_timer`] has something to do.
    pub(super) fn next_deadline(&self) -> Option<Micros> {
        if let Some(until) = self.paused_until {
            return Some(until);
        }
        Some(self.slots.front()?.deadline)
    }

    /// Forgets everything (the peer is unreachable).
    pub(super) fn clear(&mut self) {
        self.msgs = VecDeque::new();
        self.slots = VecDeque::new();
        self.retx = VecDeque::new();
        self.bytes = 0;
        self.nxt_msg = 0;
        self.una = self.next_seq;
        self.nxt = self.next_seq;
        self.paused_until = None;
    }
}
