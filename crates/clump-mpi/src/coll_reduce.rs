//! Blocking reductions: reduce, allreduce, scan, exscan, reduce-scatter and barrier, on
//! packed data. Each runs as the same schedule as its non-blocking form
//! ([`crate::nbc_reduce`]), to its end; an allreduce among the processes of one host first
//! tries shared memory without messages ([`crate::coll_reduce_shm`]).

use crate::coll::{check_lens, check_root};
use crate::comm::Comm;
use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};
use crate::nbc_reduce::{iallreduce, ireduce, ireduce_scatter, iscan};
use crate::op::Op;
use crate::sched::run;

/// What one reduction combines: `count` packed elements of `dt` with `op`.
pub(crate) struct Reduction<'a> {
    pub dt: &'a Datatype,
    pub count: usize,
    pub op: &'a Op,
}

impl Reduction<'_> {
    /// `higher = lower op higher`.
    pub fn combine(&self, lower: &[u8], higher: &mut [u8]) -> Result<()> {
        self.op.combine(self.dt, self.count, lower, higher)
    }

    /// The packed data of `send`, checked for length.
    pub fn input<'a>(&self, send: &'a [u8]) -> Result<&'a [u8]> {
        self.op.check(self.dt)?;
        let len = self.dt.bytes(self.count)?;
        send.get(..len)
            .ok_or_else(|| Error::new(ErrorClass::Buffer, "reduction send buffer too small"))
    }
}

fn out(recv: &mut [u8], acc: &[u8]) -> Result<()> {
    recv.get_mut(..acc.len())
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "reduction receive buffer too small"))?
        .copy_from_slice(acc);
    Ok(())
}

/// `MPI_Reduce` of `count` packed elements of `dt` onto `root`; `recv` is written at the
/// root only.
pub fn reduce(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: &Op,
    root: i32,
    comm: &Comm,
) -> Result<()> {
    check_root(comm, root)?;
    let mine = Reduction { dt, count, op }.input(send)?.to_vec();
    let acc = run(|done| ireduce(mine, count, dt, op, root, comm, done))?;
    if comm.rank() == root {
        out(recv, &acc)?;
    }
    Ok(())
}

/// `MPI_Allreduce`: on one host without messages, through shared memory (in rank order,
/// for any operation); else the schedule of `MPI_Iallreduce`.
pub fn allreduce(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<()> {
    let red = Reduction { dt, count, op };
    let mine = red.input(send)?;
    if red.through_shm(mine, recv, comm)? {
        return Ok(());
    }
    let mine = mine.to_vec();
    out(
        recv,
        &run(|done| iallreduce(mine, count, dt, op, comm, done))?,
    )
}

/// `MPI_Scan`: rank `i` gets the combination of ranks `0..=i`.
pub fn scan(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<()> {
    let mine = Reduction { dt, count, op }.input(send)?.to_vec();
    out(
        recv,
        &run(|done| iscan(mine, count, dt, op, comm, true, done))?,
    )
}

/// `MPI_Exscan`: rank `i` gets the combination of ranks `0..i`; rank 0's `recv` is left as
/// it was (MPI leaves it undefined).
pub fn exscan(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<()> {
    let mine = Reduction { dt, count, op }.input(send)?.to_vec();
    let acc = run(|done| iscan(mine, count, dt, op, comm, false, done))?;
    if comm.rank() != 0 {
        out(recv, &acc)?;
    }
    Ok(())
}

/// `MPI_Reduce_scatter`: the reduction of every rank's `sum(counts)` packed elements,
/// rank `i` getting `counts[i]` of them (in rank order).
pub fn reduce_scatter(
    send: &[u8],
    counts: &[usize],
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<Vec<u8>> {
    check_lens(counts, comm)?;
    let total = counts.iter().sum();
    let mine = Reduction {
        dt,
        count: total,
        op,
    }
    .input(send)?
    .to_vec();
    run(|done| ireduce_scatter(mine, counts, dt, op, comm, done))
}

/// `MPI_Barrier`: an allreduce of nothing.
pub fn barrier(comm: &Comm) -> Result<()> {
    let byte = Datatype::predefined(Predef::Byte);
    allreduce(&[], &mut [], 0, &byte, &Op::NoOp, comm)
}
