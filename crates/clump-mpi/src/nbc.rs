//! Non-blocking collectives that move data: barrier, broadcast, gather(v), scatter(v),
//! allgather(v) and alltoall(v), as schedules ([`crate::sched`]). Each takes its input as
//! packed bytes it owns and hands the result to `done` when the request completes (the C
//! interface unpacks it there into the program's buffer). Broadcasts go through the hosts'
//! leaders, as the blocking ones do. On an intercommunicator each is [`nbc_inter`]'s.

use crate::coll::{check_lens, check_root, index_in, tiers};
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::nbc_inter;
use crate::p2p::Request;
use crate::sched::{finish, finish_blocks, Done, DoneBlocks, Schedule};
use clump_coll::pattern::{binomial, dissemination};

/// Binomial-tree broadcast of buffer `buf` from `list[0]` to the ranks of `list`.
pub(crate) fn tree_bcast(s: &mut Schedule, list: &[usize], buf: usize) {
    let Some(v) = index_in(list, s.comm().rank()) else {
        return;
    };
    let tree = binomial(v, list.len());
    if let Some(p) = tree.parent {
        s.recv(list[p] as i32, buf);
        s.fence();
    }
    for c in tree.children().rev() {
        s.send(list[c] as i32, buf);
    }
    s.fence();
}

/// Broadcast of `buf` from `root` through each host's leader.
pub(crate) fn host_bcast(s: &mut Schedule, root: i32, buf: usize) -> Result<()> {
    let tiers = tiers(s.comm(), root)?;
    tree_bcast(s, &tiers.leaders, buf);
    tree_bcast(s, &tiers.local, buf);
    Ok(())
}

/// `MPI_Ibarrier`: dissemination, one message to and from a rank at each distance 2^k.
pub fn ibarrier(comm: &Comm) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::ibarrier(comm);
    }
    let mut s = Schedule::new(comm)?;
    let none = s.buf(Vec::new());
    for (to, from) in dissemination(comm.rank() as usize, comm.size() as usize) {
        s.send(to as i32, none);
        s.recv(from as i32, none);
        s.fence();
    }
    s.start()
}

/// `MPI_Ibcast` of `data` (the root's packed data; elsewhere a buffer as long) from `root`.
pub fn ibcast(data: Vec<u8>, root: i32, comm: &Comm, done: Done) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::ibcast(data, root, comm, done);
    }
    check_root(comm, root)?;
    let mut s = Schedule::new(comm)?;
    let buf = s.buf(data);
    host_bcast(&mut s, root, buf)?;
    finish(s, buf, done)
}

/// `MPI_Igather(v)`: every rank's `mine` at `root`, which passes each rank's length in `lens`
/// and gets the blocks in rank order (the other ranks get none).
pub fn igather(
    mine: Vec<u8>,
    lens: &[usize],
    root: i32,
    comm: &Comm,
    done: DoneBlocks,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::igather(mine, lens, root, comm, done);
    }
    check_root(comm, root)?;
    let mut s = Schedule::new(comm)?;
    if comm.rank() != root {
        let b = s.buf(mine);
        s.send(root, b);
        s.then(move |_| done(Vec::new()));
        return s.start();
    }
    check_lens(lens, comm)?;
    let me = comm.rank() as usize;
    let first = s.bufs_from(lens, me, mine);
    for i in (0..lens.len()).filter(|&i| i != me) {
        s.recv(i as i32, first + i);
    }
    finish_blocks(s, first, lens.len(), done)
}

/// `MPI_Iscatter(v)`: rank `i` gets `blocks[i]` of the root (`want` bytes long).
pub fn iscatter(
    blocks: Vec<Vec<u8>>,
    want: usize,
    root: i32,
    comm: &Comm,
    done: Done,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::iscatter(blocks, want, root, comm, done);
    }
    check_root(comm, root)?;
    let mut s = Schedule::new(comm)?;
    let me = comm.rank();
    if me != root {
        let b = s.buf(vec![0u8; want]);
        s.recv(root, b);
        return finish(s, b, done);
    }
    if blocks.len() != comm.size() as usize {
        return Err(Error::new(
            ErrorClass::Count,
            format!("{} blocks for {} ranks", blocks.len(), comm.size()),
        ));
    }
    let mut own = 0;
    for (i, b) in blocks.into_iter().enumerate() {
        let k = s.buf(b);
        if i as i32 == me {
            own = k;
        } else {
            s.send(i as i32, k);
        }
    }
    finish(s, own, done)
}

/// `MPI_Iallgather(v)`: every rank's `mine` (rank `i`'s is `lens[i]` bytes) on every rank:
/// gathered at rank 0, then broadcast through the hosts' leaders.
pub fn iallgather(mine: Vec<u8>, lens: &[usize], comm: &Comm, done: DoneBlocks) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::iallgather(mine, lens, comm, done);
    }
    check_lens(lens, comm)?;
    if mine.len() != lens[comm.rank() as usize] {
        return Err(Error::new(
            ErrorClass::Count,
            "this rank's block differs from its count in the receive counts",
        ));
    }
    let mut s = Schedule::new(comm)?;
    let total: usize = lens.iter().sum();
    let all = if comm.rank() == 0 {
        let first = s.bufs_from(lens, 0, mine);
        for i in 1..lens.len() {
            s.recv(i as i32, first + i);
        }
        let n = lens.len();
        s.then(move |bufs| {
            let joined = bufs.drain(first..first + n).collect::<Vec<_>>().concat();
            bufs.insert(first, joined);
            Ok(())
        });
        first
    } else {
        let b = s.buf(mine);
        s.send(0, b);
        s.fence();
        s.buf(vec![0u8; total])
    };
    host_bcast(&mut s, 0, all)?;
    let lens = lens.to_vec();
    s.then(move |bufs| {
        let all = std::mem::take(&mut bufs[all]);
        let mut at = 0;
        done(
            lens.iter()
                .map(|&len| {
                    at += len;
                    all[at - len..at].to_vec()
                })
                .collect(),
        )
    });
    s.start()
}

/// `MPI_Ialltoall(v)`: rank `i` sends `blocks[j]` to rank `j` and gets `recv_lens[j]` bytes
/// from each; every message in one round.
pub fn ialltoall(
    blocks: Vec<Vec<u8>>,
    recv_lens: &[usize],
    comm: &Comm,
    done: DoneBlocks,
) -> Result<Request> {
    if comm.is_inter() {
        return nbc_inter::ialltoall(blocks, recv_lens, comm, done);
    }
    check_lens(recv_lens, comm)?;
    let n = recv_lens.len();
    if blocks.len() != n {
        return Err(Error::new(
            ErrorClass::Count,
            format!("{} blocks for {n} ranks", blocks.len()),
        ));
    }
    let me = comm.rank() as usize;
    if blocks[me].len() != recv_lens[me] {
        return Err(Error::new(
            ErrorClass::Count,
            "the block a rank sends itself differs from what it receives",
        ));
    }
    let mut s = Schedule::new(comm)?;
    let sent: Vec<usize> = blocks.into_iter().map(|b| s.buf(b)).collect();
    let first = s.bufs_from(recv_lens, usize::MAX, Vec::new());
    for k in 1..n {
        let (to, from) = ((me + k) % n, (me + n - k) % n);
        s.recv(from as i32, first + from);
        s.send(to as i32, sent[to]);
    }
    s.then(move |bufs| {
        bufs[first + me] = std::mem::take(&mut bufs[sent[me]]);
        Ok(())
    });
    finish_blocks(s, first, n, done)
}
