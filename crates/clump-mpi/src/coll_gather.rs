//! Collectives that move blocks: gather(v), scatter(v) and allgather(v), on packed blocks
//! of any length per rank. A gather collects each host's blocks at its
//! leader first, so one message per host crosses the network to the root.

use crate::coll::{
    check_lens, check_root, cirecv, cisend, crecv, crecv_vec, csend, cwait, tiers, TAG_GATHER,
    TAG_SCATTER,
};
use crate::coll_bcast::tree_bcast;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::p2p::{wait, Request};

/// `MPI_Gather(v)`: every rank's `mine` at `root`, which passes each rank's length in
/// `lens` and gets the blocks in rank order (the other ranks get none and may pass `&[]`).
pub fn gather(mine: &[u8], lens: &[usize], root: i32, comm: &Comm) -> Result<Vec<Vec<u8>>> {
    check_root(comm, root)?;
    let tiers = tiers(comm, root)?;
    let me = comm.rank();
    let leader = tiers.local[0] as i32;
    if leader != me {
        return csend(comm, leader, TAG_GATHER, mine).map(|_| Vec::new());
    }
    if me != root {
        let mut host = mine.to_vec();
        for &m in &tiers.local[1..] {
            host.extend(crecv_vec(comm, m as i32, TAG_GATHER)?);
        }
        return csend(comm, root, TAG_GATHER, &host).map(|_| Vec::new());
    }
    check_lens(lens, comm)?;
    // The root's own host sends block by block, every other host as one message.
    let mut incoming: Vec<(i32, Vec<usize>, Vec<u8>)> = tiers.local[1..]
        .iter()
        .map(|&m| (m as i32, vec![m], vec![0u8; lens[m]]))
        .collect();
    for host in &tiers.hosts[1..] {
        let len = host.iter().map(|&m| lens[m]).sum();
        incoming.push((host[0] as i32, host.clone(), vec![0u8; len]));
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
            let len = lens[m];
            blocks[m] = buf[at..at + len].to_vec();
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

pub(crate) fn wait_all(reqs: Vec<Request>) -> Result<()> {
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
    let tiers = tiers(comm, 0)?;
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
