//! Collectives over Active Messages: a dissemination barrier, binomial-tree broadcast and
//! reduction (clump-coll's patterns and operators), and personalised exchange for gather
//! and all-to-all. Every member calls them
//! in the same order; each call's messages carry its group's key and the call's own
//! sequence number. The world's collectives and a [`Group`](crate::Group)'s share one body,
//! written over member indices ([`Round`]).

use crate::error::{Error, Result};
use crate::gas::Gas;
use crate::protocol::H_COLL;
use crate::shared::split;
use bytemuck::Pod;
use clump_coll::kernel::{self, Element, Op};
use clump_coll::pattern::{binomial, dissemination};
use std::cell::Cell;

/// The world's mailbox key; groups use any other.
pub(crate) const WORLD_KEY: u64 = 0;

/// The members of one collective call: member `i` is world rank `ranks[i]` (or `i` for
/// the world), this rank is member `me`.
pub(crate) struct Round<'a> {
    pub ranks: Option<&'a [u32]>,
    pub n: u32,
    pub me: u32,
    pub key: u64,
    pub seq: &'a Cell<u32>,
}

impl Round<'_> {
    fn rank(&self, member: u32) -> u32 {
        self.ranks.map_or(member, |r| r[member as usize])
    }

    fn next_seq(&self) -> u32 {
        self.seq.set(self.seq.get().wrapping_add(1));
        self.seq.get()
    }
}

impl Gas {
    pub(crate) fn world_round(&self) -> Round<'_> {
        Round {
            ranks: None,
            n: self.size(),
            me: self.rank(),
            key: WORLD_KEY,
            seq: &self.coll_seq,
        }
    }

    /// Sends `data` to member `to` as message `seq` of the round, in chunks.
    fn coll_send(&self, r: &Round, to: u32, seq: u32, data: &[u8]) -> Result<()> {
        let total = u32::try_from(data.len())
            .map_err(|_| Error::BadSize(format!("{} bytes in one collective", data.len())))?;
        let dest = r.rank(to);
        let [k_lo, k_hi] = split(r.key);
        let me = self.rank();
        let mut at = 0;
        loop {
            let piece = &data[at..data.len().min(at + clump::MAX_MEDIUM)];
            self.spmd.ep.request_medium(
                dest,
                H_COLL,
                &[k_lo, k_hi, seq, me, total, at as u32],
                piece,
            )?;
            self.count_message(dest, piece.len());
            at += piece.len();
            if at >= data.len() {
                return Ok(());
            }
        }
    }

    fn coll_recv(&self, r: &Round, from: u32, seq: u32) -> Result<Vec<u8>> {
        let key = (r.key, seq, r.rank(from));
        let mut out = None;
        self.wait_until(|| {
            out = self.shared.take_complete(key);
            out.is_some()
        })?;
        Ok(out.unwrap_or_default())
    }

    pub(crate) fn barrier_in(&self, r: &Round) -> Result<()> {
        for (to, from) in dissemination(r.me as usize, r.n as usize) {
            let seq = r.next_seq();
            self.coll_send(r, to as u32, seq, &[])?;
            self.coll_recv(r, from as u32, seq)?;
        }
        Ok(())
    }

    /// Gives every member member `root`'s `bytes` (a binomial tree).
    pub(crate) fn broadcast_in(&self, r: &Round, root: u32, bytes: &mut [u8]) -> Result<()> {
        if root >= r.n {
            return Err(Error::BadRank {
                rank: root,
                size: r.n,
            });
        }
        let seq = r.next_seq();
        let n = r.n as usize;
        // The tree is over members relative to the root.
        let member = |rel: usize| ((rel + root as usize) % n) as u32;
        let tree = binomial((r.me as usize + n - root as usize) % n, n);
        if let Some(p) = tree.parent {
            let got = self.coll_recv(r, member(p), seq)?;
            if got.len() != bytes.len() {
                return Err(Error::BadCollective(format!(
                    "broadcast of {} bytes, root sent {}",
                    bytes.len(),
                    got.len()
                )));
            }
            bytes.copy_from_slice(&got);
        }
        for c in tree.children().rev() {
            self.coll_send(r, member(c), seq, bytes)?;
        }
        Ok(())
    }

    /// Combines every member's `data` element-wise with `combine` (`higher = lower op
    /// higher`, the lower member's data first); all members get the result.
    pub(crate) fn reduce_in(
        &self,
        r: &Round,
        data: &mut [u8],
        combine: impl Fn(&[u8], &mut [u8]),
    ) -> Result<()> {
        let seq = r.next_seq();
        let tree = binomial(r.me as usize, r.n as usize);
        for c in tree.children() {
            let mut got = self.coll_recv(r, c as u32, seq)?;
            if got.len() != data.len() {
                return Err(Error::BadCollective(format!(
                    "reduction of {} bytes, member {c} sent {}",
                    data.len(),
                    got.len()
                )));
            }
            combine(data, &mut got);
            data.copy_from_slice(&got);
        }
        if let Some(p) = tree.parent {
            self.coll_send(r, p as u32, seq, data)?;
        }
        self.broadcast_in(r, 0, data)
    }

    /// Combines every member's `data` with operator `op`; all members get the result. An
    /// operator that does not apply to `T` is refused before any message.
    pub(crate) fn reduce_op_in<T: Element>(&self, r: &Round, data: &mut [T], op: Op) -> Result<()> {
        if !kernel::combine(op, T::ELEM, &[], &mut []) {
            return Err(Error::BadCollective(format!(
                "{op:?} does not apply to {:?}",
                T::ELEM
            )));
        }
        self.reduce_in(r, bytemuck::cast_slice_mut(data), |lower, higher| {
            kernel::combine(op, T::ELEM, lower, higher);
        })
    }

    /// `send[m]` goes to member m; returns what every member sent to this one, by member.
    pub(crate) fn all_to_allv_in<T: Pod>(&self, r: &Round, send: &[Vec<T>]) -> Result<Vec<Vec<T>>> {
        let n = r.n;
        if send.len() != n as usize {
            return Err(Error::BadSize(format!(
                "all_to_allv needs one vector per member ({n}), got {}",
                send.len()
            )));
        }
        let seq = r.next_seq();
        let me = r.me;
        for step in 1..n {
            let to = (me + step) % n;
            self.coll_send(r, to, seq, bytemuck::cast_slice(&send[to as usize]))?;
        }
        let mut out = vec![Vec::new(); n as usize];
        out[me as usize] = send[me as usize].clone();
        for step in 1..n {
            let from = (me + n - step) % n;
            let got = self.coll_recv(r, from, seq)?;
            out[from as usize] = bytes_to_vec(&got, got.len() / size_of::<T>().max(1))?;
        }
        Ok(out)
    }

    /// Waits until every rank has entered the barrier. Takes `&self`: a caller that shares
    /// the `Gas` (OpenSHMEM's threads) holds no exclusive borrow across the wait, during
    /// which other threads' calls run.
    pub fn barrier(&self) -> Result<()> {
        if self.open_barrier.get().is_some() {
            return Err(Error::BadCollective(
                "barrier inside a split-phase barrier".into(),
            ));
        }
        self.barrier_in(&self.world_round())
    }

    /// Announces arrival to every rank and returns at once; `barrier_end` waits for all.
    pub fn barrier_start(&mut self) -> Result<()> {
        if self.open_barrier.get().is_some() {
            return Err(Error::BadCollective(
                "barrier_start twice without barrier_end".into(),
            ));
        }
        let r = self.world_round();
        let seq = r.next_seq();
        for m in (0..r.n).filter(|&m| m != r.me) {
            self.coll_send(&r, m, seq, &[])?;
        }
        self.open_barrier.set(Some(seq));
        Ok(())
    }

    pub fn barrier_end(&mut self) -> Result<()> {
        let seq = self
            .open_barrier
            .take()
            .ok_or_else(|| Error::BadCollective("barrier_end without barrier_start".into()))?;
        let r = self.world_round();
        for m in (0..r.n).filter(|&m| m != r.me) {
            self.coll_recv(&r, m, seq)?;
        }
        Ok(())
    }

    /// Gives every rank `root`'s `data` (a binomial tree).
    pub fn broadcast<T: Pod>(&mut self, root: u32, data: &mut [T]) -> Result<()> {
        self.check_rank(root)?;
        self.broadcast_in(&self.world_round(), root, bytemuck::cast_slice_mut(data))
    }

    /// Combines every rank's `data` element-wise with `op` (an error, before any message,
    /// if `op` does not apply to `T`); all ranks get the result.
    pub fn all_reduce<T: Element>(&mut self, data: &mut [T], op: Op) -> Result<()> {
        self.reduce_op_in(&self.world_round(), data, op)
    }

    /// Every rank's `mine`, in rank order (all must pass the same length).
    pub fn all_gather<T: Pod>(&mut self, mine: &[T]) -> Result<Vec<T>> {
        self.all_gather_in(&self.world_round(), mine)
    }

    pub(crate) fn all_gather_in<T: Pod>(&self, r: &Round, mine: &[T]) -> Result<Vec<T>> {
        let send: Vec<Vec<T>> = (0..r.n).map(|_| mine.to_vec()).collect();
        let got = self.all_to_allv_in(r, &send)?;
        if got.iter().any(|g| g.len() != mine.len()) {
            return Err(Error::BadCollective(
                "all_gather with different lengths".into(),
            ));
        }
        Ok(got.concat())
    }

    /// `send` holds `per_rank` elements for each rank in rank order; returns what each sent me.
    pub fn all_to_all<T: Pod>(&mut self, send: &[T], per_rank: usize) -> Result<Vec<T>> {
        self.all_to_all_in(&self.world_round(), send, per_rank)
    }

    pub(crate) fn all_to_all_in<T: Pod>(
        &self,
        r: &Round,
        send: &[T],
        per_rank: usize,
    ) -> Result<Vec<T>> {
        if per_rank.checked_mul(r.n as usize) != Some(send.len()) {
            return Err(Error::BadSize(format!(
                "all_to_all of {} elements is not {per_rank} per member for {} members",
                send.len(),
                r.n
            )));
        }
        let parts: Vec<Vec<T>> = if per_rank == 0 {
            vec![Vec::new(); r.n as usize]
        } else {
            send.chunks(per_rank).map(<[T]>::to_vec).collect()
        };
        let got = self.all_to_allv_in(r, &parts)?;
        if got.iter().any(|g| g.len() != per_rank) {
            return Err(Error::BadCollective(
                "all_to_all with different counts".into(),
            ));
        }
        Ok(got.concat())
    }

    /// `send[r]` goes to rank r; returns what every rank sent to me, by rank.
    pub fn all_to_allv<T: Pod>(&mut self, send: &[Vec<T>]) -> Result<Vec<Vec<T>>> {
        self.all_to_allv_in(&self.world_round(), send)
    }

    /// Collective: returns once every store by any rank has landed at its destination.
    pub fn all_store_sync(&mut self) -> Result<()> {
        // Counts are cumulative since init, so stores already consumed by store_sync
        // need no special case: everything up to the total has landed, all of it consumed.
        let sent = self.stored_to.borrow().clone();
        let incoming: u64 = self.all_to_all(&sent, 1)?.iter().sum();
        self.wait_for_store(|| Ok(self.stored_here()? >= incoming))?;
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
