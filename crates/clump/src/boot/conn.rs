//! The process's end of the bootstrap socket: nonblocking frame I/O and a backoff that
//! sleeps in ppoll(2), so a waiting process wakes as soon as the launcher answers yet
//! costs no CPU while it waits.

use super::frame::{FrameReader, Msg, MAX_REPLY_BODY};
use super::BootError;
use crate::transport::shm::wake::wait_fds;
use std::io::{self, ErrorKind, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Longest a waiting process goes without calling `progress`, at first...
const MAX_NAP: Duration = Duration::from_millis(1);
/// ... and once it has waited this long ...
const LONG_WAIT: Duration = Duration::from_millis(100);
/// ... at most this long, in a job with many more processes than cores: a thousand
/// processes waking every millisecond would take the cores from the launcher and the
/// ranks that have work to do.
const MAX_LONG_NAP: Duration = Duration::from_millis(50);
/// Bytes one read takes from the socket.
const READ_CHUNK: usize = 64 * 1024;

pub(crate) struct Conn {
    stream: UnixStream,
    reader: FrameReader,
    /// Where reads land, allocated once: a waiting rank looks at the socket at every
    /// wake-up, and a thousand of them zeroing a fresh buffer each time add up.
    chunk: Box<[u8]>,
    /// The longest nap of a long wait in this job.
    long_nap: Duration,
}

impl Conn {
    /// Connects to the launcher for a job of `size` processes.
    pub(crate) fn connect(path: &str, size: u32) -> io::Result<Conn> {
        let stream = UnixStream::connect(path)?;
        stream.set_nonblocking(true)?;
        let long_nap = long_nap_for(size);
        Ok(Conn {
            stream,
            reader: FrameReader::new(MAX_REPLY_BODY),
            chunk: vec![0; READ_CHUNK].into_boxed_slice(),
            long_nap,
        })
    }

    /// Sends a whole frame, calling `progress` whenever the socket buffer is full.
    pub(crate) fn send(
        &mut self,
        frame: &[u8],
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError> {
        let mut sent = 0;
        let mut waiting = SocketWait::new(self.long_nap);
        while sent < frame.len() {
            match send_nosignal(&self.stream, &frame[sent..]) {
                Ok(n) => {
                    sent += n;
                    waiting = SocketWait::new(self.long_nap);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    progress();
                    waiting.wait(self.fd(), libc::POLLOUT);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(gone(e)),
            }
        }
        Ok(())
    }

    /// Sends a whole frame without progress, giving up after `timeout`.
    pub(crate) fn send_within(&mut self, frame: &[u8], timeout: Duration) -> Result<(), BootError> {
        let deadline = Instant::now() + timeout;
        let mut sent = 0;
        let mut waiting = SocketWait::new(self.long_nap);
        while sent < frame.len() && Instant::now() < deadline {
            match send_nosignal(&self.stream, &frame[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    waiting.wait(self.fd(), libc::POLLOUT)
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(gone(e)),
            }
        }
        if sent < frame.len() {
            return Err(BootError::LauncherGone(format!(
                "no progress sending to it for {timeout:?}"
            )));
        }
        Ok(())
    }

    /// Waits for the next message, calling `progress` between attempts.
    pub(crate) fn recv(&mut self, progress: &mut dyn FnMut()) -> Result<Msg, BootError> {
        let mut waiting = SocketWait::new(self.long_nap);
        loop {
            if let Some(m) = self.try_recv()? {
                return Ok(m);
            }
            progress();
            waiting.wait(self.fd(), libc::POLLIN);
        }
    }

    /// Waits for the next message without progress, giving up once the launcher has
    /// been silent for `timeout`: every byte that arrives starts the wait anew, so a
    /// launcher that is slow (starting a thousand ranks) is told from one that is gone.
    pub(crate) fn recv_within(&mut self, timeout: Duration) -> Result<Msg, BootError> {
        let mut deadline = Instant::now() + timeout;
        let mut waiting = SocketWait::new(self.long_nap);
        loop {
            let before = self.reader.buffered();
            if let Some(m) = self.try_recv()? {
                return Ok(m);
            }
            if self.reader.buffered() != before {
                deadline = Instant::now() + timeout;
            }
            if Instant::now() >= deadline {
                return Err(BootError::LauncherGone(format!(
                    "it said nothing for {}s (CLUMP_BOOT_TIMEOUT)",
                    timeout.as_secs()
                )));
            }
            waiting.wait(self.fd(), libc::POLLIN);
        }
    }

    /// A buffered or readable message, if any, without blocking.
    fn try_recv(&mut self) -> Result<Option<Msg>, BootError> {
        loop {
            if let Some(m) = self
                .reader
                .next_msg()
                .map_err(|e| BootError::Protocol(e.to_string()))?
            {
                return Ok(Some(m));
            }
            match (&self.stream).read(&mut self.chunk) {
                Ok(0) if self.reader.has_partial() => {
                    return Err(BootError::Protocol(
                        "connection closed inside a frame".into(),
                    ))
                }
                Ok(0) => {
                    return Err(BootError::LauncherGone(
                        "it closed the bootstrap connection".into(),
                    ))
                }
                Ok(n) => self.reader.extend(&self.chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(gone(e)),
            }
        }
    }

    fn fd(&self) -> RawFd {
        self.stream.as_raw_fd()
    }
}

fn gone(e: io::Error) -> BootError {
    BootError::LauncherGone(e.to_string())
}

/// send(2) with MSG_NOSIGNAL: a launcher that died must give this process an error, not
/// a SIGPIPE that kills it (C programs do not ignore SIGPIPE the way Rust's runtime does).
fn send_nosignal(stream: &UnixStream, buf: &[u8]) -> io::Result<usize> {
    socket2::SockRef::from(stream).send_with_flags(buf, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT)
}

/// The longest nap of a long wait in a job of `size` processes: one millisecond per
/// process beyond one per core, within [`MAX_NAP`, `MAX_LONG_NAP`].
pub(super) fn long_nap_for(size: u32) -> Duration {
    (MAX_NAP * (size / crate::idle::cores()).max(1)).min(MAX_LONG_NAP)
}

/// How long a waiting process may nap now: [`MAX_NAP`] at first, the job's long nap once
/// it has waited [`LONG_WAIT`] (process managers' waits as the launcher's).
pub(super) struct NapCap {
    started: Instant,
    long_nap: Duration,
}

impl NapCap {
    pub(super) fn new(long_nap: Duration) -> NapCap {
        NapCap {
            started: Instant::now(),
            long_nap,
        }
    }

    pub(super) fn cap(&self) -> Duration {
        if self.started.elapsed() < LONG_WAIT {
            MAX_NAP
        } else {
            self.long_nap.max(MAX_NAP)
        }
    }
}

/// Spin a little (the one back-off of every wait, [`crate::idle::Backoff`], with no spin
/// budget beyond its first rounds: a launcher's answer takes a wake-up, never a round
/// trip), then yield, then sleep in ppoll(2) on the socket with a timeout that doubles up
/// to [`MAX_NAP`], and after [`LONG_WAIT`] up to the job's long nap: cheap when the
/// answer is imminent, idle when it is not. The socket wakes the sleeper as soon as the
/// launcher answers; the nap only bounds how often `progress` runs.
struct SocketWait {
    spin: crate::idle::Backoff,
    /// Rounds since the spin let go.
    after_spin: u32,
    cap: NapCap,
}

impl SocketWait {
    /// Yields after the spin, before the first nap.
    const YIELDS: u32 = 4;

    fn new(long_nap: Duration) -> SocketWait {
        SocketWait {
            spin: crate::idle::Backoff::new(Duration::ZERO),
            after_spin: 0,
            cap: NapCap::new(long_nap),
        }
    }

    fn wait(&mut self, fd: RawFd, events: libc::c_short) {
        if self.spin.idle_round() == crate::idle::Pause::Spin {
            std::hint::spin_loop();
            return;
        }
        let step = self.after_spin;
        self.after_spin = self.after_spin.saturating_add(1);
        // Threads sharing the process (AM_PAR, MPI_THREAD_MULTIPLE) run their calls while
        // this one waits for the launcher: one of them may owe a peer the answer that
        // lets it reach this collective.
        if step < Self::YIELDS {
            crate::serial::unlocked(std::thread::yield_now);
        } else {
            let nap = Duration::from_micros(16 << (step - Self::YIELDS).min(12)).min(self.cap.cap());
            crate::serial::unlocked(|| wait_fd(fd, events, nap));
        }
    }
}

/// Sleeps until `fd` has one of `events` or `timeout` passes; errors (EINTR) just return.
pub(super) fn wait_fd(fd: RawFd, events: libc::c_short, timeout: Duration) {
    let mut pfd = [libc::pollfd {
        fd,
        events,
        revents: 0,
    }];
    wait_fds(&mut pfd, timeout);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naps_stay_short_at_first_and_grow_to_the_jobs_long_nap() {
        assert_eq!(long_nap_for(1), MAX_NAP);
        assert_eq!(long_nap_for(u32::MAX), MAX_LONG_NAP);
        let crowded = long_nap_for(u32::MAX);
        let naps = NapCap::new(crowded);
        assert_eq!(naps.cap(), MAX_NAP, "a wait that just began");
        std::thread::sleep(LONG_WAIT);
        assert_eq!(naps.cap(), crowded, "a long wait");
        assert_eq!(NapCap::new(Duration::ZERO).cap(), MAX_NAP);
    }
}
