//! Connected twins: one socket per peer the endpoint sends to, bound to the endpoint's own
//! address and port (`SO_REUSEPORT`) and connected to the peer's.
//!
//! A connected UDP socket keeps its route, where an unconnected `sendto` looks it up for
//! every datagram: about 0.3 µs of kernel time per send here, 0.6 µs of a 5–6 µs loopback
//! round trip. The kernel gives a datagram to the socket whose connection matches it
//! best, so the peer's datagrams arrive on its twin, and the endpoint's own socket keeps
//! the rest (peers it has not sent to, datagrams queued before the twin was made); both
//! are read. Twins are made only when the endpoint's socket has a doorbell, and each gets
//! its own: a poll that finds nothing still reads memory, one counter per socket, and
//! makes no system call.
//!
//! The endpoint's socket is bound first without `SO_REUSEPORT` (so that the kernel picks
//! it a port no other socket shares) and takes the option only when its first twin is
//! made; twins bind to that port explicitly.

use super::inlet::Inlet;
use super::offload;
use crate::transport::net::doorbell::Doorbell;
use socket2::{Domain, Protocol, SockRef, Socket, Type};
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddrV4, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

/// Twins per endpoint at most: each costs a descriptor, a doorbell and a counter read per
/// poll; datagrams to further peers leave from the endpoint's socket.
pub const MAX_TWINS: usize = 16;

pub(super) struct Twins {
    pub(super) inlets: Vec<Inlet>,
    /// The twin of each peer tried: its index in `inlets`, `None` if it could not be made.
    of: HashMap<SocketAddrV4, Option<usize>>,
    /// The last peer looked up and its twin's descriptor: sends mostly go to one peer.
    last: Option<(SocketAddrV4, Option<RawFd>)>,
    /// Whether twins are made (the configuration, and no failure that would repeat).
    on: bool,
}

impl Twins {
    pub(super) fn new(on: bool) -> Twins {
        Twins {
            inlets: Vec::new(),
            of: HashMap::new(),
            last: None,
            on,
        }
    }

    /// The descriptor of `to`'s twin, made now if it is the first send there and twins
    /// are on; `None`: send from `main`, the endpoint's socket (bound to `local`).
    pub(super) fn fd_for(
        &mut self,
        to: SocketAddrV4,
        main: &UdpSocket,
        local: SocketAddrV4,
    ) -> Option<RawFd> {
        if let Some((peer, fd)) = self.last {
            if peer == to {
                return fd;
            }
        }
        let fd = match self.of.get(&to) {
            Some(twin) => twin.map(|i| self.inlets[i].socket.as_raw_fd()),
            None if self.on && self.inlets.len() < MAX_TWINS => self.make(to, main, local),
            None => None,
        };
        self.last = Some((to, fd));
        fd
    }

    fn make(&mut self, to: SocketAddrV4, main: &UdpSocket, local: SocketAddrV4) -> Option<RawFd> {
        let made = if self.inlets.is_empty() {
            SockRef::from(main)
                .set_reuse_port(true)
                .and_then(|()| twin(local, to))
        } else {
            twin(local, to)
        };
        match made {
            Ok(inlet) => {
                let fd = inlet.socket.as_raw_fd();
                self.of.insert(to, Some(self.inlets.len()));
                self.inlets.push(inlet);
                Some(fd)
            }
            Err(e) => {
                // The endpoint's socket serves this peer. A cause that would repeat for
                // every peer (out of descriptors, BPF refused) stops the attempts; a route
                // to this peer alone does not.
                let this_peer_only = matches!(
                    e.raw_os_error(),
                    Some(libc::ENETUNREACH | libc::EHOSTUNREACH | libc::EADDRNOTAVAIL)
                );
                if !this_peer_only {
                    self.on = false;
                }
                self.of.insert(to, None);
                None
            }
        }
    }
}

/// A socket on `local`, connected to `to`, non-blocking, with the offloads and a doorbell.
fn twin(local: SocketAddrV4, to: SocketAddrV4) -> io::Result<Inlet> {
    // socket2 opens sockets close-on-exec.
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    socket.set_reuse_port(true)?;
    let _ = socket.set_recv_buffer_size(super::SOCKET_BUFFER);
    let _ = socket.set_send_buffer_size(super::SOCKET_BUFFER);
    socket.bind(&local.into())?;
    socket.connect(&to.into())?;
    socket.set_nonblocking(true)?;
    let socket: UdpSocket = socket.into();
    // What the kernel offers it offers every socket: the endpoint's found out already.
    offload::enable(socket.as_raw_fd());
    let mut inlet = Inlet::new(socket);
    inlet.doorbell = Some(Doorbell::attach(&inlet.socket)?);
    Ok(inlet)
}
