//! A dynamic window's attached regions, published in its owner's segment so that an
//! origin of the same host checks an access against them itself and copies by
//! cross-memory attach, with no message. A sequence word, odd while the owner rewrites the
//! table, shows a reader whether it saw one whole table; a reader that meets a change, or
//! a table too full to hold every region, leaves the access to the target's handler,
//! which checks it against the regions it keeps.

use std::sync::atomic::{fence, AtomicU64, Ordering};

/// Regions a table holds.
const SLOTS: usize = 1024;
/// The table: sequence word, count (`FULL` when the regions did not fit), then a
/// (start, length) pair per region.
pub const BYTES: usize = 8 * (2 + 2 * SLOTS);
const FULL: u64 = u64::MAX;

/// The table at `addr` as words.
fn words(addr: usize) -> &'static [AtomicU64] {
    // SAFETY: `addr` is a table of `BYTES` bytes, 64-aligned, that a dynamic window took
    // from its owner's segment and keeps until the collective MPI_Win_free (mapped here
    // until then, in the owner or a same-host process); every process touches it only
    // atomically, and AtomicU64 has the layout of u64 with every bit pattern valid.
    unsafe { std::slice::from_raw_parts(addr as *const AtomicU64, BYTES / 8) }
}

/// The owner writes `regions` into its table at `addr` (the only writer: MPI_Win_attach
/// and detach run in the owner's process, one at a time).
pub fn publish(addr: usize, regions: &[(usize, usize)]) {
    let w = words(addr);
    // Even however the memory was left before the table was first written.
    let seq = w[0].load(Ordering::Relaxed) & !1;
    w[0].store(seq + 1, Ordering::Relaxed);
    fence(Ordering::Release);
    if regions.len() > SLOTS {
        w[1].store(FULL, Ordering::Relaxed);
    } else {
        w[1].store(regions.len() as u64, Ordering::Relaxed);
        for (i, &(start, len)) in regions.iter().enumerate() {
            w[2 + 2 * i].store(start as u64, Ordering::Relaxed);
            w[3 + 2 * i].store(len as u64, Ordering::Relaxed);
        }
    }
    w[0].store(seq + 2, Ordering::Release);
}

/// Whether one region of the table at `addr` holds the `len` bytes at address `at` (no
/// when the table was changing or is full: the target's handler decides then).
pub fn covers(addr: usize, at: usize, len: usize) -> bool {
    let w = words(addr);
    let seq = w[0].load(Ordering::Acquire);
    if seq % 2 == 1 {
        return false;
    }
    let count = w[1].load(Ordering::Relaxed);
    let (at, end) = (at as u64, (at as u64).saturating_add(len as u64));
    let found = count != FULL
        && (0..(count as usize).min(SLOTS)).any(|i| {
            let start = w[2 + 2 * i].load(Ordering::Relaxed);
            let size = w[3 + 2 * i].load(Ordering::Relaxed);
            at >= start && end <= start.saturating_add(size)
        });
    fence(Ordering::Acquire);
    found && w[0].load(Ordering::Relaxed) == seq
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_answers_for_what_it_holds() {
        let table: Vec<AtomicU64> = (0..BYTES / 8).map(|_| AtomicU64::new(0)).collect();
        let addr = table.as_ptr() as usize;
        assert!(!covers(addr, 0x1000, 1));
        publish(addr, &[(0x1000, 16), (0x2000, 8)]);
        assert!(covers(addr, 0x1000, 16) && covers(addr, 0x2004, 4));
        assert!(!covers(addr, 0x1008, 16) && !covers(addr, 0xfff, 2));
        assert!(!covers(addr, usize::MAX, 2));
        publish(addr, &vec![(0x1000, 16); SLOTS + 1]);
        assert!(!covers(addr, 0x1000, 16));
        publish(addr, &[]);
        assert!(!covers(addr, 0x1000, 16));
    }
}
