//! The reliability and flow-control state machine of the UDP transport. Pure: it owns
//! no socket and reads no clock; the caller feeds it datagrams, sends and the time, and
//! takes from it datagrams to transmit, completed messages and events (the shape of
//! `quinn-proto`), which is what lets a seeded simulation drive it through millions of
//! lost, duplicated, reordered and corrupted datagrams (`reliable_sim`).
//!
//! The protocol, between the local endpoint and each peer:
//!
//! - **Two channels each way** (request, reply), each an independent reliable in-order
//!   stream of datagrams, so that replies never wait behind requests. A message is one
//!   or more fragments with consecutive sequence numbers (u32 from 1, wrapping).
//! - **Acks ride on the opposite channel**: every packet on channel C from R to L carries
//!   the cumulative ack (next sequence number expected) of L→R on the other channel, so
//!   replies acknowledge requests and requests acknowledge replies. An explicit
//!   [`PacketKind::Ack`] on channel C acknowledges what a data packet on C would; one
//!   goes out when data arrived and no outgoing packet carried its ack by the time the
//!   caller asks for transmissions (after `cfg.ack_delay`, zero by default, but at
//!   once when a quarter of the sender's window came unacknowledged). An
//!   out-of-order arrival is acknowledged at once (a duplicate ack) with a
//!   selective-ack bitmap of what arrived ahead of the hole; the sender resends every
//!   datagram the bitmap shows missing behind one sent no earlier that arrived (RACK),
//!   so every hole of a window is repaired in one round trip. Without a bitmap, three
//!   duplicate acks make it retransmit the oldest datagram (fast retransmit). Every
//!   packet carries its send time and every ack echoes the time of the datagram it
//!   answers, so that round trips are measured even across retransmissions.
//! - **Receiver**: keeps datagrams up to `cfg.window` ahead, drops duplicates (and acks
//!   them), delivers whole messages in order. Long and get-reply fragments land through
//!   the caller's `land` closure as each becomes in order (so never twice); medium and
//!   returned payloads are reassembled. A duplicate request makes the oldest
//!   unacknowledged reply to that peer go out again if it is older than the smoothed
//!   RTT (AM-II: a duplicate request re-sends the saved reply; the request itself is
//!   never delivered twice).
//! - **NACK**: a request whose first fragment would overflow the request queue
//!   (`cfg.recv_queue` messages) is dropped and NACKed; the sender pauses that channel
//!   for `nack_delay` (doubling per NACK, capped at `rto_max`) and sends it again. NACK
//!   time does not count against the retry budget: the peer is alive. Replies are never
//!   NACKed (the AM layer's credits bound them).
//! - **Retransmission**: one timer per channel, on the oldest datagram in flight (as
//!   TCP), after an RTO from a smoothed RTT (Karn's rule), clamped to `[rto_min,
//!   rto_max]`, doubled per timeout (unless the peer was heard from since the datagram
//!   went out: it is there, losing at random) up to `rto_max` (200 ms by default, and at
//!   most a 32nd of `cfg.timeout`, as is the probe's pace) and then resent
//!   at that pace for as long as the peer is heard from: there is no budget of attempts,
//!   so heavy loss makes delivery slow, never a failure. Later holes are filled without
//!   waiting for it: three duplicate acks (fast retransmit), or a partial ack (NewReno:
//!   an ack of a retransmission that stops short of a datagram sent before that
//!   retransmission means that datagram was lost too).
//! - **Silence, not attempts, decides**: a peer *owes* this endpoint something while a
//!   datagram to it is unacknowledged or queued, or while the caller awaits answers from
//!   it ([`Reliable::await_answers`]). While it owes and nothing is in flight, a probe (an
//!   ack with [`PROBE`] as its sequence number, which the peer answers with an ack) goes
//!   out every `cfg.probe` of silence, so that a peer that holds our requests unanswered
//!   is still heard from. A peer that owes and has sent no valid datagram for
//!   `cfg.timeout` is reported once as [`Event::Silent`]; the caller judges it with what
//!   it knows (a launcher that says the process lives), through [`Reliable::judge`],
//!   and gives it up ([`Reliable::give_up`]) unless that says to wait. Given up, the peer is
//!   unreachable: its send state is dropped, sends to it fail with
//!   [`SendError::Unreachable`], and its datagrams are ignored from then on (messages from
//!   it already complete stay in the inbound queues).
//! - **Window**: at most `cfg.window` datagrams in flight per channel, and no more than
//!   [`WINDOW_BYTES`] of them; later messages wait in the channel's queue, which the
//!   caller bounds with [`Reliable::queued_bytes`].
//! - **Datagram size per peer**: `cfg.max_datagram` unless the caller learned a smaller
//!   one for the path to that peer ([`Reliable::set_path_datagram`]); a message is cut
//!   into fragments of its peer's size when it is queued.
//!
//! What the caller does (see also each method):
//!
//! - After each batch of received datagrams: run the handlers ([`Reliable::poll_inbound`])
//!   and make their sends, *then* call [`Reliable::poll_transmit`] until `None`, so that
//!   replies carry the acks of the requests they answer; calling it after each datagram
//!   instead sends an explicit ack per datagram.
//! - Sleep at most until [`Reliable::poll_timeout`], then call
//!   [`Reliable::handle_timeout`] and [`Reliable::poll_transmit`] again.
//! - Take [`Reliable::poll_event`]s to learn of silent peers, and judge each.

mod coalesce;
mod recv;
mod rtt;
mod send;
mod spares;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tests_bounds;
#[cfg(test)]
mod tests_bundle;
mod timers;

use self::coalesce::{coalesce, Follow, Packed};
pub(crate) use self::coalesce::COPY_AT_MOST as COALESCE_AT_MOST;
use self::recv::{RecvChannel, Sink};
use self::rtt::Rtt;
use self::send::{timestamp, AckOut, Encoded, OutMsg, SendChannel};
use self::spares::Spares;
use crate::transport::net::fragment::Fragment;
use self::timers::Timers;
use super::wire::{
    self, Channel, Header, Integrity, PacketKind, WireError, MAX_DATAGRAM, MAX_HEADER_LEN,
};
use crate::name::EndpointId;
use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;

/// Time in microseconds on the caller's clock (any origin); the machine reads none.
pub type Micros = u64;

/// Bytes in flight per channel and peer at most, whatever the window in datagrams: a
/// window of full-sized datagrams on loopback (64 KiB each) must still fit the
/// receiver's socket buffer, or the burst overflows it and is lost.
pub const WINDOW_BYTES: usize = 2 << 20;

/// Out-of-order bytes kept per peer by default: a full window on both channels, so that
/// a peer that keeps to its window never has a datagram dropped for room.
pub const REORDER_PEER_BYTES: usize = crate::config::DEFAULT_REORDER_PEER_BYTES;
const _: () = assert!(REORDER_PEER_BYTES >= 2 * WINDOW_BYTES);
/// Out-of-order bytes kept over all peers by default.
pub const REORDER_TOTAL_BYTES: usize = crate::config::DEFAULT_REORDER_TOTAL_BYTES;

/// Decides whether a datagram from a peer the machine has not met may make it keep
/// state for that peer (see [`Reliable::set_admission`]).
pub type Admit<A> = Box<dyn Fn(&Peer<A>) -> bool>;

/// Tunables of the protocol. Out-of-range values are clamped by [`Reliable::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReliableConfig {
    /// The job (run) identifier: datagrams of other jobs are dropped.
    pub job: u64,
    /// Largest datagram sent (header, arguments and payload), at most
    /// [`wire::MAX_DATAGRAM`]: the size of the caller's transmit buffers. 1472 fills an
    /// Ethernet frame without IP fragmentation. A peer's path may lower it.
    pub max_datagram: usize,
    /// Datagrams in flight per channel and peer, and how far ahead the receiver buffers.
    pub window: u32,
    /// Completed requests waiting for the caller before new ones are NACKed.
    pub recv_queue: usize,
    pub rto_min: Micros,
    pub rto_max: Micros,
    /// First pause after a NACK.
    pub nack_delay: Micros,
    /// Silence after which a peer that owes this endpoint something is reported
    /// ([`Event::Silent`]).
    pub timeout: Micros,
    /// Silence after which a peer that owes answers but has nothing unacknowledged from
    /// this endpoint is probed, and the pace of further probes.
    pub probe: Micros,
    /// How long an explicit ack may wait for a data packet to carry it instead (not
    /// past a quarter of the sender's window of data). Zero (the default): acks go out
    /// at the end of the batch in which data arrived.
    pub ack_delay: Micros,
    /// Bytes of datagrams that arrived ahead of a hole kept per peer (both channels),
    /// and over all peers: one beyond either bound is dropped, and its sender sends it
    /// again once the hole is filled. Each kept datagram counts its payload and its
    /// header and bookkeeping (`EARLY_OVERHEAD` in `reliable/recv.rs`).
    pub reorder_peer: usize,
    pub reorder_total: usize,
    /// Whether the new packets queued to a peer share datagrams, as many as fit
    /// (`reliable/coalesce.rs`). Off (the default, which unit tests that steer single
    /// datagrams keep), only a request rides behind a payload-less reply.
    pub coalesce: bool,
    /// What guards packets against corruption: their CRC (the default), or the seal
    /// the caller puts on every datagram and checks before it hands one over.
    pub integrity: Integrity,
}

/// The fewest resends or probes a peer leaves unanswered before it is judged silent:
/// at 50% loss each way, all 32 fail with a chance of 1 in 10,000.
const SILENCE_TRIES: Micros = 32;

impl Default for ReliableConfig {
    fn default() -> Self {
        ReliableConfig {
            job: 0,
            max_datagram: 1472,
            window: 256,
            recv_queue: 256,
            // Loopback round trips are ~10 µs and LAN ones tens of µs, but a descheduled
            // process answers in milliseconds: 1 ms keeps spurious retransmits rare.
            rto_min: 1_000,
            rto_max: 200_000,
            nack_delay: 1_000,
            // CLUMP_NET_TIMEOUT_MS's default (`config.rs`).
            timeout: 10_000_000,
            probe: 200_000,
            ack_delay: 0,
            reorder_peer: REORDER_PEER_BYTES,
            reorder_total: REORDER_TOTAL_BYTES,
            coalesce: false,
            integrity: Integrity::Crc,
        }
    }
}

/// A remote endpoint: its socket address and its identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Peer<A> {
    pub addr: A,
    pub id: EndpointId,
}

/// Why [`Reliable::send`] refused a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("the peer is unreachable")]
    Unreachable,
    #[error("payload larger than MAX_LONG")]
    TooLarge,
    #[error("invalid header: {0}")]
    BadHeader(WireError),
}

/// A complete message from a peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inbound<A> {
    pub from: Peer<A>,
    /// The whole message's header: `frag_offset` 0, `seq` of its first fragment, `ack`
    /// `None`, the rest as sent.
    pub header: Header,
    /// Medium payload (and a returned message's); empty for other kinds.
    pub payload: Vec<u8>,
    /// Long and get reply: every fragment landed (`land` returned true). Else false.
    pub landed: bool,
}

/// Something that happened to a peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<A> {
    /// The peer owes this endpoint something and has been silent for `cfg.timeout`:
    /// judge it with [`Reliable::judge`].
    Silent(Peer<A>),
}

/// What the caller knows of a silent peer's process, for [`Reliable::judge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// It exited.
    Exited,
    /// It lives and has not polled lately: stopped, or computing without polling.
    Stopped,
    /// It lives and polls.
    Polling,
    /// Nobody to ask.
    Unknown,
}

/// The sequence number of an ack that asks the peer to answer with an ack at once.
pub const PROBE: u32 = 1;

/// Counters, for tests, benchmarks and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub messages_sent: u64,
    pub messages_delivered: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Datagrams sent again (timer, fast retransmit, duplicate request, after a NACK).
    pub retransmits: u64,
    /// Of which after three duplicate acks.
    pub fast_retransmits: u64,
    /// Of which found lost by a selective ack (a later datagram arrived).
    pub selective_retransmits: u64,
    /// Of which after a partial ack (an ack of a retransmission that leaves the next
    /// datagram, sent before it, unacknowledged: it is lost too).
    pub partial_ack_retransmits: u64,
    /// Of which because a duplicate request arrived (replies resent).
    pub duplicate_request_retransmits: u64,
    /// Retransmission timers that fired.
    pub timeouts: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
    /// Out-of-order datagrams too far ahead to keep.
    pub beyond_window: u64,
    pub crc_or_malformed: u64,
    pub wrong_destination: u64,
    /// Datagrams from a peer already declared unreachable.
    pub from_unreachable: u64,
    /// Probes sent to silent peers that owe answers, and probes answered.
    pub probes_sent: u64,
    pub probes_answered: u64,
    /// Silences reported, and of those the caller kept waiting on.
    pub silences: u64,
    pub kept_waiting: u64,
    /// Fragments that did not continue the message in progress (a misbehaving sender).
    pub stray_fragments: u64,
    pub nacks_sent: u64,
    pub nacks_received: u64,
    /// Packets sent behind another in its datagram (`reliable/coalesce.rs`): packets sent
    /// are `datagrams_sent + coalesced`.
    pub coalesced: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub unreachable: u64,
    /// Datagrams from address and endpoint pairs the admission refused (not of the
    /// job): dropped before any state was kept for them.
    pub refused_sources: u64,
    /// Out-of-order datagrams dropped because the reorder bounds were reached.
    pub beyond_reorder_bound: u64,
    /// Peers the machine keeps state for (now).
    pub peers: u64,
    /// Bytes of out-of-order datagrams kept (now), and the most ever kept.
    pub reorder_bytes: u64,
    pub reorder_bytes_peak: u64,
}

const CHANNELS: [Channel; 2] = [Channel::Request, Channel::Reply];

fn ix(channel: Channel) -> usize {
    match channel {
        Channel::Request => 0,
        Channel::Reply => 1,
    }
}

fn opposite(channel: Channel) -> Channel {
    match channel {
        Channel::Request => Channel::Reply,
        Channel::Reply => Channel::Request,
    }
}

/// Everything about one peer.
#[derive(Debug)]
struct PeerState<A> {
    peer: Peer<A>,
    dead: bool,
    /// Indexed by [`ix`] of the channel.
    tx: [SendChannel; 2],
    rx: [RecvChannel; 2],
    rtt: Rtt,
    /// Largest datagram to this peer, and the window in datagrams it allows.
    datagram: usize,
    window: u32,
    /// The deadline registered in the timer queue (see [`Timers`]).
    timer: Option<Micros>,
    /// In the `ready` queue.
    ready: bool,
    /// Per channel: payload bytes received since its pending ack was due to wait.
    unacked: [usize; 2],
    /// Answers are awaited from it (see [`Reliable::await_answers`]).
    awaiting: bool,
    /// When it last sent a valid datagram, or began owing something if later: silence
    /// is counted from here.
    heard_at: Micros,
    /// When the last probe went out; whether one is due.
    probed_at: Micros,
    probe_due: bool,
    /// Reported silent and not judged yet.
    silent: bool,
    /// `heard_at` as the last judgement left it, if that judged the peer stopped: while
    /// `heard_at` still equals it, nothing was heard from the peer since.
    stopped_at: Option<Micros>,
}

impl<A> PeerState<A> {
    /// It owes this endpoint an ack or an answer.
    fn owes(&self) -> bool {
        self.awaiting || self.tx.iter().any(|t| !t.is_idle())
    }

    /// When its silence is reported, if it owes something and was not reported yet.
    fn silence_deadline(&self, cfg: &ReliableConfig) -> Option<Micros> {
        (self.owes() && !self.silent).then(|| self.heard_at.saturating_add(cfg.timeout))
    }

    /// When it is probed next: it owes answers and nothing sent to it awaits an ack.
    fn probe_deadline(&self, cfg: &ReliableConfig) -> Option<Micros> {
        let idle = self.tx.iter().all(|t| !t.has_in_flight() && !t.is_paused());
        (self.awaiting && idle && !self.probe_due)
            .then(|| self.heard_at.max(self.probed_at).saturating_add(cfg.probe))
    }
}

/// The admission policy: `None` admits every peer.
struct Admission<A>(Option<Admit<A>>);

impl<A> Debug for Admission<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "listed" } else { "open" })
    }
}

/// The reliability machine of one local endpoint (see the module documentation).
#[derive(Debug)]
pub struct Reliable<A> {
    local: EndpointId,
    cfg: ReliableConfig,
    peers: Vec<PeerState<A>>,
    index: HashMap<Peer<A>, usize>,
    /// The peer looked up last: consecutive datagrams mostly come from one peer.
    last: Option<(Peer<A>, usize)>,
    /// Completed messages, indexed by [`ix`] of the channel.
    inbound: [VecDeque<Inbound<A>>; 2],
    events: VecDeque<Event<A>>,
    /// Peers that may have a datagram to transmit, served round-robin.
    ready: VecDeque<usize>,
    timers: Timers,
    stats: Stats,
    /// First sequence number of new peers' channels (tests start near `u32::MAX`).
    initial_seq: u32,
    /// Buffers of acknowledged payloads, for the copies of new ones.
    spares: Spares,
    admission: Admission<A>,
    /// Bytes of out-of-order datagrams kept over all peers, and the most ever.
    reorder_bytes: usize,
    reorder_peak: usize,
}

impl<A: Copy + Eq + Hash + Debug> Reliable<A> {
    pub fn new(local: EndpointId, mut cfg: ReliableConfig) -> Self {
        cfg.max_datagram = cfg.max_datagram.clamp(MIN_DATAGRAM, MAX_DATAGRAM);
        // The receiver keeps up to `window` datagrams ahead per channel and peer; a
        // bound keeps what a hostile peer can make it hold reasonable.
        cfg.window = cfg.window.clamp(1, 1 << 14);
        cfg.rto_min = cfg.rto_min.max(1);
        // At least SILENCE_TRIES resends or probes fit in the silence timeout, so that
        // a live peer is judged silent only when that many went unanswered, not by bad
        // luck at heavy loss (at 50% loss each way a try is answered with a chance of
        // 1/4). The 200 ms pace with a 2 s timeout left ten tries.
        let pace = (cfg.timeout / SILENCE_TRIES).max(cfg.rto_min);
        cfg.rto_max = cfg.rto_max.clamp(cfg.rto_min, pace);
        cfg.nack_delay = cfg.nack_delay.max(1);
        cfg.probe = cfg.probe.clamp(1, pace);
        Reliable {
            local,
            cfg,
            peers: Vec::new(),
            index: HashMap::new(),
            last: None,
            inbound: [VecDeque::new(), VecDeque::new()],
            events: VecDeque::new(),
            ready: VecDeque::new(),
            timers: Timers::default(),
            stats: Stats::default(),
            initial_seq: 1,
            spares: Spares::default(),
            admission: Admission(None),
            reorder_bytes: 0,
            reorder_peak: 0,
        }
    }

    /// Makes datagrams from peers the machine has not met (neither sent to nor heard
    /// from) create state only for the peers `admit` accepts; the others are counted
    /// ([`Stats::refused_sources`]) and dropped. Without this, every peer is admitted.
    pub fn set_admission(&mut self, admit: Admit<A>) {
        self.admission = Admission(Some(admit));
    }

    /// The configuration in force (after clamping).
    pub fn config(&self) -> &ReliableConfig {
        &self.cfg
    }

    /// Makes channels of peers met from now on start at `seq` (tests of wrap-around).
    #[cfg(test)]
    pub(crate) fn set_initial_seq(&mut self, seq: u32) {
        self.initial_seq = seq;
    }

    fn lookup(&self, peer: &Peer<A>) -> Option<usize> {
        match self.last {
            Some((p, i)) if p == *peer => Some(i),
            _ => self.index.get(peer).copied(),
        }
    }

    fn peer_index(&mut self, peer: Peer<A>) -> usize {
        if let Some(i) = self.lookup(&peer) {
            self.last = Some((peer, i));
            return i;
        }
        let i = self.peers.len();
        let seq = self.initial_seq;
        self.peers.push(PeerState {
            peer,
            dead: false,
            tx: [
                SendChannel::new(seq, &self.cfg),
                SendChannel::new(seq, &self.cfg),
            ],
            rx: [RecvChannel::new(seq), RecvChannel::new(seq)],
            rtt: Rtt::new(self.cfg.rto_min, self.cfg.rto_max),
            datagram: self.cfg.max_datagram,
            window: window_for(&self.cfg, self.cfg.max_datagram),
            timer: None,
            ready: false,
            unacked: [0; 2],
            awaiting: false,
            heard_at: 0,
            probed_at: 0,
            probe_due: false,
            silent: false,
            stopped_at: None,
        });
        self.index.insert(peer, i);
        self.last = Some((peer, i));
        i
    }

    /// Makes messages queued from now on to `peer` travel in datagrams of at most
    /// `datagram` bytes (clamped to `cfg.max_datagram`): the largest its path carries.
    pub fn set_path_datagram(&mut self, peer: Peer<A>, datagram: usize) {
        let datagram = datagram.clamp(MIN_DATAGRAM, self.cfg.max_datagram);
        let p = self.peer_index(peer);
        let st = &mut self.peers[p];
        st.datagram = datagram;
        st.window = window_for(&self.cfg, datagram);
    }

    /// The largest datagram to `peer` (`cfg.max_datagram` for a peer not met yet).
    pub fn path_datagram(&self, peer: &Peer<A>) -> usize {
        self.lookup(peer)
            .map_or(self.cfg.max_datagram, |p| self.peers[p].datagram)
    }

    fn make_ready(&mut self, p: usize) {
        if let Some(st) = self.peers.get_mut(p) {
            if !st.ready {
                st.ready = true;
                self.ready.push_back(p);
            }
        }
    }

    fn arm(&mut self, p: usize, at: Micros) {
        if let Some(st) = self.peers.get_mut(p) {
            self.timers.arm(&mut st.timer, p, at);
        }
    }

    /// Queues a message; the machine fills `src`, `dst`, `job`, `seq`, `ack` and
    /// `frag_offset`. `header.total_len` must equal `payload.len()`, except for a get
    /// (and a returned get), whose payload is empty and `total_len` the bytes requested.
    /// Fails with `TooLarge` beyond [`crate::MAX_LONG`], `BadHeader` if the header is
    /// not one [`wire::validate`] accepts (or is an ack or NACK, which the machine makes
    /// itself), `Unreachable` once the peer was declared so. `now` is unused today.
    pub fn send(
        &mut self,
        now: Micros,
        to: Peer<A>,
        header: Header,
        payload: Vec<u8>,
    ) -> Result<(), SendError> {
        let _ = now;
        if payload.len() > crate::MAX_LONG {
            return Err(SendError::TooLarge);
        }
        let bad = |e| Err(SendError::BadHeader(e));
        let get_shape = matches!(
            header.kind,
            PacketKind::Get
                | PacketKind::Returned {
                    of: wire::DataKind::Get,
                    ..
                }
        );
        match header.kind {
            PacketKind::Ack => return bad(WireError::BadKind(6)),
            PacketKind::Nack => return bad(WireError::BadKind(7)),
            _ => {}
        }
        if !get_shape && header.total_len as usize != payload.len() {
            return bad(WireError::LengthMismatch {
                declared: header.total_len,
                actual: payload.len(),
            });
        }
        let mut h = header;
        h.job = self.cfg.job;
        h.src = self.local;
        h.dst = to.id;
        h.seq = 0;
        h.ack = None;
        h.frag_offset = 0;
        let frag_len = self
            .path_datagram(&to)
            .saturating_sub(h.wire_len())
            .clamp(1, wire::MAX_DATAGRAM_PAYLOAD);
        if let Err(e) = wire::validate(&h, payload.len().min(frag_len)) {
            return bad(e);
        }
        let p = self.peer_index(to);
        let st = &mut self.peers[p];
        if st.dead {
            return Err(SendError::Unreachable);
        }
        if !st.owes() {
            st.heard_at = st.heard_at.max(now);
        }
        let frags = payload.len().div_ceil(frag_len).max(1) as u32;
        st.tx[ix(h.channel)].push(OutMsg {
            header: h,
            payload: self.spares.keep(payload),
            frags,
            frag_len: frag_len as u32,
        });
        self.stats.messages_sent += 1;
        self.make_ready(p);
        Ok(())
    }

    /// Handles a datagram that arrived from `from`: each packet it carries in turn.
    /// `land` writes a long or get-reply fragment at `segment_offset + frag_offset` of
    /// the segment and says whether it fit.
    pub fn handle_datagram(
        &mut self,
        now: Micros,
        from: A,
        datagram: &[u8],
        land: &mut dyn FnMut(&Header, &[u8]) -> bool,
    ) {
        let mut rest = datagram;
        let mut accepted = false;
        loop {
            let Ok((h, payload, next)) = wire::decode_next(rest, self.cfg.job, self.cfg.integrity) else {
                // The packets before a malformed one stand: each had its own CRC.
                self.stats.crc_or_malformed += 1;
                break;
            };
            accepted |= self.handle_packet(now, from, &h, payload, land);
            if next.is_empty() {
                break;
            }
            rest = next;
        }
        if accepted {
            self.stats.datagrams_received += 1;
        }
    }

    /// Handles one valid packet from `from`; false if it was refused unread (not for
    /// this endpoint, a refused source, an unreachable peer).
    fn handle_packet(
        &mut self,
        now: Micros,
        from: A,
        h: &Header,
        payload: &[u8],
        land: &mut dyn FnMut(&Header, &[u8]) -> bool,
    ) -> bool {
        if h.dst != self.local {
            self.stats.wrong_destination += 1;
            return false;
        }
        let peer = Peer {
            addr: from,
            id: h.src,
        };
        if self.lookup(&peer).is_none() && self.admission.0.as_ref().is_some_and(|a| !a(&peer)) {
            self.stats.refused_sources += 1;
            return false;
        }
        let p = self.peer_index(peer);
        let st = &mut self.peers[p];
        if st.dead {
            self.stats.from_unreachable += 1;
            return false;
        }
        st.heard_at = st.heard_at.max(now);
        st.silent = false;
        let acked = match h.ack {
            Some(ack) => self.on_ack(p, opposite(h.channel), ack, h.echo, now),
            None => false,
        };
        match h.kind {
            PacketKind::Ack if h.seq == PROBE => {
                // Answer at once: the prober hears that this endpoint lives and polls.
                self.stats.probes_answered += 1;
                self.peers[p].rx[ix(Channel::Request)].ack_due = Some(now);
                self.make_ready(p);
            }
            PacketKind::Ack => {
                self.stats.acks_received += 1;
                let tx = &mut self.peers[p].tx[ix(opposite(h.channel))];
                let ack = h.ack.unwrap_or_default();
                let lost = tx.on_sack(ack, payload);
                if lost > 0 {
                    self.stats.selective_retransmits += lost;
                    self.make_ready(p);
                } else if !acked && tx.on_dup_ack(ack) {
                    self.stats.fast_retransmits += 1;
                    self.make_ready(p);
                }
            }
            PacketKind::Nack => self.on_nack(p, h.channel, h.seq, now),
            _ => self.on_data(p, now, h, payload, land),
        }
        true
    }

    /// Applies a cumulative ack (and the timestamp it echoes) to the channel `channel`
    /// to `p`; true if it acked anything.
    fn on_ack(
        &mut self,
        p: usize,
        channel: Channel,
        ack: u32,
        echo: Option<u32>,
        now: Micros,
    ) -> bool {
        let st = &mut self.peers[p];
        let tx = &mut st.tx[ix(channel)];
        let Some(sample) = tx.on_ack(ack, echo, now, st.rtt.rto(), self.cfg.nack_delay) else {
            return false;
        };
        if let Some(rtt) = sample {
            st.rtt.sample(rtt);
        }
        self.stats.partial_ack_retransmits += tx.take_partial_acks();
        for payload in tx.finished.drain(..) {
            self.spares.give(payload);
        }
        if tx.has_work(st.window) {
            self.make_ready(p);
        }
        true
    }

    fn on_nack(&mut self, p: usize, channel: Channel, seq: u32, now: Micros) {
        self.stats.nacks_received += 1;
        // The receiver expects `seq`: everything before it arrived.
        self.on_ack(p, channel, seq, None, now);
        let cap = self.cfg.rto_max;
        if let Some(until) = self.peers[p].tx[ix(channel)].on_nack(seq, now, cap) {
            self.arm(p, until);
        }
    }

    fn on_data(
        &mut self,
        p: usize,
        now: Micros,
        h: &Header,
        payload: &[u8],
        land: &mut dyn FnMut(&Header, &[u8]) -> bool,
    ) {
        let c = ix(h.channel);
        let st = &mut self.peers[p];
        let peer_kept: usize = st.rx.iter().map(RecvChannel::early_bytes).sum();
        let room = (self.cfg.reorder_peer.saturating_sub(peer_kept))
            .min(self.cfg.reorder_total.saturating_sub(self.reorder_bytes));
        let kept_before = st.rx[c].early_bytes();
        let mut sink = Sink {
            from: st.peer,
            queue: &mut self.inbound[c],
            limit: (h.channel == Channel::Request).then_some(self.cfg.recv_queue),
            land,
            stats: &mut self.stats,
            window: self.cfg.window,
            room,
        };
        let got = st.rx[c].on_data(h, payload, &mut sink);
        let rx = &mut st.rx[c];
        if (got.progressed && rx.ack_due.is_none()) || got.duplicate {
            rx.echo = Some(h.timestamp);
        }
        self.reorder_bytes = self.reorder_bytes - kept_before + rx.early_bytes();
        self.reorder_peak = self.reorder_peak.max(self.reorder_bytes);
        let mut ready = false;
        if got.progressed && rx.ack_due.is_none() {
            let due = now.saturating_add(self.cfg.ack_delay);
            rx.ack_due = Some(due);
            st.unacked[c] = 0;
            if self.cfg.ack_delay > 0 {
                self.timers.arm(&mut st.timer, p, due);
            } else {
                ready = true;
            }
        }
        if got.progressed {
            // A delayed ack waits for a message to carry it, but not while the sender's
            // window fills: once a quarter of it came unacknowledged, it goes at once
            // (as TCP acks every second full segment), or a stream of large messages
            // would stall on a full window until the delay ran out.
            st.unacked[c] += payload.len().max(1);
            if st.unacked[c] >= st.window as usize * st.datagram / 4 {
                rx.ack_due = Some(now);
                ready = true;
            }
        }
        if got.duplicate || (got.out_of_order && got.nack.is_none()) {
            // The sender missed our ack, or there is a hole: tell it now.
            if got.duplicate {
                rx.ack_due = Some(rx.ack_due.map_or(now, |t| t.min(now)));
            } else {
                rx.dup_acks = (rx.dup_acks + 1).min(3);
            }
            ready = true;
        }
        if let Some(seq) = got.nack {
            rx.nack = Some(seq);
            ready = true;
        }
        if got.duplicate && h.channel == Channel::Request {
            // AM-II: a duplicate request means our reply may be lost; send it again
            // (the oldest unacknowledged one; see `resend_oldest`).
            let age = st.rtt.srtt().unwrap_or(self.cfg.rto_min);
            let resent = st.tx[ix(Channel::Reply)].resend_oldest(now, age);
            self.stats.duplicate_request_retransmits += resent;
            ready |= resent > 0;
        }
        if ready {
            self.make_ready(p);
        }
    }

    /// Takes the oldest complete message of `channel`, from any peer.
    pub fn poll_inbound(&mut self, channel: Channel) -> Option<Inbound<A>> {
        self.inbound[ix(channel)].pop_front()
    }

    pub fn has_inbound(&self) -> bool {
        self.inbound.iter().any(|q| !q.is_empty())
    }

    /// Writes the next datagram due into `buf` and returns its destination and length:
    /// per peer, retransmissions first, then new data (replies before requests), NACKs,
    /// then explicit acks; peers take turns. Call it until it returns `None` after each
    /// batch of received datagrams, sends and timeouts. Returns `None` at once if `buf`
    /// is shorter than `cfg.max_datagram`.
    pub fn poll_transmit(&mut self, now: Micros, buf: &mut [u8]) -> Option<(A, usize)> {
        let (to, head, fragment) = self.poll_transmit_parts(now, buf)?;
        let body = fragment.as_ref().map_or(&[][..], Fragment::bytes);
        // A fragment fits in the datagram size its message was cut for, at most
        // `cfg.max_datagram`, which `buf` holds.
        buf.get_mut(head..head + body.len())?.copy_from_slice(body);
        Some((to, head + body.len()))
    }

    /// [`Reliable::poll_transmit`] for scatter-gather sends: writes only the header of
    /// the next datagram due into `buf` and returns its destination, the header's length
    /// and the fragment of payload to send after it from where it lies.
    pub fn poll_transmit_parts(
        &mut self,
        now: Micros,
        buf: &mut [u8],
    ) -> Option<(A, usize, Option<Fragment>)> {
        if buf.len() < self.cfg.max_datagram {
            return None;
        }
        while let Some(&p) = self.ready.front() {
            if let Some((len, fragment)) = self.transmit_for(p, now, buf) {
                self.stats.datagrams_sent += 1;
                // Round-robin: the peer goes to the back and is dropped when it is idle.
                self.ready.rotate_left(1);
                return Some((self.peers[p].peer.addr, len, fragment));
            }
            self.ready.pop_front();
            self.peers[p].ready = false;
        }
        let peers = &self.peers;
        self.timers
            .clean(|t, p| peers.get(p).is_some_and(|st| st.timer == Some(t)));
        None
    }

    /// One datagram for peer `p`, if it has one due.
    fn transmit_for(&mut self, p: usize, now: Micros, buf: &mut [u8]) -> Option<Encoded> {
        let cfg = &self.cfg;
        let stats = &mut self.stats;
        let st = self.peers.get_mut(p)?;
        if st.dead {
            return None;
        }
        let (job, src, dst) = (cfg.job, self.local, st.peer.id);
        // A packet on `channel` acknowledges the opposite channel's data.
        let control = |kind, channel, rx: &RecvChannel| {
            let mut h = Header::new(kind, channel);
            h.job = job;
            h.src = src;
            h.dst = dst;
            h.timestamp = timestamp(now);
            h.ack = Some(rx.expected());
            h.echo = rx.echo;
            h
        };
        // Data: retransmissions, then new datagrams; replies first (they free credits).
        for retx in [true, false] {
            for channel in [Channel::Reply, Channel::Request] {
                let c = ix(channel);
                let back = ix(opposite(channel));
                let ack = AckOut {
                    ack: st.rx[back].expected(),
                    echo: st.rx[back].echo,
                };
                let tx = &mut st.tx[c];
                let sent = if retx {
                    tx.send_retx(now, ack, buf)
                } else {
                    tx.send_new(now, st.rtt.rto(), st.window, ack, buf)
                };
                match sent {
                    None => continue,
                    Some(Err(e)) => {
                        // Validated when queued, so this is a bug; never panic on it.
                        debug_assert!(false, "encoding a queued message failed: {e}");
                        continue;
                    }
                    Some(Ok((encoded, deadline))) => {
                        if retx {
                            stats.retransmits += 1;
                        }
                        st.rx[back].ack_due = None;
                        self.timers.arm(&mut st.timer, p, deadline);
                        let follow = if cfg.coalesce {
                            Follow::All
                        } else if !retx && channel == Channel::Reply && encoded.1.is_none() {
                            Follow::OneRequest
                        } else {
                            Follow::Nothing
                        };
                        let mut packed = Packed::new(encoded);
                        coalesce(st, now, follow, &mut packed, buf, stats, &mut self.timers, p);
                        if let Some(limit) = st.silence_deadline(cfg) {
                            self.timers.arm(&mut st.timer, p, limit);
                        }
                        return Some(packed.into_encoded());
                    }
                }
            }
        }
        if std::mem::take(&mut st.probe_due) {
            st.probed_at = now;
            stats.probes_sent += 1;
            let mut h = control(PacketKind::Ack, Channel::Request, &st.rx[ix(Channel::Reply)]);
            h.seq = PROBE;
            if let Some(t) = st.probe_deadline(cfg).into_iter().chain(st.silence_deadline(cfg)).min() {
                self.timers.arm(&mut st.timer, p, t);
            }
            return wire::encode_into(&h, &[], buf).ok().map(|len| (len, None));
        }
        // A NACK: travels on the channel of the refused datagram (requests).
        if let Some(seq) = st.rx[ix(Channel::Request)].nack.take() {
            let mut h = control(PacketKind::Nack, Channel::Request, &st.rx[ix(Channel::Reply)]);
            h.seq = seq;
            st.rx[ix(Channel::Reply)].ack_due = None;
            stats.nacks_sent += 1;
            return wire::encode_into(&h, &[], buf).ok().map(|len| (len, None));
        }
        // Explicit acks: an ack on channel C acknowledges the other channel's data.
        for channel in CHANNELS {
            let rx = &mut st.rx[ix(channel)];
            let due = rx.ack_due.is_some_and(|t| t <= now);
            if rx.dup_acks == 0 && !due {
                continue;
            }
            rx.dup_acks = rx.dup_acks.saturating_sub(1);
            rx.ack_due = None;
            let mut h = control(PacketKind::Ack, opposite(channel), rx);
            let mut sack = [0u8; wire::SACK_BYTES];
            let used = rx.sack(&mut sack);
            h.total_len = used as u32;
            stats.acks_sent += 1;
            return wire::encode_into(&h, &sack[..used], buf).ok().map(|len| (len, None));
        }
        None
    }

    /// The earliest moment [`Reliable::handle_timeout`] has something to do (it may find
    /// nothing: the timer is coarse and never late).
    pub fn poll_timeout(&self) -> Option<Micros> {
        self.timers.next()
    }

    /// Fires what is due at `now`: retransmission timers, ends of NACK pauses, delayed
    /// acks, probes and silences.
    pub fn handle_timeout(&mut self, now: Micros) {
        while let Some((t, p)) = self.timers.pop_due(now) {
            let Some(st) = self.peers.get_mut(p) else {
                continue;
            };
            if st.timer != Some(t) {
                continue; // superseded by an earlier deadline that fired already
            }
            st.timer = None;
            if st.dead {
                continue;
            }
            self.fire(p, now);
        }
        let peers = &self.peers;
        self.timers
            .clean(|t, p| peers.get(p).is_some_and(|st| st.timer == Some(t)));
    }

    fn fire(&mut self, p: usize, now: Micros) {
        let cfg = &self.cfg;
        let st = &mut self.peers[p];
        let mut ready = false;
        for c in 0..2 {
            let fired = st.tx[c].on_timer(now, st.rtt.rto(), st.heard_at, cfg);
            ready |= fired.resumed;
            if fired.retransmit {
                self.stats.timeouts += 1;
                st.rtt.backed_off(fired.rto);
                ready = true;
            }
        }
        for rx in &st.rx {
            ready |= rx.ack_due.is_some_and(|t| t <= now);
        }
        if st.probe_deadline(cfg).is_some_and(|t| t <= now) {
            st.probe_due = true;
            ready = true;
        }
        if st.silence_deadline(cfg).is_some_and(|t| t <= now) {
            st.silent = true;
            self.stats.silences += 1;
            self.events.push_back(Event::Silent(st.peer));
        }
        // Register the next deadline.
        let mut next: Option<Micros> = None;
        let mut earliest = |t: Option<Micros>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        for c in 0..2 {
            earliest(st.tx[c].next_deadline());
            earliest(st.rx[c].ack_due.filter(|&t| t > now));
        }
        earliest(st.silence_deadline(cfg));
        earliest(st.probe_deadline(cfg));
        if let Some(t) = next {
            // Strictly later than `now`, so that `handle_timeout` cannot loop on it.
            self.timers.arm(&mut st.timer, p, t.max(now + 1));
        }
        if ready {
            self.make_ready(p);
        }
    }

    /// The caller awaits answers from `peer` (`on`), or no longer does: while it does,
    /// the peer owes something, so its silence is watched and probed.
    pub fn await_answers(&mut self, now: Micros, peer: Peer<A>, on: bool) {
        let p = self.peer_index(peer);
        let st = &mut self.peers[p];
        if st.awaiting == on || st.dead {
            return;
        }
        if on && !st.owes() {
            st.heard_at = st.heard_at.max(now);
        }
        st.awaiting = on;
        if let Some(t) = st.probe_deadline(&self.cfg).into_iter().chain(st.silence_deadline(&self.cfg)).min() {
            self.timers.arm(&mut st.timer, p, t);
        }
    }

    /// Whether `peer` was reported silent and has not been heard from since.
    pub fn is_silent(&self, peer: &Peer<A>) -> bool {
        self.lookup(peer)
            .and_then(|i| self.peers.get(i))
            .is_some_and(|st| st.silent)
    }

    /// Judges a peer reported [`Event::Silent`] by what the caller knows of its process;
    /// returns whether it is waited for (its silence counted afresh from `now`, and
    /// reported again after `cfg.timeout`). If not, the caller gives it up
    /// ([`Reliable::give_up`]).
    ///
    /// A stopped process is waited for. One that polls and is not heard is given up
    /// (a cut link), except right after a judgement that found it stopped, with nothing
    /// heard from it since: it has just resumed, and it tells the caller's informant
    /// that it polls (its first poll) before its datagrams arrive here, so it is waited
    /// for once more. Without that, a stop that ends just before a judgement (at a
    /// multiple of `cfg.timeout`) lost the peer, and, its datagrams ignored, the peer
    /// lost this endpoint too.
    pub fn judge(&mut self, now: Micros, peer: Peer<A>, process: Liveness) -> bool {
        let Some(p) = self.lookup(&peer) else {
            return false;
        };
        let st = &self.peers[p];
        let wait = match process {
            Liveness::Stopped => true,
            Liveness::Polling => st.stopped_at == Some(st.heard_at),
            Liveness::Exited | Liveness::Unknown => false,
        };
        if wait {
            self.keep_waiting(now, p);
            let st = &mut self.peers[p];
            st.stopped_at = (process == Liveness::Stopped).then_some(st.heard_at);
        }
        wait
    }

    /// Counts the silence of peer `p` afresh from `now`.
    fn keep_waiting(&mut self, now: Micros, p: usize) {
        let st = &mut self.peers[p];
        if st.dead {
            return;
        }
        st.silent = false;
        st.heard_at = st.heard_at.max(now);
        self.stats.kept_waiting += 1;
        if let Some(t) = st.silence_deadline(&self.cfg) {
            self.timers.arm(&mut st.timer, p, t);
        }
    }

    /// Declares `peer` unreachable (see the module documentation); returns how many of
    /// the requests queued to it were never sent, the newest ones: those it cannot have
    /// received. Every older request may have reached it.
    pub fn give_up(&mut self, peer: Peer<A>) -> usize {
        let p = self.peer_index(peer);
        let st = &mut self.peers[p];
        if st.dead {
            return 0;
        }
        let unsent = st.tx[ix(Channel::Request)].unsent_messages();
        st.dead = true;
        st.silent = false;
        for tx in &mut st.tx {
            tx.clear();
        }
        for rx in &mut st.rx {
            self.reorder_bytes -= rx.early_bytes();
            rx.clear();
        }
        self.stats.unreachable += 1;
        unsent
    }

    pub fn poll_event(&mut self) -> Option<Event<A>> {
        self.events.pop_front()
    }

    pub fn is_unreachable(&self, peer: &Peer<A>) -> bool {
        self.lookup(peer)
            .and_then(|i| self.peers.get(i))
            .is_some_and(|st| st.dead)
    }

    /// A copy of a message's payload for [`Reliable::send`], made in the buffer of an
    /// acknowledged one where one fits (see `reliable/spares.rs`).
    pub fn copy_payload(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.spares.copy_of(bytes)
    }

    /// Payload bytes queued or unacknowledged to `peer`.
    pub fn queued_bytes(&self, peer: &Peer<A>) -> usize {
        self.lookup(peer)
            .and_then(|i| self.peers.get(i))
            .map_or(0, |st| st.tx.iter().map(SendChannel::bytes).sum())
    }

    /// Messages queued or unacknowledged to `peer` (a short message has no payload
    /// bytes, so [`Reliable::queued_bytes`] alone cannot tell when they are done).
    pub fn pending(&self, peer: &Peer<A>) -> usize {
        self.lookup(peer)
            .and_then(|i| self.peers.get(i))
            .map_or(0, |st| st.tx.iter().map(SendChannel::messages).sum())
    }

    /// The peers not given up that have messages of this endpoint queued or
    /// unacknowledged: what a closing endpoint must still deliver (`net/linger.rs`), or
    /// give up on when it cannot.
    pub fn unsettled_peers(&self) -> Vec<Peer<A>> {
        self.peers
            .iter()
            .filter(|st| !st.dead && st.tx.iter().any(|t| !t.is_idle()))
            .map(|st| st.peer)
            .collect()
    }

    /// Nothing unacknowledged, queued, or owed (acks, NACKs) to any peer.
    pub fn idle(&self) -> bool {
        self.peers.iter().all(|st| {
            st.dead
                || (st.tx.iter().all(SendChannel::is_idle)
                    && st.rx.iter().all(RecvChannel::owes_nothing))
        })
    }

    pub fn stats(&self) -> Stats {
        Stats {
            peers: self.peers.len() as u64,
            reorder_bytes: self.reorder_bytes as u64,
            reorder_bytes_peak: self.reorder_peak as u64,
            ..self.stats
        }
    }
}

/// The least datagram the machine sends: the largest header and a few payload bytes.
const MIN_DATAGRAM: usize = MAX_HEADER_LEN + 8;

/// The window in datagrams of `datagram` bytes: `cfg.window`, within [`WINDOW_BYTES`].
fn window_for(cfg: &ReliableConfig, datagram: usize) -> u32 {
    let by_bytes = (WINDOW_BYTES / datagram.max(1)).max(1);
    cfg.window.min(u32::try_from(by_bytes).unwrap_or(u32::MAX))
}
