//! Waking a process that sleeps in `wait` over shared memory.
//!
//! Each bundle binds a datagram socket named by its process id and a key unique in that
//! process; the key sits in the queue block header of every endpoint of the bundle. A
//! sender that finds the owner asleep sends one byte to that name. Why a socket and not
//! the alternatives:
//! - reopening the owner's eventfd through `/proc/<pid>/fd/N` is refused by this kernel
//!   (`ENXIO`), and `pidfd_getfd(2)` needs ptrace permission, which Yama may deny;
//! - a futex in the shared block wakes only a thread sleeping on that futex, but `wait`
//!   must sleep on the network sockets at the same time; a futex with a short timeout to
//!   look at the sockets would add that timeout to every network wake-up.
//!
//! The socket is a file descriptor, so it joins the sockets in one `poll(2)`. It lives in
//! `/tmp/clump-wake-<uid>/<pid>.<key>`, a directory of mode 0700 owned by the user (its
//! mode and owner are checked, so one made by another user is refused): sending to a
//! socket needs search permission on its directory, so only that user's processes reach
//! it. (Abstract names, used before, were open to any local user.) A per-user directory
//! rather than the launcher's scratch directory, because processes started by Slurm,
//! mpirun or on their own have none, and the processes of a job on one host run as one
//! user. The path has a fixed base, so it always fits `sun_path` (at most 48 of its 108
//! bytes). A socket file goes when its bundle does; those of processes that died are
//! removed by the next process of the user that binds one (connecting to a socket nobody
//! listens on is refused).

use super::cpu_mate;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The key meaning "no bundle to wake" in a block header.
pub const NO_KEY: u32 = super::block::NO_FD;

/// The effective user of this process (the owner of `/proc/self`).
fn user() -> io::Result<u32> {
    Ok(std::fs::metadata("/proc/self")?.uid())
}

fn directory_of(uid: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/clump-wake-{uid}"))
}

/// This user's wake directory, made (mode 0700) if missing and checked once per process.
fn directory() -> io::Result<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let made = DIR.get_or_init(|| {
        let uid = user().map_err(|e| format!("cannot tell this process's user: {e}"))?;
        let dir = directory_of(uid);
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                return Err(format!("cannot create {}: {e}", dir.display()))
            }
            _ => {}
        }
        let meta = std::fs::symlink_metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(format!(
                "{} is not a directory of mode 0700 owned by user {uid}; remove it",
                dir.display()
            ));
        }
        Ok(dir)
    });
    made.as_deref().map_err(|e| io::Error::other(e.clone()))
}

fn socket_path(dir: &Path, pid: u32, key: u32) -> PathBuf {
    dir.join(format!("{pid}.{key}"))
}

/// Whether a live socket is bound at `path`: connecting to one whose process died is
/// refused (and a connection sends nothing, so a live one is not woken).
fn listened(path: &Path) -> bool {
    let probe = UnixDatagram::unbound().and_then(|s| s.connect(path));
    !matches!(probe, Err(e) if e.kind() == io::ErrorKind::ConnectionRefused)
}

/// Removes the socket files of processes that died without removing theirs.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_socket()) && !listened(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

use std::os::unix::fs::FileTypeExt;

/// The sleeping side: one per bundle.
pub struct WakeSocket {
    socket: UnixDatagram,
    key: u32,
    path: PathBuf,
}

impl WakeSocket {
    pub fn bind() -> io::Result<WakeSocket> {
        static NEXT_KEY: AtomicU32 = AtomicU32::new(0);
        static SWEPT: std::sync::Once = std::sync::Once::new();
        let dir = directory()?;
        SWEPT.call_once(|| sweep(dir));
        let pid = std::process::id();
        loop {
            let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
            if key == NO_KEY {
                continue;
            }
            let path = socket_path(dir, pid, key);
            match UnixDatagram::bind(&path) {
                Ok(socket) => {
                    socket.set_nonblocking(true)?;
                    return Ok(WakeSocket { socket, key, path });
                }
                // Left by a dead process that had our pid: replace it. One of a live
                // process (our pid in another pid namespace sharing /tmp): skip the key.
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                    if !listened(&path) {
                        let _ = std::fs::remove_file(&path);
                    }
                    continue;
                }
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
            }
        }
    }

    /// What senders need, besides the pid, to reach this socket.
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Wakes whoever sleeps on this socket (the threads that share the bundle), as a
    /// sender does. A full socket already holds a wake-up.
    pub fn ring(&self) {
        match self.socket.send_to(&[1], &self.path) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => eprintln!("clump: cannot wake the threads asleep in wait ({e})"),
            Ok(_) => {}
        }
    }

    /// Empties the socket after a wake-up, so the next `poll` sleeps again, and notes the
    /// CPU each sender ran on ([`cpu_mate::note_peer_on`]).
    pub fn drain(&self) {
        let mut buf = [0u8; 64];
        while let Ok(n) = self.socket.recv(&mut buf) {
            if let Ok(cpu) = <[u8; 4]>::try_from(&buf[..n]) {
                cpu_mate::note_peer_on(u32::from_ne_bytes(cpu));
            }
        }
    }
}

impl Drop for WakeSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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
    /// The last bundle woken and its socket's address, kept: a peer's key changes only when
    /// its endpoint moves to another bundle, and building the path for every wake-up cost
    /// two allocations and a formatting (about 500 instructions beside the system call).
    to: Option<(u32, u32, SocketAddr)>,
}

impl Waker {
    pub fn new() -> io::Result<Waker> {
        let socket = UnixDatagram::unbound()?;
        socket.set_nonblocking(true)?;
        Ok(Waker { socket, to: None })
    }

    /// Wakes the bundle `key` of process `pid` (a process of this user), telling it the
    /// CPU this thread runs on. A full socket means wake-ups are already pending there,
    /// which is as good as this one.
    pub fn wake(&mut self, pid: u32, key: u32) -> io::Result<()> {
        let addr = match &self.to {
            Some((p, k, addr)) if (*p, *k) == (pid, key) => addr,
            _ => {
                let addr = SocketAddr::from_pathname(socket_path(directory()?, pid, key))?;
                &self.to.insert((pid, key, addr)).2
            }
        };
        match self.socket.send_to_addr(&cpu_mate::this_cpu().to_ne_bytes(), addr) {
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
        let mut waker = Waker::new().unwrap();
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

    #[test]
    fn a_waker_reaches_the_bundle_its_peer_moved_to() {
        let (first, second) = (WakeSocket::bind().unwrap(), WakeSocket::bind().unwrap());
        let mut waker = Waker::new().unwrap();
        let pid = std::process::id();
        waker.wake(pid, first.key()).unwrap();
        waker.wake(pid, second.key()).unwrap(); // the address kept for `first` is not used
        for s in [&first, &second] {
            let ready = wait_readable(&mut [readable(s.as_raw_fd())], Duration::ZERO);
            assert_eq!(ready, 1, "each bundle was woken");
            s.drain();
        }
        waker.wake(pid, first.key()).unwrap();
        let ready = wait_readable(&mut [readable(second.as_raw_fd())], Duration::ZERO);
        assert_eq!(ready, 0, "back to the first: the second is not woken again");
    }

    #[test]
    fn a_wake_up_tells_the_sleeper_the_cpu_it_came_from() {
        cpu_mate::pin_this_thread();
        let sleeper = WakeSocket::bind().unwrap();
        let mut waker = Waker::new().unwrap();
        assert!(!cpu_mate::take_shared_cpu());
        sleeper.ring(); // a thread of the bundle: no CPU
        sleeper.drain();
        assert!(!cpu_mate::take_shared_cpu());
        waker.wake(std::process::id(), sleeper.key()).unwrap();
        sleeper.drain();
        assert!(cpu_mate::take_shared_cpu(), "woken from this thread's CPU");
    }

    /// Set in the child of the test below: the socket it must try to reach, as a user
    /// other than its owner.
    const AS_OTHER: &str = "CLUMP_TEST_WAKE_AS_OTHER";

    /// A process of another user cannot reach a wake socket (the abstract names used
    /// before could be reached by anyone: the child checks that too, as a control).
    #[test]
    fn another_user_cannot_reach_a_wake_socket() {
        use std::os::linux::net::SocketAddrExt;
        use std::os::unix::net::SocketAddr;
        use std::os::unix::process::CommandExt;
        if let Ok(target) = std::env::var(AS_OTHER) {
            let (path, control) = target.split_once('|').unwrap();
            let s = UnixDatagram::unbound().unwrap();
            let abstract_ok = s
                .send_to_addr(&[1], &SocketAddr::from_abstract_name(control).unwrap())
                .is_ok();
            let code = match s.send_to(&[1], path) {
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied && abstract_ok => 3,
                Err(_) if abstract_ok => 4,
                Err(_) => 5,
                Ok(_) => 6,
            };
            std::process::exit(code);
        }
        if user().unwrap() != 0 {
            eprintln!("skipped: running a sender as another user needs root");
            return;
        }
        let sleeper = WakeSocket::bind().unwrap();
        let control_name = format!("clump-test-control/{}", std::process::id());
        let control =
            UnixDatagram::bind_addr(&SocketAddr::from_abstract_name(&control_name).unwrap())
                .unwrap();
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "transport::shm::wake::tests::another_user_cannot_reach_a_wake_socket"])
            .env(AS_OTHER, format!("{}|{control_name}", sleeper.path.display()))
            .uid(65534)
            .gid(65534)
            .status()
            .unwrap();
        assert_eq!(
            status.code(),
            Some(3),
            "3: refused while the abstract control was reachable; 6: the wake socket was reached"
        );
        drop(control);
        assert_eq!(
            wait_readable(&mut [readable(sleeper.as_raw_fd())], Duration::ZERO),
            0,
            "nothing arrived"
        );
    }

    #[test]
    fn the_wake_directory_is_private_and_a_socket_file_goes_with_its_bundle() {
        let dir = directory().unwrap();
        let meta = std::fs::symlink_metadata(dir).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        let sleeper = WakeSocket::bind().unwrap();
        let path = sleeper.path.clone();
        assert!(path.as_os_str().len() < 108, "{}", path.display());
        assert!(path.exists());
        drop(sleeper);
        assert!(!path.exists(), "removed with its bundle");
        // One left by a process that died is swept, and one listened to is kept.
        let dead = dir.join("999999999.0");
        drop(UnixDatagram::bind(&dead).unwrap());
        let live = WakeSocket::bind().unwrap();
        sweep(dir);
        assert!(!dead.exists() && live.path.exists());
    }
}
