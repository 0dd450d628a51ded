//! `MPI_Bcast`: the schedule of `MPI_Ibcast` run to its end (a binomial tree to every
//! host's leader, then within each host).

use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};
use crate::nbc::ibcast;
use crate::sched::run;

/// `MPI_Bcast` of `count` packed elements of `dt` in `buf` from `root`.
pub fn bcast(buf: &mut [u8], count: usize, dt: &Datatype, root: i32, comm: &Comm) -> Result<()> {
    let len = dt.bytes(count)?;
    let buf = buf
        .get_mut(..len)
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "broadcast buffer too small"))?;
    let got = run(|done| ibcast(buf.to_vec(), root, comm, done))?;
    buf.copy_from_slice(&got);
    Ok(())
}
