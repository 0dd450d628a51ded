//! `MPI_Comm_idup`: a duplicate that needs no agreement, so that it never waits for the
//! other members (two processes may each dup a communicator the other is still busy
//! with). Its context is derived from the parent's and from how many idups the parent has
//! had, which every member counts alike (MPI orders a communicator's collectives the same
//! on all of them): contexts from [`IDUP_BASE`] on are these, the agreed ones stay below.

use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::p2p::Request;
use crate::runtime;
use crate::sched::Schedule;

/// The first context of the idup range; agreed contexts stay below it.
pub(crate) const IDUP_BASE: u32 = 1 << 30;
/// Parents with an agreed context below this may be idup'ed ...
const PARENTS: u32 = 1 << 14;
/// ... this many times each, two contexts per duplicate (an intercommunicator's pair).
const PER_PARENT: u32 = 1 << 14;
/// Duplicates of the first duplicates (those of the world, mostly) take contexts from here.
const NESTED: u32 = IDUP_BASE + (1 << 29);

/// The context of the `k`th idup of a parent with context `parent`: derived from an
/// agreed context, or from one of the first derived ones; `None` past those.
fn derived(parent: u32, k: u32) -> Option<u32> {
    if k >= PER_PARENT {
        return None;
    }
    if parent < PARENTS {
        return Some(IDUP_BASE + 2 * (parent * PER_PARENT + k));
    }
    let i = parent.checked_sub(IDUP_BASE)? / 2;
    (i < PER_PARENT - 1).then(|| NESTED + 2 * (i * PER_PARENT + k))
}

impl Comm {
    /// `MPI_Comm_idup`: the same members in a new context, handed to `done` when the
    /// request completes (at once: nothing needs to be agreed). A parent past the derived
    /// contexts is refused: agreeing would wait for the other members, and overlapping
    /// idups in another order on each would then deadlock.
    pub fn idup(&self, done: Box<dyn FnOnce(Comm) -> Result<()>>) -> Result<Request> {
        let rt = runtime::get()?;
        let parent = self.ctx() as u32;
        let k = {
            let mut idups = rt.idups.borrow_mut();
            let k = idups.entry(parent).or_insert(0);
            *k += 1;
            *k - 1
        };
        let ctx = derived(parent, k).ok_or_else(|| {
            Error::new(
                ErrorClass::Comm,
                format!("MPI_Comm_idup of this communicator (context {parent}, duplicate {k}) is beyond the contexts clump derives; MPI_Comm_dup serves it"),
            )
        })?;
        let dup = self.in_ctx(ctx);
        let mut s = Schedule::new(self)?;
        s.then(move |_| done(dup));
        s.start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_contexts_are_pairs_apart_above_the_agreed_ones_and_bounded() {
        assert_eq!(derived(0, 0), Some(IDUP_BASE));
        assert_eq!(derived(0, 1), Some(IDUP_BASE + 2));
        assert_eq!(derived(1, 0), Some(IDUP_BASE + 2 * PER_PARENT));
        let last = derived(PARENTS - 1, PER_PARENT - 1).unwrap();
        assert!(
            last + 1 < NESTED,
            "the first level stays below the nested one"
        );
        assert_eq!(derived(PARENTS, 0), None);
        assert_eq!(derived(0, PER_PARENT), None);
        // Duplicates of the world's first duplicates, and no further.
        assert_eq!(derived(IDUP_BASE, 0), Some(NESTED));
        assert_eq!(derived(IDUP_BASE + 2, 1), Some(NESTED + 2 * PER_PARENT + 2));
        let last = derived(IDUP_BASE + 2 * (PER_PARENT - 2), PER_PARENT - 1).unwrap();
        assert!(
            last + 1 < u32::MAX / 2 - 1,
            "its collective context fits a u32"
        );
        assert_eq!(derived(IDUP_BASE + 2 * (PER_PARENT - 1), 0), None);
        assert_eq!(derived(NESTED, 0), None);
    }
}
