//! The worker side of every benchmark: joining the job, checking its size, ending the
//! whole job with the reason when a rank fails, and the collectives the ranks use.

use clump::spmd::Spmd;
use std::process::ExitCode;

/// Joins the job, checks it has `size` processes, and runs `body`; a failure aborts the
/// job (the launcher prints the reason and ends the other ranks).
pub fn main(
    bench: &str,
    size: u32,
    body: impl FnOnce(&mut Spmd) -> Result<(), String>,
) -> ExitCode {
    let mut spmd = match Spmd::init() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{bench}: cannot join the job: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = if spmd.size() != size {
        Err(format!(
            "needs exactly {size} processes, the job has {}",
            spmd.size()
        ))
    } else {
        body(&mut spmd)
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            spmd.job
                .abort(1, &format!("{bench}: rank {}: {e}", spmd.rank()));
            ExitCode::FAILURE
        }
    }
}

/// Every rank's `words` (all ranks give the same number), indexed by rank.
pub fn gather_u64(sp: &mut Spmd, words: &[u64]) -> Result<Vec<Vec<u64>>, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let all = sp
        .allgather(&bytes)
        .map_err(|e| format!("allgather: {e}"))?;
    all.iter()
        .map(|b| {
            (b.len() == bytes.len())
                .then(|| {
                    b.chunks(8)
                        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                        .collect()
                })
                .ok_or_else(|| {
                    "allgather: a rank sent a contribution of the wrong size".to_string()
                })
        })
        .collect()
}

pub fn barrier(sp: &mut Spmd) -> Result<(), String> {
    sp.barrier().map_err(|e| format!("barrier: {e}"))
}

pub fn err(e: clump::Error) -> String {
    e.to_string()
}
