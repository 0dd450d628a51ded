//! The launcher's few system calls that std lacks: signal handlers feeding a self-pipe,
//! poll(2) and signalling process groups. All unsafe code of the launcher is here.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::time::Duration;

/// Write end of the self-pipe; -1 until installed.
static PIPE_WR: AtomicI32 = AtomicI32::new(-1);
/// The first terminating signal received (0: none) and how many arrived.
static TERM_SIGNAL: AtomicI32 = AtomicI32::new(0);
static TERM_COUNT: AtomicU32 = AtomicU32::new(0);
/// Set by SIGCHLD: some child may be ready to reap.
static CHILD_EXITED: AtomicBool = AtomicBool::new(false);

const TERMINATING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work: atomics and write(2), with errno preserved.
    // SAFETY: __errno_location returns this thread's errno slot, valid for the thread's life.
    let saved = unsafe { *libc::__errno_location() };
    if sig == libc::SIGCHLD {
        CHILD_EXITED.store(true, Ordering::SeqCst);
    } else {
        let _ = TERM_SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
        TERM_COUNT.fetch_add(1, Ordering::SeqCst);
    }
    let fd = PIPE_WR.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: writes one byte from a live local; a full pipe (EAGAIN) is fine, a wakeup is pending.
        unsafe { libc::write(fd, [0u8].as_ptr().cast(), 1) };
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved };
}

/// Installs the handlers for SIGINT, SIGTERM, SIGHUP and SIGCHLD; returns the read end of
/// a nonblocking pipe that becomes readable whenever one of them arrives, so the event
/// loop's poll(2) wakes up instead of missing a signal that lands just before it sleeps.
pub fn install_signal_pipe() -> io::Result<RawFd> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    PIPE_WR.store(fds[1], Ordering::SeqCst);
    for sig in TERMINATING.into_iter().chain([libc::SIGCHLD]) {
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; we then set
        // a handler that only does async-signal-safe work.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART
                | if sig == libc::SIGCHLD {
                    libc::SA_NOCLDSTOP
                } else {
                    0
                };
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(sig, &sa, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(fds[0])
}

/// Empties the self-pipe after a wakeup.
pub fn drain_pipe(fd: RawFd) {
    let mut buf = [0u8; 64];
    // SAFETY: reads into a live local buffer of the given length; the fd is nonblocking.
    while unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
}

/// The first terminating signal received so far and how many arrived in all.
pub fn term_signal() -> Option<(i32, u32)> {
    match TERM_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        sig => Some((sig, TERM_COUNT.load(Ordering::SeqCst))),
    }
}

/// True once after each SIGCHLD.
pub fn take_child_exited() -> bool {
    CHILD_EXITED.swap(false, Ordering::SeqCst)
}

/// poll(2); an interrupted call counts as a wakeup with nothing ready.
pub fn poll(fds: &mut [libc::pollfd], timeout: Duration) -> io::Result<()> {
    let ms = timeout.as_millis().min(60_000) as libc::c_int;
    // SAFETY: `fds` is a live, exclusively borrowed slice of pollfd of the given length.
    let r = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// Sends `sig` to the process group led by `pid` (each rank leads its own group, so
/// helpers it started go too), falling back to the process alone.
pub fn signal_group(pid: u32, sig: i32) {
    let pid = pid as libc::pid_t;
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe {
        if libc::kill(-pid, sig) != 0 {
            libc::kill(pid, sig);
        }
    }
}

/// Raises the soft open-file limit towards `needed` (the launcher holds a socket per
/// rank, plus two output pipes); an error says what the limit is.
pub fn ensure_fd_limit(needed: u64) -> Result<(), String> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the live local.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 || lim.rlim_cur >= needed {
        return Ok(());
    }
    let want = libc::rlimit {
        rlim_cur: needed.min(lim.rlim_max),
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit reads one rlimit from the live local.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &want) } != 0 || want.rlim_cur < needed {
        return Err(format!(
            "this job needs about {needed} open files but the limit is {} (raise it with `ulimit -n`)",
            want.rlim_cur.max(lim.rlim_cur)
        ));
    }
    Ok(())
}

/// Makes the child killed if the launcher dies (say, by SIGKILL) before it could end the
/// job: ranks waiting forever with no one to serve them would be worse.
pub fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: getpid is async-signal-safe; read here, in the parent.
    let launcher = unsafe { libc::getpid() };
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls (prctl, getppid); it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The launcher may have died before prctl took effect.
            if libc::getppid() != launcher {
                libc::_exit(1);
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
    use std::os::unix::process::CommandExt;
    // SAFETY: a zeroed cpu_set_t is the empty set; sched_getaffinity fills the live local.
    let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: as above, with the set's true size.
    if unsafe { libc::sched_getaffinity(0, size, &mut allowed) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads bit `c` of the live set, `c` below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &allowed) })
        .collect();
    let Some(&cpu) = cpus.get(index as usize % cpus.len().max(1)) else {
        return Err(io::Error::other("no CPU to bind to"));
    };
    // SAFETY: as above (all zeroes is the empty set).
    let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET writes bit `cpu` (below CPU_SETSIZE) of the live local.
    unsafe { libc::CPU_SET(cpu, &mut one) };
    // SAFETY: the closure runs between fork and exec and makes one async-signal-safe
    // system call on a set copied into it; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}

/// Makes a TCP connection fail once its peer leaves it unanswered for about `limit`:
/// data unacknowledged that long (`TCP_USER_TIMEOUT`), or, while idle, keepalive probes
/// from a third of it on, one a second.
pub fn fail_unanswered(conn: &std::net::TcpStream, limit: Duration) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let idle = (limit.as_secs() / 3).max(1) as libc::c_int;
    let probes = (limit.as_secs() as libc::c_int - idle).max(1);
    let options = [
        (libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1),
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, idle),
        (libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, 1),
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT, probes),
        (
            libc::IPPROTO_TCP,
            libc::TCP_USER_TIMEOUT,
            limit.as_millis() as libc::c_int,
        ),
    ];
    for (level, name, value) in options {
        // SAFETY: setsockopt reads one c_int from the live local, of the size given.
        let r = unsafe {
            libc::setsockopt(
                conn.as_raw_fd(),
                level,
                name,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
