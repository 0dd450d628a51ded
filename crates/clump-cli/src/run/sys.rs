//! The launcher's few system calls that std lacks: signals feeding a self-pipe, poll(2),
//! signalling process groups, limits, CPU binding and TCP liveness. Each goes through a
//! maintained crate's safe wrapper (signal-hook, nix, socket2); the only unsafe left is
//! std's `pre_exec`, whose closure runs between fork and exec.

#![allow(unsafe_code)]

use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::resource::{getrlimit, setrlimit, Resource};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io::{self, Read};
use std::os::fd::BorrowedFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const TERMINATING: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The terminating signals received and not yet counted; None until installed.
static PENDING: Mutex<Option<Signals>> = Mutex::new(None);
/// The first terminating signal received (0: none) and how many arrived.
static TERM_SIGNAL: AtomicI32 = AtomicI32::new(0);
static TERM_COUNT: AtomicU32 = AtomicU32::new(0);
/// Set by SIGCHLD: some child may be ready to reap.
static CHILD_EXITED: AtomicBool = AtomicBool::new(false);

/// Installs the handlers for SIGINT, SIGTERM, SIGHUP and SIGCHLD; returns the read end of
/// a nonblocking self-pipe that becomes readable whenever one of them arrives, so the event
/// loop's poll(2) wakes up instead of missing a signal that lands just before it sleeps.
pub fn install_signal_pipe() -> io::Result<UnixStream> {
    let (read, write) = UnixStream::pair()?;
    read.set_nonblocking(true)?;
    *PENDING.lock().unwrap_or_else(|e| e.into_inner()) = Some(Signals::new(TERMINATING)?);
    signal_hook::flag::register(SIGCHLD, &CHILD_EXITED)?;
    for sig in TERMINATING.into_iter().chain([SIGCHLD]) {
        signal_hook::low_level::pipe::register(sig, write.try_clone()?)?;
    }
    Ok(read)
}

/// Empties the self-pipe after a wakeup.
pub fn drain_pipe(mut pipe: &UnixStream) {
    let mut buf = [0u8; 64];
    while matches!(pipe.read(&mut buf), Ok(n) if n > 0) {}
}

/// The first terminating signal received so far and how many arrived in all (a signal
/// repeated before the launcher looked counts once).
pub fn term_signal() -> Option<(i32, u32)> {
    if let Some(signals) = PENDING.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        for sig in signals.pending() {
            let _ = TERM_SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            TERM_COUNT.fetch_add(1, Ordering::SeqCst);
        }
    }
    match TERM_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        sig => Some((sig, TERM_COUNT.load(Ordering::SeqCst))),
    }
}

/// True once after each SIGCHLD.
pub fn take_child_exited() -> bool {
    CHILD_EXITED.swap(false, Ordering::SeqCst)
}

/// poll(2) over `wanted` (each descriptor, and whether to wait for it to be writable as
/// well as readable); returns for each whether it is ready (or closed, or in error). An
/// interrupted call counts as a wakeup with nothing ready.
pub fn poll(wanted: &[(BorrowedFd<'_>, bool)], timeout: Duration) -> io::Result<Vec<bool>> {
    let mut fds: Vec<PollFd> = wanted
        .iter()
        .map(|&(fd, write)| {
            let events = if write {
                PollFlags::POLLIN | PollFlags::POLLOUT
            } else {
                PollFlags::POLLIN
            };
            PollFd::new(fd, events)
        })
        .collect();
    let ms = timeout.as_millis().min(60_000) as u16;
    match nix::poll::poll(&mut fds, PollTimeout::from(ms)) {
        Ok(_) => {}
        Err(nix::errno::Errno::EINTR) => return Ok(vec![false; fds.len()]),
        Err(e) => return Err(e.into()),
    }
    Ok(fds.iter().map(|p| p.any().unwrap_or(true)).collect())
}

/// Sends `sig` to the process group led by `pid` (each rank leads its own group, so
/// helpers it started go too), falling back to the process alone.
pub fn signal_group(pid: u32, sig: i32) {
    let (Ok(sig), pid) = (Signal::try_from(sig), Pid::from_raw(pid as i32)) else {
        return;
    };
    if killpg(pid, sig).is_err() {
        let _ = kill(pid, sig);
    }
}

/// Raises the soft open-file limit towards `needed` (the launcher holds a socket per
/// rank, plus two output pipes); an error says what the limit is.
pub fn ensure_fd_limit(needed: u64) -> Result<(), String> {
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return Ok(());
    };
    if soft >= needed {
        return Ok(());
    }
    let want = needed.min(hard);
    if setrlimit(Resource::RLIMIT_NOFILE, want, hard).is_err() || want < needed {
        return Err(format!(
            "this job needs about {needed} open files but the limit is {} (raise it with `ulimit -n`)",
            want.max(soft)
        ));
    }
    Ok(())
}

/// Makes the child killed if the launcher dies (say, by SIGKILL) before it could end the
/// job: ranks waiting forever with no one to serve them would be worse.
pub fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let launcher = Pid::this();
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls (prctl, getppid); it allocates nothing (its error is a plain errno).
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
            // The launcher may have died before prctl took effect: then the child ends
            // here (std reports the error and exits the child).
            if nix::unistd::getppid() != launcher {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// "SIGKILL" for 9 and so on; "a signal" for numbers without a well-known name.
pub fn signal_name(sig: i32) -> &'static str {
    const NAMES: [&str; 32] = [
        "",
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    NAMES
        .get(sig as usize)
        .copied()
        .filter(|n| !n.is_empty())
        .unwrap_or("a real-time signal")
}

/// `--bind-to core`: the child runs only on the `index`-th CPU this process may use
/// (modulo their number), from its first instruction on.
pub fn bind_to_cpu(cmd: &mut std::process::Command, index: u32) -> io::Result<()> {
    use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
    use std::os::unix::process::CommandExt;
    let allowed = sched_getaffinity(Pid::from_raw(0))?;
    let cpus: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| allowed.is_set(c).unwrap_or(false))
        .collect();
    let Some(&cpu) = cpus.get(index as usize % cpus.len().max(1)) else {
        return Err(io::Error::other("no CPU to bind to"));
    };
    let mut one = CpuSet::new();
    one.set(cpu)?;
    // SAFETY: the closure runs between fork and exec and makes one async-signal-safe
    // system call on a set copied into it; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            sched_setaffinity(Pid::from_raw(0), &one)?;
            Ok(())
        });
    }
    Ok(())
}

/// Makes a TCP connection fail once its peer leaves it unanswered for about `limit`:
/// data unacknowledged that long (`TCP_USER_TIMEOUT`), or, while idle, keepalive probes
/// from a third of it on, one a second.
pub fn fail_unanswered(conn: &std::net::TcpStream, limit: Duration) -> io::Result<()> {
    let idle = (limit.as_secs() / 3).max(1);
    let probes = (limit.as_secs().saturating_sub(idle)).max(1) as u32;
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(Duration::from_secs(idle))
        .with_interval(Duration::from_secs(1))
        .with_retries(probes);
    let sock = socket2::SockRef::from(conn);
    sock.set_tcp_keepalive(&keepalive)?;
    sock.set_tcp_user_timeout(Some(limit))
}
