//! `MPI_Comm_idup`: a duplicate that needs no agreement, so that it never waits for the
//! other members (two processes may each dup a communicator the other is still busy
//! with). Its context is derived from the parent's and from how many idups the parent has
//! had, which every member counts alike (MPI orders a communicator's collectives the same
//! on all of them): contexts from [`IDUP_BASE`] on are these, the agreed ones stay below.

use crate::comm::Comm;
use crate::error::Result;
use crate::p2p::Request;
use crate::runtime;
use crate::sched::Schedule;

/// The first context of the idup range; agreed contexts stay below it.
pub(crate) const IDUP_BASE: u32 = 1 << 30;
/// Parents with an agreed context below this may be idup'ed ...
const PARENTS: u32 = (1 << 15) - 1;
/// ... this many times each, two contexts per duplicate (an intercommunicator's pair).
const PER_PARENT: u32 = 1 << 14;

/// The context of the `k`th idup of a parent with context `parent`.
fn derived(parent: u32, k: u32) -> Option<u32> {
    (parent < PARENTS && k < PER_PARENT).then(|| IDUP_BASE + 2 * (parent * PER_PARENT + k))
}

impl Comm {
    /// `MPI_Comm_idup`: the same members in a new context, handed to `done` when the
    /// request completes (at once: nothing needs to be agreed, but for a parent beyond the
    /// derived range, such as a duplicate of a duplicate, whose members agree as a
    /// blocking dup does).
    pub fn idup(&self, done: Box<dyn FnOnce(Comm) -> Result<()>>) -> Result<Request> {
        let rt = runtime::get()?;
        let parent = self.ctx() as u32;
        let k = {
            let mut idups = rt.idups.borrow_mut();
            let k = idups.entry(parent).or_insert(0);
            *k += 1;
            *k - 1
        };
        // Past the derived range (a duplicate of a duplicate, mostly) the members agree on
        // a context as MPI_Comm_dup does, which waits for them.
        let dup = match derived(parent, k) {
            Some(ctx) => self.in_ctx(ctx),
            None => self.dup()?,
        };
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
        assert!(last < u32::MAX / 2 - 1, "its collective context fits a u32");
        assert_eq!(derived(PARENTS, 0), None);
        assert_eq!(derived(0, PER_PARENT), None);
        assert_eq!(derived(IDUP_BASE, 0), None);
    }
}
