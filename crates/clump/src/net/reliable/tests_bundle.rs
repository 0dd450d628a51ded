//! Unit tests of packets sharing a datagram: a payload-less reply (a credit-only answer)
//! and the request queued after it to the same peer leave together, and each is still
//! acknowledged, timed and sent again on its own channel.

use super::tests::{
    cfg, deliver, drain, inbound_args, machine, medium, peer, run_timers, short, FRAGMENT, JOB,
};
use super::*;

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
    assert_eq!(a.stats().bundled, 1);
    let (first, _, rest) = wire::decode_next(&sent[0], JOB).unwrap();
    assert_eq!((first.channel, first.ack), (Channel::Reply, Some(2)), "the reply acks request 7");
    let (second, _, _) = wire::decode_next(rest, JOB).unwrap();
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
    assert_eq!(a.stats().bundled, 0);
    deliver(&mut b, 20, 1, &sent);
    assert_eq!(inbound_args(&mut b, Channel::Reply), [8]);
    assert_eq!(inbound_args(&mut b, Channel::Request), [9]);
}

#[test]
fn a_packet_after_a_corrupted_one_is_not_read() {
    let (mut a, mut b) = reply_then_request(8);
    let mut sent = drain(&mut a, 10);
    let first_len = {
        let (_, _, rest) = wire::decode_next(&sent[0], JOB).unwrap();
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
