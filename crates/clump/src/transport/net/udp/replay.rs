//! The replay fault (`CLUMP_NET_REPLAY`): datagrams captured on the way out and sent
//! again verbatim a batch later, once from the endpoint's own socket and once from a
//! socket of their own (another source port), as someone who captured them on the wire
//! would. The receiver must run no handler twice and keep no state for the new port.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddrV4, UdpSocket};

pub(super) struct Replayer {
    /// The attacker's socket: same address, another port.
    socket: UdpSocket,
    /// Captured in the batch under way, and due at the next flush.
    captured: VecDeque<(SocketAddrV4, Vec<u8>)>,
    due: VecDeque<(SocketAddrV4, Vec<u8>)>,
}

/// What one [`Replayer::send_due`] did: copies sent and refused.
pub(super) struct Replayed {
    pub sent: u64,
    pub refused: u64,
}

impl Replayer {
    pub fn bind(local: SocketAddrV4) -> io::Result<Replayer> {
        let socket = UdpSocket::bind(SocketAddrV4::new(*local.ip(), 0))?;
        socket.set_nonblocking(true)?;
        Ok(Replayer {
            socket,
            captured: VecDeque::new(),
            due: VecDeque::new(),
        })
    }

    pub fn capture(&mut self, to: SocketAddrV4, datagram: &[u8]) {
        self.captured.push_back((to, datagram.to_vec()));
    }

    /// Captured datagrams wait to be replayed.
    pub fn pending(&self) -> bool {
        !self.captured.is_empty() || !self.due.is_empty()
    }

    /// Replays what was captured before the last flush, from `own` and from the
    /// replayer's socket; what was captured since becomes due at the next.
    pub fn send_due(&mut self, own: &UdpSocket) -> Replayed {
        let mut r = Replayed {
            sent: 0,
            refused: 0,
        };
        for (to, bytes) in self.due.drain(..) {
            for socket in [own, &self.socket] {
                match socket.send_to(&bytes, to) {
                    Ok(_) => r.sent += 1,
                    Err(_) => r.refused += 1,
                }
            }
        }
        std::mem::swap(&mut self.due, &mut self.captured);
        r
    }
}
