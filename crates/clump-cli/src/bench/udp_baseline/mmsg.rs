//! The bare stream's system calls, written against the kernel and nothing of clump's:
//! `sendmmsg` of super-datagrams (`UDP_SEGMENT`: the kernel cuts each into datagrams of
//! one segment size) and `recvmmsg` with coalescing (`UDP_GRO`), which is how a
//! hand-written UDP program moves the most datagrams per system call.

use std::io;
use std::os::fd::RawFd;

/// Entries per `sendmmsg` or `recvmmsg`.
pub const BATCH: usize = 64;
/// Segments per super-datagram at most (the kernel's `UDP_MAX_SEGMENTS` before 5.x).
pub const MAX_SEGMENTS: usize = 64;
/// The largest UDP payload over IPv4, and the most one super-datagram carries.
pub const MAX_UDP: usize = 65_507;
/// Bytes each receive buffer holds: a coalesced run of segments is at most 64 KiB.
const RECV_BYTES: usize = 1 << 16;

/// Room for one control message carrying a `u16`, aligned as `cmsghdr` needs.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Cmsg([u8; 32]);

fn set_udp_option(fd: RawFd, option: libc::c_int, value: libc::c_int) -> bool {
    // SAFETY: the value is a live c_int of the length given; the kernel only reads it.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_UDP,
            option,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    r == 0
}

/// Turns on segmentation (sends) and coalescing (receives) where the kernel has them;
/// returns whether it segments.
pub fn enable_offloads(fd: RawFd) -> bool {
    set_udp_option(fd, libc::UDP_GRO, 1);
    set_udp_option(fd, libc::UDP_SEGMENT, 0)
}

/// The path MTU of a connected socket, less the IPv4 and UDP headers.
pub fn path_datagram(fd: RawFd) -> io::Result<usize> {
    let mut mtu: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `mtu` and `len` are live locals of the sizes given; the kernel writes them.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_IP,
            libc::IP_MTU,
            (&mut mtu as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(mtu)
        .unwrap_or(0)
        .saturating_sub(28)
        .clamp(548, MAX_UDP))
}

/// One send: `(bytes, segment)` per super-datagram (segment 0: a plain datagram), its
/// bytes taken from `payload`.
pub struct Sends {
    msgs: Vec<libc::mmsghdr>,
    iovs: Vec<libc::iovec>,
    cmsgs: Vec<Cmsg>,
}

impl Sends {
    pub fn new() -> Sends {
        Sends {
            // SAFETY: mmsghdr and iovec are plain C structs for which all zeroes is valid
            // (null pointers, zero lengths).
            msgs: vec![unsafe { std::mem::zeroed() }; BATCH],
            // SAFETY: as for `msgs`.
            iovs: vec![unsafe { std::mem::zeroed() }; BATCH],
            cmsgs: vec![Cmsg([0; 32]); BATCH],
        }
    }

    /// Sends `entries` (at most [`BATCH`]) on the connected socket `fd`; returns how many
    /// left (a full socket buffer refuses the rest, as a wire drops them).
    pub fn send(&mut self, fd: RawFd, payload: &[u8], entries: &[(usize, usize)]) -> usize {
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
                // SAFETY: CMSG_SPACE of a u16 (24 bytes) fits the 32 aligned bytes of `c`;
                // the header and its data are written within them.
                let space = unsafe {
                    let cmsg = c.0.as_mut_ptr().cast::<libc::cmsghdr>();
                    (*cmsg).cmsg_level = libc::SOL_UDP;
                    (*cmsg).cmsg_type = libc::UDP_SEGMENT;
                    (*cmsg).cmsg_len = libc::CMSG_LEN(2) as _;
                    std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<u16>(), segment as u16);
                    libc::CMSG_SPACE(2) as usize
                };
                hdr.msg_control = c.0.as_mut_ptr().cast();
                hdr.msg_controllen = space as _;
            }
        }
        // SAFETY: the first `n` headers point at live iovecs and control buffers of this
        // struct and at `payload`, all of which outlive the call; the socket is connected,
        // so no address is given.
        let r = unsafe { libc::sendmmsg(fd, self.msgs.as_mut_ptr(), n as libc::c_uint, 0) };
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
        Receives {
            bufs: vec![0; BATCH * RECV_BYTES],
            // SAFETY: as in `Sends::new`.
            msgs: vec![unsafe { std::mem::zeroed() }; BATCH],
            // SAFETY: as in `Sends::new`.
            iovs: vec![unsafe { std::mem::zeroed() }; BATCH],
        }
    }

    /// Payload bytes of what waited on the non-blocking socket `fd` (one `recvmmsg`).
    pub fn receive(&mut self, fd: RawFd) -> u64 {
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
                fd,
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
