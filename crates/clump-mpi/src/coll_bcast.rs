//! `MPI_Bcast`: a binomial tree (clump-coll's pattern) to every host's leader, then within
//! each host.

use crate::coll::{check_root, crecv, csend, index_in, tiers, TAG_BCAST};
use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};
use clump_coll::pattern::binomial;

/// Broadcast of `buf` from `list[0]` to the ranks of `list` (a binomial tree).
pub(crate) fn tree_bcast(comm: &Comm, list: &[usize], buf: &mut [u8]) -> Result<()> {
    let Some(v) = index_in(list, comm.rank()) else {
        return Ok(());
    };
    let tree = binomial(v, list.len());
    if let Some(p) = tree.parent {
        crecv(comm, list[p] as i32, TAG_BCAST, buf)?;
    }
    for c in tree.children().rev() {
        csend(comm, list[c] as i32, TAG_BCAST, buf)?;
    }
    Ok(())
}

/// `MPI_Bcast` of `count` packed elements of `dt` in `buf` from `root`: to every host's
/// leader, then within each host.
pub fn bcast(buf: &mut [u8], count: usize, dt: &Datatype, root: i32, comm: &Comm) -> Result<()> {
    check_root(comm, root)?;
    let len = dt.bytes(count)?;
    let buf = buf
        .get_mut(..len)
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "broadcast buffer too small"))?;
    let tiers = tiers(comm, root)?;
    tree_bcast(comm, &tiers.leaders, buf)?;
    tree_bcast(comm, &tiers.local, buf)
}
