//! Cross-memory attach: one copy between this process and memory of a peer process of
//! the host (`process_vm_readv`/`process_vm_writev`). It serves segments that live in the
//! program's own memory (AM-II's `AM_SetSeg` on a `malloc`'d buffer, a static array, a
//! stack variable), which cannot be shared with peers by mapping.
//!
//! The kernel allows it between processes of one user unless Yama's ptrace scope says
//! otherwise; processes of one job are children of one launcher, so each process that
//! offers its memory names the launcher (its parent) as allowed, which under Yama scope 1
//! admits the launcher's descendants, its peers.

use std::io;
use std::sync::Once;

/// Where Yama publishes its ptrace scope (absent without Yama: classic same-user rules).
const PTRACE_SCOPE: &str = "/proc/sys/kernel/yama/ptrace_scope";

/// Lets the peers of this process's job (descendants of its parent, the launcher) reach
/// its memory under Yama scope 1. Without Yama, or under another scope, nothing changes.
pub fn admit_peers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: getppid has no preconditions; PR_SET_PTRACER takes a pid and changes
        // only who may attach to this process. EINVAL (no Yama) is expected and harmless.
        unsafe {
            let parent = libc::getppid();
            libc::prctl(libc::PR_SET_PTRACER, parent as libc::c_ulong, 0, 0, 0);
        }
    });
}

/// Whether `e` says the kernel refuses cross-memory attach to that process (permissions,
/// Yama, seccomp, or a kernel without it), as opposed to a bad address or a gone peer.
pub fn refused(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM) | Some(libc::EACCES) | Some(libc::ENOSYS)
    )
}

/// Who may attach to whom on this machine, by Yama's ptrace scope.
pub fn rule() -> &'static str {
    let scope = std::fs::read_to_string(PTRACE_SCOPE)
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    match scope {
        None => "no Yama: peers of the same user may attach",
        Some(0) => "Yama scope 0: peers of the same user may attach",
        Some(1) => "Yama scope 1: each process admits the launcher's descendants",
        Some(2) => "Yama scope 2: only with CAP_SYS_PTRACE",
        Some(_) => "Yama scope 3: refused for everyone",
    }
}

/// What this machine allows, for `clump info`: whether the system call works at all
/// here (on this process's own memory), and Yama's rule.
pub fn describe() -> String {
    let probe = [7u8; 8];
    let mut back = [0u8; 8];
    let works = match read(std::process::id(), probe.as_ptr() as u64, &mut back) {
        Ok(()) if back == probe => "works".to_owned(),
        Ok(()) => "not available (copied the wrong bytes)".to_owned(),
        Err(e) => format!("not available ({e})"),
    };
    format!(
        "{works}; {}; long messages and gets into a peer's segment in program memory use it",
        rule()
    )
}

/// Copies `data` to `addr` in process `pid`.
pub fn write(pid: u32, addr: u64, data: &[u8]) -> io::Result<()> {
    // SAFETY: a slice is readable for its length, and the kernel only reads it.
    unsafe { copy(Way::Write, pid, addr, data.as_ptr().cast_mut(), data.len()) }
}

/// Fills `buf` from `addr` in process `pid`.
pub fn read(pid: u32, addr: u64, buf: &mut [u8]) -> io::Result<()> {
    // SAFETY: a mutable slice is writable for its length and borrowed for the call.
    unsafe { copy(Way::Read, pid, addr, buf.as_mut_ptr(), buf.len()) }
}

/// Which way a cross-memory copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// From the peer's memory into this process's.
    Read,
    /// From this process's memory into the peer's.
    Write,
}

/// Moves `len` bytes between `local` and the peer's `addr`, `way` round, resuming after
/// partial transfers (the kernel caps one call near 2 GiB and stops at a mapping's end,
/// where the next call fails with `EFAULT`).
///
/// # Safety
/// `local..local+len` must be memory of this process that no reference covers meanwhile:
/// writable when reading, readable when writing.
pub unsafe fn copy(way: Way, pid: u32, addr: u64, local: *mut u8, len: usize) -> io::Result<()> {
    let mut done = 0usize;
    while done < len {
        let here = libc::iovec {
            iov_base: local.wrapping_add(done).cast(),
            iov_len: len - done,
        };
        let there = libc::iovec {
            iov_base: (addr as usize).wrapping_add(done) as *mut libc::c_void,
            iov_len: len - done,
        };
        // SAFETY: the local iovec covers memory the caller lends for this call (its
        // contract); the kernel checks the remote one and reports EFAULT rather than
        // touching anything outside the peer's mappings.
        let n = unsafe {
            match way {
                Way::Write => libc::process_vm_writev(pid as libc::pid_t, &here, 1, &there, 1, 0),
                Way::Read => libc::process_vm_readv(pid as libc::pid_t, &here, 1, &there, 1, 0),
            }
        };
        match n {
            n if n < 0 => return Err(io::Error::last_os_error()),
            0 => return Err(io::Error::from_raw_os_error(libc::EFAULT)),
            n => done += n as usize,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_within_this_process_and_reports_bad_addresses() {
        let mut target = vec![0u8; 10_000];
        let me = std::process::id();
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        write(me, target.as_mut_ptr() as u64, &data).unwrap();
        assert_eq!(target, data);
        let mut back = vec![0u8; 100];
        read(me, target.as_ptr() as u64 + 50, &mut back).unwrap();
        assert_eq!(back, data[50..150]);
        let err = read(me, 4096, &mut back).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EFAULT));
        assert!(!refused(&err));
        assert!(describe().starts_with("works"));
    }

    #[test]
    fn raw_copies_both_ways_and_report_bad_addresses() {
        let me = std::process::id();
        let mut src: Vec<u8> = (0..(3u32 << 20)).map(|i| i as u8).collect();
        let mut dst = vec![0u8; src.len()];
        // SAFETY: `dst` is a live buffer of exactly this length.
        unsafe { copy(Way::Read, me, src.as_ptr() as u64, dst.as_mut_ptr(), dst.len()) }.unwrap();
        assert_eq!(dst, src);
        dst.fill(0);
        // SAFETY: `src` is a live buffer of exactly this length; `dst` is written only by
        // the kernel meanwhile.
        unsafe { copy(Way::Write, me, dst.as_ptr() as u64, src.as_mut_ptr(), src.len()) }.unwrap();
        assert_eq!(std::hint::black_box(&dst), &src);
        for way in [Way::Read, Way::Write] {
            // SAFETY: as above.
            let e = unsafe { copy(way, me, 8, src.as_mut_ptr(), 16) }.unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EFAULT), "{way:?}");
        }
    }

    #[test]
    fn a_peer_that_is_gone_is_an_error_not_a_refusal() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let mut buf = [0u8; 64];
        for way in [Way::Read, Way::Write] {
            // SAFETY: `buf` is a live 64-byte buffer.
            let e = unsafe { copy(way, pid, buf.as_ptr() as u64, buf.as_mut_ptr(), buf.len()) }
                .unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ESRCH), "{way:?}");
            assert!(!refused(&e), "a gone peer is not a refusal");
        }
    }
}
