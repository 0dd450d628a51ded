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
        pin_to_nth_allowed_cpu(n)
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

/// Pins the calling thread to the `n`-th CPU it may run on (CPU `n` when every CPU is
/// allowed); returns that CPU's number.
pub fn pin_to_nth_allowed_cpu(n: usize) -> Result<usize, String> {
    // SAFETY: cpu_set_t is plain data for which all-zero is the empty set; both calls get
    // a pointer to a set of exactly the size they are told, alive for the call.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) != 0 {
            return Err(format!(
                "sched_getaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &allowed))
            .collect();
        let Some(&cpu) = cpus.get(n) else {
            return Err(format!(
                "only {} CPUs are available, rank {n} needs its own",
                cpus.len()
            ));
        };
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
            return Err(format!(
                "sched_setaffinity to CPU {cpu}: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(cpu)
    }
}
