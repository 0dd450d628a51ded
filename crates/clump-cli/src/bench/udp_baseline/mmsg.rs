//! The bare stream's system calls, written against the kernel and nothing of clump's:
//! `sendmmsg` of super-datagrams (`UDP_SEGMENT`: the kernel cuts each into datagrams of
//! one segment size) and `recvmmsg` with coalescing (`UDP_GRO`), which is how a
//! hand-written UDP program moves the most datagrams per system call.
//!
//! Socket options go through nix's safe wrappers. The two batch calls are raw: nix's
//! `sendmmsg` gives every entry the same control messages, where a stream's batch mixes
//! super-datagrams (a `UDP_SEGMENT` size) with plain datagrams (none), and the receiver
//! through nix's `recvmmsg` measured slower (bare stream 463 and 489 MB/s against 4029
//! and 1281 with this code, alternated on a machine at load 37-59: indicative only).

#![allow(unsafe_code)]

use nix::sys::socket::sockopt::{IpMtu, UdpGroSegment, UdpGsoSegment};
use nix::sys::socket::{getsockopt, setsockopt};
use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;

/// Entries per `sendmmsg` or `recvmmsg`.
pub const BATCH: usize = 64;
/// Segments per super-datagram at most (the kernel's `UDP_MAX_SEGMENTS` before 5.x).
pub const MAX_SEGMENTS: usize = 64;
/// The largest UDP payload over IPv4, and the most one super-datagram carries.
pub const MAX_UDP: usize = 65_507;
/// Bytes each receive buffer holds: a coalesced run of segments is at most 64 KiB.
const RECV_BYTES: usize = 1 << 16;

/// A `UDP_SEGMENT` control message: the header, then its `u16` where `CMSG_DATA` puts it
/// (right after the 8-aligned header), padded to `CMSG_SPACE(2)`.
#[repr(C)]
#[derive(Clone, Copy)]
struct SegmentCmsg {
    header: libc::cmsghdr,
    segment: u16,
}

impl SegmentCmsg {
    fn new(segment: u16) -> SegmentCmsg {
        SegmentCmsg {
            header: libc::cmsghdr {
                cmsg_len: std::mem::size_of::<libc::cmsghdr>() + std::mem::size_of::<u16>(),
                cmsg_level: libc::SOL_UDP,
                cmsg_type: libc::UDP_SEGMENT,
            },
            segment,
        }
    }
}

/// Turns on segmentation (sends) and coalescing (receives) where the kernel has them;
/// returns whether it segments.
pub fn enable_offloads(socket: &UdpSocket) -> bool {
    // Coalescing only changes how receives count; without it they read datagram by datagram.
    let _ = setsockopt(socket, UdpGroSegment, &true);
    setsockopt(socket, UdpGsoSegment, &0).is_ok()
}

/// The path MTU of a connected socket, less the IPv4 and UDP headers.
pub fn path_datagram(socket: &UdpSocket) -> io::Result<usize> {
    let mtu = getsockopt(socket, IpMtu)?;
    Ok(usize::try_from(mtu)
        .unwrap_or(0)
        .saturating_sub(28)
        .clamp(548, MAX_UDP))
}

/// A message header with no address, no data and no control message yet.
fn empty_header() -> libc::mmsghdr {
    libc::mmsghdr {
        msg_hdr: libc::msghdr {
            msg_name: std::ptr::null_mut(),
            msg_namelen: 0,
            msg_iov: std::ptr::null_mut(),
            msg_iovlen: 0,
            msg_control: std::ptr::null_mut(),
            msg_controllen: 0,
            msg_flags: 0,
        },
        msg_len: 0,
    }
}

/// One send: `(bytes, segment)` per super-datagram (segment 0: a plain datagram), its
/// bytes taken from `payload`.
pub struct Sends {
    msgs: Vec<libc::mmsghdr>,
    iovs: Vec<libc::iovec>,
    cmsgs: Vec<SegmentCmsg>,
}

impl Sends {
    pub fn new() -> Sends {
        let iov = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        Sends {
            msgs: vec![empty_header(); BATCH],
            iovs: vec![iov; BATCH],
            cmsgs: vec![SegmentCmsg::new(0); BATCH],
        }
    }

    /// Sends `entries` (at most [`BATCH`]) on the connected `socket`; returns how many
    /// left (a full socket buffer refuses the rest, as a wire drops them).
    pub fn send(
        &mut self,
        socket: &UdpSocket,
        payload: &[u8],
        entries: &[(usize, usize)],
    ) -> usize {
        let n = entries.len().min(BATCH);
        for (i, &(bytes, segment)) in entries[..n].iter().enumerate() {
            let bytes = bytes.min(payload.len());
            self.iovs[i] = libc::iovec {
                // The kernel only reads through this pointer, within `payload`.
                iov_base: payload.as_ptr().cast_mut().cast(),
                iov_len: bytes,
            };
            let hdr = &mut self.msgs[i].msg_hdr;
            hdr.msg_iov = &mut self.iovs[i];
            hdr.msg_iovlen = 1;
            hdr.msg_control = std::ptr::null_mut();
            hdr.msg_controllen = 0;
            if segment > 0 && segment < bytes {
                let c = &mut self.cmsgs[i];
                *c = SegmentCmsg::new(u16::try_from(segment).unwrap_or(u16::MAX));
                hdr.msg_control = (c as *mut SegmentCmsg).cast();
                hdr.msg_controllen = std::mem::size_of::<SegmentCmsg>();
            }
        }
        // SAFETY: the first `n` headers point at live iovecs and control messages of this
        // struct and at `payload`, all of which outlive the call and which the kernel
        // only reads; the socket is connected, so no address is given.
        let r = unsafe {
            libc::sendmmsg(
                socket.as_raw_fd(),
                self.msgs.as_mut_ptr(),
                n as libc::c_uint,
                0,
            )
        };
        usize::try_from(r).unwrap_or(0)
    }
}

/// One receive batch's buffers.
pub struct Receives {
    bufs: Vec<u8>,
    msgs: Vec<libc::mmsghdr>,
    iovs: Vec<libc::iovec>,
}

impl Receives {
    pub fn new() -> Receives {
        let iov = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        Receives {
            bufs: vec![0; BATCH * RECV_BYTES],
            msgs: vec![empty_header(); BATCH],
            iovs: vec![iov; BATCH],
        }
    }

    /// Payload bytes of what waited on the non-blocking `socket` (one `recvmmsg`).
    pub fn receive(&mut self, socket: &UdpSocket) -> u64 {
        for i in 0..BATCH {
            self.iovs[i] = libc::iovec {
                iov_base: self.bufs[i * RECV_BYTES..].as_mut_ptr().cast(),
                iov_len: RECV_BYTES,
            };
            let hdr = &mut self.msgs[i].msg_hdr;
            hdr.msg_iov = &mut self.iovs[i];
            hdr.msg_iovlen = 1;
            self.msgs[i].msg_len = 0;
        }
        // SAFETY: every header points at its own iovec, which points at RECV_BYTES bytes
        // of `bufs` that no other iovec covers; all outlive the call. No control buffer
        // is given, so coalesced segments come up as one buffer without their size.
        let r = unsafe {
            libc::recvmmsg(
                socket.as_raw_fd(),
                self.msgs.as_mut_ptr(),
                BATCH as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        let n = usize::try_from(r).unwrap_or(0);
        self.msgs[..n].iter().map(|m| u64::from(m.msg_len)).sum()
    }
}
