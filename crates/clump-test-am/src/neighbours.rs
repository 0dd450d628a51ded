//! Every rank maps every other at start-up but talks to its two neighbours only: it must
//! end up holding the queue blocks of those two and its own, not of the whole job (a
//! mapping per peer pair would make start-up and memory grow as n^2).

use clump::spmd::Spmd;
use std::cell::Cell;
use std::collections::HashSet;
use std::rc::Rc;

/// The blocks a rank may hold: its own, the next rank's (its requests) and the previous
/// rank's (its replies to that rank's requests).
const MOST_BLOCKS: usize = 3;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let (rank, size) = (spmd.rank(), spmd.size());
    let replies = Rc::new(Cell::new(0u32));
    spmd.ep
        .set_handler(1, |token, msg| {
            token.reply(2, msg.args).expect("reply");
        })
        .map_err(|e| e.to_string())?;
    let r = replies.clone();
    spmd.ep
        .set_handler(2, move |_, msg| {
            if msg.args == [rank] {
                r.set(r.get() + 1);
            }
        })
        .map_err(|e| e.to_string())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let next = (rank + 1) % size;
    spmd.ep
        .request(next, 1, &[rank])
        .map_err(|e| e.to_string())?;
    spmd.drain().map_err(|e| e.to_string())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    if replies.get() != 1 {
        return Err(format!(
            "rank {rank}: {} replies, expected 1",
            replies.get()
        ));
    }
    let blocks = endpoint_blocks_mapped()?;
    if blocks > MOST_BLOCKS {
        return Err(format!(
            "rank {rank} of {size} maps {blocks} endpoint queue blocks, expected at most {MOST_BLOCKS}"
        ));
    }
    Ok(format!("rank {rank}: neighbours ok, {blocks} blocks"))
}

/// Distinct endpoint queue blocks (memory files) mapped in this process.
fn endpoint_blocks_mapped() -> Result<usize, String> {
    let maps = std::fs::read_to_string("/proc/self/maps").map_err(|e| e.to_string())?;
    let files: HashSet<&str> = maps
        .lines()
        .filter(|l| l.contains("memfd:clump-endpoint"))
        .filter_map(|l| l.split_whitespace().nth(4)) // the inode
        .collect();
    Ok(files.len())
}
