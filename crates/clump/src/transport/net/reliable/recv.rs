//! The receiving half of one channel from one peer: the next sequence number expected,
//! the buffer of datagrams that arrived ahead of it, and the reassembly of the message
//! in progress (medium payloads copied into one buffer, long and get-reply fragments
//! landed in the segment as each becomes in order).

use super::{Inbound, Micros, Peer, Stats};
use crate::transport::net::wire::{DataKind, Header, PacketKind, SACK_BYTES};
use std::collections::VecDeque;

/// What a kept out-of-order datagram counts against the reorder bounds besides its
/// payload: its header and bookkeeping.
pub(super) const EARLY_OVERHEAD: usize = std::mem::size_of::<Option<Early>>();

/// A datagram that arrived ahead of the one expected.
#[derive(Debug)]
struct Early {
    header: Header,
    payload: Vec<u8>,
}

/// The message being reassembled.
#[derive(Debug)]
struct Partial {
    /// The first fragment's header, made the whole message's.
    header: Header,
    payload: Vec<u8>,
    /// Payload bytes received so far (the next fragment's offset).
    received: u32,
    /// Lands in the segment (long, get reply) rather than into `payload`.
    bulk: bool,
    /// Every fragment landed so far.
    landed: bool,
}

/// What one datagram did to the channel.
#[derive(Debug, Default)]
pub(super) struct Received {
    /// The channel advanced: an ack is owed.
    pub(super) progressed: bool,
    /// It was ahead of the one expected (buffered or not): a duplicate ack is owed.
    pub(super) out_of_order: bool,
    /// It had arrived before: an ack is owed (the sender missed it).
    pub(super) duplicate: bool,
    /// The request queue is full: NACK this sequence number.
    pub(super) nack: Option<u32>,
}

#[derive(Debug)]
pub(super) struct RecvChannel {
    /// Next sequence number expected (the cumulative ack).
    expected: u32,
    /// `early[i]` holds sequence number `expected + 1 + i`, if it arrived.
    early: VecDeque<Option<Early>>,
    /// What the datagrams in `early` count against the reorder bounds.
    early_bytes: usize,
    partial: Option<Partial>,
    /// When an explicit ack of `expected` is due, unless a data packet carries it first.
    pub(super) ack_due: Option<Micros>,
    /// The timestamp the ack of `expected` echoes: that of the datagram that first made
    /// an ack due since the last one went, or of the latest duplicate (see `wire.rs`).
    pub(super) echo: Option<u32>,
    /// Duplicate acks owed right away (out-of-order arrivals), at most three.
    pub(super) dup_acks: u8,
    /// A NACK owed for this sequence number.
    pub(super) nack: Option<u32>,
}

/// Whether messages of this kind carry a payload in fragments (all others are one
/// datagram).
fn fragmented(kind: PacketKind) -> bool {
    match kind {
        PacketKind::Medium | PacketKind::Long | PacketKind::GetReply => true,
        PacketKind::Returned { of, .. } => {
            matches!(of, DataKind::Medium | DataKind::Long | DataKind::GetReply)
        }
        _ => false,
    }
}

/// Whether the payload lands in the segment: long and get reply, but not when they come
/// back to their sender (a returned long was meant for the other side's segment).
fn lands(kind: PacketKind) -> bool {
    matches!(kind, PacketKind::Long | PacketKind::GetReply)
}

/// What a receiver needs besides the channel: where completed messages go and how.
pub(super) struct Sink<'a, A> {
    pub(super) from: Peer<A>,
    pub(super) queue: &'a mut VecDeque<Inbound<A>>,
    /// Bound of `queue` (request channel only).
    pub(super) limit: Option<usize>,
    pub(super) land: &'a mut dyn FnMut(&Header, &[u8]) -> bool,
    pub(super) stats: &'a mut Stats,
    /// How far ahead of `expected` datagrams are buffered.
    pub(super) window: u32,
    /// Bytes this channel may still keep out of order (the reorder bounds' room).
    pub(super) room: usize,
}

impl RecvChannel {
    pub(super) fn new(initial_seq: u32) -> RecvChannel {
        RecvChannel {
            expected: initial_seq,
            early: VecDeque::new(),
            early_bytes: 0,
            partial: None,
            ack_due: None,
            echo: None,
            dup_acks: 0,
            nack: None,
        }
    }

    /// The cumulative ack to send: the next sequence number expected.
    pub(super) fn expected(&self) -> u32 {
        self.expected
    }

    /// What the datagrams kept out of order count against the reorder bounds.
    pub(super) fn early_bytes(&self) -> usize {
        self.early_bytes
    }

    /// Writes the selective-ack bitmap of what arrived ahead of `expected` into `out`
    /// (see [`SACK_BYTES`]); returns the bytes used, 0 when nothing did.
    pub(super) fn sack(&self, out: &mut [u8; SACK_BYTES]) -> usize {
        let mut used = 0;
        for (i, _) in self.early.iter().enumerate().take(8 * SACK_BYTES).filter(|(_, e)| e.is_some()) {
            out[i / 8] |= 1 << (i % 8);
            used = i / 8 + 1;
        }
        used
    }

    /// No ack or NACK owed.
    pub(super) fn owes_nothing(&self) -> bool {
        self.ack_due.is_none() && self.dup_acks == 0 && self.nack.is_none()
    }

    /// Handles a data datagram of this channel.
    pub(super) fn on_data<A: Copy>(
        &mut self,
        header: &Header,
        payload: &[u8],
        sink: &mut Sink<'_, A>,
    ) -> Received {
        let mut out = Received::default();
        let ahead = header.seq.wrapping_sub(self.expected);
        if ahead as i32 <= -1 {
            sink.stats.duplicates += 1;
            out.duplicate = true;
            return out;
        }
        if ahead > 0 {
            out.out_of_order = true;
            sink.stats.out_of_order += 1;
            if ahead >= sink.window {
                sink.stats.beyond_window += 1;
                return out;
            }
            let i = (ahead - 1) as usize;
            let cost = payload.len() + EARLY_OVERHEAD;
            let kept = self.early.get(i).is_some_and(Option::is_some);
            if !kept && cost > sink.room {
                // A sender within its window never gets here on its own (see
                // `REORDER_PEER_BYTES`); the datagram comes again after the hole.
                sink.stats.beyond_reorder_bound += 1;
                return out;
            }
            if self.early.len() <= i {
                self.early.resize_with(i + 1, || None);
            }
            match self.early.get_mut(i) {
                Some(slot @ None) => {
                    self.early_bytes += cost;
                    *slot = Some(Early {
                        header: *header,
                        payload: payload.to_vec(),
                    })
                }
                _ => {
                    sink.stats.duplicates += 1;
                    out.duplicate = true;
                }
            }
            return out;
        }
        if !self.accept(header, payload, sink) {
            out.nack = Some(self.expected);
            return out;
        }
        out.progressed = true;
        self.expected = self.expected.wrapping_add(1);
        // Whatever arrived early and is now in order follows.
        while let Some(next) = self.early.pop_front() {
            let Some(early) = next else { break };
            self.early_bytes -= early.payload.len() + EARLY_OVERHEAD;
            if !self.accept(&early.header, &early.payload, sink) {
                // Refused: dropped like a fresh arrival would be; the sender resends it.
                out.nack = Some(self.expected);
                break;
            }
            self.expected = self.expected.wrapping_add(1);
        }
        out
    }

    /// Takes the datagram that is next in order. Returns false if it starts a request
    /// while the request queue is full (it is then not consumed).
    fn accept<A: Copy>(&mut self, h: &Header, payload: &[u8], sink: &mut Sink<'_, A>) -> bool {
        if h.frag_offset == 0 {
            if self.partial.take().is_some() {
                sink.stats.stray_fragments += 1; // a message left incomplete: drop it
            }
            if sink.limit.is_some_and(|limit| sink.queue.len() >= limit) {
                return false;
            }
            let mut header = *h;
            header.ack = None;
            let bulk = lands(h.kind);
            // A landing payload goes to the segment, never here: no buffer for it.
            let capacity = if bulk {
                0
            } else if !fragmented(h.kind) {
                payload.len()
            } else {
                // Never trust a length from the wire for more than a medium's worth.
                (h.total_len as usize)
                    .min(crate::MAX_MEDIUM)
                    .max(payload.len())
            };
            self.partial = Some(Partial {
                header,
                payload: Vec::with_capacity(capacity),
                received: 0,
                bulk,
                landed: true,
            });
        }
        let Some(p) = self.partial.as_mut() else {
            sink.stats.stray_fragments += 1; // the middle of a message we never started
            return true;
        };
        if p.header.kind != h.kind
            || p.header.total_len != h.total_len
            || p.received != h.frag_offset
        {
            sink.stats.stray_fragments += 1;
            self.partial = None;
            return true;
        }
        if p.bulk {
            // After a failed landing the rest is not written: the message is refused as a
            // whole by the layer above, so nothing of it should reach the segment.
            p.landed = p.landed && (sink.land)(h, payload);
        } else {
            p.payload.extend_from_slice(payload);
        }
        p.received = p.received.saturating_add(payload.len() as u32);
        if fragmented(h.kind) && p.received < h.total_len {
            return true;
        }
        if let Some(p) = self.partial.take() {
            sink.stats.messages_delivered += 1;
            sink.queue.push_back(Inbound {
                from: sink.from,
                header: p.header,
                payload: p.payload,
                landed: p.bulk && p.landed,
            });
        }
        true
    }

    /// Forgets everything but the sequence number (the peer is unreachable).
    pub(super) fn clear(&mut self) {
        self.early = VecDeque::new();
        self.early_bytes = 0;
        self.partial = None;
        self.ack_due = None;
        self.dup_acks = 0;
        self.nack = None;
    }
}
