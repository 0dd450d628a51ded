//! Non-blocking reductions as schedules: reduce, allreduce, reduce-scatter(-block), scan and
//! exscan. A commutative operation combines within each host, then across the hosts'
//! leaders; any other in rank order (binomial trees over ranks in order combine each lower
//! block with the next higher one), as the blocking ones do.

use std::rc::Rc;

use crate::coll::{check_root, index_in, one_host, tiers};
use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};
use crate::nbc::{host_bcast, tree_bcast};
use crate::nbc_inter;
use crate::op::Op;
use crate::p2p::Request;
use crate::sched::Schedule;
use crate::sched::{finish, Done};
use clump_coll::pattern::{binomial, doubling as doubling_pattern, prefix_partners, Doubling};

/// What a reduction combines, owned by the schedule's local steps.
struct Combine {
    dt: Datatype,
    count: usize,
    op: Op,
}

impl Combine {
    /// Checks the operation against the type and `send` against the count.
    fn new(send: &[u8], count: usize, dt: &Datatype, op: &Op) -> Result<Rc<Combine>> {
        op.check(dt)?;
        if send.len() != dt.bytes(count)? {
            return Err(Error::new(
                ErrorClass::Buffer,
                "reduction data is not the count's length",
            ));
        }
        Ok(Rc::new(Combine {
            dt: dt.clone(),
            count,
            op: op.clone(),
        }))
    }

    /// `bufs[into] = bufs[lower] op bufs[into]`.
    fn apply(&self, bufs: &mut [Vec<u8>], lower: usize, into: usize) -> Result<()> {
        let mut higher = std::mem::take(&mut bufs[into]);
        let r = self
            .op
            .combine(&self.dt, self.count, &bufs[lower], &mut higher);
        bufs[into] = higher;
        r
    }
}

/// Combines buffer `acc` of the ranks of `list` towards `list[0]` (a binomial tree): each
/// rank receives its children's data in one round, then combines them in order.
fn tree_reduce(s: &mut Schedule, list: &[usize], acc: usize, c: &Rc<Combine>) {
    let Some(v) = index_in(list, s.comm().rank()) else {
        return;
    };
    let len = s.len(acc);
    let tree = binomial(v, list.len());
    let mut kids = Vec::new();
    for k in tree.children() {
        let b = s.buf(vec![0u8; len]);
        s.recv(list[k] as i32, b);
        kids.push(b);
    }
    if !kids.is_empty() {
        let c = c.clone();
        s.then(move |bufs| {
            for k in kids {
                c.apply(bufs, acc, k)?;
                bufs.swap(acc, k);
            }
            Ok(())
        });
    }
    if let Some(p) = tree.parent {
        s.send(list[p] as i32, acc);
        s.fence();
    }
}

/// The whole reduction of `acc` at `root`.
fn reduce_to(s: &mut Schedule, root: i32, acc: usize, c: &Rc<Combine>) -> Result<()> {
    if c.op.is_commutative() {
        let tiers = tiers(s.comm(), root)?;
        tree_reduce(s, &tiers.local, acc, c);
        tree_reduce(s, &tiers.leaders, acc, c);
        return Ok(());
    }
    let all: Vec<usize> = (0..s.comm().size() as usize).collect();
    tree_reduce(s, &all, acc, c);
    if root != 0 {
        match s.comm().rank() {
            0 => s.send(root, acc),
            r if r == root => s.recv(0, acc),
            _ => {}
        }
        s.fence();
    }
    Ok(())
}

/// Every rank of `list` gets the combination of all their buffer `acc` (recursive
/// doubling; the ranks past the largest power of two hand theirs to a partner first and
/// get the result back). Commutative operations only.
fn doubling(s: &mut Schedule, list: &[usize], acc: usize, c: &Rc<Combine>) {
    let Some(v) = index_in(list, s.comm().rank()) else {
        return;
    };
    let (extra, partners) = match doubling_pattern(v, list.len()) {
        Doubling::Extra { partner } => {
            let partner = list[partner] as i32;
            s.send(partner, acc);
            s.fence();
            s.recv(partner, acc);
            s.fence();
            return;
        }
        Doubling::Core { extra, partners } => (extra.map(|e| list[e] as i32), partners),
    };
    let theirs = s.buf(vec![0u8; s.len(acc)]);
    if let Some(e) = extra {
        s.recv(e, theirs);
        let c = c.clone();
        s.then(move |bufs| {
            c.apply(bufs, acc, theirs)?;
            bufs.swap(acc, theirs);
            Ok(())
        });
    }
    for p in partners {
        s.send(list[p] as i32, acc);
        s.recv(list[p] as i32, theirs);
        let (c, lower) = (c.clone(), p < v);
        s.then(move |bufs| {
            if lower {
                c.apply(bufs, theirs, acc)
            } else {
                c.apply(bufs, acc, theirs)?;
                bufs.swap(acc, theirs);
                Ok(())
            }
        });
    }
    if let Some(e) = extra {
        s.send(e, acc);
        s.fence();
    }
}

/// `MPI_Ireduce` of `count` packed elements of `dt` in `send` onto `root`; `done` gets the
/// result at the root (elsewhere nothing meaningful).
pub fn ireduce(
    send: Vec<u8>,
    count: usize,
    dt: &Datatype,
    op: &Op,
    root: i32,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::ireduce(send, count, dt, op, root, comm, done);
    }
    check_root(comm, root)?;
    let c = Combine::new(&send, count, dt, op)?;
    let mut s = Schedule::new(comm)?;
    let acc = s.buf(send);
    reduce_to(&mut s, root, acc, &c)?;
    finish(s, acc, done)
}

/// `MPI_Iallreduce`: recursive doubling when all ranks share one host or each has its own;
/// otherwise within hosts, doubling across their leaders, and back within hosts. A
/// non-commutative operation reduces in rank order at rank 0 and broadcasts.
pub fn iallreduce(
    send: Vec<u8>,
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::iallreduce(send, count, dt, op, comm, done);
    }
    let c = Combine::new(&send, count, dt, op)?;
    let mut s = Schedule::new(comm)?;
    let acc = s.buf(send);
    let all = || (0..comm.size() as usize).collect::<Vec<_>>();
    if !op.is_commutative() {
        reduce_to(&mut s, 0, acc, &c)?;
        host_bcast(&mut s, 0, acc)?;
    } else if one_host(comm)? {
        doubling(&mut s, &all(), acc, &c);
    } else {
        let tiers = tiers(comm, 0)?;
        if tiers.is_flat() {
            doubling(&mut s, &all(), acc, &c);
        } else {
            tree_reduce(&mut s, &tiers.local, acc, &c);
            doubling(&mut s, &tiers.leaders, acc, &c);
            tree_bcast(&mut s, &tiers.local, acc);
        }
    }
    finish(s, acc, done)
}

/// `MPI_Ireduce_scatter`: the reduction of every rank's `sum(counts)` elements, rank `i`
/// getting `counts[i]` of them: reduced at rank 0, which sends each rank its part.
pub fn ireduce_scatter(
    send: Vec<u8>,
    counts: &[usize],
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::ireduce_scatter(send, counts, dt, op, comm, done);
    }
    crate::coll::check_lens(counts, comm)?;
    let c = Combine::new(&send, counts.iter().sum(), dt, op)?;
    let mut s = Schedule::new(comm)?;
    let acc = s.buf(send);
    reduce_to(&mut s, 0, acc, &c)?;
    let me = comm.rank() as usize;
    let mut at = 0;
    let mut mine = 0..0;
    for (i, &n) in counts.iter().enumerate() {
        let part = at..at + dt.bytes(n)?;
        at = part.end;
        if i == me {
            mine = part;
        } else if me == 0 {
            s.send_part(i as i32, acc, part);
        }
    }
    let out = if me == 0 {
        s.fence();
        acc
    } else {
        let b = s.buf(vec![0u8; mine.len()]);
        s.recv(0, b);
        s.fence();
        mine = 0..mine.len();
        b
    };
    s.then(move |bufs| {
        bufs[out].truncate(mine.end);
        bufs[out].drain(..mine.start);
        Ok(())
    });
    finish(s, out, done)
}

/// `MPI_Iscan` (`inclusive`) or `MPI_Iexscan`: recursive doubling; after step `k` each rank
/// holds the combination of its block of `2^k` ranks and of the ranks up to itself in it.
/// Exscan hands rank 0 nothing (MPI leaves its result undefined).
pub fn iscan(
    send: Vec<u8>,
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
    inclusive: bool,
    done: Done,
) -> Result<Request> {
    comm.refuse_inter("a scan")?;
    let c = Combine::new(&send, count, dt, op)?;
    let (r, n) = (comm.rank() as usize, comm.size() as usize);
    let mut s = Schedule::new(comm)?;
    let len = send.len();
    let result = s.buf(if inclusive { send.clone() } else { Vec::new() });
    let partial = s.buf(send);
    let theirs = s.buf(vec![0u8; len]);
    let mut have = inclusive;
    for partner in prefix_partners(r, n) {
        s.send(partner as i32, partial);
        s.recv(partner as i32, theirs);
        let (c, first) = (c.clone(), !have);
        let lower = partner < r;
        s.then(move |bufs| {
            if lower {
                if first {
                    bufs[result] = bufs[theirs].clone();
                } else {
                    c.apply(bufs, theirs, result)?;
                }
                c.apply(bufs, theirs, partial)
            } else {
                c.apply(bufs, partial, theirs)?;
                bufs.swap(partial, theirs);
                Ok(())
            }
        });
        have |= lower;
    }
    finish(s, result, done)
}
