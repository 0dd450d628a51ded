//! Collectives on intercommunicators, as schedules whose messages all cross between the
//! two groups (a schedule's ranks name the remote group): a rooted one runs between the
//! root (which passes [`ROOT`]) and the other group (which passes the root's rank), the
//! root's group-mates pass `MPI_PROC_NULL` and take no part; the all-forms give each group
//! the other group's data. The blocking forms run the same schedules to completion.

use std::rc::Rc;

use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::error::{Error, ErrorClass, Result};
use crate::matching::PROC_NULL;
use crate::op::Op;
use crate::p2p::Request;
use crate::sched::{finish, finish_blocks, Done, DoneBlocks, Schedule};

/// The root of an intercommunicator collective passes this (`MPI_ROOT`).
pub const ROOT: i32 = -4;

/// What this rank does in a rooted intercommunicator collective.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// The root: it talks to every member of the other group.
    Root,
    /// A member of the root's group other than the root: nothing.
    Idle,
    /// A member of the other group; the root is this remote rank.
    With(i32),
}

/// This rank's role for `root` as passed on intercommunicator `comm`.
pub fn role(comm: &Comm, root: i32) -> Result<Role> {
    let remote = comm.remote_size()?;
    match root {
        ROOT => Ok(Role::Root),
        PROC_NULL => Ok(Role::Idle),
        r if (0..remote).contains(&r) => Ok(Role::With(r)),
        r => Err(Error::new(
            ErrorClass::Root,
            format!("root {r} is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group of {remote}"),
        )),
    }
}

fn remote_size(comm: &Comm) -> Result<usize> {
    Ok(comm.remote_size()? as usize)
}

/// Broadcast from the root to every member of the other group.
pub(crate) fn ibcast(data: Vec<u8>, root: i32, comm: &Comm, done: Done) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    let buf = s.buf(data);
    match role(comm, root)? {
        Role::Root => (0..comm.remote_size()?).for_each(|j| s.send(j, buf)),
        Role::Idle => {}
        Role::With(r) => s.recv(r, buf),
    }
    finish(s, buf, done)
}

/// Barrier: a message to and from every member of the other group.
pub(crate) fn ibarrier(comm: &Comm) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    let none = s.buf(Vec::new());
    for j in 0..comm.remote_size()? {
        s.send(j, none);
        s.recv(j, none);
    }
    s.start()
}

/// Gather at the root of the other group's blocks (`lens`: each remote rank's, at the root).
pub(crate) fn igather(
    mine: Vec<u8>,
    lens: &[usize],
    root: i32,
    comm: &Comm,
    done: DoneBlocks,
) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    match role(comm, root)? {
        Role::Root => {
            check_remote(lens.len(), comm)?;
            let first = s.bufs_from(lens, usize::MAX, Vec::new());
            (0..lens.len()).for_each(|j| s.recv(j as i32, first + j));
            return finish_blocks(s, first, lens.len(), done);
        }
        Role::Idle => {}
        Role::With(r) => {
            let b = s.buf(mine);
            s.send(r, b);
        }
    }
    finish_blocks(s, 0, 0, done)
}

/// Scatter of the root's `blocks` (one per remote rank) to the other group.
pub(crate) fn iscatter(
    blocks: Vec<Vec<u8>>,
    want: usize,
    root: i32,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    let mine = s.buf(vec![0u8; want]);
    match role(comm, root)? {
        Role::Root => {
            check_remote(blocks.len(), comm)?;
            for (j, b) in blocks.into_iter().enumerate() {
                let k = s.buf(b);
                s.send(j as i32, k);
            }
        }
        Role::Idle => {}
        Role::With(r) => s.recv(r, mine),
    }
    finish(s, mine, done)
}

/// Allgather: every rank's `mine` to every member of the other group; each gets the other
/// group's blocks (`lens`: each remote rank's length).
pub(crate) fn iallgather(
    mine: Vec<u8>,
    lens: &[usize],
    comm: &Comm,
    done: DoneBlocks,
) -> Result<Request> {
    check_remote(lens.len(), comm)?;
    let mut s = Schedule::new(comm)?;
    let own = s.buf(mine);
    let first = s.bufs_from(lens, usize::MAX, Vec::new());
    for j in 0..lens.len() {
        s.send(j as i32, own);
        s.recv(j as i32, first + j);
    }
    finish_blocks(s, first, lens.len(), done)
}

/// Alltoall: block `j` to remote rank `j`, and `recv_lens[j]` bytes from it.
pub(crate) fn ialltoall(
    blocks: Vec<Vec<u8>>,
    recv_lens: &[usize],
    comm: &Comm,
    done: DoneBlocks,
) -> Result<Request> {
    check_remote(blocks.len(), comm)?;
    check_remote(recv_lens.len(), comm)?;
    let mut s = Schedule::new(comm)?;
    let first = s.bufs_from(recv_lens, usize::MAX, Vec::new());
    for (j, b) in blocks.into_iter().enumerate() {
        let k = s.buf(b);
        s.recv(j as i32, first + j);
        s.send(j as i32, k);
    }
    finish_blocks(s, first, recv_lens.len(), done)
}

/// The other group's data (`count` elements of `dt` from each remote rank) combined in
/// their rank order into buffer `acc`, received in one round.
fn combine_remote(
    s: &mut Schedule,
    acc: usize,
    count: usize,
    dt: &Datatype,
    op: &Op,
) -> Result<()> {
    op.check(dt)?;
    let len = dt.bytes(count)?;
    let m = remote_size(s.comm())?;
    let first = s.bufs_from(&vec![len; m], usize::MAX, Vec::new());
    (0..m).for_each(|j| s.recv(j as i32, first + j));
    let (dt, op) = (Rc::new(dt.clone()), op.clone());
    s.then(move |bufs| {
        for j in 1..m {
            let mut higher = std::mem::take(&mut bufs[first + j]);
            op.combine(&dt, count, &bufs[first + j - 1], &mut higher)?;
            bufs[first + j] = higher;
        }
        if m > 0 {
            bufs[acc] = std::mem::take(&mut bufs[first + m - 1]);
        }
        Ok(())
    });
    Ok(())
}

/// Reduce at the root of the other group's data, in its rank order.
pub(crate) fn ireduce(
    send: Vec<u8>,
    count: usize,
    dt: &Datatype,
    op: &Op,
    root: i32,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    let acc = s.buf(send);
    match role(comm, root)? {
        Role::Root => combine_remote(&mut s, acc, count, dt, op)?,
        Role::Idle => {}
        Role::With(r) => s.send(r, acc),
    }
    finish(s, acc, done)
}

/// Allreduce: each group gets the reduction of the other group's data.
pub(crate) fn iallreduce(
    send: Vec<u8>,
    count: usize,
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    let mut s = Schedule::new(comm)?;
    let mine = s.buf(send);
    (0..comm.remote_size()?).for_each(|j| s.send(j, mine));
    let acc = s.buf(Vec::new());
    combine_remote(&mut s, acc, count, dt, op)?;
    finish(s, acc, done)
}

/// Reduce-scatter: each group gets the reduction of the other group's vectors (as long as
/// its own: the sum of `counts`, this group's counts), rank `i` its block of `counts[i]`
/// elements. Every vector goes to every member of the other group (which blocks a
/// member takes only the receiving group knows).
pub(crate) fn ireduce_scatter(
    send: Vec<u8>,
    counts: &[usize],
    dt: &Datatype,
    op: &Op,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    if counts.len() != comm.size() as usize {
        return Err(Error::new(
            ErrorClass::Count,
            format!("{} counts for a group of {}", counts.len(), comm.size()),
        ));
    }
    let total = counts.iter().sum();
    let me = comm.rank() as usize;
    let start = dt.bytes(counts[..me].iter().sum())?;
    let len = dt.bytes(counts[me])?;
    let mut s = Schedule::new(comm)?;
    let mine = s.buf(send);
    (0..comm.remote_size()?).for_each(|j| s.send(j, mine));
    let acc = s.buf(Vec::new());
    combine_remote(&mut s, acc, total, dt, op)?;
    s.then(move |bufs| {
        let all = std::mem::take(&mut bufs[acc]);
        bufs[acc] = all.get(start..start + len).unwrap_or_default().to_vec();
        Ok(())
    });
    finish(s, acc, done)
}

fn check_remote(n: usize, comm: &Comm) -> Result<()> {
    let m = remote_size(comm)?;
    if n == m {
        Ok(())
    } else {
        Err(Error::new(
            ErrorClass::Count,
            format!("{n} blocks for a remote group of {m}"),
        ))
    }
}
