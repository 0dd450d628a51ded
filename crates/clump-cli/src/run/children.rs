//! Starting the ranks, reaping them, and signalling the ones still alive.

use super::output::{Forwarder, To};
use super::sys;
use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// What the launcher passes on to every rank.
pub struct Launch<'a> {
    pub program: &'a OsString,
    pub args: &'a [OsString],
    pub size: u32,
    pub job_id: u64,
    /// The key of the datagram MAC (`CLUMP_NET_AUTH`).
    pub job_key: u128,
    pub socket: &'a Path,
    pub tag_output: bool,
    pub placement: Placement,
    /// Variables passed with `-x`/`--env`.
    pub env: &'a [(OsString, OsString)],
}

/// Where the ranks run: on how many virtual hosts, and whether they get the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Virtual hosts; ranks fill them in blocks (rank r of N on host r*K/N).
    pub hosts: u32,
    /// `CLUMP_NET` for every rank; `None` leaves the launcher's environment alone.
    pub net: Option<bool>,
}

impl Placement {
    pub fn host_of(&self, rank: u32, size: u32) -> u32 {
        (rank as u64 * self.hosts as u64 / size as u64) as u32
    }
}

struct Rank {
    pid: u32,
    child: Child,
    status: Option<ExitStatus>,
}

pub struct Children {
    ranks: Vec<Rank>,
    output: Forwarder,
}

impl Children {
    /// Starts every rank, each leading its own process group so that teardown reaches
    /// whatever it starts and a terminal's Ctrl-C reaches only the launcher, which then
    /// ends the job in order. If one rank cannot start, those already started are killed.
    /// `between` runs after each start: the launcher serves the ranks already running,
    /// so that with a thousand ranks the first ones are welcomed at once, not after all
    /// have started. When it returns false (Ctrl-C), no more ranks start.
    pub fn spawn(l: &Launch, between: &mut dyn FnMut() -> bool) -> io::Result<Children> {
        let mut me = Children {
            ranks: Vec::new(),
            output: Forwarder::start(l.tag_output),
        };
        // Only rank 0 may read stdin, and only when it is not a terminal: a background
        // process group reading the terminal would be stopped (SIGTTIN).
        let stdin_to_rank0 = !io::stdin().is_terminal();
        for rank in 0..l.size {
            let mut cmd = Command::new(l.program);
            cmd.args(l.args)
                .envs(l.env.iter().map(|(k, v)| (k, v)))
                .env("CLUMP_RANK", rank.to_string())
                .env("CLUMP_SIZE", l.size.to_string())
                .env("CLUMP_BOOT", "clump")
                .env("CLUMP_BOOT_SOCKET", l.socket)
                .env("CLUMP_JOB_ID", format!("{:016x}", l.job_id))
                .env("CLUMP_JOB_KEY", format!("{:032x}", l.job_key))
                .env("CLUMP_HOST", l.placement.host_of(rank, l.size).to_string())
                .process_group(0)
                .stdin(if rank == 0 && stdin_to_rank0 {
                    Stdio::inherit()
                } else {
                    Stdio::null()
                });
            if let Some(net) = l.placement.net {
                cmd.env("CLUMP_NET", if net { "1" } else { "0" });
            }
            sys::die_with_parent(&mut cmd);
            // Through the launcher, which passes on whole lines (`output.rs`).
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            let mut child = match cmd.spawn() {
                Ok(c) => c,
                Err(e) => {
                    me.kill_now();
                    return Err(e);
                }
            };
            if let Some(out) = child.stdout.take() {
                me.output.add(rank, To::Stdout, out);
            }
            if let Some(err) = child.stderr.take() {
                me.output.add(rank, To::Stderr, err);
            }
            me.ranks.push(Rank {
                pid: child.id(),
                child,
                status: None,
            });
            if !between() {
                break;
            }
        }
        Ok(me)
    }

    /// Ranks that exited since the last call, with their status.
    pub fn reap(&mut self) -> Vec<(u32, ExitStatus)> {
        let mut done = Vec::new();
        for (rank, r) in self.ranks.iter_mut().enumerate() {
            if r.status.is_none() {
                if let Ok(Some(s)) = r.child.try_wait() {
                    r.status = Some(s);
                    done.push((rank as u32, s));
                }
            }
        }
        done
    }

    pub fn all_exited(&self) -> bool {
        self.ranks.iter().all(|r| r.status.is_some())
    }

    pub fn has_exited(&self, rank: u32) -> bool {
        self.ranks[rank as usize].status.is_some()
    }

    pub fn pid(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].pid
    }

    /// Signals every rank not yet reaped (a reaped pid may already belong to someone else).
    pub fn signal_living(&self, sig: i32) {
        for r in self.ranks.iter().filter(|r| r.status.is_none()) {
            sys::signal_group(r.pid, sig);
        }
    }

    /// Used when the job cannot even start: no grace.
    fn kill_now(&mut self) {
        self.signal_living(libc::SIGKILL);
        for r in &mut self.ranks {
            let _ = r.child.wait();
        }
    }

    /// Waits up to `timeout` for the ranks' last lines to be passed on.
    pub fn finish_output(self, timeout: Duration) {
        self.output.finish(timeout);
    }
}

/// The job's exit code for a rank's status, and the words for it.
pub fn describe(status: ExitStatus) -> (u8, String) {
    if let Some(code) = status.code() {
        return (code as u8, format!("exited with status {code}"));
    }
    let sig = status.signal().unwrap_or(0);
    let core = if status.core_dumped() {
        ", core dumped"
    } else {
        ""
    };
    (
        (128 + sig) as u8,
        format!(
            "was killed by signal {sig} ({}{core})",
            sys::signal_name(sig)
        ),
    )
}
