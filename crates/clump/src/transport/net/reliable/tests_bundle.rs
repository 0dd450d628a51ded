//! Unit tests of packets sharing a datagram: a payload-less reply (a credit-only answer)
//! and the request queued after it to the same peer leave together, and with
//! `ReliableConfig::coalesce` every small packet queued to the peer does; each is still
//! acknowledged, timed and sent again on its own channel.

use super::tests::{
    cfg, deliver, drain, inbound_args, machine, medium, peer, run_timers, short, FRAGMENT, JOB,
};
use super::*;
use crate::transport::net::reliable::COALESCE_AT_MOST;

/// `a` has taken request 7 from `b` and queued a payload-less reply to it and then a
/// request of `len` bytes, both to `b`.
fn reply_then_request(len: usize) -> (Reliable<u8>, Reliable<u8>) {
    let (mut a, mut b) = (machine(1, cfg()), machine(2, cfg()));
    b.send(0, peer(1), short(Channel::Request, 7), Vec::new()).unwrap();
    deliver(&mut a, 10, 2, &drain(&mut b, 0));
    assert_eq!(inbound_args(&mut a, Channel::Request), [7]);
    a.send(10, peer(2), short(Channel::Reply, 8), Vec::new()).unwrap();
    let (h, payload) = medium(Channel::Request, 9, len);
    a.send(10, peer(2), h, payload).unwrap();
    (a, b)
}

#[test]
fn a_payload_less_reply_and_the_next_request_share_a_datagram() {
    let (mut a, mut b) = reply_then_request(8);
    let sent = drain(&mut a, 10);
    assert_eq!(sent.len(), 1, "one datagram, and no explicit ack");
    assert_eq!(a.stats().coalesced, 1);
    let (first, _, rest) = wire::decode_next(&sent[0], JOB, Integrity::Crc).unwrap();
    assert_eq!((first.channel, first.ack), (Channel::Reply, Some(2)), "the reply acks request 7");
    let (second, _, _) = wire::decode_next(rest, JOB, Integrity::Crc).unwrap();
    assert_eq!(second.channel, Channel::Request);
    deliver(&mut b, 20, 1, &sent);
    assert_eq!(inbound_args(&mut b, Channel::Reply), [8]);
    assert_eq!(inbound_args(&mut b, Channel::Request), [9]);
    assert_eq!(b.stats().datagrams_received, 1);
    assert_eq!(b.pending(&peer(1)), 0, "b's request is acknowledged");
    // b answers a's request with a request of its own carrying the ack; a is then idle.
    b.send(20, peer(1), short(Channel::Reply, 10), Vec::new()).unwrap();
    deliver(&mut a, 30, 2, &drain(&mut b, 20));
    assert_eq!(inbound_args(&mut a, Channel::Reply), [10]);
    assert_eq!(a.pending(&peer(2)), 0, "both packets of the shared datagram are acknowledged");
}

#[test]
fn each_packet_of_a_lost_shared_datagram_is_sent_again_alone() {
    let (mut a, mut b) = reply_then_request(8);
    assert_eq!(drain(&mut a, 10).len(), 1, "lost");
    let mut now = 10;
    // Both were sent at once, so both time out at the first deadline.
    let until = a.poll_timeout().unwrap();
    let again = run_timers(&mut a, &mut now, until);
    assert_eq!(again.len(), 2, "the reply and the request, each in a datagram of its own");
    for d in &again {
        wire::decode(d, JOB).expect("one packet per datagram");
    }
    deliver(&mut b, now, 1, &again);
    assert_eq!(inbound_args(&mut b, Channel::Reply), [8]);
    assert_eq!(inbound_args(&mut b, Channel::Request), [9]);
    assert_eq!(a.stats().retransmits, 2);
}

#[test]
fn a_request_too_large_to_share_goes_alone() {
    let (mut a, mut b) = reply_then_request(FRAGMENT);
    let sent = drain(&mut a, 10);
    assert_eq!(sent.len(), 2, "the request fills a datagram by itself");
    assert_eq!(a.stats().coalesced, 0);
    deliver(&mut b, 20, 1, &sent);
    assert_eq!(inbound_args(&mut b, Channel::Reply), [8]);
    assert_eq!(inbound_args(&mut b, Channel::Request), [9]);
}

#[test]
fn a_packet_after_a_corrupted_one_is_not_read() {
    let (mut a, mut b) = reply_then_request(8);
    let mut sent = drain(&mut a, 10);
    let first_len = {
        let (_, _, rest) = wire::decode_next(&sent[0], JOB, Integrity::Crc).unwrap();
        sent[0].len() - rest.len()
    };
    // A flipped bit in the reply: neither it nor the request behind it is delivered (the
    // request's start is not to be trusted): both go again, as a lost datagram's would.
    sent[0][wire::offsets::SEQ] ^= 1;
    assert!(first_len < sent[0].len());
    deliver(&mut b, 20, 1, &sent);
    assert!(inbound_args(&mut b, Channel::Reply).is_empty());
    assert!(inbound_args(&mut b, Channel::Request).is_empty());
    assert_eq!(b.stats().crc_or_malformed, 1);
}

/// A machine that coalesces, with loopback's datagram size (as an endpoint's port does).
fn coalescing(n: u8) -> Reliable<u8> {
    let max_datagram = wire::MAX_DATAGRAM;
    machine(n, ReliableConfig { coalesce: true, max_datagram, ..cfg() })
}

/// The packets of each datagram: (channel, first argument).
fn packets(d: &[u8]) -> Vec<(Channel, u32)> {
    let mut out = Vec::new();
    let mut rest = d;
    while !rest.is_empty() {
        let (h, _, next) = wire::decode_next(rest, JOB, Integrity::Crc).unwrap();
        out.push((h.channel, h.args[0]));
        rest = next;
    }
    out
}

#[test]
fn small_messages_queued_to_a_peer_share_one_datagram() {
    let (mut a, mut b) = (coalescing(1), coalescing(2));
    for i in 0..20 {
        let (h, p) = medium(Channel::Request, i, 8);
        a.send(0, peer(2), h, p).unwrap();
    }
    let sent = drain(&mut a, 0);
    assert_eq!(sent.len(), 1, "one datagram of 20 packets");
    assert_eq!(packets(&sent[0]), (0..20).map(|i| (Channel::Request, i)).collect::<Vec<_>>());
    let st = a.stats();
    assert_eq!((st.datagrams_sent, st.coalesced), (1, 19));
    deliver(&mut b, 10, 1, &sent);
    assert_eq!(inbound_args(&mut b, Channel::Request), (0..20).collect::<Vec<_>>());
    // Replies to all of them (and the ack) leave in one datagram too, replies first.
    for i in 0..20 {
        b.send(10, peer(1), short(Channel::Reply, 100 + i), Vec::new()).unwrap();
    }
    let back = drain(&mut b, 10);
    assert_eq!(back.len(), 1);
    deliver(&mut a, 20, 2, &back);
    assert_eq!(inbound_args(&mut a, Channel::Reply), (100..120).collect::<Vec<_>>());
    assert_eq!(a.pending(&peer(2)), 0, "every request acknowledged");
}

#[test]
fn coalesced_datagrams_keep_to_the_peer_size_and_large_payloads_go_alone() {
    let mut a = coalescing(1);
    a.set_path_datagram(peer(2), 1472);
    // 30 requests of 100 bytes: 208 bytes each on the wire, so 7 to a 1472-byte datagram.
    for i in 0..30 {
        let (h, p) = medium(Channel::Request, i, 100);
        a.send(0, peer(2), h, p).unwrap();
    }
    let sent = drain(&mut a, 0);
    assert!(sent.iter().all(|d| d.len() <= 1472));
    assert_eq!(sent.len(), 30usize.div_ceil(7));
    // Behind a payload larger than what is copied, nothing follows.
    let mut a = coalescing(1);
    let (h, p) = medium(Channel::Request, 1, COALESCE_AT_MOST + 1);
    a.send(0, peer(2), h, p).unwrap();
    a.send(0, peer(2), short(Channel::Request, 2), Vec::new()).unwrap();
    let sent = drain(&mut a, 0);
    assert_eq!(sent.iter().map(|d| packets(d).len()).collect::<Vec<_>>(), [1, 1]);
}

#[test]
fn each_packet_of_a_lost_coalesced_datagram_is_sent_again_and_delivered_once() {
    let (mut a, mut b) = (coalescing(1), coalescing(2));
    for i in 0..5 {
        a.send(0, peer(2), short(Channel::Request, i), Vec::new()).unwrap();
    }
    assert_eq!(drain(&mut a, 0).len(), 1, "lost");
    // Two more go in a datagram that arrives: b acknowledges nothing and reports a hole.
    for i in 5..7 {
        a.send(10, peer(2), short(Channel::Request, i), Vec::new()).unwrap();
    }
    deliver(&mut b, 20, 1, &drain(&mut a, 10));
    assert!(inbound_args(&mut b, Channel::Request).is_empty(), "held behind the hole");
    deliver(&mut a, 30, 2, &drain(&mut b, 20));
    let mut now = 30;
    let mut again = drain(&mut a, now);
    let until = a.poll_timeout().unwrap();
    again.extend(run_timers(&mut a, &mut now, until));
    assert!(a.stats().retransmits >= 5, "{:?}", a.stats());
    deliver(&mut b, now, 1, &again);
    assert_eq!(inbound_args(&mut b, Channel::Request), (0..7).collect::<Vec<_>>());
}

/// The CRC field of each packet in `datagram`, decoded as `integrity` says.
fn crcs(datagram: &[u8], integrity: Integrity) -> Vec<u32> {
    let mut rest = datagram;
    let mut crcs = Vec::new();
    while !rest.is_empty() {
        crcs.push(u32::from_le_bytes(rest[wire::offsets::CRC..][..4].try_into().unwrap()));
        rest = wire::decode_next(rest, JOB, integrity).unwrap().2;
    }
    crcs
}

#[test]
fn sealed_datagrams_carry_no_crc_and_are_delivered_whole() {
    let sealed = |n| {
        machine(
            n,
            ReliableConfig { coalesce: true, integrity: Integrity::Sealed, ..cfg() },
        )
    };
    let (mut a, mut b) = (sealed(1), sealed(2));
    for i in 0..5 {
        let (h, payload) = medium(Channel::Request, i, 100 + i as usize);
        a.send(0, peer(2), h, payload).unwrap();
    }
    let sent = drain(&mut a, 0);
    assert_eq!(sent.len(), 1, "five small packets in one datagram");
    assert_eq!(crcs(&sent[0], Integrity::Sealed), [0; 5], "no CRC is computed");
    assert!(
        wire::decode_next(&sent[0], JOB, Integrity::Crc).is_err(),
        "a receiver that checks CRCs refuses them"
    );
    deliver(&mut b, 10, 1, &sent);
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1, 2, 3, 4]);
    assert_eq!(b.stats().crc_or_malformed, 0);
}
