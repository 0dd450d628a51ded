//! The network's hardware baseline, measured between the same two processes in the same
//! run as clump's UDP figures: a bare datagram ping-pong (a polled UDP round trip with no
//! protocol at all) and a bare datagram stream: payload bytes in the largest datagrams the
//! path carries, batched with `sendmmsg` and, where the path is small, sent as
//! segmentation-offload super-datagrams and received coalesced (what a user's best
//! hand-written UDP program would do), counted at the receiver.

use super::report::Datagrams;
use super::wait::spin_until;
use clump::config::Faults;
use clump::net::udp::{UdpPort, BATCH};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::{Duration, Instant};

/// Bytes of a ping: a sequence number.
const PING_BYTES: usize = 8;

/// One rank's bare socket and its peer's address.
pub struct BareUdp {
    port: UdpPort,
    peer: SocketAddrV4,
}

impl BareUdp {
    /// A socket on `ip` that sends datagrams as large as the path carries, with the
    /// offloads the kernel has; the peer's address comes later ([`BareUdp::connect`]),
    /// once the ranks have exchanged theirs.
    pub fn bind(ip: Ipv4Addr) -> Result<BareUdp, String> {
        let port = UdpPort::bind(ip, None, true, Faults::default())
            .map_err(|e| format!("bare UDP socket: {e}"))?;
        Ok(BareUdp {
            port,
            peer: SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0),
        })
    }

    pub fn addr(&self) -> SocketAddrV4 {
        self.port.local_addr()
    }

    pub fn connect(&mut self, peer: SocketAddrV4) {
        self.peer = peer;
    }

    /// How the stream's datagrams went out.
    pub fn datagrams(&mut self) -> Datagrams {
        Datagrams {
            bytes: self.port.path_datagram(*self.peer.ip()),
            segmentation: self.port.offload().segmentation,
            super_datagrams: self.port.stats().super_datagrams,
        }
    }

    fn send_seq(&mut self, seq: u64) {
        let buf = self.port.tx_buffer();
        buf[..PING_BYTES].copy_from_slice(&seq.to_le_bytes());
        self.port.tx_commit(self.peer, PING_BYTES);
        self.port.flush();
    }

    /// Spins on the socket until the datagram carrying `seq` arrives.
    fn await_seq(&mut self, seq: u64, what: &str) -> Result<(), String> {
        spin_until(what, || {
            let n = self.port.receive(BATCH);
            (0..n).any(|i| self.port.received(i).1 == seq.to_le_bytes())
        })
    }

    /// Rank 0: `rounds` round trips, numbered on from `*round`; the time they took.
    pub fn ping(&mut self, round: &mut u64, rounds: u64) -> Result<Duration, String> {
        let t0 = Instant::now();
        for _ in 0..rounds {
            *round += 1;
            self.send_seq(*round);
            self.await_seq(*round, "the bare UDP pong")?;
        }
        Ok(t0.elapsed())
    }

    /// Rank 1: echoes `rounds` pings.
    pub fn pong(&mut self, round: &mut u64, rounds: u64) -> Result<(), String> {
        for _ in 0..rounds {
            *round += 1;
            self.await_seq(*round, "the bare UDP ping")?;
            self.send_seq(*round);
        }
        Ok(())
    }

    /// Rank 0: streams messages of `bytes` bytes (each in datagrams as large as the path
    /// carries) for `time`; returns how long it sent.
    pub fn stream(&mut self, bytes: usize, time: Duration) -> Duration {
        let per = self.port.path_datagram(*self.peer.ip());
        let chunk = ((256usize << 10) / bytes.max(1)).clamp(1, 16);
        let t0 = Instant::now();
        while t0.elapsed() < time {
            for _ in 0..chunk {
                let mut left = bytes.max(1);
                while left > 0 {
                    let n = left.min(per);
                    let _ = self.port.tx_buffer();
                    self.port.tx_commit(self.peer, n);
                    left -= n;
                }
            }
            self.port.flush();
        }
        t0.elapsed()
    }

    /// Rank 1: counts the payload bytes that arrive until `stop()` holds and the socket
    /// has stayed empty for a moment (the stream's tail still in flight).
    pub fn sink(&mut self, mut stop: impl FnMut() -> bool) -> u64 {
        let mut bytes = 0u64;
        let mut quiet_since: Option<Instant> = None;
        loop {
            let n = self.port.receive(BATCH);
            bytes += (0..n)
                .map(|i| self.port.received(i).1.len() as u64)
                .sum::<u64>();
            if n > 0 {
                quiet_since = None;
            } else if stop() {
                let since = *quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_millis(2) {
                    return bytes;
                }
            }
        }
    }
}
