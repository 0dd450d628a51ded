//! Which CPUs this process may run on, and pinning the calling thread to one of them: the
//! one place for CPU affinity (the benchmarks pin their ranks, MPI and OpenSHMEM bind each
//! process to a core of its own, as vendor MPIs do, when its machine has a core for each of
//! the job's processes there: a process that waits keeps polling on its core, and two
//! processes of one job never take turns on one core while another stands idle).

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

/// Binds the `index`-th of the job's `on_machine` processes on this machine to the
/// `index`-th CPU it may use, if there are enough for all; returns that CPU. A refusal by
/// the system leaves the process where it was.
pub fn to_own_core(index: usize, on_machine: usize) -> Option<usize> {
    let cpus = allowed().ok()?;
    if on_machine > cpus.len() {
        return None;
    }
    let cpu = *cpus.get(index)?;
    pin(cpu).ok().map(|()| cpu)
}

/// This machine's identity: its kernel's boot id (the same in every container of one
/// kernel, which share its cores), else its host name. Virtual hosts and the UDP
/// transport put several of clump's hosts on one machine; binding must count them together.
pub fn machine_id() -> u64 {
    use std::hash::{Hash, Hasher};
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .or_else(|_| std::fs::read_to_string("/proc/sys/kernel/hostname"))
        .unwrap_or_default();
    // A fixed-key hash: every process computes the same value for the same text.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.trim().hash(&mut h);
    h.finish()
}

/// Given every rank's [`machine_id`], how many ranks share rank `me`'s machine and its
/// place among them (for [`to_own_core`]).
pub fn place_on_machine(machines: &[u64], me: usize) -> (usize, usize) {
    let Some(&mine) = machines.get(me) else {
        return (0, 0);
    };
    let same = |m: &&u64| **m == mine;
    (
        machines.iter().filter(same).count(),
        machines[..me].iter().filter(same).count(),
    )
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

    #[test]
    fn ranks_count_and_number_themselves_per_machine() {
        let machines = [7, 9, 7, 7, 9];
        assert_eq!(place_on_machine(&machines, 0), (3, 0));
        assert_eq!(place_on_machine(&machines, 3), (3, 2));
        assert_eq!(place_on_machine(&machines, 4), (2, 1));
        assert_eq!(place_on_machine(&machines, 5), (0, 0));
        assert_eq!(machine_id(), machine_id());
    }
}
