//! Collectives over Active Messages: a dissemination barrier, binomial-tree broadcast and
//! reduction, and personalised exchange for gather and all-to-all. Every rank calls them in
//! the same order; each call's messages carry its own sequence number.

use crate::error::{Error, Result};
use crate::gas::Gas;
use crate::handlers::H_COLL;
use crate::reduce::{ReduceOp, Reducible};
use bytemuck::Pod;

impl Gas {
    fn next_seq(&mut self) -> u32 {
        self.coll_seq = self.coll_seq.wrapping_add(1);
        self.coll_seq
    }

    /// Sends `data` to `dest` as collective message `seq`, in chunks.
    fn coll_send(&self, dest: u32, seq: u32, data: &[u8]) -> Result<()> {
        let total = u32::try_from(data.len())
            .map_err(|_| Error::BadSize(format!("{} bytes in one collective", data.len())))?;
        let me = self.rank();
        let mut at = 0;
        loop {
            let piece = &data[at..data.len().min(at + clump::MAX_MEDIUM)];
            self.spmd
                .ep
                .request_medium(dest, H_COLL, &[seq, me, total, at as u32], piece)?;
            self.count_message(dest, piece.len());
            at += piece.len();
            if at >= data.len() {
                return Ok(());
            }
        }
    }

    fn coll_recv(&self, src: u32, seq: u32) -> Result<Vec<u8>> {
        let mut out = None;
        self.wait_until(|| {
            out = self.shared.take_complete(seq, src);
            out.is_some()
        })?;
        Ok(out.unwrap_or_default())
    }

    /// Waits until every rank has entered the barrier.
    pub fn barrier(&mut self) -> Result<()> {
        if self.open_barrier.is_some() {
            return Err(Error::BadCollective(
                "barrier inside a split-phase barrier".into(),
            ));
        }
        let (me, n) = (self.rank(), self.size());
        let mut step = 1;
        while step < n {
            let seq = self.next_seq();
            self.coll_send((me + step) % n, seq, &[])?;
            self.coll_recv((me + n - step) % n, seq)?;
            step *= 2;
        }
        Ok(())
    }

    /// Announces arrival to every rank and returns at once; `barrier_end` waits for all.
    pub fn barrier_start(&mut self) -> Result<()> {
        if self.open_barrier.is_some() {
            return Err(Error::BadCollective(
                "barrier_start twice without barrier_end".into(),
            ));
        }
        let seq = self.next_seq();
        for r in (0..self.size()).filter(|&r| r != self.rank()) {
            self.coll_send(r, seq, &[])?;
        }
        self.open_barrier = Some(seq);
        Ok(())
    }

    pub fn barrier_end(&mut self) -> Result<()> {
        let seq = self
            .open_barrier
            .take()
            .ok_or_else(|| Error::BadCollective("barrier_end without barrier_start".into()))?;
        for r in (0..self.size()).filter(|&r| r != self.rank()) {
            self.coll_recv(r, seq)?;
        }
        Ok(())
    }

    /// Gives every rank `root`'s `data` (a binomial tree).
    pub fn broadcast<T: Pod>(&mut self, root: u32, data: &mut [T]) -> Result<()> {
        self.check_rank(root)?;
        let seq = self.next_seq();
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(data);
        let (me, n) = (self.rank(), self.size());
        let rel = (me + n - root) % n;
        let mut mask = 1;
        while mask < n {
            if rel & mask != 0 {
                let got = self.coll_recv((rel - mask + root) % n, seq)?;
                if got.len() != bytes.len() {
                    return Err(Error::BadCollective(format!(
                        "broadcast of {} bytes, root sent {}",
                        bytes.len(),
                        got.len()
                    )));
                }
                bytes.copy_from_slice(&got);
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            if rel + mask < n {
                self.coll_send((rel + mask + root) % n, seq, bytes)?;
            }
            mask >>= 1;
        }
        Ok(())
    }

    /// Combines every rank's `data` element-wise; all ranks get the result.
    pub fn all_reduce<T: Reducible>(&mut self, data: &mut [T], op: ReduceOp) -> Result<()> {
        let seq = self.next_seq();
        let (me, n) = (self.rank(), self.size());
        let mut mask = 1;
        while mask < n {
            if me & mask != 0 {
                self.coll_send(me - mask, seq, bytemuck::cast_slice(data))?;
                break;
            }
            if me + mask < n {
                let got = self.coll_recv(me + mask, seq)?;
                let theirs: Vec<T> = bytes_to_vec(&got, data.len())?;
                for (d, t) in data.iter_mut().zip(theirs) {
                    *d = d.combine(t, op);
                }
            }
            mask <<= 1;
        }
        self.broadcast(0, data)
    }

    /// Every rank's `mine`, in rank order (all must pass the same length).
    pub fn all_gather<T: Pod>(&mut self, mine: &[T]) -> Result<Vec<T>> {
        let send: Vec<Vec<T>> = (0..self.size()).map(|_| mine.to_vec()).collect();
        let got = self.all_to_allv(&send)?;
        if got.iter().any(|g| g.len() != mine.len()) {
            return Err(Error::BadCollective(
                "all_gather with different lengths".into(),
            ));
        }
        Ok(got.concat())
    }

    /// `send` holds `per_rank` elements for each rank in rank order; returns what each sent me.
    pub fn all_to_all<T: Pod>(&mut self, send: &[T], per_rank: usize) -> Result<Vec<T>> {
        if per_rank.checked_mul(self.size() as usize) != Some(send.len()) {
            return Err(Error::BadSize(format!(
                "all_to_all of {} elements is not {per_rank} per rank for {} ranks",
                send.len(),
                self.size()
            )));
        }
        let parts: Vec<Vec<T>> = send.chunks(per_rank.max(1)).map(<[T]>::to_vec).collect();
        let parts = if per_rank == 0 {
            vec![Vec::new(); self.size() as usize]
        } else {
            parts
        };
        let got = self.all_to_allv(&parts)?;
        if got.iter().any(|g| g.len() != per_rank) {
            return Err(Error::BadCollective(
                "all_to_all with different counts".into(),
            ));
        }
        Ok(got.concat())
    }

    /// `send[r]` goes to rank r; returns what every rank sent to me, by rank.
    pub fn all_to_allv<T: Pod>(&mut self, send: &[Vec<T>]) -> Result<Vec<Vec<T>>> {
        let n = self.size();
        if send.len() != n as usize {
            return Err(Error::BadSize(format!(
                "all_to_allv needs one vector per rank ({n}), got {}",
                send.len()
            )));
        }
        let seq = self.next_seq();
        let me = self.rank();
        for step in 1..n {
            let to = (me + step) % n;
            self.coll_send(to, seq, bytemuck::cast_slice(&send[to as usize]))?;
        }
        let mut out = vec![Vec::new(); n as usize];
        out[me as usize] = send[me as usize].clone();
        for step in 1..n {
            let from = (me + n - step) % n;
            let got = self.coll_recv(from, seq)?;
            out[from as usize] = bytes_to_vec(&got, got.len() / size_of::<T>().max(1))?;
        }
        Ok(out)
    }

    /// Collective: returns once every store by any rank has landed at its destination.
    pub fn all_store_sync(&mut self) -> Result<()> {
        // Counts are cumulative since init, so stores already consumed by store_sync
        // need no special case: everything up to the total has landed, all of it consumed.
        let sent = self.stored_to.borrow().clone();
        let incoming: u64 = self.all_to_all(&sent, 1)?.iter().sum();
        self.wait_until(|| self.stored_here().is_ok_and(|landed| landed >= incoming))?;
        self.consumed_stores.set(incoming);
        self.barrier()
    }
}

/// `count` elements from bytes a peer sent (an error if the size is wrong).
fn bytes_to_vec<T: Pod>(bytes: &[u8], count: usize) -> Result<Vec<T>> {
    if bytes.len() != count * size_of::<T>() {
        return Err(Error::BadCollective(format!(
            "expected {count} elements, got {} bytes",
            bytes.len()
        )));
    }
    let mut v = vec![T::zeroed(); count];
    bytemuck::cast_slice_mut(&mut v).copy_from_slice(bytes);
    Ok(v)
}
