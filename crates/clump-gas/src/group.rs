//! Groups: collectives over a subset of the ranks (OpenSHMEM's teams and active sets).
//! Only the members call a group's collectives, in the same order; the group's key keeps
//! its messages apart from the world's and from every other group's.

use crate::collective::{Round, WORLD_KEY};
use crate::error::{Error, Result};
use crate::gas::Gas;
use bytemuck::Pod;
use clump_coll::kernel::{Element, Op};
use std::cell::Cell;

/// An ordered set of ranks that includes this one. Members agree on the key; two groups
/// alive at once must have different keys.
#[derive(Debug)]
pub struct Group {
    ranks: Vec<u32>,
    me: u32,
    key: u64,
    seq: Cell<u32>,
}

impl Group {
    /// The number of members.
    pub fn size(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// This rank's index among the members.
    pub fn index(&self) -> u32 {
        self.me
    }

    /// The world rank of each member, by index.
    pub fn ranks(&self) -> &[u32] {
        &self.ranks
    }

    pub fn key(&self) -> u64 {
        self.key
    }

    fn round(&self) -> Round<'_> {
        Round {
            ranks: Some(&self.ranks),
            n: self.size(),
            me: self.me,
            key: self.key,
            seq: &self.seq,
        }
    }
}

impl Gas {
    /// A group of `ranks` (distinct, in range, this rank among them) under `key` (not 0,
    /// which the world's collectives use).
    pub fn group(&self, ranks: Vec<u32>, key: u64) -> Result<Group> {
        if key == WORLD_KEY {
            return Err(Error::BadCollective("group key 0 is the world's".into()));
        }
        for (i, &r) in ranks.iter().enumerate() {
            self.check_rank(r)?;
            if ranks[..i].contains(&r) {
                return Err(Error::BadCollective(format!("rank {r} twice in a group")));
            }
        }
        let me = ranks
            .iter()
            .position(|&r| r == self.rank())
            .ok_or_else(|| {
                Error::BadCollective(format!("rank {} is not in the group", self.rank()))
            })?;
        Ok(Group {
            ranks,
            me: me as u32,
            key,
            seq: Cell::new(0),
        })
    }

    pub fn group_barrier(&self, g: &Group) -> Result<()> {
        self.barrier_in(&g.round())
    }

    /// Gives every member member `root`'s `data`.
    pub fn group_broadcast<T: Pod>(&self, g: &Group, root: u32, data: &mut [T]) -> Result<()> {
        self.broadcast_in(&g.round(), root, bytemuck::cast_slice_mut(data))
    }

    /// Combines every member's `data` element-wise with `op`; all members get it.
    pub fn group_reduce<T: Element>(&self, g: &Group, data: &mut [T], op: Op) -> Result<()> {
        self.reduce_op_in(&g.round(), data, op)
    }

    /// The same with a combining function of the caller's, for element types clump-coll's
    /// operators do not know (C's `long double`): `combine(lower, higher)` element by
    /// element, the lower member's value first.
    pub fn group_reduce_with<T: Pod>(
        &self,
        g: &Group,
        data: &mut [T],
        combine: impl Fn(T, T) -> T,
    ) -> Result<()> {
        let size = size_of::<T>().max(1);
        self.reduce_in(
            &g.round(),
            bytemuck::cast_slice_mut(data),
            |lower, higher| {
                for (a, b) in lower.chunks_exact(size).zip(higher.chunks_exact_mut(size)) {
                    let r = combine(
                        bytemuck::pod_read_unaligned(a),
                        bytemuck::pod_read_unaligned(b),
                    );
                    b.copy_from_slice(bytemuck::bytes_of(&r));
                }
            },
        )
    }

    /// Every member's `mine`, in member order (all must pass the same length).
    pub fn group_all_gather<T: Pod>(&self, g: &Group, mine: &[T]) -> Result<Vec<T>> {
        self.all_gather_in(&g.round(), mine)
    }

    /// `send[m]` goes to member m; returns what every member sent to this one.
    pub fn group_all_to_allv<T: Pod>(&self, g: &Group, send: &[Vec<T>]) -> Result<Vec<Vec<T>>> {
        self.all_to_allv_in(&g.round(), send)
    }

    /// `send` holds `per_member` elements for each member in order; returns what each sent.
    pub fn group_all_to_all<T: Pod>(
        &self,
        g: &Group,
        send: &[T],
        per_member: usize,
    ) -> Result<Vec<T>> {
        self.all_to_all_in(&g.round(), send, per_member)
    }
}
