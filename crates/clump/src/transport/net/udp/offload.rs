//! UDP segmentation offload, both ways: a run of equal-sized datagrams to one peer leaves
//! as one super-datagram that the kernel (or the device) cuts into segments
//! (`UDP_SEGMENT`, a control message on the send), and segments that arrive together
//! come up as one coalesced buffer with their segment size (`UDP_GRO`). Kernels before
//! 4.18 (send) and 5.0 (receive) lack them: the probes say so and the socket does without.

use std::io;
use std::os::fd::RawFd;

/// Segments per super-datagram at most (the kernel's `UDP_MAX_SEGMENTS` of older kernels;
/// newer ones allow more).
pub const MAX_SEGMENTS: usize = 64;

/// Room for one control message carrying an `int` (what both options use), aligned as
/// `cmsghdr` needs.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Control([u8; 32]);

impl Control {
    pub const EMPTY: Control = Control([0; 32]);
}

/// Which offloads a socket has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offload {
    /// Sends super-datagrams (`UDP_SEGMENT`).
    pub segmentation: bool,
    /// Receives coalesced segments (`UDP_GRO`).
    pub coalescing: bool,
}

fn set_int(fd: RawFd, option: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: the option value is a live c_int of the length given; the kernel only reads it.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_UDP,
            option,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Turns on what the kernel offers on `fd`. Setting the socket's default segment size
/// to 0 (none) changes nothing but fails where the kernel lacks segmentation.
pub fn enable(fd: RawFd) -> Offload {
    Offload {
        segmentation: set_int(fd, libc::UDP_SEGMENT, 0).is_ok(),
        coalescing: set_int(fd, libc::UDP_GRO, 1).is_ok(),
    }
}

/// Writes a `UDP_SEGMENT` control message for segments of `size` bytes into `c`; returns
/// the control length to give the send.
pub fn put_segment_size(c: &mut Control, size: u16) -> usize {
    // SAFETY: CMSG_SPACE of a u16 (24 bytes on 64-bit targets) fits the 32 bytes of `c`,
    // which is aligned for cmsghdr; the header and its data are written within it.
    unsafe {
        let space = libc::CMSG_SPACE(std::mem::size_of::<u16>() as u32) as usize;
        debug_assert!(space <= c.0.len());
        let cmsg = c.0.as_mut_ptr().cast::<libc::cmsghdr>();
        (*cmsg).cmsg_level = libc::SOL_UDP;
        (*cmsg).cmsg_type = libc::UDP_SEGMENT;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<u16>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<u16>(), size);
        space
    }
}

/// The segment size of a coalesced receive, from the control messages `hdr` came back
/// with; `None` for a plain datagram.
pub fn segment_size(hdr: &libc::msghdr) -> Option<usize> {
    // SAFETY: the kernel filled `msg_control` with `msg_controllen` bytes of well-formed
    // control messages (the length it wrote back); the CMSG_* walk stays within them.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(hdr);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_UDP && (*cmsg).cmsg_type == libc::UDP_GRO {
                let size = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
                return usize::try_from(size).ok().filter(|&s| s > 0);
            }
            cmsg = libc::CMSG_NXTHDR(hdr, cmsg);
        }
    }
    None
}

/// Whether a send error means the path cannot take super-datagrams at all (rather than
/// this one being refused): the device lacks checksum offload, or the kernel the option.
pub fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EIO | libc::ENOPROTOOPT | libc::EOPNOTSUPP)
    )
}

/// Whether a send error means this super-datagram was refused as built (segments larger
/// than the path's MTU, which IP would have to fragment, or too many of them): its
/// datagrams go again one by one.
pub fn refused_as_built(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EINVAL | libc::EMSGSIZE))
}
