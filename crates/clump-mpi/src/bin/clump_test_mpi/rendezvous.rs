//! Large messages between the first two ranks at the edges of the single-copy rendezvous:
//! around the size from which it is offered, buffers at odd addresses, a receive that
//! truncates (only the bytes within the capacity are copied, by both), a window of
//! non-blocking sends in flight at once, and any source.

use super::{check, fail, ok, pattern};
use clump_mpi::{self as mpi, Comm, Datatype, ErrorClass, ANY_SOURCE};

/// Sizes around 64 KiB (chunks below it with a core each, one copy from it on) and two
/// large odd ones.
const SIZES: [usize; 5] = [65_535, 65_536, 65_537, 200_003, (1 << 20) + 5];

pub fn edges(world: &Comm, byte: &Datatype) {
    let r = world.rank();
    if world.size() < 2 || r > 1 {
        return;
    }
    let peer = 1 - r;
    for (i, &len) in SIZES.iter().enumerate() {
        let tag = 300 + i as i32;
        // Three bytes in: neither buffer starts on a page or a word.
        let mut out = vec![0u8; len + 3];
        out[3..].copy_from_slice(&pattern(len, i));
        let mut inb = vec![0u8; len + 3];
        // SAFETY: `inb` outlives the wait below.
        let mut q = ok(
            unsafe { mpi::irecv(inb[3..].as_mut_ptr(), len, byte, ANY_SOURCE, tag, world) },
            "irecv",
        );
        ok(mpi::send(&out[3..], len, byte, peer, tag, world), "send");
        let st = ok(mpi::wait(&mut q), "wait");
        check!(
            st.source == peer && st.get_count(byte) == Some(len),
            "status {st:?} for {len}"
        );
        check!(
            inb[3..] == pattern(len, i),
            "{len} bytes at odd addresses differ"
        );
    }
    // Truncated below and above half of the message.
    let len = 1 << 20;
    for (i, cap) in [300_001, 700_001].into_iter().enumerate() {
        let tag = 320 + i as i32;
        let out = pattern(len, 9 + i);
        let mut inb = vec![0u8; cap + 1];
        // SAFETY: `inb` outlives the wait below.
        let mut q = ok(
            unsafe { mpi::irecv(inb.as_mut_ptr(), cap, byte, peer, tag, world) },
            "irecv",
        );
        ok(mpi::send(&out, len, byte, peer, tag, world), "send");
        let e = mpi::wait(&mut q).unwrap_err();
        check!(e.class == ErrorClass::Truncate, "truncation gave {e}");
        check!(
            inb[..cap] == out[..cap] && inb[cap] == 0,
            "a truncated {len}-byte message into {cap} bytes"
        );
    }
    // A window of large sends in flight at once, each to its own receive.
    const WINDOW: usize = 8;
    let len = 300_000;
    let outs: Vec<Vec<u8>> = (0..WINDOW)
        .map(|w| pattern(len, 40 + w + r as usize))
        .collect();
    let mut ins = vec![vec![0u8; len]; WINDOW];
    let mut reqs = Vec::new();
    for (w, inb) in ins.iter_mut().enumerate() {
        // SAFETY: the buffers outlive the waits below.
        reqs.push(ok(
            unsafe { mpi::irecv(inb.as_mut_ptr(), len, byte, peer, 340, world) },
            "irecv",
        ));
        // SAFETY: as above.
        reqs.push(ok(
            unsafe { mpi::isend(outs[w].as_ptr(), len, byte, peer, 340, world) },
            "isend",
        ));
    }
    for q in &mut reqs {
        ok(mpi::wait(q), "wait");
    }
    for (w, inb) in ins.iter().enumerate() {
        check!(
            *inb == pattern(len, 40 + w + peer as usize),
            "message {w} of the window differs"
        );
    }
}
