//! Partitioned communication (MPI 4.0, `MPI_Psend_init` / `MPI_Precv_init`): each start
//! moves the whole buffer as one message, sent once its last partition is ready (the C
//! interface counts the partitions). The message travels in a channel of its own so that
//! no other receive can take it: the communicator's collective context, under the bitwise
//! complement of the program's tag. Collectives tag with non-negative numbers and
//! point-to-point receives never look in that context; a matched message with a negative
//! tag is therefore partitioned, and its status shows the program's tag again
//! (`Status::shown`).

use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};
use crate::matching::{ANY_SOURCE, ANY_TAG};
use crate::p2p::{check_tag, post_recv, recv_pattern, start_in, Request};
use crate::runtime::SendMode;

/// Checks the peer and tag of a partitioned send or receive: a rank of `comm` or
/// `MPI_PROC_NULL`, and a tag, no wildcards (a partitioned pair is matched once, by both).
pub fn check_partitioned(peer: i32, tag: i32, comm: &Comm) -> Result<()> {
    if peer == ANY_SOURCE || tag == ANY_TAG {
        return Err(Error::new(
            ErrorClass::Arg,
            "a partitioned request takes no MPI_ANY_SOURCE or MPI_ANY_TAG",
        ));
    }
    check_tag(tag, false)?;
    comm.job_rank(peer).map(drop)
}

/// Starts the message of a partitioned send: `count` elements of `dt` at `buf`.
///
/// # Safety
/// `buf` must be valid for reads of the type map of `count` elements of `dt` and not be
/// written until the request completes.
pub unsafe fn psend(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Request> {
    check_partitioned(dest, tag, comm)?;
    let channel = (comm.coll_ctx(), !tag);
    // SAFETY: this function's contract.
    let (r, _) = unsafe { start_in(buf, count, dt, dest, channel, comm, SendMode::Standard)? };
    Ok(r)
}

/// Posts the receive of a partitioned receive: `count` elements of `dt` into `buf`, from
/// `source` with `tag`.
///
/// # Safety
/// `buf` must be valid for writes of the type map of `count` elements of `dt`, and
/// neither read nor written by the program until the request completes.
pub unsafe fn precv(
    buf: *mut u8,
    count: usize,
    dt: &Datatype,
    source: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Request> {
    check_partitioned(source, tag, comm)?;
    let Some((cap, mut pat)) = recv_pattern(buf, count, dt, source, tag, comm)? else {
        return Ok(Request::completed());
    };
    pat.ctx = comm.coll_ctx();
    pat.tag = Some(!tag);
    // SAFETY: this function's contract.
    unsafe { post_recv(buf, count, dt, (cap, pat), (source, comm)) }
}
