//! Binding each process to a core of its own, as vendor MPIs do by default, when its
//! machine has a core for each of the job's processes there: a process that waits keeps polling on its core,
//! and two processes of one job never take turns on one core while another stands idle.
//! `CLUMP_MPI_BIND=none` leaves the placement to the system.

use crate::error::{Error, ErrorClass, Result};

/// Whether to bind, from `CLUMP_MPI_BIND` (`core`, the default, or `none`).
pub fn wanted() -> Result<bool> {
    clump::config::table::choice("CLUMP_MPI_BIND")
        .map(|v| v != Some("none"))
        .map_err(|e| Error::new(ErrorClass::Arg, e.to_string()))
}

/// The CPUs this process may run on.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data, all-zero is the empty set; the call gets a pointer
    // to a set of exactly the size it is told, alive for the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Binds the `index`-th of the job's `on_machine` processes on this machine to the
/// `index`-th CPU it may use, if there are enough for all; returns that CPU. A refusal by
/// the system leaves the process where it was.
pub fn to_own_core(index: usize, on_machine: usize) -> Option<usize> {
    let cpus = allowed_cpus();
    if on_machine > cpus.len() {
        return None;
    }
    let cpu = *cpus.get(index)?;
    // SAFETY: as in `allowed_cpus`.
    let bound = unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        libc::sched_setaffinity(0, std::mem::size_of_val(&one), &one) == 0
    };
    bound.then_some(cpu)
}
