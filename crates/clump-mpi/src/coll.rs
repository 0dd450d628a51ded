//! Collectives over point-to-point messages in the communicator's collective context.

use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::engine::ReqKind;
use crate::error::{Error, ErrorClass, Result};
use crate::matching::Pattern;
use crate::op::Op;
use crate::p2p::{wait, Request};
use crate::runtime::{self, SendMode};

const TAG_BARRIER: i32 = 1;
const TAG_BCAST: i32 = 2;
const TAG_REDUCE: i32 = 3;
const TAG_GATHER: i32 = 4;

/// Sends `data` to communicator rank `to` in the collective context and waits.
fn csend(comm: &Comm, to: i32, tag: i32, data: &[u8]) -> Result<()> {
    let rt = runtime::get()?;
    let dest = comm.job_rank(to)?.expect("collective peers are real ranks");
    // SAFETY: `data` stays borrowed until `wait` below completes the send.
    let id = unsafe {
        rt.start_send(
            data.as_ptr(),
            data.len(),
            dest,
            comm.coll_ctx(),
            tag,
            SendMode::Standard,
        )?
    };
    wait(&mut Request::from_id(id)).map(drop)
}

/// Receives exactly `buf.len()` bytes from communicator rank `from` in the collective context.
fn crecv(comm: &Comm, from: i32, tag: i32, buf: &mut [u8]) -> Result<()> {
    let rt = runtime::get()?;
    let src = comm.job_rank(from)?;
    let id = {
        let mut e = rt.engine.borrow_mut();
        let id = e.add_req(ReqKind::Recv {
            buf: buf.as_mut_ptr(),
            cap: buf.len(),
            expected: None,
            received: 0,
            group: comm.group().clone(),
        });
        e.post(
            id,
            Pattern {
                src,
                ctx: comm.coll_ctx(),
                tag: Some(tag),
            },
        );
        id
    };
    // `buf` stays borrowed until the receive completed here.
    let st = wait(&mut Request::from_id(id))?;
    if st.count_bytes != buf.len() {
        return Err(Error::new(
            ErrorClass::Count,
            format!(
                "collective got {} bytes from rank {from}, expected {}: do all ranks pass the same counts?",
                st.count_bytes,
                buf.len()
            ),
        ));
    }
    Ok(())
}

/// `MPI_Barrier`: dissemination, log2(n) rounds.
pub fn barrier(comm: &Comm) -> Result<()> {
    let (n, r) = (comm.size(), comm.rank());
    let mut k = 1;
    while k < n {
        let rt = runtime::get()?;
        let dest = comm.job_rank((r + k) % n)?.expect("real rank");
        // SAFETY: an empty message reads nothing.
        let id = unsafe {
            rt.start_send(
                [].as_ptr(),
                0,
                dest,
                comm.coll_ctx(),
                TAG_BARRIER,
                SendMode::Standard,
            )?
        };
        crecv(comm, (r - k + n) % n, TAG_BARRIER, &mut [])?;
        wait(&mut Request::from_id(id))?;
        k *= 2;
    }
    Ok(())
}

fn check_root(comm: &Comm, root: i32) -> Result<()> {
    if (0..comm.size()).contains(&root) {
        Ok(())
    } else {
        Err(Error::new(
            ErrorClass::Root,
            format!("root {root} is not a rank of the communicator"),
        ))
    }
}

/// `MPI_Bcast` of `count` elements of `dt` in `buf` from `root`: binomial tree.
pub fn bcast(buf: &mut [u8], count: usize, dt: &Datatype, root: i32, comm: &Comm) -> Result<()> {
    check_root(comm, root)?;
    let len = dt.bytes(count)?;
    let buf = buf
        .get_mut(..len)
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "broadcast buffer too small"))?;
    let n = comm.size();
    let v = (comm.rank() - root + n) % n;
    let mut mask = 1;
    while mask < n {
        if v & mask != 0 {
            crecv(comm, (v - mask + root) % n, TAG_BCAST, buf)?;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < n {
            csend(comm, (v + mask + root) % n, TAG_BCAST, buf)?;
        }
        mask >>= 1;
    }
    Ok(())
}

/// `MPI_Reduce` onto `root` (binomial tree); `recv` is written at the root only.
pub fn reduce(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: Op,
    root: i32,
    comm: &Comm,
) -> Result<()> {
    check_root(comm, root)?;
    let len = dt.bytes(count)?;
    let mut acc = send
        .get(..len)
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "reduce send buffer too small"))?
        .to_vec();
    let mut incoming = vec![0u8; len];
    let n = comm.size();
    let v = (comm.rank() - root + n) % n;
    let mut mask = 1;
    while mask < n {
        if v & mask != 0 {
            return csend(comm, (v - mask + root) % n, TAG_REDUCE, &acc);
        }
        if v + mask < n {
            crecv(comm, (v + mask + root) % n, TAG_REDUCE, &mut incoming)?;
            op.apply(dt.element(), &mut acc, &incoming)?;
        }
        mask <<= 1;
    }
    recv.get_mut(..len)
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "reduce receive buffer too small"))?
        .copy_from_slice(&acc);
    Ok(())
}

/// `MPI_Allreduce`: reduce to rank 0, then broadcast.
pub fn allreduce(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: Op,
    comm: &Comm,
) -> Result<()> {
    reduce(send, recv, count, dt, op, 0, comm)?;
    bcast(recv, count, dt, 0, comm)
}

/// Every rank's `mine` (all of one length), in rank order, on every rank: gathered at rank 0
/// and broadcast.
pub(crate) fn allgather_bytes(comm: &Comm, mine: &[u8]) -> Result<Vec<u8>> {
    let (n, k) = (comm.size() as usize, mine.len());
    let mut all = vec![0u8; n * k];
    if comm.rank() == 0 {
        all[..k].copy_from_slice(mine);
        for r in 1..n {
            crecv(comm, r as i32, TAG_GATHER, &mut all[r * k..(r + 1) * k])?;
        }
    } else {
        csend(comm, 0, TAG_GATHER, mine)?;
    }
    let byte = Datatype::predefined(crate::datatype::Predef::Byte);
    bcast(&mut all, n * k, &byte, 0, comm)?;
    Ok(all)
}
