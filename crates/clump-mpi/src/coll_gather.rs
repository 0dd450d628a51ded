//! Collectives that move blocks: gather(v), scatter(v), allgather(v) and alltoall(v), on
//! packed blocks of any length per rank. A gather collects each host's blocks at its
//! leader first, so one message per host crosses the network to the root.

use crate::coll::one_host;
use crate::coll::{
    check_root, cirecv, cisend, crecv, crecv_vec, csend, cwait, tree_bcast, Tiers, TAG_ALLTOALL,
    TAG_GATHER, TAG_SCATTER,
};
use crate::coll_shm;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::p2p::{wait, Request};
use crate::runtime;

fn check_lens(lens: &[usize], comm: &Comm) -> Result<()> {
    if lens.len() == comm.size() as usize {
        Ok(())
    } else {
        Err(Error::new(
            ErrorClass::Count,
            format!("{} counts for {} ranks", lens.len(), comm.size()),
        ))
    }
}

/// `MPI_Gather(v)`: every rank's `mine` at `root`, which passes each rank's length in
/// `lens` and gets the blocks in rank order (the other ranks get none and may pass `&[]`).
pub fn gather(mine: &[u8], lens: &[usize], root: i32, comm: &Comm) -> Result<Vec<Vec<u8>>> {
    check_root(comm, root)?;
    let tiers = Tiers::new(comm, root)?;
    let me = comm.rank();
    if tiers.local[0] != me {
        return csend(comm, tiers.local[0], TAG_GATHER, mine).map(|_| Vec::new());
    }
    if me != root {
        let mut host = mine.to_vec();
        for &m in &tiers.local[1..] {
            host.extend(crecv_vec(comm, m, TAG_GATHER)?);
        }
        return csend(comm, root, TAG_GATHER, &host).map(|_| Vec::new());
    }
    check_lens(lens, comm)?;
    // The root's own host sends block by block, every other host as one message.
    let mut incoming: Vec<(i32, Vec<i32>, Vec<u8>)> = tiers.local[1..]
        .iter()
        .map(|&m| (m, vec![m], vec![0u8; lens[m as usize]]))
        .collect();
    for host in &tiers.hosts[1..] {
        let len = host.iter().map(|&m| lens[m as usize]).sum();
        incoming.push((host[0], host.clone(), vec![0u8; len]));
    }
    let mut reqs = Vec::with_capacity(incoming.len());
    for (from, _, buf) in incoming.iter_mut() {
        // SAFETY: every buffer stays in `incoming` until its request is waited for below.
        reqs.push(unsafe { cirecv(comm, *from, TAG_GATHER, buf)? });
    }
    let mut blocks = vec![Vec::new(); comm.size() as usize];
    blocks[me as usize] = mine.to_vec();
    for ((from, members, buf), mut r) in incoming.into_iter().zip(reqs) {
        cwait(&mut r, from, buf.len())?;
        let mut at = 0;
        for m in members {
            let len = lens[m as usize];
            blocks[m as usize] = buf[at..at + len].to_vec();
            at += len;
        }
    }
    Ok(blocks)
}

/// `MPI_Scatter(v)`: rank `i` gets `blocks[i]` of the root (`want` bytes long).
pub fn scatter(blocks: &[Vec<u8>], want: usize, root: i32, comm: &Comm) -> Result<Vec<u8>> {
    check_root(comm, root)?;
    let me = comm.rank();
    if me != root {
        let mut buf = vec![0u8; want];
        crecv(comm, root, TAG_SCATTER, &mut buf)?;
        return Ok(buf);
    }
    if blocks.len() != comm.size() as usize {
        return Err(Error::new(
            ErrorClass::Count,
            format!("{} blocks for {} ranks", blocks.len(), comm.size()),
        ));
    }
    let mut sends = Vec::new();
    for (i, b) in blocks.iter().enumerate().filter(|&(i, _)| i as i32 != me) {
        // SAFETY: `blocks` stays borrowed until every send is waited for below.
        sends.push(unsafe { cisend(comm, i as i32, TAG_SCATTER, b)? });
    }
    wait_all(sends)?;
    Ok(blocks[me as usize].clone())
}

fn wait_all(reqs: Vec<Request>) -> Result<()> {
    for mut r in reqs {
        wait(&mut r)?;
    }
    Ok(())
}

/// `MPI_Allgather(v)`: every rank's `mine` (rank `i`'s is `lens[i]` bytes) on every rank:
/// gathered at rank 0 through the hosts' leaders and broadcast the same way.
pub fn allgather(mine: &[u8], lens: &[usize], comm: &Comm) -> Result<Vec<Vec<u8>>> {
    check_lens(lens, comm)?;
    let mut all = gather(mine, lens, 0, comm)?.concat();
    all.resize(lens.iter().sum(), 0);
    let tiers = Tiers::new(comm, 0)?;
    tree_bcast(comm, &tiers.leaders, &mut all)?;
    tree_bcast(comm, &tiers.local, &mut all)?;
    let mut at = 0;
    Ok(lens
        .iter()
        .map(|&len| {
            at += len;
            all[at - len..at].to_vec()
        })
        .collect())
}

/// `MPI_Alltoall(v)`: rank `i` sends `blocks[j]` to rank `j` and gets `recv_lens[j]` bytes
/// from each. Every receive is posted first; the sends go in a rotating order so that
/// no rank is everyone's first target.
pub fn alltoall(blocks: &[&[u8]], recv_lens: &[usize], comm: &Comm) -> Result<Vec<Vec<u8>>> {
    check_lens(recv_lens, comm)?;
    if blocks.len() != recv_lens.len() {
        return Err(Error::new(
            ErrorClass::Count,
            format!("{} blocks for {} ranks", blocks.len(), comm.size()),
        ));
    }
    if let Some(out) = alltoall_through_slots(blocks, recv_lens, comm)? {
        return Ok(out);
    }
    let (me, n) = (comm.rank() as usize, comm.size() as usize);
    let mut out: Vec<Vec<u8>> = recv_lens.iter().map(|&l| vec![0u8; l]).collect();
    let mut recvs = Vec::with_capacity(n);
    for (j, buf) in out.iter_mut().enumerate().filter(|&(j, _)| j != me) {
        // SAFETY: `out` is neither read nor moved until every receive is waited for below.
        recvs.push((j, unsafe { cirecv(comm, j as i32, TAG_ALLTOALL, buf)? }));
    }
    let mut sends = Vec::with_capacity(n);
    for k in 1..n {
        let j = (me + k) % n;
        // SAFETY: `blocks` stays borrowed until every send is waited for below.
        sends.push(unsafe { cisend(comm, j as i32, TAG_ALLTOALL, blocks[j])? });
    }
    wait_all(sends)?;
    for (j, mut r) in recvs {
        cwait(&mut r, j as i32, recv_lens[j])?;
    }
    if blocks[me].len() != recv_lens[me] {
        return Err(Error::new(
            ErrorClass::Count,
            "the block a rank sends itself differs from what it receives",
        ));
    }
    out[me] = blocks[me].to_vec();
    Ok(out)
}

/// `alltoall` in one step through the shared-memory slots: each rank publishes the lengths
/// of its blocks, then the blocks; `None` when the slots do not serve `comm` or some
/// rank's blocks did not fit.
fn alltoall_through_slots(
    blocks: &[&[u8]],
    recv_lens: &[usize],
    comm: &Comm,
) -> Result<Option<Vec<Vec<u8>>>> {
    let rt = runtime::get()?;
    if !rt.slots.serve(comm, one_host(comm)?) {
        return Ok(None);
    }
    let (me, n) = (comm.rank() as usize, blocks.len());
    let total: usize = blocks.iter().map(|b| b.len()).sum();
    let mut mine = Vec::with_capacity(8 * n + total);
    for b in blocks {
        mine.extend_from_slice(&(b.len() as u64).to_le_bytes());
    }
    for b in blocks {
        mine.extend_from_slice(b);
    }
    let mut out = Vec::with_capacity(n);
    let done = coll_shm::exchange(&rt, comm, &mine, |j, data| {
        let block = block_of(data, n, me).ok_or_else(|| {
            Error::new(
                ErrorClass::Count,
                format!("rank {j} has no block for rank {me}: do all ranks pass the same counts?"),
            )
        })?;
        if block.len() != recv_lens[j] {
            return Err(coll_shm::length_mismatch(j, block.len(), recv_lens[j]));
        }
        out.push(block.to_vec());
        Ok(())
    })?;
    Ok(done.then_some(out))
}

/// Block `i` of a contribution laid out as `n` little-endian 64-bit lengths, then the blocks.
fn block_of(data: &[u8], n: usize, i: usize) -> Option<&[u8]> {
    let (lens, blocks) = data.split_at_checked(n.checked_mul(8)?)?;
    let len = |k: usize| -> Option<usize> {
        let word = lens.get(8 * k..8 * k + 8)?.try_into().ok()?;
        usize::try_from(u64::from_le_bytes(word)).ok()
    };
    let start = (0..i).try_fold(0usize, |at, k| at.checked_add(len(k)?))?;
    blocks.get(start..start.checked_add(len(i)?)?)
}

#[cfg(test)]
mod tests {
    use super::block_of;

    #[test]
    fn blocks_are_found_by_their_lengths_and_bad_layouts_refused() {
        let mut data = Vec::new();
        for len in [2u64, 0, 3] {
            data.extend_from_slice(&len.to_le_bytes());
        }
        data.extend_from_slice(b"abxyz");
        assert_eq!(block_of(&data, 3, 0), Some(&b"ab"[..]));
        assert_eq!(block_of(&data, 3, 1), Some(&b""[..]));
        assert_eq!(block_of(&data, 3, 2), Some(&b"xyz"[..]));
        assert_eq!(block_of(&data, 3, 3), None);
        assert_eq!(block_of(&data[..data.len() - 1], 3, 2), None);
        assert_eq!(block_of(&data[..10], 3, 0), None);
    }
}
