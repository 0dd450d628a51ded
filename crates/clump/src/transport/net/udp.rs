//! Sockets and batching: the only file of the network transport that does I/O.
//!
//! Each endpoint owns one non-blocking UDP socket. Outgoing datagrams are written into a
//! batch of buffers and leave in one `sendmmsg` (`udp/tx.rs`), runs of them to one peer
//! as segmentation-offload super-datagrams (`udp/offload.rs`); incoming ones arrive up to
//! a batch at a time through one `recvmmsg` (`udp/rx.rs`), coalesced where the kernel
//! does, so a poll that finds nothing costs one system call. The largest datagram to a
//! peer comes from the path to it (`udp/path.rs`) unless configured. The fault injector
//! (`faults.rs`) acts here, on the way out, on each datagram (so on single segments of
//! super-datagrams).

mod inlet;
mod offload;
mod path;
mod replay;
mod rx;
mod twins;
mod tx;

pub use offload::Offload;

use crate::config::Faults;
use crate::transport::net::doorbell::Doorbell;
use crate::transport::net::faults::{Fate, FaultInjector};
use crate::transport::net::fragment::Fragment;
use crate::transport::net::wire::MAX_DATAGRAM;
use inlet::{Inlet, Read};
use rx::RxBatch;
use twins::Twins;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, RawFd};

/// Datagrams one `sendmmsg` or `recvmmsg` moves at most.
pub const BATCH: usize = 64;
/// With a doorbell, polls that find it silent skip the socket, and read it anyway once
/// per this many microseconds of the caller's clock, in case the hint was wrong (see
/// `doorbell.rs`). A count of polls made a spinning waiter read about every 16 us, a
/// system call that found nothing on nearly every round trip; a wrong hint is rare and
/// waits no longer than an ack is delayed.
pub const READ_ANYWAY_EVERY_US: u64 = 200;
/// Socket buffer sizes asked for: bursts of a window of datagrams must not overflow them.
const SOCKET_BUFFER: usize = 4 << 20;

/// Counters of what the socket layer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpStats {
    pub sent: u64,
    pub received: u64,
    /// Datagrams the kernel refused (socket buffer full, no route): lost, as on a wire.
    pub send_errors: u64,
    pub injected_losses: u64,
    /// Copies of captured datagrams sent again by the replay fault (`udp/replay.rs`).
    pub replayed: u64,
    /// Super-datagrams sent (each counted in `sent` as its segments).
    pub super_datagrams: u64,
    /// `sendmmsg` calls.
    pub send_calls: u64,
    /// `recvmmsg` calls (polls that a silent doorbell spares make none).
    pub receive_calls: u64,
    /// Datagrams that came up coalesced behind the first of their receive buffer.
    pub coalesced: u64,
    /// Reads of the socket that failed other than for want of a datagram (an ICMP report
    /// of an earlier send, a broken socket); the first is said on stderr.
    pub receive_errors: u64,
    /// Peers sent to from a connected twin of the socket (`udp/twins.rs`).
    pub twins: u64,
    /// Reads of a twin that found its peer's port closed (the kernel's report of an
    /// earlier send: the peer exited); not failures.
    pub peers_closed: u64,
}

/// One endpoint's socket with its send and receive batches, and its connected twins.
pub struct UdpPort {
    /// The endpoint's socket, unconnected: it sends where no twin does, and receives
    /// what comes from peers without one.
    main: Inlet,
    twins: Twins,
    /// The inlet a receive reads first (0: the main socket, i: twin i - 1), in turn.
    turn: usize,
    local: SocketAddrV4,
    /// The size of the transmit buffers: the configured datagram size, else the largest.
    max_datagram: usize,
    /// Whether the configuration fixed the datagram size (else it comes from the path).
    fixed: bool,
    /// The largest datagram to each peer address, as its path says.
    paths: HashMap<Ipv4Addr, usize>,
    offload: Offload,
    tx: tx::TxBatch,
    /// Datagrams queued in `tx`.
    tx_count: usize,
    rx: RxBatch,
    faults: Option<FaultInjector>,
    /// Datagrams the injector holds back, sent after the next batch (reordering).
    held: VecDeque<(SocketAddrV4, Vec<u8>)>,
    replayer: Option<replay::Replayer>,
    stats: UdpStats,
}

impl UdpPort {
    /// A socket bound to `ip` on a port the kernel picks, sending datagrams of at most
    /// `max_datagram` bytes (`None`: as large as the path to each peer carries) and, if
    /// `offload`, super-datagrams where the kernel can.
    pub fn bind(
        ip: Ipv4Addr,
        max_datagram: Option<usize>,
        offload: bool,
        faults: Faults,
    ) -> io::Result<UdpPort> {
        use socket2::{Domain, Protocol, Socket, Type};
        // socket2 opens sockets close-on-exec.
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
        // Larger buffers are a wish: the kernel caps them at its limits.
        let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
        let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
        socket.bind(&SocketAddrV4::new(ip, 0).into())?;
        socket.set_nonblocking(true)?;
        let socket: std::net::UdpSocket = socket.into();
        let offload = if offload {
            offload::enable(socket.as_raw_fd())
        } else {
            Offload::default()
        };
        let local = match socket.local_addr()? {
            std::net::SocketAddr::V4(a) => a,
            std::net::SocketAddr::V6(_) => unreachable!("bound to an IPv4 address"),
        };
        let cap = max_datagram.unwrap_or(MAX_DATAGRAM).min(MAX_DATAGRAM);
        let replayer = match faults.replay > 0 {
            true => Some(replay::Replayer::bind(local)?),
            false => None,
        };
        Ok(UdpPort {
            main: Inlet::new(socket),
            twins: Twins::new(false),
            turn: 0,
            local,
            max_datagram: cap,
            fixed: max_datagram.is_some(),
            paths: HashMap::new(),
            offload,
            tx: tx::TxBatch::new(cap),
            tx_count: 0,
            rx: RxBatch::new(),
            faults: faults.any().then(|| FaultInjector::new(faults)),
            held: VecDeque::new(),
            replayer,
            stats: UdpStats::default(),
        })
    }

    /// Gives the socket a doorbell (see `doorbell.rs`); an error where this process may
    /// not load BPF programs, and the socket then works without one.
    pub fn attach_doorbell(&mut self) -> io::Result<()> {
        self.main.doorbell = Some(Doorbell::attach(&self.main.socket)?);
        Ok(())
    }

    pub fn has_doorbell(&self) -> bool {
        self.main.doorbell.is_some()
    }

    /// Sends to each peer from a connected twin of the socket from now on (see
    /// `udp/twins.rs`), if the socket has a doorbell; returns whether it will.
    pub fn connect_peers(&mut self) -> bool {
        self.twins = Twins::new(self.has_doorbell());
        self.has_doorbell()
    }

    /// Whether a doorbell says datagrams wait (false without doorbells).
    pub fn rang(&self) -> bool {
        self.main.rang() || self.twins.inlets.iter().any(Inlet::rang)
    }

    /// The descriptors a sleep waits on for a datagram: the socket's and its twins'.
    pub fn fds(&self) -> impl Iterator<Item = RawFd> + '_ {
        std::iter::once(&self.main)
            .chain(&self.twins.inlets)
            .map(|inlet| inlet.socket.as_raw_fd())
    }

    pub fn local_addr(&self) -> SocketAddrV4 {
        self.local
    }

    /// The size of the transmit buffers: no datagram sent is larger.
    pub fn max_datagram(&self) -> usize {
        self.max_datagram
    }

    /// The largest datagram to send to `to`: the configured size, else what the path
    /// carries (looked up once per address; 1472, an Ethernet frame's, if it cannot be).
    pub fn path_datagram(&mut self, to: Ipv4Addr) -> usize {
        if self.fixed {
            return self.max_datagram;
        }
        let (local, cap) = (*self.local.ip(), self.max_datagram);
        *self.paths.entry(to).or_insert_with(|| {
            path::datagram_to(local, SocketAddrV4::new(to, 9))
                .unwrap_or(1472)
                .min(cap)
        })
    }

    /// The offloads in force (segmentation goes off if the path refuses it).
    pub fn offload(&self) -> Offload {
        self.offload
    }

    pub fn stats(&self) -> UdpStats {
        UdpStats {
            twins: self.twins.inlets.len() as u64,
            ..self.stats
        }
    }

    /// The buffer for the next outgoing datagram; sends the batch first if it is full.
    pub fn tx_buffer(&mut self) -> &mut [u8] {
        if self.tx_count == BATCH {
            self.flush();
        }
        self.tx.buffer(self.tx_count)
    }

    /// Queues the `len` bytes written into the last [`UdpPort::tx_buffer`] for `to`.
    pub fn tx_commit(&mut self, to: SocketAddrV4, len: usize) {
        self.tx_commit_parts(to, len, None);
    }

    /// Queues a datagram for `to`: the `len` bytes written into the last
    /// [`UdpPort::tx_buffer`], then `fragment`, sent from where it lies. The buffer holds
    /// both (they make one datagram of at most [`UdpPort::max_datagram`] bytes).
    pub fn tx_commit_parts(&mut self, to: SocketAddrV4, len: usize, fragment: Option<Fragment>) {
        let i = self.tx_count;
        let twin = self.twins.fd_for(to, &self.main.socket, self.local);
        let fate = match &mut self.faults {
            Some(f) => f.decide(),
            None => Fate::CLEAN,
        };
        if fate != Fate::CLEAN {
            // What the injector does acts on a datagram's own bytes (never on the
            // message's payload, which later retransmissions send): it gets a copy.
            let body = fragment.as_ref().map_or(&[][..], Fragment::bytes);
            self.tx.buffer(i)[len..len + body.len()].copy_from_slice(body);
            return self.commit_faulty(to, twin, len + body.len(), fate);
        }
        self.tx.describe(i, to, twin, len, fragment);
        self.tx_count += 1;
    }

    /// Queues the `len` bytes of the last [`UdpPort::tx_buffer`] for `to` as `fate`
    /// says: corrupted, lost, held back for reordering or duplicated.
    fn commit_faulty(&mut self, to: SocketAddrV4, twin: Option<RawFd>, len: usize, fate: Fate) {
        let i = self.tx_count;
        if let Some((at, mask)) = fate.corrupt {
            if len > 0 {
                self.tx.buffer(i)[at % len] ^= mask;
            }
        }
        if let (true, Some(r)) = (fate.replay, &mut self.replayer) {
            r.capture(to, &self.tx.buffer(i)[..len]);
        }
        match fate.copies {
            0 => self.stats.injected_losses += 1,
            _ if fate.hold => {
                let bytes = self.tx.buffer(i)[..len].to_vec();
                if fate.copies == 2 {
                    self.held.push_back((to, bytes.clone()));
                }
                self.held.push_back((to, bytes));
            }
            copies => {
                self.tx.describe(i, to, twin, len, None);
                self.tx_count += 1;
                // A duplicate that no longer fits in the batch is not made.
                if copies == 2 && self.tx_count < BATCH {
                    self.tx.duplicate(i);
                    self.tx_count += 1;
                }
            }
        }
    }

    /// Whether datagrams wait to be sent.
    pub fn tx_pending(&self) -> bool {
        self.tx_count > 0
            || !self.held.is_empty()
            || self.replayer.as_ref().is_some_and(replay::Replayer::pending)
    }

    /// Sends the batch (one `sendmmsg`, more only if the kernel takes part of it), then
    /// anything held back for reordering. Datagrams the kernel refuses are lost, as they
    /// would be on a wire; the reliability layer sends them again.
    pub fn flush(&mut self) {
        let sent = self
            .tx
            .send(self.main.socket.as_raw_fd(), self.tx_count, &mut self.offload.segmentation);
        self.stats.sent += sent.datagrams;
        self.stats.send_errors += sent.refused;
        self.stats.super_datagrams += sent.super_datagrams;
        self.stats.send_calls += sent.calls;
        self.tx_count = 0;
        while let Some((to, bytes)) = self.held.pop_front() {
            match self.main.socket.send_to(&bytes, to) {
                Ok(_) => self.stats.sent += 1,
                Err(_) => self.stats.send_errors += 1,
            }
        }
        if let Some(r) = &mut self.replayer {
            let replayed = r.send_due(&self.main.socket);
            self.stats.replayed += replayed.sent;
            self.stats.send_errors += replayed.refused;
        }
    }

    /// Receives up to `max` datagrams (at most [`BATCH`], more if some came coalesced)
    /// waiting on the socket and its twins, with one system call for each that its
    /// doorbell says has some (or that was silent for [`READ_ANYWAY_EVERY_US`] on the
    /// clock `now`, microseconds; without a doorbell, the socket always); returns how
    /// many. Read them with [`UdpPort::received`]. The sockets take turns at being read
    /// first, so that none waits behind the others.
    pub fn receive(&mut self, max: usize, now: u64) -> usize {
        let max = max.clamp(1, BATCH);
        self.rx.clear();
        let inlets = 1 + self.twins.inlets.len();
        self.turn = (self.turn + 1) % inlets;
        let mut buffers = 0;
        for k in 0..inlets {
            if buffers == max {
                break;
            }
            let i = (self.turn + k) % inlets;
            let inlet = match i {
                0 => &mut self.main,
                _ => &mut self.twins.inlets[i - 1],
            };
            match inlet.receive(&mut self.rx, buffers, max - buffers, now) {
                Read::Skipped => {}
                Read::Got(n) => {
                    self.stats.receive_calls += 1;
                    buffers += n;
                }
                // A twin hears that its peer's port closed (the peer exited): its
                // reliability state judges the peer, as it would without the report.
                Read::Failed(e) if i > 0 && e.kind() == io::ErrorKind::ConnectionRefused => {
                    self.stats.receive_calls += 1;
                    self.stats.peers_closed += 1;
                }
                Read::Failed(e) => {
                    self.stats.receive_calls += 1;
                    self.receive_failed(&e);
                }
            }
        }
        let datagrams = self.rx.datagrams();
        self.stats.received += datagrams as u64;
        self.stats.coalesced += (datagrams - buffers) as u64;
        datagrams
    }

    /// Datagram `i` of the last [`UdpPort::receive`]: its sender and bytes.
    pub fn received(&self, i: usize) -> (SocketAddrV4, &[u8]) {
        self.rx.received(i)
    }

    /// A read that found no datagram: EAGAIN and EINTR are an empty socket; anything
    /// else is counted and, the first time, said (the protocol recovers what it lost, so
    /// the poll goes on).
    #[cold]
    fn receive_failed(&mut self, e: &io::Error) {
        if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) {
            return;
        }
        self.stats.receive_errors += 1;
        if self.stats.receive_errors == 1 {
            eprintln!(
                "clump: reading the socket {} failed: {e} (later failures are counted in its statistics)",
                self.local
            );
        }
    }
}

fn sockaddr(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(a.ip().octets()),
        },
        sin_zero: [0; 8],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(faults: Faults) -> UdpPort {
        UdpPort::bind(Ipv4Addr::LOCALHOST, Some(1472), true, faults).unwrap()
    }

    fn send(p: &mut UdpPort, to: SocketAddrV4, bytes: &[u8]) {
        p.tx_buffer()[..bytes.len()].copy_from_slice(bytes);
        p.tx_commit(to, bytes.len());
    }

    /// Everything that arrives at `p` within a short while.
    fn drain(p: &mut UdpPort) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
        while std::time::Instant::now() < deadline {
            let n = p.receive(BATCH, 0);
            got.extend((0..n).map(|i| p.received(i).1.to_vec()));
            if n == 0 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        got
    }

    /// A failed read other than an empty socket is counted, not taken for no datagram:
    /// here the kernel's report that an earlier datagram found its port closed.
    #[test]
    fn a_failed_read_is_counted_and_an_empty_socket_is_not() {
        let mut p = port(Faults::default());
        assert_eq!(p.receive(BATCH, 0), 0);
        assert_eq!(p.stats().receive_errors, 0, "an empty socket is no failure");
        let closed = std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let closed_addr = closed.local_addr().unwrap();
        drop(closed);
        // A connected UDP socket hears of the ICMP "port unreachable" at its next read.
        p.main.socket.connect(closed_addr).unwrap();
        p.main.socket.send(b"nobody").unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while p.stats().receive_errors == 0 && std::time::Instant::now() < deadline {
            assert_eq!(p.receive(BATCH, 0), 0);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(p.stats().receive_errors, 1);
    }

    /// Polls that find the doorbell silent make no system call, however many there are:
    /// the socket is read anyway once per period of the caller's clock, and at once when
    /// the bell rings.
    #[test]
    fn a_silent_doorbell_spares_the_socket_reads_for_a_period() {
        let mut p = port(Faults::default());
        if let Err(e) = p.attach_doorbell() {
            return eprintln!("no doorbell here ({e}): nothing to spare");
        }
        for _ in 0..1000 {
            assert_eq!(p.receive(BATCH, 0), 0);
        }
        assert_eq!(p.stats().receive_calls, 1, "the first poll reads, the rest skip");
        assert_eq!(p.receive(BATCH, READ_ANYWAY_EVERY_US - 1), 0);
        assert_eq!(p.stats().receive_calls, 1);
        assert_eq!(p.receive(BATCH, READ_ANYWAY_EVERY_US), 0);
        assert_eq!(p.stats().receive_calls, 2, "read anyway once the period is over");
        let mut q = port(Faults::default());
        send(&mut q, p.local_addr(), b"ring");
        q.flush();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !p.rang() && std::time::Instant::now() < deadline {}
        assert_eq!(p.receive(BATCH, READ_ANYWAY_EVERY_US), 1, "a ringing bell is read at once");
        assert_eq!(p.stats().receive_calls, 3);
    }

    /// A port with a doorbell that connects to its peers, or `None` where BPF is refused.
    fn connecting() -> Option<UdpPort> {
        let mut p = port(Faults::default());
        if let Err(e) = p.attach_doorbell() {
            eprintln!("no doorbell here ({e}): no twins");
            return None;
        }
        assert!(p.connect_peers());
        Some(p)
    }

    /// Every datagram that reaches `p` within a short while, with its sender.
    fn drain_from(p: &mut UdpPort, want: usize) -> Vec<(SocketAddrV4, Vec<u8>)> {
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut now = 0;
        while got.len() < want && std::time::Instant::now() < deadline {
            now += READ_ANYWAY_EVERY_US;
            for i in 0..p.receive(BATCH, now) {
                let (from, bytes) = p.received(i);
                got.push((from, bytes.to_vec()));
            }
        }
        got
    }

    /// The first send to a peer makes a twin of the socket connected to it: what goes to
    /// the peer leaves from the twin, with the socket's own address; what the peer sends
    /// arrives on the twin; a third port's datagrams still come to the socket itself.
    #[test]
    fn a_peer_sent_to_is_served_by_a_connected_twin_of_the_socket() {
        let Some(mut a) = connecting() else { return };
        let (mut b, mut c) = (port(Faults::default()), port(Faults::default()));
        send(&mut a, b.local_addr(), b"to b");
        a.flush();
        assert_eq!(a.stats().twins, 1);
        assert_eq!(a.fds().count(), 2);
        assert_eq!(drain_from(&mut b, 1), [(a.local_addr(), b"to b".to_vec())]);
        send(&mut b, a.local_addr(), b"from b");
        b.flush();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !a.twins.inlets[0].rang() && std::time::Instant::now() < deadline {}
        assert!(a.twins.inlets[0].rang() && !a.main.rang(), "b's datagram came to the twin");
        send(&mut c, a.local_addr(), b"from c");
        c.flush();
        let mut got = drain_from(&mut a, 2);
        got.sort();
        let mut want = vec![
            (b.local_addr(), b"from b".to_vec()),
            (c.local_addr(), b"from c".to_vec()),
        ];
        want.sort();
        assert_eq!(got, want);
        // More to b go from the same twin, in one call.
        for i in 0..5u8 {
            send(&mut a, b.local_addr(), &[i; 40]);
        }
        a.flush();
        assert_eq!(a.stats().twins, 1);
        assert_eq!(drain_from(&mut b, 5).len(), 5);
        assert_eq!(a.stats().send_errors, 0);
    }

    /// A twin whose peer's port closed hears of it at a read: counted as such, neither a
    /// failure nor said on stderr.
    #[test]
    fn a_twin_hears_its_peer_closed_without_a_failure() {
        let Some(mut a) = connecting() else { return };
        let b = port(Faults::default());
        let to = b.local_addr();
        drop(b);
        send(&mut a, to, b"nobody");
        a.flush();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut now = 0;
        while a.stats().peers_closed == 0 && std::time::Instant::now() < deadline {
            now += READ_ANYWAY_EVERY_US;
            assert_eq!(a.receive(BATCH, now), 0);
        }
        let st = a.stats();
        assert_eq!((st.peers_closed, st.receive_errors, st.twins), (1, 0, 1), "{st:?}");
    }

    #[test]
    fn a_batch_goes_out_in_one_flush_and_comes_in_with_its_sender() {
        let mut a = port(Faults::default());
        let mut b = port(Faults::default());
        assert_eq!(b.receive(BATCH, 0), 0, "an empty socket reads as nothing");
        for i in 0..150u8 {
            send(&mut a, b.local_addr(), &[i; 100]);
        }
        a.flush();
        assert!(!a.tx_pending());
        let got = drain(&mut b);
        assert_eq!(got.len(), 150);
        assert!(got.iter().enumerate().all(|(i, d)| d == &[i as u8; 100]));
        send(&mut b, a.local_addr(), b"back");
        b.flush();
        let n = loop {
            let n = a.receive(1, 0);
            if n > 0 {
                break n;
            }
        };
        assert_eq!(n, 1);
        assert_eq!(a.received(0), (b.local_addr(), &b"back"[..]));
        assert_eq!(a.stats().sent, 150);
    }

    /// Sends 45 datagrams to `b` (44 of 1000 bytes, one of 300, each starting with its
    /// index) in one flush; returns the indices that arrived, in order.
    fn send_a_run(a: &mut UdpPort, b: &mut UdpPort) -> Vec<u8> {
        for i in 0..45u8 {
            let len = if i == 44 { 300 } else { 1000 };
            let mut d = vec![i; len];
            d[len - 1] = !i;
            send(a, b.local_addr(), &d);
        }
        a.flush();
        drain(b)
            .iter()
            .map(|d| {
                let (i, len) = (d[0], d.len());
                assert_eq!(len, if i == 44 { 300 } else { 1000 }, "datagram {i}");
                assert!(d[..len - 1].iter().all(|&x| x == i) && d[len - 1] == !i);
                i
            })
            .collect()
    }

    #[test]
    fn a_run_to_one_peer_leaves_as_super_datagrams_and_arrives_split_back() {
        let mut a = port(Faults::default());
        let mut b = port(Faults::default());
        let got = send_a_run(&mut a, &mut b);
        assert_eq!(got, (0..45).collect::<Vec<u8>>());
        let (sa, sb) = (a.stats(), b.stats());
        assert_eq!((sa.sent, sb.received), (45, 45));
        if a.offload().segmentation {
            // 44 segments of 1000 bytes fit in one; the last run follows.
            assert_eq!((sa.super_datagrams, sa.send_calls), (1, 1), "{sa:?}");
        }
        if b.offload().coalescing && a.offload().segmentation {
            assert!(sb.coalesced > 0, "{sb:?}");
        }
        // Without offload: one datagram per entry, the same bytes.
        let mut plain =
            UdpPort::bind(Ipv4Addr::LOCALHOST, Some(1472), false, Faults::default()).unwrap();
        let got = send_a_run(&mut plain, &mut b);
        assert_eq!(got.len(), 45);
        assert_eq!(plain.stats().super_datagrams, 0);
        assert_eq!(plain.offload(), Offload::default());
    }

    /// Reads of one datagram at a time (a doorbell that counted one) take a
    /// super-datagram that arrived coalesced apart as a batch read does, with its sender.
    #[test]
    fn reads_of_one_split_a_coalesced_run_back_into_its_datagrams() {
        let mut a = port(Faults::default());
        let mut b = port(Faults::default());
        for i in 0..10u8 {
            send(&mut a, b.local_addr(), &[i; 700]);
        }
        a.flush();
        assert_eq!(a.stats().send_calls, 1, "{:?}", a.stats());
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while got.len() < 10 && std::time::Instant::now() < deadline {
            for i in 0..b.receive(1, 0) {
                let (from, bytes) = b.received(i);
                assert_eq!(from, a.local_addr());
                got.push(bytes.to_vec());
            }
        }
        assert_eq!(got, (0..10u8).map(|i| vec![i; 700]).collect::<Vec<_>>());
        let calls = b.stats().receive_calls;
        if a.offload().segmentation && b.offload().coalescing {
            assert!(b.stats().coalesced > 0 && calls < 10, "{:?}", b.stats());
        }
    }

    #[test]
    fn a_segment_lost_on_the_way_leaves_its_run_whole_around_it() {
        let lossy = Faults {
            loss: 20.0,
            seed: 3,
            ..Faults::default()
        };
        let mut a = port(lossy);
        let mut b = port(Faults::default());
        let got = send_a_run(&mut a, &mut b);
        let lost = a.stats().injected_losses as usize;
        assert!(lost > 0 && got.len() == 45 - lost, "{lost} lost, {got:?}");
        assert!(got.windows(2).all(|w| w[0] < w[1]), "in order: {got:?}");
    }

    #[test]
    fn the_path_gives_loopback_its_largest_datagram_unless_configured() {
        let mut free = UdpPort::bind(Ipv4Addr::LOCALHOST, None, true, Faults::default()).unwrap();
        assert_eq!(free.path_datagram(Ipv4Addr::LOCALHOST), MAX_DATAGRAM);
        assert_eq!(free.max_datagram(), MAX_DATAGRAM);
        let mut fixed = port(Faults::default());
        assert_eq!(fixed.path_datagram(Ipv4Addr::LOCALHOST), 1472);
        // A full-sized datagram goes through whole.
        let mut b = port(Faults::default());
        send(&mut free, b.local_addr(), &vec![7u8; MAX_DATAGRAM]);
        free.flush();
        let got = drain(&mut b);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].len(), MAX_DATAGRAM);
    }

    #[test]
    fn the_injector_drops_duplicates_reorders_and_corrupts() {
        let mut b = port(Faults::default());
        let faults = |loss, duplicate, reorder, corrupt| Faults {
            loss,
            duplicate,
            reorder,
            corrupt,
            replay: 0,
            seed: 7,
        };
        let mut lossy = port(faults(100.0, 0.0, 0.0, 0.0));
        send(&mut lossy, b.local_addr(), b"x");
        lossy.flush();
        assert_eq!(lossy.stats().injected_losses, 1);
        let mut dup = port(faults(0.0, 100.0, 0.0, 0.0));
        send(&mut dup, b.local_addr(), b"twice");
        dup.flush();
        let mut corrupt = port(faults(0.0, 0.0, 0.0, 100.0));
        send(&mut corrupt, b.local_addr(), b"clean");
        corrupt.flush();
        let got = drain(&mut b);
        assert_eq!(got.iter().filter(|d| d.as_slice() == b"twice").count(), 2);
        assert!(got.iter().all(|d| d.as_slice() != b"x"));
        assert!(got
            .iter()
            .any(|d| d.len() == 5 && d.as_slice() != b"clean" && d.as_slice() != b"twice"));
        let mut reorder = port(faults(0.0, 0.0, 50.0, 0.0));
        for i in 0..40u8 {
            send(&mut reorder, b.local_addr(), &[i]);
        }
        reorder.flush();
        let got: Vec<u8> = drain(&mut b).iter().map(|d| d[0]).collect();
        assert_eq!(got.len(), 40);
        assert!(
            got.windows(2).any(|w| w[0] > w[1]),
            "some arrive out of order"
        );
    }

    #[test]
    fn the_replay_fault_sends_the_first_datagrams_again_from_a_second_port() {
        let mut b = port(Faults::default());
        let replaying = Faults {
            replay: 1,
            seed: 5,
            ..Faults::default()
        };
        let mut a = port(replaying);
        send(&mut a, b.local_addr(), b"captured");
        send(&mut a, b.local_addr(), b"captured");
        a.flush();
        assert!(a.tx_pending(), "the replay waits for the next flush");
        a.flush();
        assert!(!a.tx_pending());
        let mut from = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
        while from.len() < 4 && std::time::Instant::now() < deadline {
            for i in 0..b.receive(BATCH, 0) {
                let (sender, bytes) = b.received(i);
                assert_eq!(bytes, b"captured");
                from.push(sender);
            }
        }
        let own = from.iter().filter(|&&f| f == a.local_addr()).count();
        // Both sent, and the first (the only one captured) again from both ports.
        assert_eq!((from.len(), own), (4, 3), "{from:?}");
        assert_eq!(a.stats().replayed, 2);
    }
}
