//! Two ports over real loopback sockets: the machine's datagrams leave scatter-gather
//! (header from a buffer, fragment from the message's payload), in super-datagrams
//! where the kernel has segmentation offload, and what is lost of them comes again.

use super::*;
use crate::config::{Config, Faults};
use crate::name::EndpointName;
use crate::transport::net::reliable::tests::land_in;
use crate::transport::net::reliable::Peer;
use crate::transport::net::wire::PacketKind;
use std::net::Ipv4Addr;
use std::time::Duration;

fn config(faults: Faults) -> Config {
    let mut config = Config::default();
    config.net = NetConfig {
        enabled: true,
        bind_ip: Ipv4Addr::LOCALHOST,
        // The size of an Ethernet path, so a long message is many segments.
        max_datagram: Some(1472),
        offload: true,
        timeout: Duration::from_secs(30),
        doorbell: false,
        faults,
        ..config.net
    };
    config
}

fn id(n: u32) -> EndpointId {
    EndpointId {
        pid: n,
        fd: n,
        nonce: u64::from(n),
    }
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_shr(7) as u8)
        .collect()
}

/// Two ports of one job, `a` (endpoint 1) and `b` (endpoint 2), each letting the other in.
fn pair(ca: &Config, cb: &NetConfig) -> (NetPort, NetPort) {
    let a = NetPort::open(id(1), &ca.job, 256, &ca.net).unwrap();
    let b = NetPort::open(id(2), &ca.job, 256, cb).unwrap();
    for (port, n) in [(&a, 1), (&b, 2)] {
        crate::transport::net::members::admit(&EndpointName {
            host: 0,
            id: id(n),
            addr: port.addr(),
        });
    }
    (a, b)
}

fn peer_of(b: &NetPort) -> NetPeer {
    Peer {
        addr: b.addr(),
        id: id(2),
    }
}

/// Sends one long message of `len` bytes from a port losing `loss` percent of its
/// datagrams to a clean one, both sealing their datagrams with the MAC if `auth`;
/// returns the segment it landed in and the sender's stats.
fn send_long(len: usize, loss: f64, auth: bool) -> (Vec<u8>, Vec<u8>, NetStats) {
    let lossy = Faults {
        loss,
        seed: 7,
        ..Faults::default()
    };
    // One job (its id is drawn afresh by each default configuration).
    let mut ca = config(lossy);
    ca.net.auth = auth;
    let cb = NetConfig {
        faults: Faults::default(),
        ..ca.net.clone()
    };
    let (mut a, mut b) = pair(&ca, &cb);
    let to = peer_of(&b);
    let payload = pattern(len);
    let mut h = Header::new(PacketKind::Long, Channel::Request);
    h.total_len = len as u32;
    h.segment_offset = 16;
    a.send(to, h, payload.clone()).unwrap();
    let mut segment = vec![0u8; len + 32];
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut delivered = None;
    while delivered.is_none() && std::time::Instant::now() < deadline {
        let mut land = |_: &Peer<_>, h: &Header, data: &[u8]| land_in(&mut segment, h, data);
        b.receive(64, &mut land);
        delivered = b.next_inbound(Channel::Request);
        b.transmit();
        a.receive(64, &mut |_, _, _| false);
        a.transmit();
        std::thread::sleep(Duration::from_micros(200));
    }
    let m = delivered.expect("the long message arrives within a minute");
    assert!(m.landed, "every fragment landed");
    (segment[16..16 + len].to_vec(), payload, a.stats())
}

#[test]
fn a_long_message_leaves_scatter_gather_in_super_datagrams_and_lands_whole() {
    let (got, sent, stats) = send_long(200_000, 0.0, false);
    assert!(got == sent, "the segment holds the payload byte for byte");
    let s = stats.socket;
    // 200 000 bytes in datagrams of at most 1472 bytes: 136 of them, at least.
    assert!(s.sent >= 136, "{s:?}");
    if stats.offload.segmentation {
        assert!(s.super_datagrams > 0 && s.send_calls < s.sent, "{s:?}");
    }
}

#[test]
fn segments_lost_from_super_datagrams_are_sent_again_until_the_message_lands() {
    let (got, sent, stats) = send_long(200_000, 10.0, false);
    assert!(got == sent, "the segment holds the payload byte for byte");
    assert!(stats.socket.injected_losses > 0, "{:?}", stats.socket);
    assert!(stats.protocol.retransmits > 0, "{:?}", stats.protocol);
}

#[test]
fn sealed_fragments_of_a_long_message_land_whole_and_authenticated() {
    let (got, sent, stats) = send_long(200_000, 10.0, true);
    assert!(got == sent, "the segment holds the payload byte for byte");
    assert!(stats.protocol.retransmits > 0, "{:?}", stats.protocol);
}

#[test]
fn small_sends_after_the_first_are_held_for_the_next_poll_and_leave_together() {
    let c = config(Faults::default());
    let (mut a, mut b) = pair(&c, &c.net);
    let to = peer_of(&b);
    let short = |i| {
        let mut h = Header::new(PacketKind::Short, Channel::Request);
        h.args = crate::transport::net::wire::Args::new(&[i]).unwrap();
        h
    };
    // The first goes at once: a lone message waits for nothing.
    assert!(!a.send(to, short(0), Vec::new()).unwrap());
    assert_eq!(a.stats().socket.sent, 1);
    // The burst behind it waits for the poll, then leaves in one datagram.
    for i in 1..=10 {
        assert!(a.send(to, short(i), Vec::new()).unwrap(), "held");
    }
    assert!(a.holds());
    assert_eq!(a.stats().socket.sent, 1);
    a.transmit();
    assert!(!a.holds());
    let st = a.stats();
    assert_eq!((st.socket.sent, st.protocol.coalesced), (2, 9), "{st:?}");
    // And the next send after that poll goes at once again.
    assert!(!a.send(to, short(11), Vec::new()).unwrap());
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while got.len() < 12 && std::time::Instant::now() < deadline {
        b.receive(64, &mut |_, _, _| false);
        while let Some(m) = b.next_inbound(Channel::Request) {
            got.push(m.header.args[0]);
        }
    }
    assert_eq!(got, (0..12).collect::<Vec<_>>());
}

/// What someone who sniffs plain traffic can make: a request from the real peer's own
/// port, with the job's id, the peer's endpoint, the next sequence number expected and a
/// valid CRC, but no seal under the job's key. Sealing is on by default, so it is dropped
/// and counted, never delivered; with `CLUMP_NET_AUTH=0` the same datagram is delivered
/// (the trusted network that setting is for).
#[test]
fn forged_in_sequence_requests_from_the_peers_own_port_are_dropped_by_default() {
    for sealed in [true, false] {
        let mut c = config(Faults::default());
        if !sealed {
            c.net.auth = false;
        }
        let (mut a, mut b) = pair(&c, &c.net);
        let mut h = Header::new(PacketKind::Short, Channel::Request);
        h.job = c.job.job_id;
        h.src = id(1);
        h.dst = id(2);
        h.seq = 1;
        h.args = crate::transport::net::wire::Args::new(&[0xf0f0_f0f0]).unwrap();
        let len = crate::transport::net::wire::encode_into(&h, &[], a.udp.tx_buffer()).unwrap();
        a.udp.tx_commit(b.addr(), len);
        a.udp.flush();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut delivered = None;
        while delivered.is_none() && b.stats().unauthenticated == 0 {
            assert!(std::time::Instant::now() < deadline, "the datagram arrives");
            b.receive(64, &mut |_, _, _| false);
            delivered = b.next_inbound(Channel::Request);
        }
        if sealed {
            assert!(delivered.is_none(), "a forged request ran");
            let st = b.stats();
            assert_eq!((st.unauthenticated, st.protocol.datagrams_received), (1, 0), "{st:?}");
        } else {
            assert_eq!(delivered.unwrap().header.args[0], 0xf0f0_f0f0);
        }
    }
}
