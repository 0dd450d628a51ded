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

/// The sender's side of a single-copy rendezvous: its process and buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub pid: u32,
    pub addr: u64,
}

/// Admitting the job's peers and telling a refusal from a bad address are clump's (one
/// implementation for every layer that copies between processes).
pub use clump::cma::{admit_peers, refused, Way};

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

/// Copies `len` bytes between `local` in this process and `peer`'s memory, `way` round.
///
/// # Safety
/// `local` must be valid for `len` bytes that nothing else accesses meanwhile: for
/// writes when reading, for reads when writing.
pub unsafe fn copy(way: Way, peer: Source, local: *mut u8, len: usize) -> io::Result<()> {
    // SAFETY: the caller's contract is clump's, passed on unchanged.
    unsafe { clump::cma::copy(way, peer.pid, peer.addr, local, len) }
}

#[cfg(test)]
mod tests {
    use super::*;

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
