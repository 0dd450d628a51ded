//! The receive batch: up to [`BATCH`] buffers filled by one `recvmmsg`. With coalescing
//! on, one buffer may hold several datagrams that arrived together, each but the last of
//! the segment size the kernel reports; they are read out one by one.

use super::offload::{self, Control};
use super::{sockaddr, BATCH};
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::RawFd;

/// Bytes per receive buffer: the largest UDP payload, plain or coalesced.
const RX_BUFFER: usize = 65_535;

pub(super) struct RxBatch {
    bufs: Vec<Box<[u8]>>,
    addrs: Box<[libc::sockaddr_in]>,
    /// Entry i of `msgs` points at `addrs[i]`, `iovs[i]` (at `bufs[i]`) and
    /// `controls[i]`: heap memory owned here, which stays put when the batch moves.
    _iovs: Box<[libc::iovec]>,
    _controls: Box<[Control]>,
    msgs: Box<[libc::mmsghdr]>,
    /// The datagrams of the last receive: entry, start and length.
    datagrams: Vec<(usize, usize, usize)>,
}

impl RxBatch {
    pub fn new() -> RxBatch {
        // Zeroed allocations of this size are mapped lazily: untouched buffers cost no memory.
        let mut bufs: Vec<Box<[u8]>> = (0..BATCH)
            .map(|_| vec![0u8; RX_BUFFER].into_boxed_slice())
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
        let mut controls: Box<[Control]> = vec![Control::EMPTY; BATCH].into();
        let msgs = addrs
            .iter_mut()
            .zip(iovs.iter_mut())
            .zip(controls.iter_mut())
            .map(|((addr, iov), control)| {
                // SAFETY: mmsghdr is a plain C struct for which all-zero is a valid value.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
                m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as _;
                m.msg_hdr.msg_iov = iov;
                m.msg_hdr.msg_iovlen = 1;
                m.msg_hdr.msg_control = (control as *mut Control).cast();
                m
            })
            .collect();
        RxBatch {
            bufs,
            addrs,
            _iovs: iovs,
            _controls: controls,
            msgs,
            datagrams: Vec::with_capacity(BATCH),
        }
    }

    /// Receives up to `max` buffers from `socket` (one `recvmmsg`) into the entries from
    /// `first` on, after those of the receives since [`RxBatch::clear`]; returns how many
    /// the kernel filled. Their datagrams join [`RxBatch::datagrams`].
    pub fn receive(&mut self, socket: RawFd, first: usize, max: usize) -> io::Result<usize> {
        let msgs = &mut self.msgs[first..(first + max).min(BATCH)];
        // The kernel writes back each header's msg_len, msg_flags, msg_namelen (the size
        // of an IPv4 address, as set) and msg_controllen, the one to reset.
        for m in msgs.iter_mut() {
            m.msg_hdr.msg_controllen = std::mem::size_of::<Control>() as _;
        }
        let got = match msgs {
            [] => return Ok(0),
            // One datagram expected (the doorbell counted one): `recvmsg`, which the
            // kernel serves with less work than a batch of one.
            [m] => {
                // SAFETY: the header points at an address slot, an iovec, a buffer and a
                // control area (of the lengths given) owned by `self` and alive for the
                // call.
                let len = unsafe { libc::recvmsg(socket, &mut m.msg_hdr, libc::MSG_DONTWAIT) };
                if len < 0 {
                    return Err(io::Error::last_os_error());
                }
                m.msg_len = len as u32;
                1
            }
            // SAFETY: the headers point at address slots, iovecs, buffers and control
            // areas (of the lengths given) owned by `self` and alive for the call; no
            // timeout pointer.
            _ => unsafe {
                libc::recvmmsg(
                    socket,
                    msgs.as_mut_ptr(),
                    msgs.len() as u32,
                    libc::MSG_DONTWAIT,
                    std::ptr::null_mut(),
                )
            },
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        let got = got as usize;
        for i in first..first + got {
            let m = &self.msgs[i];
            let len = (m.msg_len as usize).min(self.bufs[i].len());
            let size = offload::segment_size(&m.msg_hdr).unwrap_or(len.max(1));
            let mut start = 0;
            loop {
                let n = size.min(len - start);
                self.datagrams.push((i, start, n));
                start += n;
                if start >= len {
                    break;
                }
            }
        }
        Ok(got)
    }

    /// Forgets the last receive.
    pub fn clear(&mut self) {
        self.datagrams.clear();
    }

    pub fn datagrams(&self) -> usize {
        self.datagrams.len()
    }

    /// Datagram `i` of the last receive: its sender and bytes. A datagram longer than the
    /// buffer is truncated: the length tells the decoder, which rejects it.
    pub fn received(&self, i: usize) -> (SocketAddrV4, &[u8]) {
        let (entry, start, len) = self.datagrams[i];
        (self.sender(entry), &self.bufs[entry][start..start + len])
    }

    fn sender(&self, entry: usize) -> SocketAddrV4 {
        let a = &self.addrs[entry];
        SocketAddrV4::new(
            Ipv4Addr::from(a.sin_addr.s_addr.to_ne_bytes()),
            u16::from_be(a.sin_port),
        )
    }
}
