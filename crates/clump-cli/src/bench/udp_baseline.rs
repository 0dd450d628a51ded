//! The network's hardware baseline, measured between the same two processes in the same
//! run as clump's UDP figures, and written with no clump code in it (what a user's best
//! hand-written UDP program does):
//!
//! - the ping-pong: a connected non-blocking socket, one 8-byte `send`, then `recv`
//!   polled in a busy loop until the answer is there;
//! - the stream: messages cut into datagrams as large as the path carries, leaving in
//!   `sendmmsg` batches of segmentation-offload super-datagrams where the kernel has them
//!   (`UDP_SEGMENT`: up to 64 datagrams per entry, so 8-byte messages go 4096 per system
//!   call), received with `recvmmsg` and coalescing (`UDP_GRO`), counted at the receiver.

mod mmsg;

use super::report::Datagrams;
use super::wait::spin_until;
use mmsg::{Receives, Sends, BATCH, MAX_SEGMENTS, MAX_UDP};
use std::io::ErrorKind;
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

/// Bytes of a ping: a sequence number.
const PING_BYTES: usize = 8;
/// Socket buffers asked for (the kernel caps them): a burst must not overflow them.
const SOCKET_BUFFER: usize = 4 << 20;

/// One rank's bare socket, connected to its peer once the ranks have exchanged addresses.
pub struct BareUdp {
    socket: UdpSocket,
    /// The largest datagram the path carries (known once connected).
    per: usize,
    segmentation: bool,
    super_datagrams: u64,
    sends: Sends,
    receives: Receives,
    /// Bytes the stream's datagrams are sent from.
    payload: Vec<u8>,
}

impl BareUdp {
    /// A non-blocking socket on `ip` with large buffers and the offloads the kernel has.
    pub fn bind(ip: Ipv4Addr) -> Result<BareUdp, String> {
        let socket = UdpSocket::bind(SocketAddrV4::new(ip, 0))
            .and_then(|s| s.set_nonblocking(true).map(|()| s))
            .map_err(|e| format!("bare UDP socket: {e}"))?;
        // A refusal leaves the default size, which only makes the baseline worse.
        let sock = socket2::SockRef::from(&socket);
        let _ = sock.set_send_buffer_size(SOCKET_BUFFER);
        let _ = sock.set_recv_buffer_size(SOCKET_BUFFER);
        Ok(BareUdp {
            segmentation: mmsg::enable_offloads(&socket),
            socket,
            per: 0,
            super_datagrams: 0,
            sends: Sends::new(),
            receives: Receives::new(),
            payload: vec![0x5a; MAX_UDP],
        })
    }

    pub fn addr(&self) -> SocketAddrV4 {
        match self.socket.local_addr() {
            Ok(std::net::SocketAddr::V4(a)) => a,
            _ => SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0),
        }
    }

    /// Connects to the peer's socket: sends and receives name no address from then on.
    pub fn connect(&mut self, peer: SocketAddrV4) -> Result<(), String> {
        self.socket
            .connect(peer)
            .map_err(|e| format!("bare UDP socket to {peer}: {e}"))?;
        self.per =
            mmsg::path_datagram(&self.socket).map_err(|e| format!("path MTU to {peer}: {e}"))?;
        Ok(())
    }

    /// How the stream's datagrams went out.
    pub fn datagrams(&mut self) -> Datagrams {
        Datagrams {
            bytes: self.per,
            segmentation: self.segmentation,
            super_datagrams: self.super_datagrams,
            coalesced: 0,
            sent: 0,
        }
    }

    fn send_seq(&mut self, seq: u64) -> Result<(), String> {
        loop {
            match self.socket.send(&seq.to_le_bytes()) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                Err(e) => return Err(format!("bare UDP send: {e}")),
            }
        }
    }

    /// Polls `recv` until the datagram carrying `seq` arrives.
    fn await_seq(&mut self, seq: u64, what: &str) -> Result<(), String> {
        let mut buf = [0u8; PING_BYTES];
        let socket = &self.socket;
        spin_until(
            what,
            || matches!(socket.recv(&mut buf), Ok(PING_BYTES) if buf == seq.to_le_bytes()),
        )
    }

    /// Rank 0: `rounds` round trips, numbered on from `*round`; the time they took.
    pub fn ping(&mut self, round: &mut u64, rounds: u64) -> Result<Duration, String> {
        let t0 = Instant::now();
        for _ in 0..rounds {
            *round += 1;
            self.send_seq(*round)?;
            self.await_seq(*round, "the bare UDP pong")?;
        }
        Ok(t0.elapsed())
    }

    /// Rank 1: echoes `rounds` pings.
    pub fn pong(&mut self, round: &mut u64, rounds: u64) -> Result<(), String> {
        for _ in 0..rounds {
            *round += 1;
            self.await_seq(*round, "the bare UDP ping")?;
            self.send_seq(*round)?;
        }
        Ok(())
    }

    /// Rank 0: streams messages of `bytes` bytes for `time`; returns how long it sent.
    pub fn stream(&mut self, bytes: usize, time: Duration) -> Duration {
        let plan = stream_plan(bytes.max(1), self.per.max(1), self.segmentation);
        self.super_datagrams = 0;
        let t0 = Instant::now();
        while t0.elapsed() < time {
            let mut at = 0;
            while at < plan.len() {
                let end = (at + BATCH).min(plan.len());
                // A full send buffer takes fewer: the rest go on the next call.
                let sent = self.sends.send(&self.socket, &self.payload, &plan[at..end]);
                self.super_datagrams +=
                    plan[at..at + sent].iter().filter(|e| e.1 > 0).count() as u64;
                at += sent;
            }
        }
        t0.elapsed()
    }

    /// Rank 1: counts the payload bytes that arrive until `stop()` holds and the socket
    /// has stayed empty for a moment (the stream's tail still in flight).
    pub fn sink(&mut self, mut stop: impl FnMut() -> bool) -> u64 {
        let mut bytes = 0u64;
        let mut quiet_since: Option<Instant> = None;
        loop {
            let n = self.receives.receive(&self.socket);
            bytes += n;
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

/// The sends of a stream of `bytes`-byte messages over a path of `per`-byte datagrams,
/// as `(bytes, segment size)` entries (segment 0: one plain datagram): each message cut
/// into datagrams of `per` bytes (the last shorter), runs of them joined into
/// super-datagrams; messages that fit in one datagram joined many to a super-datagram.
/// About one `sendmmsg` of entries, or one message if it needs more.
fn stream_plan(bytes: usize, per: usize, segmentation: bool) -> Vec<(usize, usize)> {
    let per = per.min(MAX_UDP);
    let segments = |size: usize| {
        if segmentation {
            (MAX_UDP / size).clamp(1, MAX_SEGMENTS)
        } else {
            1
        }
    };
    if bytes <= per {
        let n = segments(bytes);
        let entry = (n * bytes, if n > 1 { bytes } else { 0 });
        return vec![entry; BATCH];
    }
    let run = segments(per) * per;
    let mut message = Vec::new();
    let mut left = bytes;
    while left > 0 {
        let b = left.min(run);
        message.push((b, if b > per { per } else { 0 }));
        left -= b;
    }
    let copies = (BATCH / message.len()).max(1);
    message.repeat(copies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(plan: &[(usize, usize)]) -> usize {
        plan.iter().map(|e| e.0).sum()
    }

    #[test]
    fn small_messages_go_many_to_a_super_datagram() {
        let plan = stream_plan(8, 1472, true);
        assert_eq!(plan.len(), BATCH);
        assert!(plan.iter().all(|&e| e == (8 * MAX_SEGMENTS, 8)));
        assert!(stream_plan(8, 1472, false).iter().all(|&e| e == (8, 0)));
    }

    #[test]
    fn large_messages_are_cut_at_the_path_size() {
        // 64 KiB over a 1472-byte path: a super-datagram of 44 segments, then the rest alone.
        let plan = stream_plan(65536, 1472, true);
        assert_eq!(&plan[..2], &[(44 * 1472, 1472), (65536 - 44 * 1472, 0)]);
        assert_eq!(payload(&plan) % 65536, 0);
        // Loopback: each datagram on its own; 16 MiB is one message of 257 of them.
        let plan = stream_plan(16 << 20, MAX_UDP, true);
        assert_eq!(payload(&plan), 16 << 20);
        assert!(plan.iter().all(|e| e.1 == 0 && e.0 <= MAX_UDP));
    }

    #[test]
    fn a_ping_pong_and_a_stream_cross_loopback() {
        let mut a = BareUdp::bind(Ipv4Addr::LOCALHOST).unwrap();
        let pa = a.addr();
        let (tx, rx) = std::sync::mpsc::channel();
        // The socket's batches hold raw pointers: rank 1's lives in its thread.
        let echo = std::thread::spawn(move || {
            let mut b = BareUdp::bind(Ipv4Addr::LOCALHOST).unwrap();
            tx.send(b.addr()).unwrap();
            b.connect(pa).unwrap();
            b.pong(&mut 0, 10).unwrap();
            let t0 = Instant::now();
            b.sink(|| t0.elapsed() > Duration::from_millis(300))
        });
        a.connect(rx.recv().unwrap()).unwrap();
        a.ping(&mut 0, 10).unwrap();
        a.stream(100, Duration::from_millis(20));
        let got = echo.join().unwrap();
        assert!(got > 0 && got % 100 == 0, "{got} bytes arrived");
    }
}
