//! Pinning benchmark ranks to CPUs, so that they share a core only where the benchmark
//! says so and never migrate between batches; a rank whose core is shared yields it when
//! it waits.

use super::rank::gather_u64;
use super::wait::set_shared_cpu;
use clump::spmd::Spmd;

/// Pins this rank to the `nth` allowed CPU (`None`: leaves it unpinned) and learns where
/// every rank runs; a rank whose CPU may be shared (another rank pinned there, or any
/// rank unpinned) then yields it whenever it waits. Returns each rank's CPU.
pub fn place(sp: &mut Spmd, bench: &str, nth: Option<usize>) -> Result<Vec<Option<usize>>, String> {
    let cpu = nth.and_then(|n| {
        clump::cpu::pin_to_nth_allowed(n)
            .inspect_err(|e| eprintln!("{bench}: rank {} not pinned: {e}", sp.rank()))
            .ok()
    });
    let cpus: Vec<Option<usize>> = gather_u64(sp, &[cpu.map_or(u64::MAX, |c| c as u64)])?
        .iter()
        .map(|v| (v[0] != u64::MAX).then_some(v[0] as usize))
        .collect();
    let sharers = cpus.iter().filter(|&&c| c == cpu).count();
    set_shared_cpu(cpus.iter().any(Option::is_none) || sharers > 1);
    Ok(cpus)
}
