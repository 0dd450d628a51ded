//! A process's liveness watch on the `clump run` launcher: a second connection to its
//! socket, opened when the process joins. Over it the process beats while it polls the
//! network, asks about a peer that has gone silent, and hears when a rank's process has
//! exited. That is the evidence death is decided by: silence alone cannot tell a stopped
//! or busy peer from a dead one or from a cut link, the launcher can (it reaps its ranks
//! and hears their beats). Under a process manager (PMIx, PMI-2) there is no watch, and a
//! silent peer is judged by the timeout alone.
//!
//! One per process (every endpoint's network asks the same launcher), behind a mutex;
//! every call is nonblocking except [`judge`], which waits a bounded time for its answer.

use super::conn::wait_fd;
use super::frame::{FrameReader, Msg, PeerState, MAX_REPLY_BODY};
use std::collections::HashSet;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long [`judge`] waits for the launcher's answer: it runs in the same host's
/// launcher, which answers within milliseconds unless it is ending the job.
const ANSWER_WAIT: Duration = Duration::from_secs(1);
/// How often [`is_gone`] reads the launcher's connection at most. Endpoints ask every
/// few thousand polls, for each peer: a spinning process read it (a failing system call)
/// about every 60 us, many times per network round trip on a loaded host. A death is
/// heard at most this much later.
const READ_EVERY: Duration = Duration::from_millis(1);

struct Watch {
    stream: UnixStream,
    reader: FrameReader,
    /// Processes the launcher said have exited.
    gone: HashSet<u32>,
    /// The latest answer about a process.
    answer: Option<(u32, PeerState)>,
    /// When [`Watch::is_gone`] read the connection last.
    read_at: Option<Instant>,
}

static WATCH: Mutex<Option<Watch>> = Mutex::new(None);
/// Deaths heard of so far: an endpoint that saw fewer scans its peers ([`deaths`]).
static DEATHS: AtomicU64 = AtomicU64::new(0);

/// Opens the watch for `rank` of job `job_id` on the launcher's socket at `path`. Best
/// effort: without it, silent peers are judged by the timeout alone.
pub(crate) fn open(path: &str, rank: u32, job_id: u64) {
    let Ok(mut stream) = UnixStream::connect(path) else {
        return;
    };
    let hello = Msg::Watch { rank, job_id }.encode();
    if stream.write_all(&hello).is_err() || stream.set_nonblocking(true).is_err() {
        return;
    }
    let watch = Watch {
        stream,
        reader: FrameReader::new(MAX_REPLY_BODY),
        gone: HashSet::new(),
        answer: None,
        read_at: None,
    };
    *lock() = Some(watch);
}

fn lock() -> std::sync::MutexGuard<'static, Option<Watch>> {
    // A panic while holding it left plain data behind: still usable.
    WATCH.lock().unwrap_or_else(|e| e.into_inner())
}

impl Watch {
    /// Takes in what the launcher sent; false once the connection is unusable.
    fn drain(&mut self) -> bool {
        let mut chunk = [0u8; 512];
        loop {
            match self.reader.next_msg() {
                Ok(Some(Msg::Died { pid })) => {
                    self.died(pid);
                    continue;
                }
                Ok(Some(Msg::Status { pid, state })) => {
                    if state == PeerState::Gone {
                        self.died(pid);
                    }
                    self.answer = Some((pid, state));
                    continue;
                }
                Ok(Some(_)) | Err(_) => return false,
                Ok(None) => {}
            }
            match (&self.stream).read(&mut chunk) {
                Ok(0) => return false,
                Ok(n) => self.reader.extend(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
    }

    /// Whether the launcher said `pid` exited, reading its connection first unless that
    /// was done within [`READ_EVERY`] of `now`; false once the connection is unusable.
    fn is_gone(&mut self, pid: u32, now: Instant) -> Option<bool> {
        if self.read_at.is_none_or(|at| now.duration_since(at) >= READ_EVERY) {
            self.read_at = Some(now);
            if !self.drain() {
                return None;
            }
        }
        Some(self.gone.contains(&pid))
    }

    fn died(&mut self, pid: u32) {
        if self.gone.insert(pid) {
            DEATHS.fetch_add(1, Ordering::Release);
        }
    }

    /// Sends a small frame whole, or not at all (a full socket means a launcher that
    /// does not read: it is ending the job).
    fn send(&mut self, frame: &[u8]) -> bool {
        matches!((&self.stream).write(frame), Ok(n) if n == frame.len())
    }
}

/// Runs `f` on the watch, if there is one; drops a watch that broke.
fn with<T>(f: impl FnOnce(&mut Watch) -> Option<T>) -> Option<T> {
    let mut guard = lock();
    let watch = guard.as_mut()?;
    let out = f(watch);
    if out.is_none() {
        *guard = None;
    }
    out
}

/// Tells the launcher that this process lives and polls the network.
pub(crate) fn beat() {
    with(|w| (w.drain() && w.send(&Msg::Beat.encode())).then_some(()));
}

/// How many deaths this process has heard of: polled by each endpoint's network, which
/// returns what it sent to the dead when the count moves.
pub(crate) fn deaths() -> u64 {
    DEATHS.load(Ordering::Acquire)
}

/// Whether the launcher said the process `pid` of this job has exited.
pub(crate) fn is_gone(pid: u32) -> bool {
    with(|w| w.is_gone(pid, Instant::now())).unwrap_or(false)
}

/// Asks the launcher about the process `pid`: has it exited, and if not, did it beat
/// within `within`? `None` without a watch or an answer within [`ANSWER_WAIT`].
pub(crate) fn judge(pid: u32, within: Duration) -> Option<PeerState> {
    let within_ms = u32::try_from(within.as_millis()).unwrap_or(u32::MAX);
    let fd = with(|w| {
        w.answer = None;
        (w.drain() && w.send(&Msg::Ask { pid, within_ms }.encode()))
            .then(|| w.stream.as_raw_fd())
    })?;
    let deadline = Instant::now() + ANSWER_WAIT;
    loop {
        let answer = with(|w| w.drain().then(|| w.answer.filter(|a| a.0 == pid)))?;
        if let Some((_, state)) = answer {
            return Some(state);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        // Should another thread drop the watch meanwhile, this wait merely ends early
        // or late: polling a closed or reused descriptor harms nothing.
        wait_fd(fd, libc::POLLIN, left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watch on one end of a socket pair; the launcher's end is returned beside it.
    fn watch() -> (Watch, UnixStream) {
        let (stream, launcher) = UnixStream::pair().unwrap();
        stream.set_nonblocking(true).unwrap();
        let w = Watch {
            stream,
            reader: FrameReader::new(MAX_REPLY_BODY),
            gone: HashSet::new(),
            answer: None,
            read_at: None,
        };
        (w, launcher)
    }

    /// The endpoints ask whether a peer is gone every few thousand polls: the launcher's
    /// connection is read once per period, not at every question.
    #[test]
    fn is_gone_reads_the_launcher_once_per_period() {
        let (mut w, mut launcher) = watch();
        let t0 = Instant::now();
        launcher.write_all(&Msg::Died { pid: 42 }.encode()).unwrap();
        assert_eq!(w.is_gone(42, t0), Some(true));
        launcher.write_all(&Msg::Died { pid: 43 }.encode()).unwrap();
        let soon = t0 + READ_EVERY / 2;
        assert_eq!(w.is_gone(43, soon), Some(false), "not read again so soon");
        assert_eq!(w.is_gone(43, t0 + READ_EVERY), Some(true));
        drop(launcher);
        assert_eq!(w.is_gone(43, t0 + 2 * READ_EVERY), None, "the launcher went away");
    }
}
