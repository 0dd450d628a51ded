//! Groups: ordered sets of job ranks, and the set operations MPI defines on them.

use std::collections::HashSet;
use std::rc::Rc;

use crate::error::{Error, ErrorClass, Result};

/// `MPI_UNDEFINED`: a rank outside a group, or a color that joins no communicator.
pub const UNDEFINED: i32 = -32766;

/// Result of `MPI_Group_compare` and `MPI_Comm_compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The same group (or, for communicators, the same communicator).
    Ident,
    /// Communicators with the same members in the same order but different contexts.
    Congruent,
    /// The same members in another order.
    Similar,
    Unequal,
}

/// An MPI group: the job ranks of its members in group-rank order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    members: Rc<Vec<u32>>,
    /// This process's job rank, to answer `rank`.
    me: u32,
}

impl Group {
    pub(crate) fn new(members: Rc<Vec<u32>>, me: u32) -> Group {
        Group { members, me }
    }

    pub(crate) fn members(&self) -> &Rc<Vec<u32>> {
        &self.members
    }

    fn with(&self, members: Vec<u32>) -> Group {
        Group::new(Rc::new(members), self.me)
    }

    /// `MPI_GROUP_EMPTY`.
    pub fn empty() -> Group {
        Group::new(Rc::new(Vec::new()), u32::MAX)
    }

    pub fn size(&self) -> i32 {
        self.members.len() as i32
    }

    /// This process's rank in the group, or [`UNDEFINED`].
    pub fn rank(&self) -> i32 {
        self.position(self.me).unwrap_or(UNDEFINED)
    }

    fn position(&self, job: u32) -> Option<i32> {
        self.members
            .iter()
            .position(|&m| m == job)
            .map(|i| i as i32)
    }

    fn member(&self, r: i32) -> Result<u32> {
        usize::try_from(r)
            .ok()
            .and_then(|i| self.members.get(i).copied())
            .ok_or_else(|| {
                Error::new(
                    ErrorClass::Rank,
                    format!("rank {r} is not in a group of {}", self.members.len()),
                )
            })
    }

    /// Checks `ranks` are valid and distinct ranks of this group.
    fn distinct(&self, ranks: &[i32]) -> Result<Vec<u32>> {
        let mut seen = HashSet::new();
        ranks
            .iter()
            .map(|&r| {
                let m = self.member(r)?;
                if !seen.insert(r) {
                    return Err(Error::new(
                        ErrorClass::Rank,
                        format!("rank {r} is named twice"),
                    ));
                }
                Ok(m)
            })
            .collect()
    }

    /// `MPI_Group_incl`: the members at `ranks`, in that order.
    pub fn incl(&self, ranks: &[i32]) -> Result<Group> {
        Ok(self.with(self.distinct(ranks)?))
    }

    /// `MPI_Group_excl`: the members not at `ranks`, in group order.
    pub fn excl(&self, ranks: &[i32]) -> Result<Group> {
        let gone: HashSet<u32> = self.distinct(ranks)?.into_iter().collect();
        Ok(self.with(
            self.members
                .iter()
                .copied()
                .filter(|m| !gone.contains(m))
                .collect(),
        ))
    }

    /// The ranks `(first, last, stride)` triplets name, in order.
    fn expand(&self, ranges: &[(i32, i32, i32)]) -> Result<Vec<i32>> {
        let mut out = Vec::new();
        for &(first, last, stride) in ranges {
            let bad = stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last);
            if bad {
                return Err(Error::new(
                    ErrorClass::Arg,
                    format!("range ({first}, {last}, {stride}) names no ranks"),
                ));
            }
            let mut r = first;
            while (stride > 0 && r <= last) || (stride < 0 && r >= last) {
                self.member(r)?;
                out.push(r);
                r = r
                    .checked_add(stride)
                    .ok_or_else(|| Error::new(ErrorClass::Arg, "range stride overflows a rank"))?;
            }
        }
        Ok(out)
    }

    /// `MPI_Group_range_incl`.
    pub fn range_incl(&self, ranges: &[(i32, i32, i32)]) -> Result<Group> {
        self.incl(&self.expand(ranges)?)
    }

    /// `MPI_Group_range_excl`.
    pub fn range_excl(&self, ranges: &[(i32, i32, i32)]) -> Result<Group> {
        self.excl(&self.expand(ranges)?)
    }

    /// `MPI_Group_translate_ranks`: the rank in `other` of each of `ranks` of this group,
    /// [`UNDEFINED`] where it is not a member (and for `MPI_PROC_NULL`, itself).
    pub fn translate_ranks(&self, ranks: &[i32], other: &Group) -> Result<Vec<i32>> {
        ranks
            .iter()
            .map(|&r| {
                if r == crate::matching::PROC_NULL {
                    return Ok(r);
                }
                Ok(other.position(self.member(r)?).unwrap_or(UNDEFINED))
            })
            .collect()
    }

    /// `MPI_Group_union`: this group's members, then those of `other` not in it.
    pub fn union(&self, other: &Group) -> Group {
        let mut out = self.members.to_vec();
        out.extend(other.members.iter().filter(|m| !self.members.contains(m)));
        self.with(out)
    }

    /// `MPI_Group_intersection`: members of both, in this group's order.
    pub fn intersection(&self, other: &Group) -> Group {
        self.filtered(|m| other.members.contains(m))
    }

    /// `MPI_Group_difference`: members of this group not in `other`, in this group's order.
    pub fn difference(&self, other: &Group) -> Group {
        self.filtered(|m| !other.members.contains(m))
    }

    fn filtered(&self, keep: impl Fn(&u32) -> bool) -> Group {
        self.with(self.members.iter().copied().filter(|m| keep(m)).collect())
    }

    /// `MPI_Group_compare`.
    pub fn compare(&self, other: &Group) -> Comparison {
        if self.members == other.members {
            Comparison::Ident
        } else if self.members.len() == other.members.len()
            && self.members.iter().all(|m| other.members.contains(m))
        {
            Comparison::Similar
        } else {
            Comparison::Unequal
        }
    }

    /// `MPI_Group_free`.
    pub fn free(self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(m: &[u32], me: u32) -> Group {
        Group::new(Rc::new(m.to_vec()), me)
    }

    #[test]
    fn incl_excl_and_ranges() {
        let w = g(&[0, 1, 2, 3, 4, 5], 4);
        let a = w.incl(&[4, 1]).unwrap();
        assert_eq!(*a.members, vec![4, 1]);
        assert_eq!(a.rank(), 0);
        assert_eq!(*w.excl(&[0, 4]).unwrap().members, vec![1, 2, 3, 5]);
        assert_eq!(w.excl(&[0, 4]).unwrap().rank(), UNDEFINED);
        assert_eq!(*w.range_incl(&[(5, 1, -2)]).unwrap().members, vec![5, 3, 1]);
        assert_eq!(*w.range_excl(&[(0, 5, 2)]).unwrap().members, vec![1, 3, 5]);
        assert_eq!(w.incl(&[1, 1]).unwrap_err().class, ErrorClass::Rank);
        assert_eq!(w.incl(&[6]).unwrap_err().class, ErrorClass::Rank);
        assert_eq!(
            w.range_incl(&[(0, 3, 0)]).unwrap_err().class,
            ErrorClass::Arg
        );
        assert_eq!(
            w.range_incl(&[(3, 0, 1)]).unwrap_err().class,
            ErrorClass::Arg
        );
    }

    #[test]
    fn set_operations_keep_order() {
        let a = g(&[3, 1, 2], 1);
        let b = g(&[2, 5, 3], 1);
        assert_eq!(*a.union(&b).members, vec![3, 1, 2, 5]);
        assert_eq!(*a.intersection(&b).members, vec![3, 2]);
        assert_eq!(*a.difference(&b).members, vec![1]);
        assert_eq!(a.difference(&a).size(), 0);
        assert_eq!(
            a.translate_ranks(&[0, 1, 2, crate::matching::PROC_NULL], &b)
                .unwrap(),
            vec![2, UNDEFINED, 0, crate::matching::PROC_NULL]
        );
        assert!(a.translate_ranks(&[3], &b).is_err());
    }

    #[test]
    fn compare() {
        let a = g(&[0, 1, 2], 0);
        assert_eq!(a.compare(&g(&[0, 1, 2], 2)), Comparison::Ident);
        assert_eq!(a.compare(&g(&[2, 0, 1], 0)), Comparison::Similar);
        assert_eq!(a.compare(&g(&[0, 1], 0)), Comparison::Unequal);
        assert_eq!(a.compare(&g(&[0, 1, 3], 0)), Comparison::Unequal);
        assert_eq!(Group::empty().rank(), UNDEFINED);
    }
}
