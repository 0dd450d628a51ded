//! Which CPUs this process may run on, and pinning the calling thread to one of them: the
//! one place for CPU affinity (the benchmarks pin their ranks, MPI binds each process to a
//! core of its own).

use std::io;

/// The CPUs the calling thread may run on, in increasing order.
pub fn allowed() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data for which all-zero is the empty set; the call gets
    // a pointer to a set of exactly the size it is told, alive for the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect())
    }
}

/// Pins the calling thread to `cpu`.
pub fn pin(cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond the {} a CPU set holds", libc::CPU_SETSIZE),
        ));
    }
    // SAFETY: as in `allowed`; `cpu` is within the set (checked above).
    let status = unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        libc::sched_setaffinity(0, std::mem::size_of_val(&one), &one)
    };
    if status != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Pins the calling thread to the `n`-th CPU it may run on (CPU `n` when every CPU is
/// allowed); returns that CPU's number.
pub fn pin_to_nth_allowed(n: usize) -> Result<usize, String> {
    let cpus = allowed().map_err(|e| format!("sched_getaffinity: {e}"))?;
    let Some(&cpu) = cpus.get(n) else {
        return Err(format!(
            "only {} CPUs are available, rank {n} needs its own",
            cpus.len()
        ));
    };
    pin(cpu).map_err(|e| format!("sched_setaffinity to CPU {cpu}: {e}"))?;
    Ok(cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_to_an_allowed_cpu_and_refuses_one_out_of_range() {
        // In a thread of its own: the pinning must not narrow the other tests' threads.
        std::thread::spawn(|| {
            let before = allowed().unwrap();
            assert!(!before.is_empty());
            let last = before.len() - 1;
            assert_eq!(pin_to_nth_allowed(last), Ok(before[last]));
            assert_eq!(allowed().unwrap(), [before[last]]);
            let err = pin_to_nth_allowed(1).unwrap_err();
            assert!(err.contains("only 1 CPUs are available"), "{err}");
            assert!(pin(usize::MAX).is_err());
        })
        .join()
        .unwrap();
    }
}
