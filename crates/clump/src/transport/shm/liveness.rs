//! Telling whether the process that owns a peer's queue block is still running.
//!
//! A pidfd (`pidfd_open(2)`) turns readable when its process exits, and no later process
//! can take its place. Where the call does not exist (kernels before 5.3, and valgrind,
//! which does not know it) the process id itself is asked with `kill(pid, 0)`: the peers
//! of a job are children of one launcher, which reaps them, so an exited peer's id is
//! gone at once; only its reuse within the job could fool the check.

use super::wake::{readable, wait_readable};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// How the exit of one process is noticed.
#[derive(Debug)]
pub enum Watch {
    Pidfd(OwnedFd),
    Pid(libc::pid_t),
}

impl Watch {
    /// A watch on process `pid`: its pidfd, or its id where pidfds are unknown.
    pub fn of(pid: u32) -> io::Result<Watch> {
        let pid = libc::pid_t::try_from(pid)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "no such process id"))?;
        // SAFETY: plain syscall; a non-negative result is a new descriptor we own.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: fd is a fresh descriptor returned by the kernel.
            return Ok(Watch::Pidfd(unsafe { OwnedFd::from_raw_fd(fd as i32) }));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOSYS) => Ok(Watch::Pid(pid)),
            _ => Err(e),
        }
    }

    /// Whether the process is still running.
    pub fn alive(&self) -> bool {
        match self {
            Watch::Pidfd(fd) => {
                wait_readable(&mut [readable(fd.as_raw_fd())], std::time::Duration::ZERO) == 0
            }
            Watch::Pid(pid) => {
                // SAFETY: signal 0 sends nothing; it only asks whether `pid` exists.
                let r = unsafe { libc::kill(*pid, 0) };
                r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that has exited and been reaped.
    fn gone_child() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn a_pidfd_watch_sees_this_process_alive() {
        let w = Watch::of(std::process::id()).unwrap();
        assert!(matches!(w, Watch::Pidfd(_)), "{w:?}");
        assert!(w.alive());
    }

    /// The fallback where pidfd_open does not exist (valgrind, old kernels) tells a live
    /// process from an exited one as the pidfd does.
    #[test]
    fn a_process_id_watch_tells_a_live_process_from_an_exited_one() {
        let me = Watch::Pid(std::process::id() as libc::pid_t);
        assert!(me.alive());
        let child = gone_child();
        assert!(!Watch::Pid(child as libc::pid_t).alive());
        let mut running = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let pidfd = Watch::of(running.id()).unwrap();
        assert!(pidfd.alive() && Watch::Pid(running.id() as libc::pid_t).alive());
        running.kill().unwrap();
        running.wait().unwrap();
        assert!(!pidfd.alive() && !Watch::Pid(running.id() as libc::pid_t).alive());
    }

    #[test]
    fn a_process_id_out_of_range_is_an_error() {
        assert!(Watch::of(u32::MAX).is_err());
    }
}
