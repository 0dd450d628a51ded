//! Sockets and batching: the only file of the network transport that does I/O.
//!
//! Each endpoint owns one non-blocking UDP socket. Outgoing datagrams are written into a
//! batch of buffers and leave in one `sendmmsg`; incoming ones arrive up to a batch at a
//! time through one `recvmmsg`, so a poll that finds nothing costs one system call. The
//! fault injector (`faults.rs`) acts here, on the way out.

use crate::config::Faults;
use crate::net::doorbell::Doorbell;
use crate::net::faults::{Fate, FaultInjector};
use std::collections::VecDeque;
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, RawFd};

/// Datagrams one `sendmmsg` or `recvmmsg` moves at most.
pub const BATCH: usize = 64;
/// With a doorbell, polls that find it silent skip the socket; one in this many reads
/// it anyway, in case the hint was wrong (see `doorbell.rs`).
const READS_SKIPPED_AT_MOST: u32 = 32;
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
}

/// One endpoint's socket with its send and receive batches.
pub struct UdpPort {
    socket: std::net::UdpSocket,
    local: SocketAddrV4,
    max_datagram: usize,
    tx: Batch,
    /// Datagrams queued in `tx`.
    tx_count: usize,
    rx: Batch,
    /// Datagrams the last receive put in `rx`.
    rx_count: usize,
    faults: Option<FaultInjector>,
    /// Datagrams the injector holds back, sent after the next batch (reordering).
    held: VecDeque<(SocketAddrV4, Vec<u8>)>,
    doorbell: Option<Doorbell>,
    /// Reads skipped in a row because the doorbell was silent.
    skipped: u32,
    stats: UdpStats,
}

impl UdpPort {
    /// A socket bound to `ip` on a port the kernel picks.
    pub fn bind(ip: Ipv4Addr, max_datagram: usize, faults: Faults) -> io::Result<UdpPort> {
        use socket2::{Domain, Protocol, Socket, Type};
        // socket2 opens sockets close-on-exec.
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
        // Larger buffers are a wish: the kernel caps them at its limits.
        let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
        let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
        socket.bind(&SocketAddrV4::new(ip, 0).into())?;
        socket.set_nonblocking(true)?;
        let socket: std::net::UdpSocket = socket.into();
        let local = match socket.local_addr()? {
            std::net::SocketAddr::V4(a) => a,
            std::net::SocketAddr::V6(_) => unreachable!("bound to an IPv4 address"),
        };
        Ok(UdpPort {
            socket,
            local,
            max_datagram,
            tx: Batch::new(max_datagram),
            tx_count: 0,
            rx: Batch::new(max_datagram),
            rx_count: 0,
            faults: faults.any().then(|| FaultInjector::new(faults)),
            held: VecDeque::new(),
            doorbell: None,
            skipped: 0,
            stats: UdpStats::default(),
        })
    }

    /// Gives the socket a doorbell (see `doorbell.rs`); an error where this process may
    /// not load BPF programs, and the socket then works without one.
    pub fn attach_doorbell(&mut self) -> io::Result<()> {
        self.doorbell = Some(Doorbell::attach(self.socket.as_raw_fd())?);
        Ok(())
    }

    pub fn has_doorbell(&self) -> bool {
        self.doorbell.is_some()
    }

    /// Whether the doorbell says datagrams wait (false without a doorbell).
    pub fn rang(&self) -> bool {
        self.doorbell.as_ref().is_some_and(Doorbell::rang)
    }

    pub fn local_addr(&self) -> SocketAddrV4 {
        self.local
    }

    pub fn max_datagram(&self) -> usize {
        self.max_datagram
    }

    pub fn stats(&self) -> UdpStats {
        self.stats
    }

    /// The buffer for the next outgoing datagram; sends the batch first if it is full.
    pub fn tx_buffer(&mut self) -> &mut [u8] {
        if self.tx_count == BATCH {
            self.flush();
        }
        &mut self.tx.bufs[self.tx_count]
    }

    /// Queues the `len` bytes written into the last [`UdpPort::tx_buffer`] for `to`.
    pub fn tx_commit(&mut self, to: SocketAddrV4, len: usize) {
        let i = self.tx_count;
        let fate = match &mut self.faults {
            Some(f) => f.decide(),
            None => Fate::CLEAN,
        };
        if let Some((at, mask)) = fate.corrupt {
            if len > 0 {
                self.tx.bufs[i][at % len] ^= mask;
            }
        }
        match fate.copies {
            0 => self.stats.injected_losses += 1,
            _ if fate.hold => {
                let bytes = self.tx.bufs[i][..len].to_vec();
                if fate.copies == 2 {
                    self.held.push_back((to, bytes.clone()));
                }
                self.held.push_back((to, bytes));
            }
            copies => {
                self.tx.describe(i, to, len);
                self.tx_count += 1;
                // A duplicate that no longer fits in the batch is not made.
                if copies == 2 && self.tx_count < BATCH {
                    let (done, rest) = self.tx.bufs.split_at_mut(i + 1);
                    rest[0][..len].copy_from_slice(&done[i][..len]);
                    self.tx.describe(i + 1, to, len);
                    self.tx_count += 1;
                }
            }
        }
    }

    /// Whether datagrams wait to be sent.
    pub fn tx_pending(&self) -> bool {
        self.tx_count > 0 || !self.held.is_empty()
    }

    /// Sends the batch (one `sendmmsg`, more only if the kernel takes part of it), then
    /// anything held back for reordering. Datagrams the kernel refuses are lost, as they
    /// would be on a wire; the reliability layer sends them again.
    pub fn flush(&mut self) {
        let n = self.tx_count;
        let mut done = 0;
        while done < n {
            match self.tx.send(&self.socket, done..n) {
                Ok(sent) => {
                    self.stats.sent += sent as u64;
                    done += sent.max(1);
                    if sent == 0 {
                        self.stats.send_errors += 1;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // The first datagram of the rest was refused: count it and go on.
                    self.stats.send_errors += 1;
                    done += 1;
                }
            }
        }
        self.tx_count = 0;
        while let Some((to, bytes)) = self.held.pop_front() {
            match self.socket.send_to(&bytes, to) {
                Ok(_) => self.stats.sent += 1,
                Err(_) => self.stats.send_errors += 1,
            }
        }
    }

    /// Receives up to `max` datagrams (at most [`BATCH`]) waiting on the socket, with one
    /// system call; returns how many. Read them with [`UdpPort::received`]. With a
    /// doorbell that is silent, it mostly makes no call and returns 0.
    pub fn receive(&mut self, max: usize) -> usize {
        let mut max = max.clamp(1, BATCH);
        // One read of the counter decides whether to read the socket and how much.
        let counted = match &self.doorbell {
            Some(bell) => {
                let counted = bell.snapshot();
                match bell.unread(counted) {
                    0 if self.skipped < READS_SKIPPED_AT_MOST => {
                        self.skipped += 1;
                        self.rx_count = 0;
                        return 0;
                    }
                    0 => {}
                    unread => max = max.min(unread as usize),
                }
                counted
            }
            None => 0,
        };
        self.skipped = 0;
        // EAGAIN (nothing there) and transient errors (ICMP reports of earlier sends)
        // read as an empty socket: what matters comes again.
        self.rx_count = self.rx.receive(&self.socket, max).unwrap_or_default();
        if let Some(bell) = &mut self.doorbell {
            bell.read(counted, self.rx_count);
        }
        self.stats.received += self.rx_count as u64;
        self.rx_count
    }

    /// Datagram `i` of the last [`UdpPort::receive`]: its sender and bytes.
    pub fn received(&self, i: usize) -> (SocketAddrV4, &[u8]) {
        debug_assert!(i < self.rx_count);
        self.rx.received(i)
    }
}

impl AsRawFd for UdpPort {
    fn as_raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
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

/// A batch of datagram buffers with the `mmsghdr` vectors that describe them to
/// `sendmmsg`/`recvmmsg`, built once and reused by every call: setting up 64 entries per
/// call cost more than the call itself on a short message's path.
struct Batch {
    bufs: Vec<Box<[u8]>>,
    addrs: Box<[libc::sockaddr_in]>,
    iovs: Box<[libc::iovec]>,
    /// Entry i points at `addrs[i]` and `iovs[i]`, which points at `bufs[i]`: all heap
    /// memory owned here, which stays put when the `Batch` moves.
    msgs: Box<[libc::mmsghdr]>,
}

const SOCKADDR_LEN: libc::socklen_t = std::mem::size_of::<libc::sockaddr_in>() as _;

impl Batch {
    fn new(max_datagram: usize) -> Batch {
        let mut bufs: Vec<Box<[u8]>> = (0..BATCH)
            .map(|_| vec![0u8; max_datagram].into_boxed_slice())
            .collect();
        let mut addrs: Box<[libc::sockaddr_in]> =
            vec![sockaddr(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)); BATCH].into();
        let mut iovs: Box<[libc::iovec]> = bufs
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        let msgs = addrs
            .iter_mut()
            .zip(iovs.iter_mut())
            .map(|(addr, iov)| {
                // SAFETY: mmsghdr is a plain C struct for which all-zero is a valid value.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
                m.msg_hdr.msg_namelen = SOCKADDR_LEN;
                m.msg_hdr.msg_iov = iov;
                m.msg_hdr.msg_iovlen = 1;
                m
            })
            .collect();
        Batch {
            bufs,
            addrs,
            iovs,
            msgs,
        }
    }

    /// Entry `i` sends the first `len` bytes of its buffer to `to`.
    fn describe(&mut self, i: usize, to: SocketAddrV4, len: usize) {
        self.addrs[i] = sockaddr(to);
        self.iovs[i].iov_len = len;
    }

    /// Sends the entries in `range` (one `sendmmsg`); how many the kernel took.
    fn send(
        &mut self,
        socket: &std::net::UdpSocket,
        range: std::ops::Range<usize>,
    ) -> io::Result<usize> {
        let msgs = &mut self.msgs[range];
        // SAFETY: every header points at an address, an iovec and a buffer of the length
        // it gives, all owned by `self` and alive for the call; the kernel only reads
        // them (and writes each header's msg_len).
        let sent = unsafe {
            libc::sendmmsg(
                socket.as_raw_fd(),
                msgs.as_mut_ptr(),
                msgs.len() as u32,
                libc::MSG_DONTWAIT,
            )
        };
        if sent < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(sent as usize)
        }
    }

    /// Receives up to `max` datagrams into the first entries (one `recvmmsg`).
    fn receive(&mut self, socket: &std::net::UdpSocket, max: usize) -> io::Result<usize> {
        // The kernel writes back only each header's msg_len, msg_flags and msg_namelen
        // (the size of an IPv4 address, as set): the entries need no reset.
        // SAFETY: the first `max` headers point at address slots, iovecs and buffers (of
        // the lengths given) owned by `self` and alive for the call; no timeout pointer.
        let got = unsafe {
            libc::recvmmsg(
                socket.as_raw_fd(),
                self.msgs.as_mut_ptr(),
                max as u32,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(got as usize)
    }

    /// Entry `i` of the last receive: its sender and bytes. A datagram longer than the
    /// buffer is truncated: the length tells the decoder, which rejects it.
    fn received(&self, i: usize) -> (SocketAddrV4, &[u8]) {
        let a = &self.addrs[i];
        let from = SocketAddrV4::new(
            Ipv4Addr::from(a.sin_addr.s_addr.to_ne_bytes()),
            u16::from_be(a.sin_port),
        );
        let len = (self.msgs[i].msg_len as usize).min(self.bufs[i].len());
        (from, &self.bufs[i][..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(faults: Faults) -> UdpPort {
        UdpPort::bind(Ipv4Addr::LOCALHOST, 1472, faults).unwrap()
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
            let n = p.receive(BATCH);
            got.extend((0..n).map(|i| p.received(i).1.to_vec()));
            if n == 0 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        got
    }

    #[test]
    fn a_batch_goes_out_in_one_flush_and_comes_in_with_its_sender() {
        let mut a = port(Faults::default());
        let mut b = port(Faults::default());
        assert_eq!(b.receive(BATCH), 0, "an empty socket reads as nothing");
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
            let n = a.receive(1);
            if n > 0 {
                break n;
            }
        };
        assert_eq!(n, 1);
        assert_eq!(a.received(0), (b.local_addr(), &b"back"[..]));
        assert_eq!(a.stats().sent, 150);
    }

    #[test]
    fn the_injector_drops_duplicates_reorders_and_corrupts() {
        let mut b = port(Faults::default());
        let faults = |loss, duplicate, reorder, corrupt| Faults {
            loss,
            duplicate,
            reorder,
            corrupt,
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
}
