//! Unit tests of what the machine keeps for whom: peers outside the job get no state,
//! and out-of-order data is kept within its bounds per peer and over all peers.

use super::recv::EARLY_OVERHEAD;
use super::tests::{cfg, deliver, drain, inbound_args, machine, medium, peer, run_timers};
use super::*;

/// A machine for peer 2 that admits only the peers in `job`.
fn listening(job: &'static [u8], cfg: ReliableConfig) -> Reliable<u8> {
    let mut m = machine(2, cfg);
    m.set_admission(Box::new(|p: &Peer<u8>| job.iter().any(|&n| *p == peer(n))));
    m
}

/// Requests `0..n` from `a` to peer 2, each a medium of `len` bytes in one datagram.
fn requests(a: &mut Reliable<u8>, n: u32, len: usize) -> Vec<Vec<u8>> {
    for i in 0..n {
        let (h, p) = medium(Channel::Request, i, len);
        a.send(0, peer(2), h, p).unwrap();
    }
    drain(a, 0)
}

/// Exchanges datagrams and fires timers between `a` (address 1) and `b` (address 2)
/// until neither has anything left to send.
fn settle(a: &mut Reliable<u8>, b: &mut Reliable<u8>, now: &mut Micros) {
    for _ in 0..1_000 {
        let to_b = [drain(a, *now), run_timers(a, now, *now + 1_000_000)].concat();
        deliver(b, *now, 1, &to_b);
        let to_a = [drain(b, *now), run_timers(b, now, *now + 1_000_000)].concat();
        deliver(a, *now, 2, &to_a);
        if to_a.is_empty() && to_b.is_empty() {
            return;
        }
    }
    panic!("the machines never settled");
}

#[test]
fn datagrams_from_outside_the_job_keep_no_state_and_run_nothing() {
    let mut b = listening(&[1], cfg());
    let mut stranger = machine(3, cfg());
    let forged = requests(&mut stranger, 5, 100);
    deliver(&mut b, 0, 3, &forged);
    // The real endpoint 1's datagrams replayed from another address (a new port).
    let mut a = machine(1, cfg());
    let real = requests(&mut a, 3, 100);
    deliver(&mut b, 0, 9, &real);
    let s = b.stats();
    assert_eq!((s.peers, s.refused_sources), (0, 8), "{s:?}");
    assert_eq!((s.datagrams_received, s.reorder_bytes), (0, 0));
    assert!(drain(&mut b, 0).is_empty(), "no answer to a stranger");
    assert!(inbound_args(&mut b, Channel::Request).is_empty());
    // From its own address, endpoint 1 is of the job: each request runs once, the replay
    // of them included.
    deliver(&mut b, 0, 1, &real);
    deliver(&mut b, 0, 9, &real);
    deliver(&mut b, 0, 1, &real);
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1, 2]);
    assert_eq!((b.stats().peers, b.stats().refused_sources), (1, 11));
}

#[test]
fn a_peer_the_machine_sent_to_is_admitted() {
    let mut b = listening(&[], cfg());
    b.send(0, peer(1), short_request(), Vec::new()).unwrap();
    let mut a = machine(1, cfg());
    deliver(&mut a, 0, 2, &drain(&mut b, 0));
    deliver(&mut b, 0, 1, &drain(&mut a, 0));
    assert_eq!(b.stats().refused_sources, 0);
    assert!(b.idle(), "the ack came in");
}

/// The race a freed endpoint must survive: its first request reaches a peer that has not
/// mapped it yet and is refused unread; only the retransmission one RTO later delivers
/// it, and until its ack the sender lists that peer as unsettled (so a closing endpoint
/// keeps its socket open for it, `net/linger.rs`).
#[test]
fn a_request_refused_before_the_peer_admits_its_sender_stays_unsettled_until_resent_and_acked() {
    let admitted = std::rc::Rc::new(std::cell::Cell::new(false));
    let mut b = machine(2, cfg());
    let open = admitted.clone();
    b.set_admission(Box::new(move |p: &Peer<u8>| open.get() && *p == peer(1)));
    let mut a = machine(1, cfg());
    a.send(0, peer(2), short_request(), Vec::new()).unwrap();
    deliver(&mut b, 10, 1, &drain(&mut a, 0));
    assert_eq!(b.stats().refused_sources, 1);
    assert!(inbound_args(&mut b, Channel::Request).is_empty());
    assert_eq!(a.unsettled_peers(), [peer(2)]);
    admitted.set(true);
    // Nothing goes again before the RTO; the retransmission after it is delivered.
    let mut now = 10;
    assert!(run_timers(&mut a, &mut now, 5_000).is_empty());
    assert_eq!(a.unsettled_peers(), [peer(2)], "still unacknowledged");
    let again = run_timers(&mut a, &mut now, 15_000);
    assert_eq!(again.len(), 1, "one retransmission, after the first RTO");
    deliver(&mut b, now, 1, &again);
    assert_eq!(inbound_args(&mut b, Channel::Request), [7]);
    deliver(&mut a, now, 2, &drain(&mut b, now));
    assert!(a.unsettled_peers().is_empty() && a.idle());
}

#[test]
fn a_peer_given_up_is_not_unsettled() {
    let mut a = machine(1, cfg());
    a.send(0, peer(2), short_request(), Vec::new()).unwrap();
    a.send(0, peer(3), short_request(), Vec::new()).unwrap();
    assert_eq!(drain(&mut a, 0).len(), 2);
    assert_eq!(a.unsettled_peers(), [peer(2), peer(3)]);
    assert_eq!(a.give_up(peer(2)), 0, "it was sent: it may have arrived");
    assert_eq!(a.unsettled_peers(), [peer(3)]);
}

fn short_request() -> Header {
    super::tests::short(Channel::Request, 7)
}

#[test]
fn out_of_order_data_beyond_the_peer_bound_is_dropped_and_comes_again() {
    let len = 1_000;
    let cost = len + EARLY_OVERHEAD;
    let bounded = ReliableConfig {
        reorder_peer: 3 * cost,
        ..cfg()
    };
    let (mut a, mut b) = (machine(1, cfg()), machine(2, bounded));
    let reqs = requests(&mut a, 10, len);
    assert_eq!(reqs.len(), 10);
    // The first is lost: three of the nine behind it are kept, six dropped.
    deliver(&mut b, 0, 1, &reqs[1..]);
    let s = b.stats();
    assert_eq!((s.reorder_bytes, s.beyond_reorder_bound), (3 * cost as u64, 6));
    assert!(inbound_args(&mut b, Channel::Request).is_empty());
    deliver(&mut b, 0, 1, &reqs[..1]);
    assert_eq!(inbound_args(&mut b, Channel::Request), [0, 1, 2, 3]);
    assert_eq!(b.stats().reorder_bytes, 0, "what was kept went on");
    // The sender resends the rest; each arrives once, in order.
    let mut now = 0;
    settle(&mut a, &mut b, &mut now);
    assert_eq!(inbound_args(&mut b, Channel::Request), [4, 5, 6, 7, 8, 9]);
    assert!(a.idle());
    assert_eq!(b.stats().reorder_bytes_peak, 3 * cost as u64);
}

#[test]
fn the_total_bound_holds_over_every_peer() {
    let len = 500;
    let cost = len + EARLY_OVERHEAD;
    let bounded = ReliableConfig {
        reorder_total: 4 * cost,
        ..cfg()
    };
    let mut b = machine(2, bounded);
    // Ten peers each send two; the first of each is lost, so each second is early.
    for n in 10..20u8 {
        let mut p = machine(n, cfg());
        let d = requests(&mut p, 2, len);
        deliver(&mut b, 0, n, &d[1..]);
    }
    let s = b.stats();
    assert_eq!(s.peers, 10);
    assert_eq!((s.reorder_bytes, s.reorder_bytes_peak), (4 * cost as u64, 4 * cost as u64));
    assert_eq!(s.beyond_reorder_bound, 6);
}

#[test]
fn an_unreachable_peer_gives_its_kept_bytes_back() {
    let short_budget = ReliableConfig {
        timeout: 10_000,
        ..cfg()
    };
    let (mut a, mut b) = (machine(1, cfg()), machine(2, short_budget));
    let reqs = requests(&mut a, 3, 100);
    deliver(&mut b, 0, 1, &reqs[1..]);
    assert_eq!(b.stats().reorder_bytes, 2 * (100 + EARLY_OVERHEAD) as u64);
    // b has a request of its own in flight to a, which never answers.
    b.send(0, peer(1), short_request(), Vec::new()).unwrap();
    drain(&mut b, 0);
    let mut now = 0;
    run_timers(&mut b, &mut now, 1_000_000);
    assert_eq!(b.poll_event(), Some(Event::Silent(peer(1))));
    b.give_up(peer(1));
    assert_eq!(b.stats().reorder_bytes, 0);
}
