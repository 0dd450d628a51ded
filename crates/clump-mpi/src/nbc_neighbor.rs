//! Non-blocking neighbourhood collectives (`MPI_Ineighbor_*` and the persistent
//! `MPI_Neighbor_*_init`) as one-round schedules: a receive from each source and a send to
//! each destination, as [`crate::neighbor`] pairs them. A schedule has one tag, so on a
//! grid, where one process may be both neighbours of a dimension, the order of the sends
//! does the pairing instead: the block towards the upper neighbour of a dimension goes
//! before the one towards the lower, and receives are posted lower first, so the block
//! received from the lower neighbour is the one it sent upwards (MPI 4.1).

use crate::comm::Comm;
use crate::error::Result;
use crate::matching::PROC_NULL;
use crate::neighbor::neighbours;
use crate::p2p::Request;
use crate::sched::Schedule;

/// What receives the blocks of a neighbourhood collective, one per source (`None` for
/// `MPI_PROC_NULL`).
pub type DoneNeighbors = Box<dyn FnOnce(Vec<Option<Vec<u8>>>) -> Result<()>>;

/// `MPI_Ineighbor_alltoall(v,w)`: sends `blocks[k]` to destination `k`, receives
/// `recv_lens[k]` bytes from source `k`, and hands what came to `done`.
pub fn ineighbor_alltoall(
    blocks: Vec<Vec<u8>>,
    recv_lens: &[usize],
    comm: &Comm,
    done: DoneNeighbors,
) -> Result<Request> {
    let (sources, dests, grid) = neighbours(comm, blocks.len(), recv_lens.len())?;
    let mut s = Schedule::new(comm)?;
    let sent: Vec<usize> = blocks.into_iter().map(|b| s.buf(b)).collect();
    let got: Vec<Option<usize>> = sources
        .iter()
        .zip(recv_lens)
        .map(|(&from, &len)| (from != PROC_NULL).then(|| s.buf(vec![0u8; len])))
        .collect();
    for (&from, at) in sources.iter().zip(&got) {
        if let Some(at) = at {
            s.recv(from, *at);
        }
    }
    for k in 0..dests.len() {
        let k = if grid { k ^ 1 } else { k };
        if dests[k] != PROC_NULL {
            s.send(dests[k], sent[k]);
        }
    }
    s.then(move |bufs| {
        let blocks = got
            .iter()
            .map(|at| at.map(|i| std::mem::take(&mut bufs[i])))
            .collect();
        done(blocks)
    });
    s.start()
}
