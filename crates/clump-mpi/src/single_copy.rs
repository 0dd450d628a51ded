//! Rendezvous in one copy between processes of one host: the request to send names the
//! sender's process and buffer, and the receiver reads the message straight into its
//! receive buffer by cross-memory attach (`process_vm_readv`), as vendor MPIs do over
//! shared memory. A cross-memory copy pins each page it touches, which costs about as
//! much as the copy itself; so when the processes have a core each, the sender (idle in
//! its wait meanwhile) writes the back part of a large message with `process_vm_writev`
//! while the receiver reads the front part: two copies at once, each of half the message.
//! With processes taking turns on cores the receiver reads it all (the sender may not run
//! soon). `CLUMP_MPI_SINGLE_COPY=0` sends medium chunks instead (two copies, a credit round
//! per 64 KiB). Where the kernel refuses (Yama, seccomp, another user), the part that
//! could not be copied is asked for in chunks.

use std::io;
use std::sync::Once;

use crate::error::{Error, ErrorClass, Result};

/// The sender's side of a single-copy rendezvous: its process and buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub pid: u32,
    pub addr: u64,
}

/// Whether single copy is wanted: `CLUMP_MPI_SINGLE_COPY` (`1`, the default, or `0`).
pub fn wanted() -> Result<bool> {
    clump::config::table::number("CLUMP_MPI_SINGLE_COPY")
        .map(|v| v != Some(0))
        .map_err(|e| Error::new(ErrorClass::Arg, e.to_string()))
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

/// The smallest part of a message that the sender is asked to write while the receiver
/// reads the rest: below it, the request to write costs more than the half copy saves.
const SPLIT_MIN: usize = 32 << 10;

/// Where the receiver's read of message bytes `have..end` stops when the sender writes the
/// rest at once (`split`: the processes have a core each): at half, on a page boundary of
/// the message; `end` when the sender is not asked.
pub fn split_at(have: usize, end: usize, split: bool) -> usize {
    let half = (end.saturating_sub(have) / 2) & !4095;
    if split && half >= SPLIT_MIN {
        have + half
    } else {
        end
    }
}

/// The smallest message offered in one copy when the processes have a core each: below
/// it the hybrid protocol's chunks (the first bytes with the request to send, one more
/// round) cost less than pinning the pages (32 KiB ping-pong here: 5.6 us in chunks, 7.8 us
/// in one read; 128 KiB: 18.2 us against 13.5 us).
const ONE_COPY_MIN: usize = 64 << 10;

/// Whether a rendezvous message of `len` bytes to a peer of this host is offered in one
/// copy (`split`: the processes have a core each).
pub fn offered(len: usize, split: bool) -> bool {
    !split || len >= ONE_COPY_MIN
}

/// Which way a cross-memory copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// From the peer's memory into this process's.
    Read,
    /// From this process's memory into the peer's.
    Write,
}

/// The most one read asks for: below the kernel's cap per call (near 2 GiB), so a read
/// that stops short has met the end of a mapping, a bad address.
const PIECE: usize = 1 << 30;

/// Copies `len` bytes between `local` in this process and `peer`'s memory, `way` round.
///
/// # Safety
/// `local` must be valid for `len` bytes that nothing else accesses meanwhile: for
/// writes when reading, for reads when writing.
pub unsafe fn copy(way: Way, peer: Source, local: *mut u8, len: usize) -> io::Result<()> {
    for start in (0..len).step_by(PIECE) {
        let n = PIECE.min(len - start);
        let here = libc::iovec {
            iov_base: local.wrapping_add(start).cast(),
            iov_len: n,
        };
        let there = libc::iovec {
            iov_base: (peer.addr as usize).wrapping_add(start) as *mut libc::c_void,
            iov_len: n,
        };
        let pid = peer.pid as libc::pid_t;
        // SAFETY: `here` is the caller's range, valid for this direction; the kernel checks
        // `there` against the peer's mappings and fails with EFAULT instead of touching
        // anything else.
        let got = unsafe {
            match way {
                Way::Read => libc::process_vm_readv(pid, &here, 1, &there, 1, 0),
                Way::Write => libc::process_vm_writev(pid, &here, 1, &there, 1, 0),
            }
        };
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
        unsafe { copy(Way::Read, from, dst.as_mut_ptr(), dst.len()) }.unwrap();
        assert_eq!(dst, src);
        let bad = Source { addr: 8, ..from };
        // SAFETY: as above.
        let e = unsafe { copy(Way::Read, bad, dst.as_mut_ptr(), 16) }.unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EFAULT));
    }

    #[test]
    fn writes_this_process_and_reports_bad_addresses() {
        let mut src: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
        let dst = vec![0u8; src.len()];
        let to = Source {
            pid: std::process::id(),
            addr: dst.as_ptr() as u64,
        };
        // SAFETY: `src` is a live buffer of exactly this length; `dst` is written only by
        // the kernel meanwhile.
        unsafe { copy(Way::Write, to, src.as_mut_ptr(), src.len()) }.unwrap();
        assert_eq!(std::hint::black_box(&dst), &src);
        let bad = Source { addr: 8, ..to };
        // SAFETY: as above.
        let e = unsafe { copy(Way::Write, bad, src.as_mut_ptr(), 16) }.unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EFAULT));
    }

    #[test]
    fn a_peer_that_is_gone_is_an_error_not_a_refusal() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let mut buf = [0u8; 64];
        let gone = Source {
            pid,
            addr: buf.as_ptr() as u64,
        };
        for way in [Way::Read, Way::Write] {
            // SAFETY: `buf` is a live 64-byte buffer.
            let e = unsafe { copy(way, gone, buf.as_mut_ptr(), buf.len()) }.unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::ESRCH), "{way:?}");
            assert!(!refused(&e), "a gone peer gets no chunks: its send failed");
        }
    }

    #[test]
    fn small_rendezvous_messages_take_chunks_only_with_a_core_each() {
        assert!(!offered(32 << 10, true));
        assert!(offered(64 << 10, true));
        assert!(offered(32 << 10, false));
    }

    #[test]
    fn the_receiver_reads_half_of_a_large_message_on_a_page_boundary() {
        assert_eq!(split_at(0, 1 << 20, true), 512 << 10);
        assert_eq!(
            split_at(0, 1 << 20, false),
            1 << 20,
            "no core each: all read"
        );
        assert_eq!(split_at(100, 100 + 200_000, true), 100 + 98_304);
        // Too small to be worth a request to the sender.
        assert_eq!(split_at(0, 60 << 10, true), 60 << 10);
        assert_eq!(split_at(5, 5, true), 5);
    }
}
