//! Starting the ranks, reaping them, and signalling the ones still alive.

use super::hosts::Layout;
use super::output::{Forwarder, To};
use super::{remote, sys};
use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::net::{Ipv4Addr, SocketAddr};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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
    pub layout: &'a Layout,
    /// Variables passed with `-x`/`--env`.
    pub env: &'a [(OsString, OsString)],
    /// How ranks on other hosts are started; `None` when every rank is on this machine.
    pub remote: Option<&'a Remote>,
}

/// What starting ranks on other hosts takes.
pub struct Remote {
    /// The launcher's TCP bootstrap service.
    pub service: SocketAddr,
    pub token: u128,
    pub shell: remote::Shell,
    pub cwd: OsString,
    /// The launcher's `CLUMP_*` settings, which ssh does not carry.
    pub forwarded: Vec<(OsString, OsString)>,
    /// `CLUMP_NET_IP` for this machine's ranks when the user set none.
    pub local_ip: Option<Ipv4Addr>,
}

/// What the launcher does while it starts the ranks (see `Children::spawn`).
pub trait Between {
    /// Serves the ranks already running; false once no more ranks may start (Ctrl-C).
    fn serve(&mut self) -> bool;
    /// Whether `rank` has joined the job (said hello to the bootstrap).
    fn joined(&self, rank: u32) -> bool;
}

/// Ranks of one host that may be logging in over ssh at once: sshd refuses logins beyond
/// its `MaxStartups` (10 by default) that have not authenticated yet. A rank counts as
/// logged in once it joins the job.
const MAX_LOGINS: usize = 8;
/// Longest wait for an earlier rank of the host to join before starting the next anyway
/// (a program may do much before it joins).
const LOGIN_WAIT: Duration = Duration::from_secs(2);

struct Rank {
    pid: u32,
    child: Child,
    status: Option<ExitStatus>,
    /// The remote host it runs on, if any.
    host: Option<String>,
    /// A remote rank's agent reads this until the launcher closes it or exits.
    _agent_stdin: Option<ChildStdin>,
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
    /// have started. When it says stop (Ctrl-C), no more ranks start.
    pub fn spawn(l: &Launch, between: &mut dyn Between) -> io::Result<Children> {
        let mut me = Children {
            ranks: Vec::new(),
            output: Forwarder::start(l.tag_output),
        };
        // The ranks started on each remote host, for `MAX_LOGINS`.
        let mut logins: Vec<Vec<u32>> = vec![Vec::new(); l.layout.remote.len()];
        // Only rank 0 may read stdin, and only when it is not a terminal: a background
        // process group reading the terminal would be stopped (SIGTTIN).
        let stdin_to_rank0 = !io::stdin().is_terminal();
        for rank in 0..l.size {
            let spot = l.layout.ranks[rank as usize];
            if let Some(h) = spot.remote {
                let on_host = &mut logins[h as usize];
                let earlier = on_host.len().checked_sub(MAX_LOGINS).map(|i| on_host[i]);
                if earlier.is_some_and(|e| !me.await_login(e, between)) {
                    break;
                }
                on_host.push(rank);
            }
            let made = rank_command(l, rank, stdin_to_rank0);
            let (mut child, setup) = match made.and_then(|(mut cmd, s)| Ok((cmd.spawn()?, s))) {
                Ok(started) => started,
                Err(e) => {
                    me.kill_now();
                    return Err(e);
                }
            };
            let mut agent_stdin = child.stdin.take();
            if let (Some(setup), Some(stdin)) = (&setup, &mut agent_stdin) {
                // A failure here is ssh's: it exits, and says why.
                let _ = remote::send(stdin, setup);
            }
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
                _agent_stdin: agent_stdin,
                host: l.layout.remote_name(rank).map(str::to_owned),
            });
            if !between.serve() {
                break;
            }
        }
        Ok(me)
    }

    /// Waits (serving) until `rank` has joined the job, its remote shell has ended, or
    /// `LOGIN_WAIT` has passed; false when no more ranks may start.
    fn await_login(&mut self, rank: u32, between: &mut dyn Between) -> bool {
        let deadline = Instant::now() + LOGIN_WAIT;
        let child = &mut self.ranks[rank as usize].child;
        while !between.joined(rank) && Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            if !between.serve() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
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

    /// The remote host `rank` runs on, if it is not this machine.
    pub fn host(&self, rank: u32) -> Option<&str> {
        self.ranks[rank as usize].host.as_deref()
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

    /// Passes on the ranks' last output; see [`Forwarder::finish`].
    pub fn finish_output(self, quiet: Duration) -> bool {
        self.output.finish(quiet)
    }
}

/// Waits up to `timeout` in all for `threads` to end, joining those that did.
pub fn await_threads(threads: impl IntoIterator<Item = JoinHandle<()>>, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    for t in threads {
        while !t.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        if t.is_finished() {
            let _ = t.join();
        }
    }
}

/// The command that starts `rank`, here or through the remote shell (then with the
/// setup its agent reads).
fn rank_command(
    l: &Launch,
    rank: u32,
    stdin_to_rank0: bool,
) -> io::Result<(Command, Option<remote::Setup>)> {
    let spot = l.layout.ranks[rank as usize];
    let mut env: Vec<(OsString, OsString)> = l.env.to_vec();
    let mut set = |k: &str, v: String| env.push((k.into(), v.into()));
    set("CLUMP_RANK", rank.to_string());
    set("CLUMP_SIZE", l.size.to_string());
    set("CLUMP_BOOT", "clump".into());
    set("CLUMP_JOB_ID", format!("{:016x}", l.job_id));
    set("CLUMP_JOB_KEY", format!("{:032x}", l.job_key));
    set("CLUMP_HOST", spot.vhost.to_string());
    if let Some(net) = l.layout.net {
        set("CLUMP_NET", if net { "1" } else { "0" }.into());
    }
    let (mut cmd, setup) = match (l.layout.remote_name(rank), l.remote) {
        (Some(host), Some(r)) => {
            let setup = remote::Setup {
                host: host.to_owned(),
                rank,
                launcher: r.service,
                token: r.token,
                cwd: r.cwd.clone(),
                program: l.program.clone(),
                args: l.args.to_vec(),
                env: r.forwarded.iter().cloned().chain(env).collect(),
                core_index: spot.core,
            };
            (r.shell.command(host), Some(setup))
        }
        _ => {
            let mut cmd = Command::new(l.program);
            cmd.args(l.args)
                .envs(env)
                .env("CLUMP_BOOT_SOCKET", l.socket);
            // In a job across hosts, this host's ranks bind where the others reach it.
            let user_ip = l.env.iter().any(|(k, _)| k == "CLUMP_NET_IP");
            if let Some(ip) = l.remote.and_then(|r| r.local_ip).filter(|_| !user_ip) {
                cmd.env("CLUMP_NET_IP", ip.to_string());
            }
            if let Some(core) = spot.core {
                sys::bind_to_cpu(&mut cmd, core)?;
            }
            cmd.stdin(if rank == 0 && stdin_to_rank0 {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
            (cmd, None)
        }
    };
    cmd.process_group(0);
    sys::die_with_parent(&mut cmd);
    // Through the launcher, which passes on whole lines (`output.rs`).
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    Ok((cmd, setup))
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
