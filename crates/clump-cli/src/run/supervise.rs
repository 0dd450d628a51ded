//! The launcher's event loop: serves the bootstrap, watches the ranks, and ends the job
//! (SIGTERM, then SIGKILL after a grace period) on the first failure (a rank that exits
//! while it owes a call, `MPI_Finalize`, is one), on Ctrl-C or past its time limit
//! (`MPIEXEC_TIMEOUT`).

use super::children::{describe, Children};
use super::server::{Event, Server};
use super::sys;
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Time ranks get between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// Time other ranks get to end by themselves after one asked to end the job, before
/// SIGTERM: when every rank calls `clump_spmd_exit` after a last barrier, they are all on
/// their way out and must not be killed before they flush their output.
const EXIT_GRACE: Duration = Duration::from_secs(1);
/// Time other ranks get to end by themselves after one exited owing a call (returned from
/// `main` without `MPI_Finalize`): short, since they may wait for it forever, and the job
/// must end within a second; long enough for ranks already on their way out to finish.
const OWED_GRACE: Duration = Duration::from_millis(300);
/// How long a live rank may stay disconnected while others wait for it: long enough
/// that a dying rank's exit status is seen first and reported instead.
const DISCONNECT_GRACE: Duration = Duration::from_millis(500);
/// ssh's exit status for its own failures (also a remote command's `exit 255`).
const SSH_FAILED: i32 = 255;
/// Longest sleep in poll(2): a safety net, every real event wakes it sooner.
const IDLE: Duration = Duration::from_secs(1);

struct Ending {
    code: u8,
    /// When SIGTERM was sent (`None` while the ranks still have their exit grace).
    termed: Option<Instant>,
    term_at: Instant,
    killed: bool,
    signals_seen: u32,
}

pub struct Supervisor<'a> {
    pub children: &'a mut Children,
    pub server: Server,
    /// The self-pipe the signal handlers write to.
    pub signal: UnixStream,
    ending: Option<Ending>,
    /// Events the server saw while the ranks were being started.
    early: Vec<Event>,
    /// Ranks that failed on their own (exit, signal, abort, protocol fault, stall).
    failed: Vec<u32>,
    /// Ranks that exited unsuccessfully once the launcher was ending the job.
    ended: Vec<u32>,
    /// When the job's time is up, and its seconds (`MPIEXEC_TIMEOUT`).
    limit: Option<(Instant, u64)>,
}

impl<'a> Supervisor<'a> {
    pub fn new(
        children: &'a mut Children,
        server: Server,
        signal: UnixStream,
        early: Vec<Event>,
        limit: Option<(Instant, u64)>,
    ) -> Self {
        Supervisor {
            children,
            server,
            signal,
            ending: None,
            early,
            failed: Vec::new(),
            ended: Vec::new(),
            limit,
        }
    }

    /// Runs until every rank has exited; returns the job's exit status.
    pub fn run(mut self) -> u8 {
        let early = std::mem::take(&mut self.early);
        self.on_events(early);
        let mut reap = true;
        loop {
            self.check_signals();
            if reap || sys::take_child_exited() {
                self.reap();
            }
            if self.children.all_exited() {
                break;
            }
            self.check_stalled();
            self.check_limit();
            let timeout = self.check_grace().min(self.time_left());
            let polled = {
                let mut wanted = vec![(self.signal.as_fd(), false)];
                let mut tokens = Vec::new();
                if self.ending.is_none() {
                    let (fds, t) = self.server.interests();
                    wanted.extend(fds);
                    tokens = t;
                }
                sys::poll(&wanted, timeout).map(|ready| (ready, tokens))
            };
            let (ready, tokens) = match polled {
                Ok(polled) => polled,
                Err(e) => {
                    self.fail(1, format!("poll failed: {e}"));
                    (Vec::new(), Vec::new())
                }
            };
            // Nothing ready means a timeout: look at the children anyway, in case.
            reap = !ready.contains(&true);
            if ready.first() == Some(&true) {
                sys::drain_pipe(&self.signal);
            }
            if self.ending.is_none() {
                let events = self.server.handle(&tokens, ready.get(1..).unwrap_or(&[]));
                self.on_events(events);
            }
        }
        let code = self.ending.as_ref().map_or(0, |e| e.code);
        if code != 0 {
            super::say(&self.summary(code));
        }
        code
    }

    /// The job's last line: which ranks failed, which the launcher ended, and the status.
    fn summary(&mut self, code: u8) -> String {
        self.failed.sort_unstable();
        self.failed.dedup();
        self.ended.sort_unstable();
        self.ended.retain(|r| !self.failed.contains(r));
        let mut parts = Vec::new();
        if self.failed.is_empty() {
            parts.push("no rank failed".to_owned());
        } else {
            parts.push(format!("{} failed", rank_list(&self.failed)));
        }
        if !self.ended.is_empty() {
            parts.push(format!("{} ended by the launcher", rank_list(&self.ended)));
        }
        format!("summary: {}; exit status {code}", parts.join(", "))
    }

    /// Prints the one line that explains the end of the job, and starts the teardown.
    fn fail(&mut self, code: u8, line: String) {
        self.end_after(code, line, Duration::ZERO);
    }

    /// As `fail`, but the living ranks get `grace` to exit by themselves before SIGTERM.
    fn end_after(&mut self, code: u8, line: String, grace: Duration) {
        if self.ending.is_some() {
            return;
        }
        super::say(&format!("{line}; ending the job"));
        self.begin_ending(code, grace);
    }

    /// Starts the teardown: the living ranks get `grace` to exit by themselves.
    fn begin_ending(&mut self, code: u8, grace: Duration) {
        if self.ending.is_some() {
            return;
        }
        let signals_seen = sys::term_signal().map_or(0, |(_, n)| n);
        self.ending = Some(Ending {
            code,
            termed: None,
            term_at: Instant::now() + grace,
            killed: false,
            signals_seen,
        });
        self.check_grace();
    }

    fn who(&self, rank: u32) -> String {
        match self.children.host(rank) {
            Some(host) => format!("rank {rank} (on host {host})"),
            None => format!("rank {rank} (pid {})", self.children.pid(rank)),
        }
    }

    fn check_signals(&mut self) {
        let Some((sig, count)) = sys::term_signal() else {
            return;
        };
        match &mut self.ending {
            None => self.fail(
                128 + sig as u8,
                format!("interrupted by {}", sys::signal_name(sig)),
            ),
            // Another signal during the teardown: the user is impatient, skip the grace.
            Some(e) if count > e.signals_seen && !e.killed => {
                e.killed = true;
                self.children.signal_living(libc::SIGKILL);
            }
            Some(_) => {}
        }
    }

    fn reap(&mut self) {
        for (rank, status) in self.children.reap() {
            // Its peers return what they sent it at once, rather than after a timeout.
            self.server.rank_exited(rank);
            if self.ending.is_some() {
                if !status.success() {
                    self.ended.push(rank);
                }
                continue;
            }
            // An abort request sent just before exiting explains the exit better.
            let events = self.server.drain_rank(rank);
            self.on_events(events);
            if !status.success() {
                self.failed.push(rank);
                let (code, mut what) = describe(status);
                if self.children.host(rank).is_some() && status.code() == Some(SSH_FAILED) {
                    what.push_str(
                        " (ssh's status when it cannot reach the host, is refused, or loses it)",
                    );
                }
                // The others heard of it (`rank_exited`): they get the grace to return
                // what they sent it and say so before they are ended.
                self.end_after(code, format!("{} {what}", self.who(rank)), EXIT_GRACE);
            } else if let Some(call) = self.server.owed(rank) {
                // As Open MPI's mpirun: a failure of the job, whatever the status.
                let line = format!("{} exited without calling {call}", self.who(rank));
                self.failed.push(rank);
                self.end_after(1, line, OWED_GRACE);
            }
        }
    }

    fn on_events(&mut self, events: Vec<Event>) {
        for ev in events {
            match ev {
                Event::Abort {
                    rank,
                    status,
                    reason,
                } => {
                    // Truncated like exit(3) does, so status -1 becomes 255.
                    let code = status as u8;
                    if code == 0 {
                        // A normal end (AM-II's SPMD exit with status 0): no rank failed
                        // and there is nothing to report; the others still get the
                        // grace to finish and flush their output.
                        self.begin_ending(0, EXIT_GRACE);
                        continue;
                    }
                    let line = format!(
                        "{} aborted the job with status {status}: {reason}",
                        self.who(rank)
                    );
                    self.failed.push(rank);
                    self.end_after(code, line, EXIT_GRACE);
                }
                Event::Fault { rank, what } => {
                    self.failed.push(rank);
                    self.fail(
                        1,
                        format!("{} broke the bootstrap protocol: {what}", self.who(rank)),
                    );
                }
            }
        }
    }

    /// A rank that exited or hung up without entering the collective others wait in
    /// would leave them waiting forever.
    fn check_stalled(&mut self) {
        if self.ending.is_some() {
            return;
        }
        let Some(st) = self.server.stalled() else {
            return;
        };
        for &rank in &st.missing {
            let gone = if self.children.has_exited(rank) {
                "exited"
            } else if self
                .server
                .closed_since(rank)
                .is_some_and(|t| t.elapsed() >= DISCONNECT_GRACE)
            {
                "closed its bootstrap connection"
            } else {
                continue;
            };
            self.failed.push(rank);
            let line = format!(
                "{} {gone} without entering {} #{}, which {} {} waiting in",
                self.who(rank),
                st.op.name(),
                st.seq,
                rank_list(&st.waiting),
                if st.waiting.len() == 1 { "is" } else { "are" },
            );
            return self.fail(1, line);
        }
    }

    /// Ends the job once its time limit is past.
    fn check_limit(&mut self) {
        if let Some((at, secs)) = self.limit {
            if self.ending.is_none() && Instant::now() >= at {
                let line = format!("the job ran past its time limit (MPIEXEC_TIMEOUT={secs})");
                self.fail(super::deadline::TIMED_OUT, line);
            }
        }
    }

    /// How long poll may sleep before the time limit needs checking.
    fn time_left(&self) -> Duration {
        match self.limit {
            Some((at, _)) if self.ending.is_none() => at.saturating_duration_since(Instant::now()),
            _ => IDLE,
        }
    }

    /// Escalates to SIGKILL once the grace is over; returns how long poll may sleep.
    fn check_grace(&mut self) -> Duration {
        if let Some(e) = &mut self.ending {
            if e.killed {
                return Duration::from_millis(100);
            }
            let Some(since) = e.termed else {
                let left = e.term_at.saturating_duration_since(Instant::now());
                if !left.is_zero() {
                    return left;
                }
                e.termed = Some(Instant::now());
                self.children.signal_living(libc::SIGTERM);
                return GRACE;
            };
            let left = GRACE.saturating_sub(since.elapsed());
            if left.is_zero() {
                e.killed = true;
                self.children.signal_living(libc::SIGKILL);
                return Duration::from_millis(100);
            }
            return left;
        }
        // A disconnected rank may need judging once its grace is over.
        let disconnected = self.server.stalled().is_some_and(|st| {
            st.missing
                .iter()
                .any(|&r| self.server.closed_since(r).is_some())
        });
        if disconnected {
            Duration::from_millis(50)
        } else {
            IDLE
        }
    }
}

/// "rank 3" or "ranks 0-2,5".
fn rank_list(ranks: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &r in ranks {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == r => *hi = r,
            _ => runs.push((r, r)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        })
        .collect();
    format!(
        "{} {}",
        if ranks.len() == 1 { "rank" } else { "ranks" },
        text.join(",")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn rank_lists_are_compact() {
        assert_eq!(super::rank_list(&[3]), "rank 3");
        assert_eq!(super::rank_list(&[0, 1, 2, 5, 7, 8]), "ranks 0-2,5,7-8");
    }
}
