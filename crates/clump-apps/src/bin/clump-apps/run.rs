//! What every application shares: joining the job, the result line rank 0 prints (the bench
//! harness parses it), and turning a wrong answer on any rank into a failed run.

use clump_apps::phase::PhaseTimes;
use clump_apps::Mismatch;
use clump_gas::{Gas, ReduceOp};

pub type AppResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Reports the run on rank 0 and fails every rank when any rank's check failed. Traffic is
/// counted before the check's own collectives, so the figures are the application's.
pub fn finish(
    gas: &mut Gas,
    app: &str,
    times: &PhaseTimes,
    check: Result<(), Mismatch>,
) -> AppResult<()> {
    let s = gas.stats();
    let mut counts = [
        s.shm_messages,
        s.shm_bytes,
        s.net_messages,
        s.net_bytes,
        s.direct_accesses,
        s.direct_bytes,
    ];
    gas.all_reduce(&mut counts, ReduceOp::Sum)?;
    let mut secs = [
        times.total().as_secs_f64(),
        times.comm.as_secs_f64(),
        times.compute.as_secs_f64(),
    ];
    gas.all_reduce(&mut secs, ReduceOp::Max)?;
    let mut failed = [u32::from(check.is_err())];
    if let Err(m) = &check {
        eprintln!("{app}: rank {}: wrong result: {m}", gas.rank());
    }
    gas.all_reduce(&mut failed, ReduceOp::Sum)?;
    if gas.rank() == 0 {
        println!(
            "RESULT app={app} ranks={} time_s={:.6} comm_s={:.6} compute_s={:.6} shm_messages={} shm_bytes={} \
             net_messages={} net_bytes={} direct_accesses={} direct_bytes={} check={}",
            gas.size(),
            secs[0],
            secs[1],
            secs[2],
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            counts[5],
            if failed[0] == 0 { "ok" } else { "FAILED" }
        );
    }
    gas.barrier()?;
    if failed[0] != 0 {
        return Err(format!("{app}: {} rank(s) computed a wrong result", failed[0]).into());
    }
    Ok(())
}
