//! The largest datagram the path to a peer carries: the MTU of the interface its route
//! leaves by (as the kernel knows it, with any path MTU it learned), less the IPv4 and
//! UDP headers. Connecting a UDP socket looks the route up and sends nothing.

use crate::transport::net::wire::MAX_DATAGRAM;
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::AsRawFd;

/// IPv4 header (no options) and UDP header.
const HEADERS: usize = 20 + 8;

/// The largest UDP payload from `local` (an address of this host) to `to` that needs no
/// IP fragmentation: 65507 on loopback (MTU 65536), 1472 on Ethernet or veth (1500).
pub fn datagram_to(local: Ipv4Addr, to: SocketAddrV4) -> io::Result<usize> {
    use socket2::{Domain, Protocol, Socket, Type};
    let probe = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    probe.bind(&SocketAddrV4::new(local, 0).into())?;
    probe.connect(&to.into())?;
    let mut mtu: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `mtu` and `len` are live locals of the sizes given; the kernel writes an
    // int into `mtu` and its length into `len`.
    let r = unsafe {
        libc::getsockopt(
            probe.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_MTU,
            (&mut mtu as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let mtu = usize::try_from(mtu).unwrap_or(0);
    Ok(mtu
        .saturating_sub(HEADERS)
        .clamp(576 - HEADERS, MAX_DATAGRAM))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_carries_the_largest_datagram() {
        let to = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 9);
        assert_eq!(datagram_to(Ipv4Addr::LOCALHOST, to).unwrap(), MAX_DATAGRAM);
    }
}
