//! Reductions: reduce, allreduce, scan, exscan and reduce-scatter, on packed data.
//! Commutative operations combine within each host first (binomial trees), then across
//! hosts' leaders; a non-commutative one combines in rank order, as MPI requires.

use crate::coll::{
    check_lens, check_root, cirecv, cisend, crecv, csend, cwait, index_in, one_host, tiers,
    TAG_BCAST, TAG_DOUBLING, TAG_REDUCE, TAG_SCAN,
};
use crate::coll_bcast::tree_bcast;
use crate::coll_gather::scatter;
use crate::comm::Comm;
use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};
use crate::op::{Op, Operator};
use crate::p2p::wait;
use clump_coll::pattern::{binomial, doubling as doubling_pattern, prefix_partners, Doubling};

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

    /// A copy of the packed data of `send` to combine into.
    fn start(&self, send: &[u8]) -> Result<Vec<u8>> {
        self.input(send).map(<[u8]>::to_vec)
    }
}

fn out(recv: &mut [u8], acc: &[u8]) -> Result<()> {
    recv.get_mut(..acc.len())
        .ok_or_else(|| Error::new(ErrorClass::Buffer, "reduction receive buffer too small"))?
        .copy_from_slice(acc);
    Ok(())
}

/// Sends `mine` to `peer` and receives as many bytes from it.
fn exchange(comm: &Comm, peer: i32, tag: i32, mine: &[u8], theirs: &mut [u8]) -> Result<()> {
    let want = theirs.len();
    // SAFETY: both buffers stay borrowed until both requests are waited for below.
    let mut r = unsafe { cirecv(comm, peer, tag, theirs)? };
    // SAFETY: as above.
    let mut s = unsafe { cisend(comm, peer, tag, mine)? };
    wait(&mut s)?;
    cwait(&mut r, peer, want)
}

/// Combines the data of the ranks of `list` towards `list[0]` (a binomial tree); with
/// `list` in rank order, each step combines a lower block with the next higher one.
fn tree_reduce(comm: &Comm, list: &[usize], mut acc: Vec<u8>, red: &Reduction) -> Result<Vec<u8>> {
    let Some(v) = index_in(list, comm.rank()) else {
        return Ok(acc);
    };
    let tree = binomial(v, list.len());
    let mut incoming = vec![0u8; acc.len()];
    for c in tree.children() {
        crecv(comm, list[c] as i32, TAG_REDUCE, &mut incoming)?;
        red.combine(&acc, &mut incoming)?;
        std::mem::swap(&mut acc, &mut incoming);
    }
    if let Some(p) = tree.parent {
        csend(comm, list[p] as i32, TAG_REDUCE, &acc)?;
    }
    Ok(acc)
}

/// Every rank of `list` gets the combination of all their data (recursive doubling; the
/// ranks past the largest power of two hand theirs to a partner first). Commutative only.
fn doubling(comm: &Comm, list: &[usize], mut acc: Vec<u8>, red: &Reduction) -> Result<Vec<u8>> {
    let Some(v) = index_in(list, comm.rank()) else {
        return Ok(acc);
    };
    let (extra, partners) = match doubling_pattern(v, list.len()) {
        Doubling::Extra { partner } => {
            let partner = list[partner] as i32;
            csend(comm, partner, TAG_REDUCE, &acc)?;
            crecv(comm, partner, TAG_BCAST, &mut acc)?;
            return Ok(acc);
        }
        Doubling::Core { extra, partners } => (extra.map(|e| list[e] as i32), partners),
    };
    let mut theirs = vec![0u8; acc.len()];
    if let Some(e) = extra {
        crecv(comm, e, TAG_REDUCE, &mut theirs)?;
        red.combine(&acc, &mut theirs)?;
        std::mem::swap(&mut acc, &mut theirs);
    }
    for partner in partners {
        exchange(comm, list[partner] as i32, TAG_DOUBLING, &acc, &mut theirs)?;
        if partner < v {
            red.combine(&theirs, &mut acc)?;
        } else {
            red.combine(&acc, &mut theirs)?;
            std::mem::swap(&mut acc, &mut theirs);
        }
    }
    if let Some(e) = extra {
        csend(comm, e, TAG_BCAST, &acc)?;
    }
    Ok(acc)
}

/// The whole reduction at `root`: within hosts then across them, or in rank order to
/// rank 0 (then on to the root) for a non-commutative operation.
fn reduce_to(comm: &Comm, root: i32, acc: Vec<u8>, red: &Reduction) -> Result<Vec<u8>> {
    if red.op.is_commutative() {
        let tiers = tiers(comm, root)?;
        let acc = tree_reduce(comm, &tiers.local, acc, red)?;
        return tree_reduce(comm, &tiers.leaders, acc, red);
    }
    let all: Vec<usize> = (0..comm.size() as usize).collect();
    let mut acc = tree_reduce(comm, &all, acc, red)?;
    if root != 0 {
        match comm.rank() {
            0 => csend(comm, root, TAG_REDUCE, &acc)?,
            r if r == root => crecv(comm, 0, TAG_REDUCE, &mut acc)?,
            _ => {}
        }
    }
    Ok(acc)
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
    let red = Reduction { dt, count, op };
    let acc = reduce_to(comm, root, red.start(send)?, &red)?;
    if comm.rank() == root {
        out(recv, &acc)?;
    }
    Ok(())
}

/// `MPI_Allreduce`: on one host without messages, through shared memory (in rank order,
/// for any operation); else recursive doubling on one host (or one rank per host); else within
/// hosts, doubling across their leaders, and back within hosts. A non-commutative
/// operation reduces in rank order and broadcasts.
pub fn allreduce(
    send: &[u8],
    recv: &mut [u8],
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<()> {
    let red = Reduction { dt, count, op };
    if red.through_shm(red.input(send)?, recv, comm)? {
        return Ok(());
    }
    let acc = red.start(send)?;
    if op.is_commutative() && one_host(comm)? {
        let all: Vec<usize> = (0..comm.size() as usize).collect();
        return out(recv, &doubling(comm, &all, acc, &red)?);
    }
    let tiers = tiers(comm, 0)?;
    let acc = if !op.is_commutative() {
        let mut acc = reduce_to(comm, 0, acc, &red)?;
        tree_bcast(comm, &tiers.leaders, &mut acc)?;
        tree_bcast(comm, &tiers.local, &mut acc)?;
        acc
    } else if tiers.is_flat() {
        doubling(
            comm,
            &(0..comm.size() as usize).collect::<Vec<_>>(),
            acc,
            &red,
        )?
    } else {
        let acc = tree_reduce(comm, &tiers.local, acc, &red)?;
        let mut acc = doubling(comm, &tiers.leaders, acc, &red)?;
        tree_bcast(comm, &tiers.local, &mut acc)?;
        acc
    };
    out(recv, &acc)
}

/// Scan by recursive doubling: after step `k` each rank holds the combination of its
/// block of `2^k` ranks (`partial`) and of the ranks up to itself within it. Returns the
/// inclusive prefix, or the exclusive one (`None` on rank 0).
fn prefix(send: &[u8], red: &Reduction, comm: &Comm, inclusive: bool) -> Result<Option<Vec<u8>>> {
    let (r, n) = (comm.rank() as usize, comm.size() as usize);
    let mut partial = red.start(send)?;
    let mut result = inclusive.then(|| partial.clone());
    let mut theirs = vec![0u8; partial.len()];
    for partner in prefix_partners(r, n) {
        exchange(comm, partner as i32, TAG_SCAN, &partial, &mut theirs)?;
        if partner < r {
            match &mut result {
                Some(acc) => red.combine(&theirs, acc)?,
                None => result = Some(theirs.clone()),
            }
            red.combine(&theirs, &mut partial)?;
        } else {
            red.combine(&partial, &mut theirs)?;
            std::mem::swap(&mut partial, &mut theirs);
        }
    }
    Ok(result)
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
    let red = Reduction { dt, count, op };
    let acc = prefix(send, &red, comm, true)?.expect("an inclusive scan has a result");
    out(recv, &acc)
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
    let red = Reduction { dt, count, op };
    match prefix(send, &red, comm, false)? {
        Some(acc) => out(recv, &acc),
        None => Ok(()),
    }
}

/// `MPI_Reduce_scatter`: the reduction of every rank's `sum(counts)` packed elements,
/// rank `i` getting `counts[i]` of them (in rank order). Reduced at rank 0, then scattered.
pub fn reduce_scatter(
    send: &[u8],
    counts: &[usize],
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
) -> Result<Vec<u8>> {
    check_lens(counts, comm)?;
    let total = counts.iter().sum();
    let red = Reduction {
        dt,
        count: total,
        op,
    };
    let acc = reduce_to(comm, 0, red.start(send)?, &red)?;
    let blocks = if comm.rank() == 0 {
        let mut at = 0;
        counts
            .iter()
            .map(|&c| {
                let len = dt.bytes(c)?;
                at += len;
                Ok(acc[at - len..at].to_vec())
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    scatter(&blocks, dt.bytes(counts[comm.rank() as usize])?, 0, comm)
}

/// `MPI_Barrier`: an allreduce of nothing.
pub fn barrier(comm: &Comm) -> Result<()> {
    let byte = Datatype::predefined(Predef::Byte);
    allreduce(
        &[],
        &mut [],
        0,
        &byte,
        &Op::Predefined(Operator::NoOp),
        comm,
    )
}
