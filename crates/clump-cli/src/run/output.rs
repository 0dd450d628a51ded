//! Passes the ranks' stdout and stderr on to the launcher's by whole lines, so that lines
//! of different ranks never join or cut into each other. One thread polls every rank's
//! pipes; a line leaves when its newline comes, a partial line after [`PARTIAL_AFTER`]
//! without one (a prompt, a progress dot) or when its rank closes the pipe, and a line
//! another rank then starts begins on a line of its own. `--tag-output` prefixes each
//! line with `[rank] `.

use super::sys;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the start of a line waits for the rest of it before it is passed on alone.
pub const PARTIAL_AFTER: Duration = Duration::from_millis(100);
/// A line longer than this is passed on in pieces (memory stays bounded).
const LONGEST: usize = 64 << 10;

/// The launcher's two streams.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum To {
    Stdout = 0,
    Stderr = 1,
}

/// The forwarding thread and the way to hand it each rank's pipes as ranks start.
pub struct Forwarder {
    pipes: Option<Sender<(u32, To, OwnedFd)>>,
    thread: JoinHandle<()>,
    progress: Arc<Progress>,
}

/// What the forwarding thread has done, for [`Forwarder::finish`] to tell a thread that
/// has not run yet (a loaded machine) from pipes that stay open with nothing in them.
#[derive(Default)]
struct Progress {
    /// Rounds of poll and read completed.
    rounds: AtomicU64,
    /// Rounds that read something.
    busy: AtomicU64,
}

impl Forwarder {
    pub fn start(tag: bool) -> Forwarder {
        let (tx, rx) = channel();
        let progress = Arc::new(Progress::default());
        let seen = progress.clone();
        Forwarder {
            pipes: Some(tx),
            thread: std::thread::spawn(move || pump(rx, tag, &seen)),
            progress,
        }
    }

    pub fn add(&self, rank: u32, to: To, pipe: impl Into<OwnedFd>) {
        if let Some(tx) = &self.pipes {
            // The thread ends only after this sender is dropped.
            let _ = tx.send((rank, to, pipe.into()));
        }
    }

    /// Waits for every pipe to close and its last line to be passed on; returns false if
    /// it stopped waiting because pipes stayed open with nothing in them for `quiet` (a
    /// leftover grandchild may hold a pipe open forever). A forwarder that is still
    /// reading, or has not had the CPU since the last look (a loaded machine), is waited
    /// for: the ranks' last lines must not be lost.
    pub fn finish(mut self, quiet: Duration) -> bool {
        self.pipes = None;
        let look = || {
            let p = &self.progress;
            (
                p.rounds.load(Ordering::Acquire),
                p.busy.load(Ordering::Acquire),
            )
        };
        let (mut rounds, mut busy) = look();
        let mut since = Instant::now();
        while !self.thread.is_finished() {
            std::thread::sleep(Duration::from_millis(5));
            if since.elapsed() < quiet {
                continue;
            }
            let (r, b) = look();
            if r > rounds && b == busy {
                return false;
            }
            (rounds, busy, since) = (r, b, Instant::now());
        }
        let _ = self.thread.join();
        true
    }
}

/// Reads every pipe it is given until all are closed and no more will come.
fn pump(rx: Receiver<(u32, To, OwnedFd)>, tag: bool, progress: &Progress) {
    let mut lines = Lines::new(tag);
    let mut files: Vec<Option<File>> = Vec::new();
    let mut more_coming = true;
    let mut buf = vec![0u8; LONGEST];
    loop {
        loop {
            match rx.try_recv() {
                Ok((rank, to, fd)) => {
                    lines.add(rank, to);
                    files.push(Some(File::from(fd)));
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    more_coming = false;
                    break;
                }
            }
        }
        if !more_coming && files.iter().all(Option::is_none) {
            return;
        }
        let open: Vec<usize> = (0..files.len()).filter(|&i| files[i].is_some()).collect();
        let wanted: Vec<_> = files.iter().flatten().map(|f| (f.as_fd(), false)).collect();
        let now = Instant::now();
        let mut wait = lines.next_due(now).unwrap_or(Duration::from_secs(1));
        if more_coming {
            wait = wait.min(Duration::from_millis(20));
        }
        let ready = sys::poll(&wanted, wait).unwrap_or_else(|_| {
            std::thread::sleep(Duration::from_millis(10));
            Vec::new()
        });
        drop(wanted);
        if ready.contains(&true) {
            progress.busy.fetch_add(1, Ordering::Release);
        }
        for (&i, _) in open.iter().zip(ready).filter(|(_, r)| *r) {
            let Some(file) = files[i].as_mut() else {
                continue;
            };
            // poll said readable (or closed): this read does not block.
            match file.read(&mut buf) {
                Ok(n) if n > 0 => lines.feed(i, &buf[..n], Instant::now()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                _ => {
                    lines.close(i);
                    files[i] = None;
                }
            }
        }
        lines.flush_due(Instant::now());
        lines.write_out();
        progress.rounds.fetch_add(1, Ordering::Release);
    }
}

/// One rank's pipe: what it sent since its last whole line, and since when.
struct Source {
    rank: u32,
    to: To,
    pending: Vec<u8>,
    since: Option<Instant>,
}

/// Assembles lines from many sources onto the two streams. Pure: no pipes, no clock of
/// its own, so that tests drive it.
pub struct Lines {
    tag: bool,
    sources: Vec<Source>,
    /// Per stream, the source whose partial line was the last thing written there.
    open: [Option<usize>; 2],
    /// Per stream, bytes ready to be written.
    out: [Vec<u8>; 2],
}

impl Lines {
    pub fn new(tag: bool) -> Lines {
        Lines {
            tag,
            sources: Vec::new(),
            open: [None, None],
            out: [Vec::new(), Vec::new()],
        }
    }

    /// A new source, numbered in the order added.
    pub fn add(&mut self, rank: u32, to: To) {
        self.sources.push(Source {
            rank,
            to,
            pending: Vec::new(),
            since: None,
        });
    }

    /// Bytes that source `i` sent: its whole lines go out at once.
    pub fn feed(&mut self, i: usize, bytes: &[u8], now: Instant) {
        self.sources[i].pending.extend_from_slice(bytes);
        let pending = std::mem::take(&mut self.sources[i].pending);
        let mut rest = &pending[..];
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.emit(i, &rest[..=end], true);
            rest = &rest[end + 1..];
        }
        let source = &mut self.sources[i];
        source.pending = rest.to_vec();
        source.since = match source.pending.is_empty() {
            true => None,
            false => Some(source.since.unwrap_or(now)),
        };
        if self.sources[i].pending.len() >= LONGEST {
            self.emit_pending(i);
        }
    }

    /// Source `i` closed: its unfinished line goes out, ended.
    pub fn close(&mut self, i: usize) {
        self.emit_pending(i);
        let s = self.sources[i].to as usize;
        if self.open[s] == Some(i) {
            self.out[s].push(b'\n');
            self.open[s] = None;
        }
    }

    /// How long until the oldest partial line is due.
    pub fn next_due(&self, now: Instant) -> Option<Duration> {
        self.sources
            .iter()
            .filter_map(|s| s.since)
            .map(|since| (since + PARTIAL_AFTER).saturating_duration_since(now))
            .min()
    }

    /// Passes on the partial lines that waited [`PARTIAL_AFTER`].
    pub fn flush_due(&mut self, now: Instant) {
        for i in 0..self.sources.len() {
            if matches!(self.sources[i].since, Some(t) if now >= t + PARTIAL_AFTER) {
                self.emit_pending(i);
            }
        }
    }

    /// Takes what is ready for one stream.
    pub fn take(&mut self, to: To) -> Vec<u8> {
        std::mem::take(&mut self.out[to as usize])
    }

    /// Writes what is ready to the launcher's streams, one write each. A closed stream
    /// loses its output, but the pipes are still read so that no rank blocks on them.
    fn write_out(&mut self) {
        for to in [To::Stdout, To::Stderr] {
            let bytes = self.take(to);
            if bytes.is_empty() {
                continue;
            }
            let _ = match to {
                To::Stdout => write_all(&mut std::io::stdout().lock(), &bytes),
                To::Stderr => write_all(&mut std::io::stderr().lock(), &bytes),
            };
        }
    }

    fn emit_pending(&mut self, i: usize) {
        let pending = std::mem::take(&mut self.sources[i].pending);
        self.sources[i].since = None;
        if !pending.is_empty() {
            self.emit(i, &pending, false);
        }
    }

    /// Writes a piece of source `i`'s line; `ends` says it ends with the newline.
    fn emit(&mut self, i: usize, piece: &[u8], ends: bool) {
        let s = self.sources[i].to as usize;
        let out = &mut self.out[s];
        if self.open[s] != Some(i) {
            // Another rank's unfinished line stays unfinished: this one starts anew.
            if self.open[s].is_some() {
                out.push(b'\n');
            }
            if self.tag {
                out.extend_from_slice(format!("[{}] ", self.sources[i].rank).as_bytes());
            }
        }
        out.extend_from_slice(piece);
        self.open[s] = if ends { None } else { Some(i) };
    }
}

fn write_all(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &mut Lines, to: To) -> String {
        String::from_utf8(lines.take(to)).unwrap()
    }

    /// A rank's last line is passed on however long the forwarder waits for the CPU; only
    /// a pipe held open with nothing in it is given up on.
    #[test]
    fn finishing_waits_for_the_last_lines_and_gives_up_only_on_a_silent_open_pipe() {
        use std::io::Write;
        use std::os::unix::net::UnixStream;
        let (mut closed, read_closed) = UnixStream::pair().unwrap();
        closed.write_all(b"last line of a rank\n").unwrap();
        drop(closed);
        let (held, read_held) = UnixStream::pair().unwrap();
        let f = Forwarder::start(false);
        f.add(0, To::Stderr, read_closed);
        // No quiet time at all: still every line that was written comes out first.
        assert!(
            f.finish(Duration::ZERO),
            "gave up on a pipe that had closed"
        );

        let f = Forwarder::start(false);
        f.add(1, To::Stderr, read_held);
        let started = Instant::now();
        assert!(
            !f.finish(Duration::from_millis(50)),
            "a held pipe never closes"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        drop(held);
    }

    #[test]
    fn partial_lines_of_ranks_never_join() {
        let t0 = Instant::now();
        let mut l = Lines::new(false);
        l.add(0, To::Stdout);
        l.add(1, To::Stdout);
        l.feed(0, b"Worker 0: ", t0);
        l.feed(1, b"Worker 1: ", t0);
        l.feed(1, b"done\nWorker 1: again", t0);
        l.feed(0, b"done\n", t0);
        assert_eq!(text(&mut l, To::Stdout), "Worker 1: done\nWorker 0: done\n");
        l.close(1);
        assert_eq!(text(&mut l, To::Stdout), "Worker 1: again\n");
    }

    #[test]
    fn a_partial_line_leaves_after_a_moment_and_the_next_rank_starts_anew() {
        let t0 = Instant::now();
        let mut l = Lines::new(true);
        l.add(3, To::Stderr);
        l.add(4, To::Stderr);
        l.feed(0, b"waiting", t0);
        assert_eq!(l.next_due(t0), Some(PARTIAL_AFTER));
        l.flush_due(t0 + PARTIAL_AFTER / 2);
        assert_eq!(text(&mut l, To::Stderr), "");
        l.flush_due(t0 + PARTIAL_AFTER);
        assert_eq!(text(&mut l, To::Stderr), "[3] waiting");
        l.feed(0, b"...", t0);
        l.flush_due(t0 + PARTIAL_AFTER);
        l.feed(1, b"fatal\n", t0);
        l.feed(0, b" done\n", t0);
        assert_eq!(
            text(&mut l, To::Stderr),
            "...\n[4] fatal\n[3]  done\n",
            "a continuation after another rank's line is tagged again"
        );
        assert_eq!(l.next_due(t0), None);
    }

    #[test]
    fn streams_are_apart_and_long_lines_go_in_pieces() {
        let t0 = Instant::now();
        let mut l = Lines::new(false);
        l.add(0, To::Stdout);
        l.add(0, To::Stderr);
        l.feed(0, b"out", t0);
        l.feed(1, b"err\n", t0);
        assert_eq!(text(&mut l, To::Stderr), "err\n");
        l.feed(0, &vec![b'x'; LONGEST], t0);
        assert_eq!(l.take(To::Stdout).len(), LONGEST + 3);
    }
}
