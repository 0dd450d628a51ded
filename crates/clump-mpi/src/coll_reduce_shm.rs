//! Allreduce among the processes of one host without messages. Each rank combines every
//! member's data itself, in rank order (so any operation, and the same result on every
//! rank): data that fits a shared-memory slot in one step; larger data straight from the
//! members' own buffers by cross-memory reads (one copy, no round trip per message, as
//! Open MPI's shared-memory transport reads a peer's buffer), or, where the kernel refuses
//! those, through the slots in parts of whole elements.

use crate::coll::one_host;
use crate::coll_reduce::Reduction;
use crate::coll_shm;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::runtime::{self, Runtime};
use crate::single_copy::{self, Source, Way};
use std::ops::Range;

/// The most bytes combined per cross-memory read: the read, the data it combines with and
/// the result stay in this core's cache.
const PIECE: usize = 64 << 10;

impl Reduction<'_> {
    /// Writes the combination of every member's `mine` in rank order into `recv` without
    /// messages; false when the slots do not serve `comm` or one element does not fit them
    /// (every member finds the same, and then takes the message algorithm).
    pub fn through_shm(&self, mine: &[u8], recv: &mut [u8], comm: &Comm) -> Result<bool> {
        let rt = runtime::get()?;
        if !rt.slots.serve(comm, one_host(comm)?) {
            return Ok(false);
        }
        // A receive buffer too small still takes part (the others wait for this rank's
        // contribution), into spare bytes, and fails after.
        let small = recv.len() < mine.len();
        let mut spare = Vec::new();
        let acc = match recv.get_mut(..mine.len()) {
            Some(acc) => acc,
            None => {
                spare.resize(mine.len(), 0);
                &mut spare[..]
            }
        };
        let room = rt.slots.room(comm);
        let done = (mine.len() > room && self.by_reads(&rt, mine, acc, comm)?)
            || self.in_parts(&rt, room, mine, acc, comm)?;
        if done && small {
            return Err(Error::new(
                ErrorClass::Buffer,
                "reduction receive buffer too small",
            ));
        }
        Ok(done)
    }

    /// Through the slots, in parts of whole elements that fit every member's slot (`room`).
    fn in_parts(
        &self,
        rt: &Runtime,
        room: usize,
        mine: &[u8],
        acc: &mut [u8],
        comm: &Comm,
    ) -> Result<bool> {
        let elem = self.dt.bytes(1)?;
        let step = match elem {
            0 => mine.len().max(1),
            e => room / e * e,
        };
        if step == 0 {
            return Ok(false);
        }
        let mut next = Vec::new();
        let mut at = 0;
        loop {
            let end = (at + step).min(mine.len());
            let part = self.part(end - at, elem);
            let done = coll_shm::exchange(
                rt,
                comm,
                mine.len(),
                &[&mine[at..end]],
                |rank, whole, data| {
                    check_whole(rank, whole, mine.len())?;
                    part.fold(rank, data, &mut acc[at..end], &mut next)
                },
            )?;
            if !done {
                // Only a first part can miss: the parts fit every member's slot.
                return Ok(false);
            }
            at = end;
            if at >= mine.len() {
                return Ok(true);
            }
        }
    }

    /// By cross-memory reads of the members' buffers, named through the slots. Among more
    /// than two, as a reduce-scatter and an allgather: each member folds its own slice of
    /// everyone's data (in rank order), then reads the others' finished slices, so each
    /// moves twice its data whatever their number (reading every member's whole buffer
    /// would move n - 1 times it); two fold everything. A step after each phase keeps every buffer in place until
    /// all have read it. False (on every member) when some member cannot read or be read:
    /// the caller then goes through the slots.
    fn by_reads(&self, rt: &Runtime, mine: &[u8], acc: &mut [u8], comm: &Comm) -> Result<bool> {
        let whole = mine.len();
        let head = name(rt, mine, acc);
        let mut members = Vec::with_capacity(comm.size() as usize);
        let named = coll_shm::exchange(rt, comm, whole, &[&head], |rank, w, data| {
            check_whole(rank, w, whole)?;
            members.push(member(data));
            Ok(())
        })?;
        if !named || members.iter().any(Option::is_none) {
            return Ok(false);
        }
        let members: Vec<Member> = members.into_iter().flatten().collect();
        let me = comm.rank() as usize;
        let elem = self.dt.bytes(1)?.max(1);
        let slice = |i| slice_of(whole, elem, members.len(), i);
        // Two members move as much either way, and folding it all saves them a step
        // (256 KiB: 38 against 46 us); three save a fifth, four half.
        let split = members.len() > 2;
        let own = if split { slice(me) } else { 0..whole };
        let folded = self.fold_reads(mine, &mut acc[own.clone()], own, elem, &members, me);
        let all_folded = all_read(rt, comm, whole, &folded)?;
        if !split || !all_folded {
            return Ok(all_folded);
        }
        let gathered = (0..members.len()).filter(|&q| q != me).try_for_each(|q| {
            let range = slice(q);
            read(shifted(members[q].acc, range.start), &mut acc[range])
        });
        all_read(rt, comm, whole, &gathered)
    }

    /// Combines every member's bytes `range` (of `elem`-byte elements) into `acc` (as long)
    /// piece by piece, in rank order, reading the others' from their send buffers (the lowest rank's straight into
    /// `acc`).
    fn fold_reads(
        &self,
        mine: &[u8],
        acc: &mut [u8],
        range: Range<usize>,
        elem: usize,
        members: &[Member],
        me: usize,
    ) -> Result<()> {
        let piece = (PIECE / elem).max(1) * elem;
        let mut scratch = vec![0u8; piece.min(range.len())];
        let mut next = Vec::new();
        for at in range.clone().step_by(piece) {
            let end = (at + piece).min(range.end);
            let part = self.part(end - at, elem);
            let to = &mut acc[at - range.start..end - range.start];
            for (rank, m) in members.iter().enumerate() {
                let data: &[u8] = if rank == me {
                    &mine[at..end]
                } else if rank == 0 {
                    read(shifted(m.send, at), to)?;
                    continue;
                } else {
                    read(shifted(m.send, at), &mut scratch[..end - at])?;
                    &scratch[..end - at]
                };
                part.fold(rank, data, to, &mut next)?;
            }
        }
        Ok(())
    }

    /// The reduction of `len` bytes of this one's data (`elem` bytes an element).
    #[inline]
    fn part(&self, len: usize, elem: usize) -> Reduction<'_> {
        Reduction {
            dt: self.dt,
            count: len.checked_div(elem).unwrap_or(self.count),
            op: self.op,
        }
    }

    /// Folds member `rank`'s `data` into `acc` (the combination of the lower ranks').
    #[inline]
    fn fold(&self, rank: usize, data: &[u8], acc: &mut [u8], next: &mut Vec<u8>) -> Result<()> {
        if data.len() != acc.len() {
            return Err(coll_shm::length_mismatch(rank, data.len(), acc.len()));
        }
        if rank == 0 {
            coll_shm::copy(acc, data);
        } else if self.op.is_commutative() {
            // acc op data, computed as data op acc: the same for a commutative operation.
            self.combine(data, acc)?;
        } else {
            next.clear();
            next.extend_from_slice(data);
            self.combine(acc, next)?;
            coll_shm::copy(acc, next);
        }
        Ok(())
    }
}

/// The error of a member whose whole contribution has another length than this one's.
fn check_whole(rank: usize, whole: u64, mine: usize) -> Result<()> {
    if whole == mine as u64 {
        Ok(())
    } else {
        Err(coll_shm::length_mismatch(rank, whole as usize, mine))
    }
}

/// A member's buffers as it named them for cross-memory reads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Member {
    send: Source,
    /// Where it combines, and at the end holds the result.
    acc: Source,
}

/// The length of a member's name: process, send buffer, result buffer, reads offered.
const NAME: usize = 21;

/// This member's name for `mine` and `acc` (see [`member`]).
fn name(rt: &Runtime, mine: &[u8], acc: &[u8]) -> [u8; NAME] {
    let mut head = [0u8; NAME];
    head[..4].copy_from_slice(&rt.pid.to_le_bytes());
    head[4..12].copy_from_slice(&(mine.as_ptr() as u64).to_le_bytes());
    head[12..20].copy_from_slice(&(acc.as_ptr() as u64).to_le_bytes());
    head[20] = rt.single_copy.get() as u8;
    head
}

/// A member's buffers as it named them: `None` when it offers no cross-memory reads.
fn member(head: &[u8]) -> Option<Member> {
    let head: &[u8; NAME] = head.try_into().ok()?;
    let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
    let pid = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
    (head[20] == 1).then(|| Member {
        send: Source { pid, addr: word(4) },
        acc: Source {
            pid,
            addr: word(12),
        },
    })
}

/// The bytes of a member's buffer `by` bytes into `src`.
fn shifted(src: Source, by: usize) -> Source {
    Source {
        pid: src.pid,
        addr: src.addr + by as u64,
    }
}

/// Member `i`'s slice of `len` bytes of `elem`-byte elements shared by `n` members: whole
/// elements, the slices together the whole.
fn slice_of(len: usize, elem: usize, n: usize, i: usize) -> Range<usize> {
    let elems = len / elem;
    let edge = |k: usize| if k >= n { len } else { elems * k / n * elem };
    edge(i)..edge(i + 1)
}

/// Tells every member whether this one's reads went well and learns whether all did.
/// A member whose read was refused (or worse) offers no more reads, and then all go
/// through the slots.
fn all_read(rt: &Runtime, comm: &Comm, whole: usize, read: &Result<()>) -> Result<bool> {
    if read.is_err() {
        rt.single_copy.set(false);
    }
    let mut all = true;
    let synced = coll_shm::exchange(rt, comm, whole, &[&[read.is_ok() as u8]], |_, _, data| {
        all &= data == [1];
        Ok(())
    })?;
    Ok(synced && all)
}

/// Reads `buf.len()` bytes of a member's buffer at `from` into `buf`.
fn read(from: Source, buf: &mut [u8]) -> Result<()> {
    // SAFETY: `buf` is borrowed exclusively for the copy.
    unsafe { single_copy::copy(Way::Read, from, buf.as_mut_ptr(), buf.len()) }.map_err(|e| {
        Error::new(
            ErrorClass::Other,
            format!("cross-memory read of a collective: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_names_its_buffers_or_that_it_offers_no_reads() {
        let mut head = [0u8; NAME];
        head[..4].copy_from_slice(&7u32.to_le_bytes());
        head[4..12].copy_from_slice(&0x1234u64.to_le_bytes());
        head[12..20].copy_from_slice(&0x5678u64.to_le_bytes());
        assert_eq!(member(&head), None);
        head[20] = 1;
        assert_eq!(
            member(&head),
            Some(Member {
                send: Source {
                    pid: 7,
                    addr: 0x1234
                },
                acc: Source {
                    pid: 7,
                    addr: 0x5678
                },
            })
        );
        assert_eq!(member(&head[..NAME - 1]), None);
    }

    #[test]
    fn slices_are_whole_elements_that_together_make_the_whole() {
        for (len, elem, n) in [
            (0, 4, 3),
            (4, 4, 3),
            (12, 12, 2),
            (1200, 12, 7),
            (800_024, 8, 4),
        ] {
            let slices: Vec<_> = (0..n).map(|i| slice_of(len, elem, n, i)).collect();
            assert_eq!(slices[0].start, 0);
            assert_eq!(slices[n - 1].end, len);
            for w in slices.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            for s in &slices {
                assert_eq!(s.start % elem, 0, "{len} {elem} {n}");
                assert!(s.len() <= len / n + elem);
            }
        }
    }
}
