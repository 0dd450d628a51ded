//! Waking a process that sleeps in `wait` over shared memory.
//!
//! Each bundle binds a datagram socket in the abstract Unix namespace under a name made
//! of its process id and a key unique in that process; the key sits in the queue block
//! header of every endpoint of the bundle. A sender that finds the owner asleep sends one
//! byte to that name. Why a socket and not the alternatives:
//! - reopening the owner's eventfd through `/proc/<pid>/fd/N` is refused by this kernel
//!   (`ENXIO`), and `pidfd_getfd(2)` needs ptrace permission, which Yama may deny;
//! - a futex in the shared block wakes only a thread sleeping on that futex, but `wait`
//!   must sleep on the network sockets at the same time; a futex with a short timeout to
//!   look at the sockets would add that timeout to every network wake-up.
//!
//! The socket is a file descriptor, so it joins the sockets in one `poll(2)`; abstract
//! names need no permission beyond the same network namespace (ranks of one host share
//! it) and vanish with the socket, so a crashed process leaves nothing behind.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::atomic::{AtomicU32, Ordering};

/// The key meaning "no bundle to wake" in a block header.
pub const NO_KEY: u32 = super::block::NO_FD;

fn address(pid: u32, key: u32) -> io::Result<SocketAddr> {
    SocketAddr::from_abstract_name(format!("clump-wake/{pid}/{key}"))
}

/// The sleeping side: one per bundle.
pub struct WakeSocket {
    socket: UnixDatagram,
    key: u32,
}

impl WakeSocket {
    pub fn bind() -> io::Result<WakeSocket> {
        static NEXT_KEY: AtomicU32 = AtomicU32::new(0);
        let pid = std::process::id();
        loop {
            let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
            if key == NO_KEY {
                continue;
            }
            match UnixDatagram::bind_addr(&address(pid, key)?) {
                Ok(socket) => {
                    socket.set_nonblocking(true)?;
                    return Ok(WakeSocket { socket, key });
                }
                // Left by an earlier process with our pid in another namespace's view: skip.
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// What senders need, besides the pid, to reach this socket.
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Empties the socket after a wake-up, so the next `poll` sleeps again.
    pub fn drain(&self) {
        let mut buf = [0u8; 64];
        while self.socket.recv(&mut buf).is_ok() {}
    }
}

impl AsRawFd for WakeSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }
}

/// The waking side: one unbound socket per sender and peer, made on first need.
pub struct Waker {
    socket: UnixDatagram,
}

impl Waker {
    pub fn new() -> io::Result<Waker> {
        let socket = UnixDatagram::unbound()?;
        socket.set_nonblocking(true)?;
        Ok(Waker { socket })
    }

    /// Wakes the bundle `key` of process `pid`. A full socket means wake-ups are already
    /// pending there, which is as good as this one.
    pub fn wake(&self, pid: u32, key: u32) -> io::Result<()> {
        match self.socket.send_to_addr(&[1], &address(pid, key)?) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            other => other.map(drop),
        }
    }
}

/// Sleeps until one of `fds` is readable or `timeout` passes (a zero timeout only looks);
/// sets each one's `revents` and returns how many are ready.
pub fn wait_readable(fds: &mut [libc::pollfd], timeout: std::time::Duration) -> usize {
    wait_fds(fds, timeout)
}

/// Sleeps until one of `fds` has one of the events it asks for, or `timeout` passes (one
/// `ppoll(2)`, to the nanosecond; a zero timeout only looks); sets each one's `revents`
/// and returns how many are ready. The one place this crate waits on descriptors.
pub fn wait_fds(fds: &mut [libc::pollfd], timeout: std::time::Duration) -> usize {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(libc::time_t::MAX as u64) as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `fds` is a valid, exclusively borrowed array of pollfd for the duration
    // of the call, and its length is passed with it; the timespec lives across the call;
    // a null signal mask means "keep the current one".
    let n = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    n.max(0) as usize
}

/// A `pollfd` that asks whether `fd` is readable.
pub fn readable(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_sender_wakes_a_bound_socket_and_a_missing_one_is_an_error() {
        let sleeper = WakeSocket::bind().unwrap();
        let other = WakeSocket::bind().unwrap();
        assert_ne!(sleeper.key(), other.key(), "keys are unique in a process");
        let waker = Waker::new().unwrap();
        let pid = std::process::id();
        for _ in 0..1000 {
            waker.wake(pid, sleeper.key()).unwrap(); // more than the buffer holds
        }
        assert_eq!(
            wait_readable(&mut [readable(sleeper.as_raw_fd())], Duration::ZERO),
            1,
            "the sleeper is readable"
        );
        sleeper.drain();
        assert_eq!(
            wait_readable(&mut [readable(sleeper.as_raw_fd())], Duration::ZERO),
            0,
            "drained"
        );
        let gone = other.key();
        drop(other);
        assert!(
            waker.wake(pid, gone).is_err(),
            "a wake-up nobody hears is reported"
        );
    }
}
