//! The send batch: datagram buffers filled in place, sent with one `sendmmsg` per run of
//! datagrams that leave from one socket (the endpoint's, which names each destination,
//! or a peer's connected twin, which names none: `udp/twins.rs`). A datagram is its
//! buffer, optionally followed by a fragment of a message's payload sent from where it
//! lies (scatter-gather: two iovecs). With segmentation offload, each run of datagrams
//! to one peer whose sizes are equal (the last may be shorter: a message's fragments)
//! leaves as one super-datagram whose scatter list is the run's iovecs, so nothing is
//! copied.

use super::offload::{self, Control, MAX_SEGMENTS};
use super::{sockaddr, BATCH};
use crate::transport::net::fragment::Fragment;
use crate::transport::net::wire::MAX_DATAGRAM;
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::RawFd;

/// What one [`TxBatch::send`] did.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sent {
    pub datagrams: u64,
    /// Datagrams the kernel refused: lost, as on a wire.
    pub refused: u64,
    pub super_datagrams: u64,
    pub calls: u64,
}

/// Iovecs per datagram: its buffer, then its fragment (of length 0 if it has none).
const IOVS: usize = 2;

pub(super) struct TxBatch {
    bufs: Vec<Box<[u8]>>,
    /// The fragment each entry sends after its buffer: kept alive until it is sent.
    fragments: Vec<Option<Fragment>>,
    addrs: Box<[libc::sockaddr_in]>,
    /// The connected twin each entry leaves from, if its peer has one.
    twins: Box<[Option<RawFd>]>,
    /// Entry i's iovecs are `IOVS * i` (at `bufs[i]`, with the length to send) and the
    /// one after (at its fragment): consecutive entries are a super-datagram's scatter
    /// list.
    iovs: Box<[libc::iovec]>,
    controls: Box<[Control]>,
    /// The headers of the send under way: one per datagram or super-datagram, and the
    /// socket each leaves from.
    msgs: Vec<libc::mmsghdr>,
    sockets: Vec<RawFd>,
    /// Datagrams each of `msgs` carries.
    segments: Vec<usize>,
}

impl TxBatch {
    pub fn new(max_datagram: usize) -> TxBatch {
        let mut bufs: Vec<Box<[u8]>> = (0..BATCH)
            .map(|_| vec![0u8; max_datagram].into_boxed_slice())
            .collect();
        let iovs = bufs
            .iter_mut()
            .flat_map(|b| {
                let empty = libc::iovec {
                    iov_base: std::ptr::null_mut(),
                    iov_len: 0,
                };
                let buffer = libc::iovec {
                    iov_base: b.as_mut_ptr().cast(),
                    iov_len: 0,
                };
                [buffer, empty]
            })
            .collect();
        TxBatch {
            bufs,
            fragments: vec![None; BATCH],
            addrs: vec![sockaddr(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)); BATCH].into(),
            twins: vec![None; BATCH].into(),
            iovs,
            controls: vec![Control::EMPTY; BATCH].into(),
            msgs: Vec::with_capacity(BATCH),
            sockets: Vec::with_capacity(BATCH),
            segments: Vec::with_capacity(BATCH),
        }
    }

    pub fn buffer(&mut self, i: usize) -> &mut [u8] {
        &mut self.bufs[i]
    }

    /// Entry `i` sends the first `len` bytes of its buffer to `to` (from `twin`, the
    /// connected socket of `to`, if it has one), then `fragment`.
    pub fn describe(
        &mut self,
        i: usize,
        to: SocketAddrV4,
        twin: Option<RawFd>,
        len: usize,
        fragment: Option<Fragment>,
    ) {
        self.addrs[i] = sockaddr(to);
        self.twins[i] = twin;
        self.fill(i, len, fragment);
    }

    /// Entry `i` sends the first `len` bytes of its buffer, then `fragment`.
    fn fill(&mut self, i: usize, len: usize, fragment: Option<Fragment>) {
        self.iovs[IOVS * i].iov_len = len;
        let tail = &mut self.iovs[IOVS * i + 1];
        match &fragment {
            // The kernel only reads through this pointer; the fragment, kept in
            // `fragments` until the send, keeps the bytes alive and in place.
            Some(f) => {
                tail.iov_base = f.bytes().as_ptr().cast_mut().cast();
                tail.iov_len = f.len();
            }
            None => {
                tail.iov_base = std::ptr::null_mut();
                tail.iov_len = 0;
            }
        }
        self.fragments[i] = fragment;
    }

    /// Entry `i + 1` becomes a copy of entry `i`.
    pub fn duplicate(&mut self, i: usize) {
        let len = self.iovs[IOVS * i].iov_len;
        let (done, rest) = self.bufs.split_at_mut(i + 1);
        rest[0][..len].copy_from_slice(&done[i][..len]);
        self.addrs[i + 1] = self.addrs[i];
        self.twins[i + 1] = self.twins[i];
        self.fill(i + 1, len, self.fragments[i].clone());
    }

    /// Bytes entry `i` sends.
    fn size(&self, i: usize) -> usize {
        self.iovs[IOVS * i].iov_len + self.iovs[IOVS * i + 1].iov_len
    }

    /// Sends entries `0..n` (those without a twin from `socket`), as super-datagrams
    /// while `*segmentation` holds; turns it off for good if the path turns out unable to
    /// take them, and sends those again plainly.
    pub fn send(
        &mut self,
        socket: RawFd,
        n: usize,
        segmentation: &mut bool,
    ) -> Sent {
        let mut sent = Sent::default();
        let mut entry = 0;
        // The first run goes as plain datagrams (after a super-datagram refused as built).
        let mut first_plain = false;
        'plan: while entry < n {
            self.plan(entry, n, *segmentation, first_plain, socket);
            first_plain = false;
            let mut k = 0;
            while k < self.msgs.len() {
                match self.send_msgs(k) {
                    Ok(m) if m > 0 => {
                        sent.calls += 1;
                        for &segs in &self.segments[k..k + m] {
                            sent.datagrams += segs as u64;
                            sent.super_datagrams += u64::from(segs > 1);
                            entry += segs;
                        }
                        k += m;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if self.segments[k] > 1 && offload::unsupported(&e) => {
                        *segmentation = false;
                        continue 'plan;
                    }
                    Err(e) if self.segments[k] > 1 && offload::refused_as_built(&e) => {
                        first_plain = true;
                        continue 'plan;
                    }
                    _ => {
                        // The first datagram of the rest was refused: count it and go on.
                        sent.calls += 1;
                        sent.refused += self.segments[k] as u64;
                        entry += self.segments[k];
                        k += 1;
                    }
                }
            }
        }
        // Sent or lost: the payloads go back to their messages alone.
        self.fragments[..n].fill(None);
        sent
    }

    /// Builds the headers for entries `entry..n`: each run a super-datagram if
    /// `segmentation` (and the first run as plain datagrams, if `first_plain`); each
    /// leaves from its twin, else from `socket` to the address it names.
    fn plan(
        &mut self,
        mut entry: usize,
        n: usize,
        segmentation: bool,
        first_plain: bool,
        socket: RawFd,
    ) {
        self.msgs.clear();
        self.segments.clear();
        self.sockets.clear();
        let mut plain_until = if first_plain {
            entry + self.run_at(entry, n)
        } else {
            entry
        };
        if !segmentation {
            plain_until = n;
        }
        while entry < n {
            let segs = if entry < plain_until {
                1
            } else {
                self.run_at(entry, n)
            };
            // SAFETY: mmsghdr is a plain C struct for which all-zero is a valid value.
            let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
            match self.twins[entry] {
                // A connected socket is given no address: that is what spares the route
                // lookup.
                Some(twin) => self.sockets.push(twin),
                None => {
                    m.msg_hdr.msg_name = (&mut self.addrs[entry] as *mut libc::sockaddr_in).cast();
                    m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as _;
                    self.sockets.push(socket);
                }
            }
            m.msg_hdr.msg_iov = &mut self.iovs[IOVS * entry];
            m.msg_hdr.msg_iovlen = (IOVS * segs) as _;
            if segs > 1 {
                let size = self.size(entry) as u16;
                let c = &mut self.controls[entry];
                m.msg_hdr.msg_controllen = offload::put_segment_size(c, size) as _;
                m.msg_hdr.msg_control = (c as *mut Control).cast();
            }
            self.msgs.push(m);
            self.segments.push(segs);
            entry += segs;
        }
    }

    /// How many entries from `start` make one super-datagram: same destination, the
    /// same size but for a shorter last one, within the kernel's limits.
    fn run_at(&self, start: usize, n: usize) -> usize {
        let size = self.size(start);
        let to = (
            self.addrs[start].sin_addr.s_addr,
            self.addrs[start].sin_port,
        );
        let mut total = size;
        let mut k = 1;
        while start + k < n && k < MAX_SEGMENTS && size > 0 {
            let (len, a) = (self.size(start + k), &self.addrs[start + k]);
            let fits = len <= size && total + len <= MAX_DATAGRAM;
            if !fits
                || (a.sin_addr.s_addr, a.sin_port) != to
                || self.size(start + k - 1) != size
            {
                break;
            }
            total += len;
            k += 1;
        }
        k
    }

    /// One `sendmmsg` of the headers from `k` on that leave from the same socket (one
    /// `sendmsg` for a lone one); how many the kernel took.
    fn send_msgs(&mut self, k: usize) -> io::Result<usize> {
        let socket = self.sockets[k];
        let run = self.sockets[k..].iter().take_while(|&&s| s == socket).count();
        let msgs = &mut self.msgs[k..k + run];
        if let [lone] = msgs {
            // A lone datagram (a request, a reply, an ack) goes by `sendmsg`, which the
            // kernel serves with less work than a batch of one (about 0.1 us less CPU
            // per send here, on a round trip's path).
            // SAFETY: as below, for the one header.
            let sent = unsafe {
                libc::sendmsg(socket, &lone.msg_hdr, libc::MSG_DONTWAIT)
            };
            return if sent < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(1)
            };
        }
        // SAFETY: every header points at an address (or none, for a connected socket), a
        // run of iovecs (each at a buffer of the length it gives, or at a fragment held in
        // `fragments`, or empty) and, for a super-datagram, a control message, all owned
        // by `self` and alive for the call; the kernel only reads them (and writes each
        // header's msg_len).
        let sent = unsafe {
            libc::sendmmsg(
                socket,
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
}
