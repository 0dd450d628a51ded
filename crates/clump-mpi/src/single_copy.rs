//! Rendezvous in one copy between processes of one host: the request to send names the
//! sender's process and buffer, and the receiver reads the message straight into its
//! receive buffer by cross-memory attach (`process_vm_readv`), as vendor MPIs do over
//! shared memory. Clump's medium chunks take two copies and a credit round per 64 KiB,
//! but the two copies run at once on two cores: with a core per process that pipeline is
//! faster (a cross-memory read pins each page, 4-8 GB/s here); with processes taking
//! turns on cores, one read wins. So single copy is the default only when this host's
//! processes do not have a core each; `CLUMP_MPI_SINGLE_COPY=1` or `0` decides instead.
//! Where the kernel refuses (Yama, seccomp, another user), the receiver asks for the
//! chunks.

use std::io;
use std::sync::Once;

use crate::error::{Error, ErrorClass, Result};

/// The sender's side of a single-copy rendezvous: its process and buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub pid: u32,
    pub addr: u64,
}

/// Whether single copy is wanted: `CLUMP_MPI_SINGLE_COPY` (`1` or `0`), else only when
/// the processes of this host do not have a core each.
pub fn wanted(core_each: bool) -> Result<bool> {
    match std::env::var("CLUMP_MPI_SINGLE_COPY").as_deref() {
        Err(_) => Ok(!core_each),
        Ok("1") => Ok(true),
        Ok("0") => Ok(false),
        Ok(v) => Err(Error::new(
            ErrorClass::Arg,
            format!("CLUMP_MPI_SINGLE_COPY={v} is neither 1 nor 0"),
        )),
    }
}

/// Lets this job's processes (descendants of the launcher, this process's parent) read
/// its memory where Yama's ptrace scope 1 would refuse them; elsewhere it changes nothing.
pub fn admit_peers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: getppid has no preconditions; PR_SET_PTRACER only names who may attach
        // to this process, and fails harmlessly (EINVAL) without Yama.
        unsafe {
            libc::prctl(
                libc::PR_SET_PTRACER,
                libc::getppid() as libc::c_ulong,
                0,
                0,
                0,
            );
        }
    });
}

/// Whether `e` is the kernel refusing cross-memory attach (rather than a bad address).
pub fn refused(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM) | Some(libc::EACCES) | Some(libc::ENOSYS)
    )
}

/// The most one read asks for: below the kernel's cap per call (near 2 GiB), so a read
/// that stops short has met the end of a mapping, a bad address.
const PIECE: usize = 1 << 30;

/// Reads `len` bytes at `from` into `to`.
///
/// # Safety
/// `to` must be valid for writes of `len` bytes that nothing else reads or writes meanwhile.
pub unsafe fn read(from: Source, to: *mut u8, len: usize) -> io::Result<()> {
    for start in (0..len).step_by(PIECE) {
        let n = PIECE.min(len - start);
        let local = libc::iovec {
            iov_base: to.wrapping_add(start).cast(),
            iov_len: n,
        };
        let remote = libc::iovec {
            iov_base: (from.addr as usize).wrapping_add(start) as *mut libc::c_void,
            iov_len: n,
        };
        // SAFETY: `local` is the caller's writable range; the kernel checks `remote`
        // against the peer's mappings and fails with EFAULT instead of touching anything else.
        let got =
            unsafe { libc::process_vm_readv(from.pid as libc::pid_t, &local, 1, &remote, 1, 0) };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        if got as usize != n {
            return Err(io::Error::from_raw_os_error(libc::EFAULT));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_and_reports_bad_addresses() {
        let src = vec![5u8; 3 << 20];
        let mut dst = vec![0u8; src.len()];
        let from = Source {
            pid: std::process::id(),
            addr: src.as_ptr() as u64,
        };
        // SAFETY: `dst` is a live buffer of exactly this length.
        unsafe { read(from, dst.as_mut_ptr(), dst.len()) }.unwrap();
        assert_eq!(dst, src);
        let bad = Source { addr: 8, ..from };
        // SAFETY: as above.
        let e = unsafe { read(bad, dst.as_mut_ptr(), 16) }.unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EFAULT));
    }
}
