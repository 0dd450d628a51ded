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

    /// By cross-memory reads of the members' buffers, named through the slots; a second
    /// step keeps every buffer in place until all have read it. False (on every member)
    /// when some member cannot read or be read: the caller then goes through the slots.
    fn by_reads(&self, rt: &Runtime, mine: &[u8], acc: &mut [u8], comm: &Comm) -> Result<bool> {
        let whole = mine.len();
        let mut head = [0u8; 13];
        head[..4].copy_from_slice(&rt.pid.to_le_bytes());
        head[4..12].copy_from_slice(&(mine.as_ptr() as u64).to_le_bytes());
        head[12] = rt.single_copy.get() as u8;
        let mut sources = Vec::with_capacity(comm.size() as usize);
        let named = coll_shm::exchange(rt, comm, whole, &[&head], |rank, w, data| {
            check_whole(rank, w, whole)?;
            sources.push(source(data));
            Ok(())
        })?;
        if !named || sources.iter().any(Option::is_none) {
            return Ok(false);
        }
        let sources: Vec<Source> = sources.into_iter().flatten().collect();
        let read = self.fold_reads(mine, acc, &sources, comm.rank() as usize);
        if read.is_err() {
            // Refused (or worse): this rank offers no more reads, and all go through slots.
            rt.single_copy.set(false);
        }
        let mut all_read = true;
        let synced =
            coll_shm::exchange(rt, comm, whole, &[&[read.is_ok() as u8]], |_, _, data| {
                all_read &= data == [1];
                Ok(())
            })?;
        Ok(synced && all_read)
    }

    /// Combines every member's data into `acc` piece by piece, in rank order, reading the
    /// others' from `sources` (the lowest rank's straight into `acc`).
    fn fold_reads(&self, mine: &[u8], acc: &mut [u8], sources: &[Source], me: usize) -> Result<()> {
        let elem = self.dt.bytes(1)?.max(1);
        let piece = (PIECE / elem).max(1) * elem;
        let mut scratch = vec![0u8; piece.min(mine.len())];
        let mut next = Vec::new();
        for at in (0..mine.len()).step_by(piece) {
            let end = (at + piece).min(mine.len());
            let part = self.part(end - at, elem);
            for (rank, src) in sources.iter().enumerate() {
                let from = Source {
                    pid: src.pid,
                    addr: src.addr + at as u64,
                };
                let data: &[u8] = if rank == me {
                    &mine[at..end]
                } else if rank == 0 {
                    read(from, &mut acc[at..end])?;
                    continue;
                } else {
                    read(from, &mut scratch[..end - at])?;
                    &scratch[..end - at]
                };
                part.fold(rank, data, &mut acc[at..end], &mut next)?;
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

/// A member's buffer as it named it: `None` when it offers no cross-memory reads.
fn source(head: &[u8]) -> Option<Source> {
    let head: &[u8; 13] = head.try_into().ok()?;
    (head[12] == 1).then(|| Source {
        pid: u32::from_le_bytes(head[..4].try_into().expect("4 bytes")),
        addr: u64::from_le_bytes(head[4..12].try_into().expect("8 bytes")),
    })
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
    fn a_member_names_its_buffer_or_that_it_offers_no_reads() {
        let mut head = [0u8; 13];
        head[..4].copy_from_slice(&7u32.to_le_bytes());
        head[4..12].copy_from_slice(&0x1234u64.to_le_bytes());
        assert_eq!(source(&head), None);
        head[12] = 1;
        assert_eq!(
            source(&head),
            Some(Source {
                pid: 7,
                addr: 0x1234
            })
        );
        assert_eq!(source(&head[..12]), None);
    }
}
