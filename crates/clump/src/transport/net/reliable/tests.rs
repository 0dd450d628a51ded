//! Unit tests of the reliability machine, one rule each. Two machines `a` (address 1)
//! and `b` (address 2) exchange datagrams by hand, so each test decides exactly which
//! datagram is lost, duplicated or reordered.

use super::*;
use crate::transport::net::wire::{decode, Args, DataKind};
use crate::ReturnReason;

pub(super) const JOB: u64 = 0x5eed_0001;

/// Payload bytes in a 1472-byte datagram whose header has one argument.
pub(super) const FRAGMENT: usize = 1472 - wire::FIXED_HEADER_LEN - 4;

pub(super) fn id(n: u8) -> EndpointId {
    EndpointId {
        pid: 1000 + u32::from(n),
        fd: 3,
        nonce: 0xabcd_0000 + u64::from(n),
    }
}

pub(super) fn peer(n: u8) -> Peer<u8> {
    Peer { addr: n, id: id(n) }
}

pub(super) fn cfg() -> ReliableConfig {
    ReliableConfig {
        job: JOB,
        ..ReliableConfig::default()
    }
}

pub(super) fn machine(n: u8, cfg: ReliableConfig) -> Reliable<u8> {
    Reliable::new(id(n), cfg)
}

pub(super) fn short(channel: Channel, arg: u32) -> Header {
    let mut h = Header::new(PacketKind::Short, channel);
    h.handler = 1;
    h.args = Args::new(&[arg]).unwrap();
    h
}

pub(super) fn medium(channel: Channel, arg: u32, len: usize) -> (Header, Vec<u8>) {
    let mut h = short(channel, arg);
    h.kind = PacketKind::Medium;
    h.total_len = len as u32;
    (h, pattern(arg, len))
}

fn long(arg: u32, offset: u64, len: usize) -> (Header, Vec<u8>) {
    let mut h = short(Channel::Request, arg);
    h.kind = PacketKind::Long;
    h.total_len = len as u32;
    h.segment_offset = offset;
    (h, pattern(arg, len))
}

fn pattern(seed: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) as u8)
        .collect()
}

/// Every datagram `m` has to send at `now`, with its destination.
pub(super) fn drain(m: &mut Reliable<u8>, now: Micros) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; wire::MAX_DATAGRAM];
    while let Some((_to, len)) = m.poll_transmit(now, &mut buf) {
        out.push(buf[..len].to_vec());
    }
    out
}

/// Lands a long fragment in `segment` as an endpoint does; false if it does not fit.
pub(crate) fn land_in(segment: &mut [u8], h: &Header, data: &[u8]) -> bool {
    let at = (h.segment_offset + u64::from(h.frag_offset)) as usize;
    match segment.get_mut(at..at + data.len()) {
        Some(dst) => {
            dst.copy_from_slice(data);
            true
        }
        None => false,
    }
}

fn header_of(d: &[u8]) -> Header {
    decode(d, JOB).expect("machine sent an invalid datagram").0
}

pub(super) fn no_land(_: &Header, _: &[u8]) -> bool {
    panic!("nothing should land")
}

pub(super) fn deliver(m: &mut Reliable<u8>, now: Micros, from: u8, datagrams: &[Vec<u8>]) {
    for d in datagrams {
        m.handle_datagram(now, from, d, &mut no_land);
    }
}

pub(super) fn inbound_args(m: &mut Reliable<u8>, channel: Channel) -> Vec<u32> {
    std::iter::from_fn(|| m.poll_inbound(channel))
        .map(|i| i.header.args[0])
        .collect()
}

/// Runs timers and transmissions of `m` until `until`, returning what it sent.
pub(super) fn run_timers(m: &mut Reliable<u8>, now: &mut Micros, until: Micros) -> Vec<Vec<u8>> {
    let mut sent = Vec::new();
    while let Some(t) = m.poll_timeout() {
        if t > until {
            break;
        }
        *now = (*now).max(t);
        m.handle_timeout(*now);
        sent.extend(drain(m, *now));
    }
    sent
}

#[test]
fn acks_ride_on_replies_and_on_requests() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    a.send(0, peer(2), short(Channel::Request, 7), Vec::new())
        .unwrap();
    let req = drain(&mut a, 0);
    assert_eq!(req.len(), 1);
    deliver(&mut b, 10, 1, &req);
    assert_eq!(inbound_args(&mut b, Channel::Request), [7]);
    // The handler replies before the batch ends: the reply carries the ack, no Ack.
    b.send(10, peer(1), short(Channel::Reply, 8), Vec::new())
        .unwrap();
    let rep = drain(&mut b, 10);
    assert_eq!(rep.len(), 1, "only the reply, no explicit ack");
    let h = header_of(&rep[0]);
    assert_eq!(
        (h.kind, h.channel, h.ack),
        (PacketKind::Short, Channel::Reply, Some(2))
    );
    deliver(&mut a, 20, 2, &rep);
    assert_eq!(a.pending(&peer(2)), 0, "the reply acknowledged the request");
    assert_eq!(inbound_args(&mut a, Channel::Reply), [8]);
    // The next request carries the ack of the reply.
    a.send(20, peer(2), short(Channel::Request, 9), Vec::new())
        .unwrap();
    let req = drain(&mut a, 20);
    assert_eq!(req.len(), 1, "only the request, no explicit ack");
    assert_eq!(header_of(&req[0]).ack, Some(2));
    deliver(&mut b, 30, 1, &req);
    assert_eq!(b.pending(&peer(1)), 0, "the request acknowledged the reply");
    assert_eq!(a.stats().acks_sent + b.stats().acks_sent, 0);
}

#[test]
fn explicit_ack_once_per_batch_when_nothing_carries_it() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    for i in 0..5 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new())
            .unwrap();
    }
    let reqs = drain(&mut a, 0);
    assert_eq!(reqs.len(), 5);
    deliver(&mut b, 10, 1, &reqs);
    let acks = drain(&mut b, 10);
    assert_eq!(acks.len(), 1, "one ack at the end of the batch");
    let h = header_of(&acks[0]);
    // An ack of requests travels where a reply would: on the reply channel.
    assert_eq!(
        (h.kind, h.channel, h.ack),
        (PacketKind::Ack, Channel::Reply, Some(6))
    );
    assert!(!a.idle());
    deliver(&mut a, 20, 2, &acks);
    assert!(a.idle() && b.idle());
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1, 2, 3, 4]);
}

#[test]
fn delayed_ack_waits_for_a_carrier_then_goes_alone() {
    let (mut a, mut b) = (
        machine(1, cfg()),
        machine(
            2,
            ReliableConfig {
                ack_delay: 100,
                ..cfg()
            },
        ),
    );
    a.send(0, peer(2), short(Channel::Request, 1), Vec::new())
        .unwrap();
    deliver(&mut b, 0, 1, &drain(&mut a, 0));
    assert!(drain(&mut b, 0).is_empty(), "the ack may wait");
    assert_eq!(b.poll_timeout(), Some(100));
    let mut now = 0;
    let acks = run_timers(&mut b, &mut now, 100);
    assert_eq!(acks.len(), 1);
    assert_eq!(header_of(&acks[0]).kind, PacketKind::Ack);
}

/// `d` re-encoded after `edit`, keeping the payload bytes it returns (a peer that
/// sends less than this machine does).
fn edited(d: &[u8], edit: impl FnOnce(&mut Header) -> usize) -> Vec<u8> {
    let (mut h, payload) = decode(d, JOB).unwrap();
    let keep = edit(&mut h).min(payload.len());
    let mut out = Vec::new();
    wire::encode(&h, &payload[..keep], &mut out).unwrap();
    out
}

/// The ack without its selective-ack bitmap.
fn without_sack(d: &[u8]) -> Vec<u8> {
    edited(d, |h| {
        h.total_len = 0;
        0
    })
}

/// Without selective acks (holes beyond the bitmap's reach), three duplicate acks.
#[test]
fn three_duplicate_acks_trigger_a_fast_retransmit() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    for i in 0..5 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new())
            .unwrap();
    }
    let reqs = drain(&mut a, 0);
    // The first is lost; each later one arrives in its own batch.
    let mut dup_acks = Vec::new();
    for r in &reqs[1..] {
        deliver(&mut b, 10, 1, std::slice::from_ref(r));
        dup_acks.extend(drain(&mut b, 10).iter().map(|d| without_sack(d)));
    }
    assert_eq!(dup_acks.len(), 4);
    assert!(dup_acks.iter().all(|d| header_of(d).ack == Some(1)));
    assert_eq!(b.stats().out_of_order, 4);
    deliver(&mut a, 20, 2, &dup_acks[..2]);
    assert!(
        drain(&mut a, 20).is_empty(),
        "two duplicate acks are not enough"
    );
    deliver(&mut a, 20, 2, &dup_acks[2..]);
    let again = drain(&mut a, 20);
    assert_eq!(again.len(), 1, "fast retransmit, once");
    assert_eq!(header_of(&again[0]).seq, 1);
    assert_eq!(a.stats().fast_retransmits, 1);
    deliver(&mut b, 30, 1, &again);
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1, 2, 3, 4]);
    deliver(&mut a, 40, 2, &drain(&mut b, 30));
    assert!(a.idle() && b.idle());
}

#[test]
fn duplicate_request_resends_the_unacked_reply_and_is_not_delivered_twice() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    a.send(0, peer(2), short(Channel::Request, 1), Vec::new())
        .unwrap();
    let req = drain(&mut a, 0);
    deliver(&mut b, 10, 1, &req);
    assert_eq!(inbound_args(&mut b, Channel::Request), [1]);
    b.send(10, peer(1), short(Channel::Reply, 2), Vec::new())
        .unwrap();
    let lost = drain(&mut b, 10);
    assert_eq!(lost.len(), 1);
    // The request comes again (the requester timed out): the reply goes out again.
    deliver(&mut b, 5_000, 1, &req);
    assert!(b.poll_inbound(Channel::Request).is_none(), "never twice");
    assert_eq!(b.stats().duplicates, 1);
    let out = drain(&mut b, 5_000);
    let replies: Vec<Header> = out
        .iter()
        .map(|d| header_of(d))
        .filter(|h| h.kind == PacketKind::Short)
        .collect();
    assert_eq!(replies.len(), 1);
    assert_eq!((replies[0].channel, replies[0].seq), (Channel::Reply, 1));
    deliver(&mut a, 5_010, 2, &out);
    assert_eq!(inbound_args(&mut a, Channel::Reply), [2]);
    assert_eq!(a.pending(&peer(2)), 0);
}

#[test]
fn full_request_queue_nacks_and_the_retry_costs_no_budget() {
    let bcfg = ReliableConfig {
        recv_queue: 2,
        ..cfg()
    };
    let (mut a, mut b) = (machine(1, cfg()), machine(2, bcfg));
    for i in 0..4 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new())
            .unwrap();
    }
    deliver(&mut b, 0, 1, &drain(&mut a, 0));
    let out = drain(&mut b, 0);
    let nacks: Vec<Header> = out
        .iter()
        .map(|d| header_of(d))
        .filter(|h| h.kind == PacketKind::Nack)
        .collect();
    assert_eq!(nacks.len(), 1);
    assert_eq!((nacks[0].seq, nacks[0].channel), (3, Channel::Request));
    assert_eq!(b.stats().nacks_sent, 1);
    // Replies are never blocked behind requests.
    a.send(0, peer(2), short(Channel::Reply, 99), Vec::new())
        .unwrap();
    let mut now = 10;
    deliver(&mut a, now, 2, &out);
    deliver(&mut b, now, 1, &drain(&mut a, now));
    assert_eq!(inbound_args(&mut b, Channel::Reply), [99]);
    assert!(drain(&mut a, now).is_empty(), "paused after the NACK");
    // The receiver stays stuck for three times the retry budget: the sender keeps
    // trying after NACK pauses and never declares it unreachable.
    let timeout = cfg().timeout;
    while now < 3 * timeout {
        let t = a.poll_timeout().expect("a NACK pause is pending");
        now = now.max(t);
        a.handle_timeout(now);
        let again = drain(&mut a, now);
        deliver(&mut b, now, 1, &again);
        deliver(&mut a, now, 2, &drain(&mut b, now));
        assert!(a.poll_event().is_none());
    }
    assert!(a.stats().nacks_received > 10);
    assert!(!a.is_unreachable(&peer(2)));
    // The receiver drains its queue; the next retry after the pause goes through.
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1]);
    let paused_until = a.peers[0].tx[0].paused_until().unwrap();
    let mut got = Vec::new();
    while got.len() < 2 {
        now = a.poll_timeout().unwrap();
        a.handle_timeout(now);
        deliver(&mut b, now, 1, &drain(&mut a, now));
        deliver(&mut a, now, 2, &drain(&mut b, now));
        got.extend(inbound_args(&mut b, Channel::Request));
    }
    assert_eq!(now, paused_until);
    // Request 3 had arrived early and was kept, so it follows request 2.
    assert_eq!(got, [2, 3]);
    assert!(a.idle() && b.idle(), "{:?} {:?}", a.stats(), b.stats());
    assert!(a.poll_event().is_none());
}

#[test]
fn a_silent_peer_is_reported_once_and_unreachable_when_given_up() {
    let c = cfg();
    let mut a = machine(1, c.clone());
    let (h, p) = medium(Channel::Request, 1, 5000);
    a.send(0, peer(2), h, p).unwrap();
    a.send(0, peer(2), short(Channel::Reply, 2), Vec::new())
        .unwrap();
    assert!(a.queued_bytes(&peer(2)) == 5000);
    let first = drain(&mut a, 0);
    assert_eq!(first.len(), 5);
    let mut now = 0;
    let mut sends = vec![(0, first.len())];
    let mut event_at = None;
    while let Some(t) = a.poll_timeout() {
        if t > 10 * c.timeout {
            break;
        }
        now = t;
        a.handle_timeout(now);
        let n = drain(&mut a, now).len();
        if n > 0 {
            sends.push((now, n));
        }
        while let Some(e) = a.poll_event() {
            assert_eq!(e, Event::Silent(peer(2)));
            assert!(event_at.is_none(), "reported once");
            event_at = Some(now);
        }
    }
    let at = event_at.expect("the peer's silence was reported");
    assert!(at >= c.timeout && at <= c.timeout + c.rto_max, "at {at}");
    // Retransmissions went on after the report, at the capped pace: no attempt budget.
    assert!(sends.last().is_some_and(|&(t, _)| t > at + c.rto_max));
    assert_eq!(a.give_up(peer(2)), 0, "every message had a datagram sent");
    // Backoff: the gaps between retransmissions grow, up to rto_max.
    let gaps: Vec<u64> = sends.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert!(gaps.windows(2).all(|g| g[1] >= g[0]), "{gaps:?}");
    assert!(gaps.iter().all(|&g| g <= c.rto_max));
    assert!(a.is_unreachable(&peer(2)));
    assert_eq!(
        a.send(now, peer(2), short(Channel::Request, 3), Vec::new()),
        Err(SendError::Unreachable)
    );
    assert_eq!(a.queued_bytes(&peer(2)), 0);
    assert!(a.idle());
    assert_eq!(a.stats().unreachable, 1);
    // Its datagrams are ignored from then on.
    let mut b = machine(2, cfg());
    b.send(now, peer(1), short(Channel::Request, 4), Vec::new())
        .unwrap();
    deliver(&mut a, now, 2, &drain(&mut b, now));
    assert!(!a.has_inbound());
    assert_eq!(a.stats().from_unreachable, 1);
}

#[test]
fn medium_up_to_64k_is_fragmented_and_reassembled_from_any_order() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    let sizes = [0, 1, FRAGMENT - 1, FRAGMENT, FRAGMENT + 1, 10_000, crate::MAX_MEDIUM];
    for (i, &len) in sizes.iter().enumerate() {
        let (h, p) = medium(Channel::Request, i as u32, len);
        a.send(0, peer(2), h, p).unwrap();
    }
    let mut all = drain(&mut a, 0);
    let frags: usize = sizes.iter().map(|&l| l.div_ceil(FRAGMENT).max(1)).sum();
    assert_eq!(all.len(), frags);
    assert!(all.iter().all(|d| d.len() <= 1472));
    // Reverse order, with every third datagram twice.
    all.reverse();
    let mut shuffled = Vec::new();
    for (i, d) in all.into_iter().enumerate() {
        if i % 3 == 0 {
            shuffled.push(d.clone());
        }
        shuffled.push(d);
    }
    deliver(&mut b, 10, 1, &shuffled);
    for (i, &len) in sizes.iter().enumerate() {
        let m = b.poll_inbound(Channel::Request).expect("delivered");
        assert_eq!(m.header.args[0], i as u32);
        assert_eq!(m.header.total_len as usize, len);
        assert_eq!(m.header.frag_offset, 0);
        assert_eq!(m.payload, pattern(i as u32, len), "message {i}");
        assert!(!m.landed);
    }
    assert!(b.poll_inbound(Channel::Request).is_none());
    deliver(&mut a, 20, 2, &drain(&mut b, 10));
    assert!(a.idle());
}

#[test]
fn long_fragments_land_in_order_exactly_once() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    let (h, p) = long(5, 4096, 10_000);
    a.send(0, peer(2), h, p.clone()).unwrap();
    let mut frags = drain(&mut a, 0);
    assert_eq!(frags.len(), 8);
    frags.reverse();
    let dup = frags.clone();
    let mut segment = vec![0u8; 16384];
    let mut landings = Vec::new();
    let mut land = |h: &Header, data: &[u8]| {
        landings.push(h.frag_offset);
        land_in(&mut segment, h, data)
    };
    for d in frags.iter().chain(&dup) {
        b.handle_datagram(10, 1, d, &mut land);
    }
    let expected: Vec<u32> = (0..8).map(|i| i * FRAGMENT as u32).collect();
    assert_eq!(landings, expected, "in order, once each");
    let m = b.poll_inbound(Channel::Request).unwrap();
    assert!(m.landed && m.payload.is_empty());
    assert_eq!(m.payload.capacity(), 0, "no buffer for a payload that lands");
    assert_eq!(
        (m.header.kind, m.header.total_len),
        (PacketKind::Long, 10_000)
    );
    assert_eq!(&segment[4096..14096], &p[..]);
    assert!(b.poll_inbound(Channel::Request).is_none());
}

#[test]
fn out_of_bounds_long_is_delivered_unlanded() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    let (h, p) = long(6, 1 << 40, 3000);
    a.send(0, peer(2), h, p).unwrap();
    let mut calls = 0;
    let mut land = |_: &Header, _: &[u8]| {
        calls += 1;
        false
    };
    for d in drain(&mut a, 0) {
        b.handle_datagram(10, 1, &d, &mut land);
    }
    assert_eq!(calls, 1, "nothing more is written after a refused fragment");
    let m = b.poll_inbound(Channel::Request).unwrap();
    assert!(!m.landed);
    assert_eq!(m.header.segment_offset, 1 << 40);
}

#[test]
fn get_and_get_reply_and_returned_messages() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    let mut get = short(Channel::Request, 1);
    get.kind = PacketKind::Get;
    get.total_len = 3000; // bytes requested
    get.segment_offset = 64;
    get.reply_offset = 128;
    a.send(0, peer(2), get, Vec::new()).unwrap();
    deliver(&mut b, 1, 1, &drain(&mut a, 0));
    let m = b.poll_inbound(Channel::Request).unwrap();
    assert_eq!((m.header.kind, m.header.total_len), (PacketKind::Get, 3000));
    let mut reply = short(Channel::Reply, 2);
    reply.kind = PacketKind::GetReply;
    reply.total_len = 3000;
    reply.segment_offset = m.header.reply_offset;
    b.send(1, peer(1), reply, pattern(2, 3000)).unwrap();
    let mut landed = Vec::new();
    for d in drain(&mut b, 1) {
        a.handle_datagram(2, 2, &d, &mut |h, data| {
            landed.push((h.segment_offset + u64::from(h.frag_offset), data.to_vec()));
            true
        });
    }
    assert_eq!(landed.len(), 3);
    assert_eq!(landed[0].0, 128);
    let bytes: Vec<u8> = landed.into_iter().flat_map(|(_, d)| d).collect();
    assert_eq!(bytes, pattern(2, 3000));
    assert!(a.poll_inbound(Channel::Reply).unwrap().landed);
    // A returned long carries its payload back to be reassembled, never landed.
    let mut ret = short(Channel::Reply, 3);
    ret.kind = PacketKind::Returned {
        reason: ReturnReason::BadSegmentOffset,
        of: DataKind::Long,
    };
    ret.total_len = 2000;
    ret.segment_offset = 1 << 40;
    b.send(2, peer(1), ret, pattern(3, 2000)).unwrap();
    deliver(&mut a, 3, 2, &drain(&mut b, 2));
    let m = a.poll_inbound(Channel::Reply).unwrap();
    assert_eq!(m.payload, pattern(3, 2000));
    assert!(!m.landed);
}

#[test]
fn send_refuses_bad_messages() {
    let mut a = machine(1, cfg());
    let (mut h, p) = medium(Channel::Request, 1, 100);
    h.total_len = 99;
    assert!(matches!(
        a.send(0, peer(2), h, p.clone()),
        Err(SendError::BadHeader(WireError::LengthMismatch { .. }))
    ));
    let (h, _) = medium(Channel::Request, 1, crate::MAX_MEDIUM + 1);
    assert!(matches!(
        a.send(0, peer(2), h, vec![0; crate::MAX_MEDIUM + 1]),
        Err(SendError::BadHeader(WireError::TotalTooLarge { .. }))
    ));
    let mut ack = Header::new(PacketKind::Ack, Channel::Request);
    ack.ack = Some(1);
    assert!(matches!(
        a.send(0, peer(2), ack, Vec::new()),
        Err(SendError::BadHeader(_))
    ));
    let mut get = short(Channel::Reply, 1);
    get.kind = PacketKind::Get;
    assert!(matches!(
        a.send(0, peer(2), get, Vec::new()),
        Err(SendError::BadHeader(WireError::WrongChannel { .. }))
    ));
    assert!(a.idle());
    assert_eq!(a.stats().messages_sent, 0);
}

#[test]
fn corrupt_foreign_and_misaddressed_datagrams_are_dropped_and_counted() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    a.send(0, peer(2), short(Channel::Request, 1), Vec::new())
        .unwrap();
    let good = drain(&mut a, 0).remove(0);
    let mut corrupt = good.clone();
    corrupt[50] ^= 0x40;
    deliver(&mut b, 1, 1, &[corrupt, good[..50].to_vec(), Vec::new()]);
    // Same packet for another job, and for another endpoint.
    let mut other = Reliable::new(
        id(1),
        ReliableConfig {
            job: JOB + 1,
            ..cfg()
        },
    );
    other
        .send(0, peer(2), short(Channel::Request, 1), Vec::new())
        .unwrap();
    deliver(&mut b, 1, 1, &drain(&mut other, 0));
    a.send(0, peer(3), short(Channel::Request, 1), Vec::new())
        .unwrap();
    deliver(&mut b, 1, 1, &drain(&mut a, 0));
    let s = b.stats();
    assert_eq!((s.crc_or_malformed, s.wrong_destination), (4, 1));
    assert_eq!(s.datagrams_received, 0);
    assert!(!b.has_inbound() && b.idle());
    // Arbitrary bytes never panic.
    let mut x = 0x1234_5678_u64;
    for len in 0..400 {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        b.handle_datagram(2, 9, &junk, &mut no_land);
    }
}

/// Machines `a` and `b` after `a`'s first request (argument 1) to `b` was lost at time 0.
fn first_request_lost() -> (Reliable<u8>, Reliable<u8>) {
    let (mut a, b) = (machine(1, cfg()), machine(2, cfg()));
    a.send(0, peer(2), short(Channel::Request, 1), Vec::new())
        .unwrap();
    assert_eq!(drain(&mut a, 0).len(), 1);
    (a, b)
}

#[test]
fn timer_retransmits_with_backoff() {
    let (mut a, mut b) = first_request_lost();
    let mut now = 0;
    let first = run_timers(&mut a, &mut now, 10_000);
    assert_eq!(first.len(), 1, "one retransmission at the initial RTO");
    assert_eq!(now, 10_000);
    let second = run_timers(&mut a, &mut now, 29_999);
    assert!(second.is_empty(), "the RTO doubled");
    let second = run_timers(&mut a, &mut now, 30_000);
    assert_eq!(second.len(), 1);
    deliver(&mut b, now, 1, &second);
    deliver(&mut a, now, 2, &drain(&mut b, now));
    assert!(a.idle());
    assert_eq!(a.stats().retransmits, 2);
    assert_eq!(
        a.peers[0].rtt.srtt(),
        Some(0),
        "the ack echoes the retransmission's timestamp: its own round trip, not the first send's"
    );
    assert_eq!(a.peers[0].rtt.rto(), cfg().rto_min, "a sample ends the backoff");
}

#[test]
fn without_an_echo_a_retransmission_gives_no_sample_and_the_backoff_stays() {
    let (mut a, mut b) = first_request_lost();
    let mut now = 0;
    let again = run_timers(&mut a, &mut now, 10_000);
    deliver(&mut b, now, 1, &again);
    // An ack without a timestamp echo (Karn's rule decides alone).
    let unechoed: Vec<Vec<u8>> = drain(&mut b, now)
        .iter()
        .map(|d| {
            edited(d, |h| {
                h.echo = None;
                usize::MAX
            })
        })
        .collect();
    deliver(&mut a, now, 2, &unechoed);
    assert!(a.idle());
    assert_eq!(a.peers[0].rtt.srtt(), None, "no sample from a retransmission");
    // The next datagram waits the backed-off RTO; a clean round trip resets it.
    a.send(now, peer(2), short(Channel::Request, 2), Vec::new())
        .unwrap();
    assert_eq!(a.peers[0].rtt.rto(), 20_000);
    deliver(&mut b, now + 40, 1, &drain(&mut a, now));
    deliver(&mut a, now + 80, 2, &drain(&mut b, now + 40));
    assert_eq!(a.peers[0].rtt.srtt(), Some(80));
    assert_eq!(a.peers[0].rtt.rto(), cfg().rto_min);
}

#[test]
fn window_bounds_datagrams_in_flight() {
    let c = ReliableConfig { window: 4, ..cfg() };
    let (mut a, mut b) = (machine(1, c.clone()), machine(2, c));
    for i in 0..10 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new())
            .unwrap();
    }
    let mut got = Vec::new();
    let mut now = 0;
    while !a.idle() {
        let out = drain(&mut a, now);
        assert!(out.len() <= 4);
        deliver(&mut b, now, 1, &out);
        got.extend(inbound_args(&mut b, Channel::Request));
        deliver(&mut a, now, 2, &drain(&mut b, now));
        now += 10;
    }
    assert_eq!(got, (0..10).collect::<Vec<_>>());
}

#[test]
fn sequence_numbers_wrap_around() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    a.set_initial_seq(u32::MAX - 20);
    b.set_initial_seq(u32::MAX - 20);
    let mut now = 0;
    for i in 0..30 {
        let (h, p) = medium(Channel::Request, i, 3000); // 3 fragments each
        a.send(now, peer(2), h, p).unwrap();
    }
    let mut got = Vec::new();
    let mut round = 0u32;
    while !a.idle() || b.has_inbound() {
        // Every fourth datagram is lost, the rest arrive in reverse.
        let mut out: Vec<Vec<u8>> = drain(&mut a, now)
            .into_iter()
            .filter(|_| {
                round += 1;
                !round.is_multiple_of(4)
            })
            .collect();
        out.reverse();
        deliver(&mut b, now, 1, &out);
        while let Some(m) = b.poll_inbound(Channel::Request) {
            assert_eq!(m.payload, pattern(m.header.args[0], 3000));
            got.push(m.header.args[0]);
        }
        deliver(&mut a, now, 2, &drain(&mut b, now));
        now = a.poll_timeout().unwrap_or(now + 1).max(now + 1);
        a.handle_timeout(now);
        assert!(now < 10_000_000, "stuck");
    }
    assert_eq!(got, (0..30).collect::<Vec<_>>());
    assert!(a.peers[0].tx[0].is_idle());
}

/// Cost of the machine on the hot path: a short request and its reply, both ways
/// through `send`, `poll_transmit`, `handle_datagram` and `poll_inbound`. Run with
/// `cargo test --release -p clump --lib bench_ -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_short_round_trip() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    let mut buf = vec![0u8; 2048];
    let rounds = 2_000_000u64;
    let start = std::time::Instant::now();
    for i in 0..rounds {
        let now = i * 10;
        a.send(now, peer(2), short(Channel::Request, i as u32), Vec::new())
            .unwrap();
        let (_, len) = a.poll_transmit(now, &mut buf).unwrap();
        assert!(a.poll_transmit(now, &mut buf).is_none());
        b.handle_datagram(now + 2, 1, &buf[..len], &mut no_land);
        let req = b.poll_inbound(Channel::Request).unwrap();
        b.send(
            now + 2,
            peer(1),
            short(Channel::Reply, req.header.args[0]),
            Vec::new(),
        )
        .unwrap();
        let (_, len) = b.poll_transmit(now + 2, &mut buf).unwrap();
        assert!(b.poll_transmit(now + 2, &mut buf).is_none());
        a.handle_datagram(now + 4, 2, &buf[..len], &mut no_land);
        assert!(a.poll_inbound(Channel::Reply).is_some());
        // The reply's ack goes alone at the end of the batch (ack_delay 0).
        if let Some((_, len)) = a.poll_transmit(now + 4, &mut buf) {
            b.handle_datagram(now + 6, 1, &buf[..len], &mut no_land);
        }
        if a.poll_timeout().is_some_and(|t| t <= now + 6) {
            a.handle_timeout(now + 6);
        }
        if b.poll_timeout().is_some_and(|t| t <= now + 6) {
            b.handle_timeout(now + 6);
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / rounds as f64;
    eprintln!("short round trip through two machines: {ns:.0} ns (3 datagrams)");
    assert_eq!(a.stats().retransmits + b.stats().retransmits, 0);
}

/// Valid but hostile packets (any kind, channel, sequence and ack numbers, fragment
/// offsets, lengths) never make the machine panic, deliver garbage twice, or loop.
#[test]
fn hostile_valid_packets_never_panic() {
    let mut b = machine(
        2,
        ReliableConfig {
            recv_queue: 4,
            ..cfg()
        },
    );
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut rand = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let kinds = [
        PacketKind::Short,
        PacketKind::Medium,
        PacketKind::Long,
        PacketKind::Get,
        PacketKind::GetReply,
        PacketKind::Ack,
        PacketKind::Nack,
        PacketKind::Returned {
            reason: ReturnReason::BadTag,
            of: DataKind::Medium,
        },
        PacketKind::Returned {
            reason: ReturnReason::BadTag,
            of: DataKind::Long,
        },
    ];
    let mut buf = vec![0u8; wire::MAX_DATAGRAM];
    let mut accepted = 0;
    for i in 0..200_000u64 {
        let now = i * 7;
        let channel = if rand(2) == 0 {
            Channel::Request
        } else {
            Channel::Reply
        };
        let mut h = Header::new(kinds[rand(kinds.len() as u64) as usize], channel);
        h.job = JOB;
        h.src = id(1 + rand(2) as u8);
        h.dst = id(2);
        h.seq = match rand(4) {
            0 => rand(40) as u32,
            1 => u32::MAX - rand(40) as u32,
            _ => rand(600) as u32,
        };
        h.ack = (rand(3) > 0).then(|| rand(64) as u32);
        if h.kind == PacketKind::Ack {
            h.ack = Some(rand(64) as u32);
        }
        if !matches!(h.kind, PacketKind::Ack | PacketKind::Nack) {
            h.args = Args::new(&[i as u32]).unwrap();
        }
        h.total_len = rand(5000) as u32;
        h.frag_offset = [0, 1372, 2744, rand(5000) as u32][rand(4) as usize];
        h.segment_offset = rand(1 << 20);
        let mut len = rand(1400) as usize;
        // Mostly the shape each kind needs, so that most packets pass validation.
        match h.kind {
            PacketKind::Short | PacketKind::Ack | PacketKind::Nack => {
                (h.total_len, h.frag_offset, h.segment_offset, len) = (0, 0, 0, 0);
            }
            PacketKind::Get => (h.frag_offset, len) = (0, 0),
            PacketKind::Medium
            | PacketKind::Returned {
                of: DataKind::Medium,
                ..
            } => h.segment_offset = 0,
            _ => {}
        }
        if rand(4) > 0 {
            len = len.min((h.total_len.saturating_sub(h.frag_offset)) as usize);
        }
        let payload = vec![i as u8; len];
        let Ok(n) = wire::encode_into(&h, &payload, &mut buf) else {
            continue;
        };
        accepted += 1;
        let from = if rand(8) == 0 { 3 } else { 1 };
        b.handle_datagram(now, from, &buf[..n], &mut |_, _| rand(2) == 0);
        if rand(4) == 0 {
            while b.poll_inbound(Channel::Request).is_some() {}
            while b.poll_inbound(Channel::Reply).is_some() {}
        }
        if rand(16) == 0 {
            let _ = b.send(now, peer(1), short(Channel::Request, 0), Vec::new());
            let _ = b.send(now, peer(1), short(Channel::Reply, 0), Vec::new());
        }
        let mut out = vec![0u8; 2048];
        while b.poll_transmit(now, &mut out).is_some() {}
        if b.poll_timeout().is_some_and(|t| t <= now) {
            b.handle_timeout(now);
        }
        while b.poll_event().is_some() {}
    }
    assert!(accepted > 100_000, "only {accepted} valid packets made");
}

#[test]
fn each_peer_gets_datagrams_of_its_path_and_a_window_in_bytes() {
    let big = ReliableConfig {
        max_datagram: wire::MAX_DATAGRAM,
        ..cfg()
    };
    let mut a = machine(1, big.clone());
    let (mut b, mut c) = (machine(2, big.clone()), machine(3, big));
    // b is behind an Ethernet-sized path; c is on loopback; a path larger than the
    // transmit buffers is held to them.
    a.set_path_datagram(peer(2), 1472);
    a.set_path_datagram(peer(3), 1 << 20);
    assert_eq!(a.path_datagram(&peer(2)), 1472);
    assert_eq!(a.path_datagram(&peer(3)), wire::MAX_DATAGRAM);
    assert_eq!(a.path_datagram(&peer(4)), wire::MAX_DATAGRAM, "not met yet");
    let (h, p) = medium(Channel::Request, 1, crate::MAX_MEDIUM);
    a.send(0, peer(2), h, p.clone()).unwrap();
    a.send(0, peer(3), h, p).unwrap();
    let mut buf = vec![0u8; wire::MAX_DATAGRAM];
    let (mut to_b, mut to_c) = (Vec::new(), Vec::new());
    while let Some((to, len)) = a.poll_transmit(0, &mut buf) {
        let d = buf[..len].to_vec();
        if to == 2 {
            to_b.push(d)
        } else {
            to_c.push(d)
        }
    }
    assert_eq!(to_b.len(), crate::MAX_MEDIUM.div_ceil(FRAGMENT));
    assert!(to_b.iter().all(|d| d.len() <= 1472));
    assert_eq!(
        to_c.len(),
        2,
        "64 KiB and a header need two full-sized datagrams"
    );
    // Both reassemble the same message; the lost fragments of each come again.
    for (m, from, mut got) in [(&mut b, 1, to_b), (&mut c, 1, to_c)] {
        let lost = got.remove(got.len() / 2);
        deliver(m, 10, from, &got);
        assert!(
            m.poll_inbound(Channel::Request).is_none(),
            "a fragment is missing"
        );
        deliver(m, 20, from, &[lost]);
        let msg = m.poll_inbound(Channel::Request).expect("whole again");
        assert_eq!(msg.payload, pattern(1, crate::MAX_MEDIUM));
    }
    // Nothing was acknowledged: to c, 2 datagrams are in flight of a window of
    // WINDOW_BYTES / 65507 = 32; to b, 49 of cfg.window (256), which bytes do not bound.
    for _ in 0..64 {
        let (h, p) = medium(Channel::Request, 2, 60_000);
        a.send(0, peer(3), h, p).unwrap();
        a.send(0, peer(2), short(Channel::Request, 3), Vec::new())
            .unwrap();
    }
    let mut sent = [0usize; 2];
    while let Some((to, _)) = a.poll_transmit(0, &mut buf) {
        sent[usize::from(to == 3)] += 1;
    }
    assert_eq!(WINDOW_BYTES / wire::MAX_DATAGRAM, 32);
    assert_eq!(sent, [64, 32 - 2]);
}

#[test]
fn a_delayed_ack_goes_at_once_when_a_quarter_of_the_window_came_unacknowledged() {
    let delayed = ReliableConfig {
        ack_delay: 10_000,
        ..cfg()
    };
    let (mut a, mut b) = (machine(1, delayed.clone()), machine(2, delayed));
    let (h, p) = long(1, 0, 200_000);
    a.send(0, peer(2), h, p).unwrap();
    let frags = drain(&mut a, 0);
    let mut land = |_: &Header, _: &[u8]| true;
    let mut acked_after = None;
    for (i, d) in frags.iter().enumerate() {
        b.handle_datagram(1, 1, d, &mut land);
        if let Some(ack) = drain(&mut b, 1).first() {
            assert_eq!(header_of(ack).kind, PacketKind::Ack);
            acked_after = Some(i + 1);
            break;
        }
    }
    // A quarter of 256 datagrams of 1472 bytes, in fragments of FRAGMENT payload bytes.
    let quarter = (256 * 1472 / 4usize).div_ceil(FRAGMENT);
    assert_eq!(acked_after, Some(quarter), "long before the 10 ms delay");
}

/// `a` sends a request that `b` receives and acknowledges, then awaits the answer: the
/// state in which nothing from `a` is unacknowledged and only the answer is owed.
fn request_acknowledged_answer_awaited() -> (Reliable<u8>, Reliable<u8>) {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    a.send(0, peer(2), short(Channel::Request, 7), Vec::new())
        .unwrap();
    a.await_answers(0, peer(2), true);
    deliver(&mut b, 10, 1, &drain(&mut a, 0));
    assert_eq!(inbound_args(&mut b, Channel::Request), vec![7]);
    deliver(&mut a, 20, 2, &drain(&mut b, 10));
    assert!(a.idle(), "the request is acknowledged");
    (a, b)
}

#[test]
fn a_peer_that_owes_answers_is_probed_and_reported_silent_when_it_never_answers() {
    let c = cfg();
    let (mut a, _b) = request_acknowledged_answer_awaited();
    let mut now = 20;
    let sent = run_timers(&mut a, &mut now, 20 + c.timeout + c.rto_max);
    let probes: Vec<Header> = sent.iter().map(|d| header_of(d)).collect();
    assert!(!probes.is_empty());
    assert!(probes
        .iter()
        .all(|h| h.kind == PacketKind::Ack && h.seq == PROBE));
    // One probe per `probe` of silence, not a stream of them.
    assert!(probes.len() as u64 <= c.timeout / c.probe + 1, "{}", probes.len());
    let event = a.poll_event().expect("the silence was reported");
    assert_eq!(event, Event::Silent(peer(2)));
    assert!(a.poll_event().is_none(), "reported once");
    assert!(now >= 20 + c.timeout);
    assert_eq!(a.give_up(peer(2)), 0, "the request was sent: it may have run");
    assert!(a.is_unreachable(&peer(2)));
}

#[test]
fn a_probed_peer_that_polls_answers_and_is_not_reported() {
    let c = cfg();
    let (mut a, mut b) = request_acknowledged_answer_awaited();
    let mut now = 20;
    while now < 20 + 3 * c.timeout {
        let probes = { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
        // `b` polls now and then: it answers each probe with an ack.
        deliver(&mut b, now, 1, &probes);
        deliver(&mut a, now, 2, &drain(&mut b, now));
        now += c.probe;
    }
    assert!(a.poll_event().is_none(), "a peer that answers probes is not silent");
    assert!(a.stats().probes_sent > 0 && b.stats().probes_answered > 0);
    // Its answer still settles everything.
    b.send(now, peer(1), short(Channel::Reply, 8), Vec::new())
        .unwrap();
    deliver(&mut a, now, 2, &drain(&mut b, now));
    assert_eq!(inbound_args(&mut a, Channel::Reply), vec![8]);
}

#[test]
fn a_silent_peer_kept_waiting_on_is_served_when_it_resumes() {
    let c = cfg();
    let (mut a, mut b) = request_acknowledged_answer_awaited();
    let mut now = 20;
    // `b` is stopped for three timeouts; the caller knows its process lives.
    let mut silences = 0;
    while now < 20 + 3 * c.timeout {
        { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
        while let Some(Event::Silent(p)) = a.poll_event() {
            silences += 1;
            assert!(a.judge(now, p, Liveness::Stopped));
        }
        now += c.probe;
    }
    assert!(silences >= 2, "reported again after each timeout: {silences}");
    // `b` resumes: the probes waiting in its socket are answered, then its reply comes.
    let probes = { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
    deliver(&mut b, now, 1, &probes);
    b.send(now, peer(1), short(Channel::Reply, 8), Vec::new())
        .unwrap();
    deliver(&mut a, now, 2, &drain(&mut b, now));
    assert_eq!(inbound_args(&mut a, Channel::Reply), vec![8]);
    assert!(!a.is_unreachable(&peer(2)));
    assert_eq!(a.stats().kept_waiting, silences);
}

/// A peer judged stopped, then found polling at the next judgement with nothing heard
/// from it in between, has just resumed (it told the launcher before its datagrams came):
/// it is waited for once more. Still unheard at the judgement after, it is given up.
#[test]
fn a_peer_found_polling_right_after_a_stop_is_waited_for_once_more() {
    let c = cfg();
    let (mut a, _b) = request_acknowledged_answer_awaited();
    let mut now = 20;
    let mut verdicts = [Liveness::Stopped, Liveness::Polling, Liveness::Polling].into_iter();
    let mut judged = Vec::new();
    while judged.len() < 3 && now < 20 + 4 * c.timeout {
        { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
        while let Some(Event::Silent(p)) = a.poll_event() {
            judged.push(a.judge(now, p, verdicts.next().unwrap()));
        }
        now += c.probe;
    }
    assert_eq!(judged, [true, true, false], "stopped, resumed, then a cut link");
    // Heard from between the stop and the next judgement: found polling, it is given up.
    let (mut a, mut b) = request_acknowledged_answer_awaited();
    let mut now = 20;
    let mut judged = Vec::new();
    while judged.len() < 2 && now < 20 + 3 * c.timeout {
        { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
        while let Some(Event::Silent(p)) = a.poll_event() {
            let verdict = if judged.is_empty() { Liveness::Stopped } else { Liveness::Polling };
            judged.push(a.judge(now, p, verdict));
            if judged.len() == 1 {
                // It answers one probe, then falls silent again.
                let probes = { let until = now + c.probe; run_timers(&mut a, &mut now, until) };
                deliver(&mut b, now, 1, &probes);
                deliver(&mut a, now, 2, &drain(&mut b, now));
            }
        }
        now += c.probe;
    }
    assert_eq!(judged, [true, false]);
}

#[test]
fn given_up_the_never_sent_requests_are_counted_apart() {
    let mut c = cfg();
    c.window = 2;
    let mut a = machine(1, c.clone());
    for n in 0..5 {
        a.send(0, peer(2), short(Channel::Request, n), Vec::new())
            .unwrap();
    }
    assert_eq!(drain(&mut a, 0).len(), 2, "the window lets two out");
    assert_eq!(a.give_up(peer(2)), 3, "three never left");
}

#[test]
fn a_selective_ack_resends_every_hole_at_once() {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    for i in 0..10 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new())
            .unwrap();
    }
    let sent = drain(&mut a, 0);
    assert_eq!(sent.len(), 10);
    let lost = [2usize, 5];
    let arrived: Vec<Vec<u8>> = (0..10)
        .filter(|i| !lost.contains(i))
        .map(|i| sent[i].clone())
        .collect();
    deliver(&mut b, 10, 1, &arrived);
    let acks = drain(&mut b, 10);
    let sacked = acks
        .iter()
        .map(|d| decode(d, JOB).unwrap())
        .find(|(h, p)| h.kind == PacketKind::Ack && !p.is_empty())
        .map(|(h, p)| (h.ack, p.to_vec()))
        .expect("an ack with a selective-ack bitmap");
    // Ack of sequence number 3 (the first hole); bits for 4, 5 and 7 to 10 (not 6).
    assert_eq!(sacked, (Some(3), vec![0b0111_1011]));
    deliver(&mut a, 20, 2, &acks);
    let again: Vec<u32> = drain(&mut a, 20).iter().map(|d| header_of(d).seq).collect();
    assert_eq!(again, [3, 6], "both holes at once, nothing that arrived");
    assert_eq!(a.stats().selective_retransmits, 2);
    deliver(&mut b, 30, 1, &[sent[2].clone(), sent[5].clone()]);
    assert_eq!(inbound_args(&mut b, Channel::Request), (0..10).collect::<Vec<_>>());
}

#[test]
fn a_peer_heard_from_since_the_send_is_retried_without_backing_off() {
    let (mut a, mut b) = first_request_lost();
    // The peer speaks after it (a request of its own): it is there, losing at random.
    b.send(5, peer(1), short(Channel::Request, 9), Vec::new())
        .unwrap();
    deliver(&mut a, 5, 2, &drain(&mut b, 5));
    let mut now = 0;
    let first = run_timers(&mut a, &mut now, 10_000);
    assert!(first.iter().any(|d| header_of(d).seq == 1), "resent at the initial RTO");
    // Not heard from since that retransmission: the next one backs off.
    assert!(run_timers(&mut a, &mut now, 19_999).is_empty(), "the same RTO, not less");
    let second = run_timers(&mut a, &mut now, 20_000);
    assert_eq!(second.len(), 1, "not doubled: the peer was heard from after the send");
    assert!(run_timers(&mut a, &mut now, 39_999).is_empty(), "quiet since: doubled");
    assert_eq!(run_timers(&mut a, &mut now, 40_000).len(), 1);
}

/// A short silence timeout paces resends so that SILENCE_TRIES of them fit in it: a
/// peer is judged silent after many unanswered tries, never after the two or three that
/// the 200 ms pace would leave (a live peer at heavy loss misses that few by chance).
#[test]
fn a_short_timeout_paces_resends_so_that_many_go_unanswered_before_silence() {
    let c = ReliableConfig {
        timeout: 320_000,
        ..cfg()
    };
    let mut a = machine(1, c.clone());
    a.send(0, peer(2), short(Channel::Request, 7), Vec::new())
        .unwrap();
    let mut sent = drain(&mut a, 0).len();
    let mut now = 0;
    sent += run_timers(&mut a, &mut now, c.timeout + c.rto_max).len();
    assert_eq!(a.poll_event(), Some(Event::Silent(peer(2))));
    assert!(now >= c.timeout);
    assert!(sent >= SILENCE_TRIES as usize, "only {sent} tries before the silence");
}
