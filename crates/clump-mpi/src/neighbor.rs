//! Neighbourhood collectives (`MPI_Neighbor_allgather(v)`, `MPI_Neighbor_alltoall(v,w)`)
//! on packed blocks: each process sends block `k` to its `k`th destination and receives
//! block `k` from its `k`th source, as the communicator's topology lists them.
//!
//! On a grid a process may be its own neighbour, or the same process both neighbours of a
//! dimension (a periodic dimension of one or two); MPI 4.1 pairs the block sent towards
//! the upper neighbour with the block received from the lower one, so there each block's
//! tag names its direction. Graph neighbours repeated are paired in order.

use crate::coll::{cirecv, cisend, cwait};
use crate::coll_gather::wait_all;
use crate::comm::Comm;
use crate::error::{Error, ErrorClass, Result};
use crate::matching::PROC_NULL;
use crate::topology::Topology;

const TAG_NEIGHBOR: i32 = 64;

/// The sources and destinations of this process in `comm`'s topology, and whether it is a
/// grid; checks that `sends` blocks and `recvs` receive lengths fit them.
pub(crate) fn neighbours(
    comm: &Comm,
    sends: usize,
    recvs: usize,
) -> Result<(Vec<i32>, Vec<i32>, bool)> {
    let topo = comm.topology().ok_or_else(|| {
        Error::new(
            ErrorClass::Topology,
            "a neighbourhood collective needs a topology",
        )
    })?;
    let (sources, dests) = topo.neighbors(comm.rank())?;
    if sends != dests.len() || recvs != sources.len() {
        return Err(Error::new(
            ErrorClass::Count,
            format!(
                "{sends} blocks and {recvs} receive counts for {} destinations and {} sources",
                dests.len(),
                sources.len()
            ),
        ));
    }
    Ok((sources, dests, matches!(topo, Topology::Cart { .. })))
}

/// `MPI_Neighbor_alltoall(v,w)`: sends `blocks[k]` to destination `k` and receives
/// `recv_lens[k]` bytes from source `k`; `None` where the source is `MPI_PROC_NULL` (the
/// receive buffer stays as it was).
pub fn neighbor_alltoall(
    blocks: &[&[u8]],
    recv_lens: &[usize],
    comm: &Comm,
) -> Result<Vec<Option<Vec<u8>>>> {
    let (sources, dests, grid) = neighbours(comm, blocks.len(), recv_lens.len())?;
    // A grid's block k went out as the opposite direction's block at its sender.
    let recv_tag = |k: usize| TAG_NEIGHBOR + if grid { (k ^ 1) as i32 } else { 0 };
    let send_tag = |k: usize| TAG_NEIGHBOR + if grid { k as i32 } else { 0 };
    let mut out: Vec<Option<Vec<u8>>> = sources
        .iter()
        .zip(recv_lens)
        .map(|(&s, &l)| (s != PROC_NULL).then(|| vec![0u8; l]))
        .collect();
    let mut recvs = Vec::with_capacity(sources.len());
    for (k, buf) in out.iter_mut().enumerate() {
        if let Some(buf) = buf {
            // SAFETY: `out` is neither read nor moved until every receive is waited for.
            recvs.push((k, unsafe { cirecv(comm, sources[k], recv_tag(k), buf)? }));
        }
    }
    let mut sends = Vec::with_capacity(dests.len());
    for (k, &d) in dests.iter().enumerate().filter(|(_, &d)| d != PROC_NULL) {
        // SAFETY: `blocks` stays borrowed until every send is waited for below.
        sends.push(unsafe { cisend(comm, d, send_tag(k), blocks[k])? });
    }
    wait_all(sends)?;
    for (k, mut r) in recvs {
        cwait(&mut r, sources[k], recv_lens[k])?;
    }
    Ok(out)
}
