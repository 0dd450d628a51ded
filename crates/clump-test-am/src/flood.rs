//! Many senders into one endpoint until its queues are full: every message must arrive
//! exactly once, in each sender's order.

use crate::check::{pattern, poll_until, Failures};
use clump::spmd::Spmd;
use std::cell::RefCell;
use std::rc::Rc;

const SHORT: usize = 1;
const MEDIUM: usize = 2;

/// `fill_wait`: how long the receiver lets the senders fill its queue before it polls.
/// Over the network a receiver that does not poll acknowledges nothing, so the wait must
/// stay below the network's timeout there.
pub fn run(count: u32, fill_wait: std::time::Duration) -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let (rank, size) = (spmd.rank(), spmd.size());
    let fails = Failures::default();
    let next = Rc::new(RefCell::new(vec![0u32; size as usize]));
    for (index, medium) in [(SHORT, false), (MEDIUM, true)] {
        let (n, f) = (next.clone(), fails.clone());
        spmd.ep
            .set_handler(index, move |_, m| {
                let (src, seq) = (m.args[0] as usize, m.args[1]);
                let mut next = n.borrow_mut();
                f.expect(next.get(src) == Some(&seq), || {
                    format!("from {src}: got {seq}, expected {:?}", next.get(src))
                });
                if medium {
                    f.expect(
                        m.payload == pattern(src as u32, 1024, seq).as_slice(),
                        || format!("payload of {src}/{seq}"),
                    );
                }
                if let Some(s) = next.get_mut(src) {
                    *s = seq + 1;
                }
            })
            .map_err(|e| e.to_string())?;
    }
    spmd.barrier().map_err(|e| e.to_string())?;
    if rank == 0 {
        // Let the senders fill the queue before anything drains it.
        let start = std::time::Instant::now();
        while spmd.ep.pending_requests() < clump::REQUEST_QUEUE_SLOTS && start.elapsed() < fill_wait
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let want = count;
        poll_until(&spmd, || next.borrow()[1..].iter().all(|&s| s == want))?;
    } else {
        for seq in 0..count {
            let sent = if seq % 8 == 7 {
                spmd.ep
                    .request_medium(0, MEDIUM as u8, &[rank, seq], &pattern(rank, 1024, seq))
            } else {
                spmd.ep.request(0, SHORT as u8, &[rank, seq])
            };
            sent.map_err(|e| e.to_string())?;
        }
        spmd.drain().map_err(|e| e.to_string())?;
    }
    let stats = spmd.ep.stats();
    let all = spmd
        .allgather(&stats.queue_full_waits.to_le_bytes())
        .map_err(|e| e.to_string())?;
    let full_waits: u64 = all
        .iter()
        .map(|b| u64::from_le_bytes(b[..8].try_into().unwrap()))
        .sum();
    fails.into_result(&format!("rank {rank}"))?;
    if rank == 0 {
        let got: u32 = next.borrow()[1..].iter().sum();
        let expected = count * (size - 1);
        if got != expected {
            return Err(format!(
                "rank 0 received {got} messages, expected {expected}"
            ));
        }
        return Ok(format!(
            "flood ok: received={got} senders={} queue_full_waits={full_waits}",
            size - 1
        ));
    }
    Ok(format!(
        "rank {rank}: sent {count}, credit_waits={} queue_full_waits={}",
        stats.credit_waits, stats.queue_full_waits
    ))
}
