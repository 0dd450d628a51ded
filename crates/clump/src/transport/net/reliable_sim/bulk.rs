//! Long-message streams through lossy links: one machine streams long requests of one
//! size within a credit limit, as `clump bench loggp`'s bandwidth phase does, and the
//! other answers each with a short reply. Links have a latency and a rate, so a window
//! of full-sized datagrams takes the time it would on loopback. What this measures is
//! the protocol's recovery under loss, in virtual time: goodput at a loss rate against
//! goodput without loss, and whether a stream ends at all.

use super::network::{Faults, Network};
use crate::transport::net::reliable::{Micros, Peer, Reliable, ReliableConfig};
use crate::transport::net::wire::{Args, Channel, Header, PacketKind, MAX_DATAGRAM};

/// One stream: `messages` long requests of `bytes` each, `credits` unanswered at most.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    pub seed: u64,
    pub bytes: usize,
    pub messages: u32,
    pub credits: u32,
    /// Chance that a datagram is lost, each way.
    pub loss: f64,
}

/// How a stream went.
#[derive(Clone, Copy, Debug)]
pub struct Streamed {
    /// Virtual time from the first send to the last answer.
    pub elapsed: Micros,
    /// Payload MB/s (10^6 B/s) over `elapsed`.
    pub mb_s: f64,
    pub datagrams: u64,
    pub retransmits: u64,
    pub timeouts: u64,
}

/// One-way latency of a link, and its rate in bytes per microsecond (4 GB/s: loopback).
const LATENCY: Micros = 10;
const BYTES_PER_US: u64 = 4_000;
/// Virtual time after which a stream counts as stalled.
const STALLED: Micros = 600_000_000;

fn peer(n: u8) -> Peer<u8> {
    Peer {
        addr: n,
        id: crate::name::EndpointId {
            pid: 300 + u32::from(n),
            fd: 5,
            nonce: 0x5eed_b01c + u64::from(n),
        },
    }
}

fn config() -> ReliableConfig {
    ReliableConfig {
        job: 0xb01c,
        max_datagram: MAX_DATAGRAM,
        // As the UDP port runs it (`net/port.rs`).
        ack_delay: 200,
        ..ReliableConfig::default()
    }
}

/// Runs `s`; `None` if it stalled (no end within [`STALLED`] of virtual time).
pub fn run(s: &Stream) -> Option<Streamed> {
    let faults = Faults {
        loss: s.loss,
        ..Faults::default()
    };
    let mut net = Network::new(s.seed, faults, None).with_links(LATENCY, 0, Some(BYTES_PER_US));
    let mut m = [Reliable::new(peer(1).id, config()), Reliable::new(peer(2).id, config())];
    let payload = vec![0x5au8; s.bytes];
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let (mut sent, mut answered, mut now) = (0u32, 0u32, 0 as Micros);
    let mut landed = 0u64;
    while answered < s.messages {
        // The sender fills its credits.
        while sent < s.messages && sent - answered < s.credits {
            let mut h = Header::new(PacketKind::Long, Channel::Request);
            h.handler = 1;
            h.total_len = s.bytes as u32;
            h.args = Args::new(&[sent]).unwrap_or_default();
            m[0].send(now, peer(2), h, payload.clone()).ok()?;
            sent += 1;
        }
        for (i, mc) in m.iter_mut().enumerate() {
            while let Some((to, len)) = mc.poll_transmit(now, &mut buf) {
                net.send(now, i as u8 + 1, to, &buf[..len]);
            }
        }
        let next = [net.next_time(), m[0].poll_timeout(), m[1].poll_timeout()]
            .into_iter()
            .flatten()
            .min()?;
        now = now.max(next);
        if now > STALLED {
            return None;
        }
        while let Some((from, to, d)) = net.pop_due(now) {
            m[usize::from(to) - 1].handle_datagram(now, from, &d, &mut |_, data| {
                landed += data.len() as u64;
                true
            });
            net.recycle(d);
        }
        for mc in &mut m {
            if mc.poll_timeout().is_some_and(|t| t <= now) {
                mc.handle_timeout(now);
            }
        }
        while let Some(req) = m[1].poll_inbound(Channel::Request) {
            let mut h = Header::new(PacketKind::Short, Channel::Reply);
            h.handler = 2;
            h.args = req.header.args;
            m[1].send(now, peer(1), h, Vec::new()).ok()?;
        }
        while m[0].poll_inbound(Channel::Reply).is_some() {
            answered += 1;
        }
    }
    assert_eq!(landed, s.bytes as u64 * u64::from(s.messages), "every byte landed once");
    let st = m[0].stats();
    Some(Streamed {
        elapsed: now,
        mb_s: (s.bytes as f64 * f64::from(s.messages)) / now.max(1) as f64,
        datagrams: st.datagrams_sent,
        retransmits: st.retransmits,
        timeouts: st.timeouts,
    })
}
