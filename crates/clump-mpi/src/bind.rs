//! Binding each process to a core of its own, as vendor MPIs do by default, when its
//! machine has a core for each of the job's processes there: a process that waits keeps polling on its core,
//! and two processes of one job never take turns on one core while another stands idle.
//! `CLUMP_MPI_BIND=none` leaves the placement to the system.

/// Binds the `index`-th of the job's `on_machine` processes on this machine to the
/// `index`-th CPU it may use, if there are enough for all; returns that CPU. A refusal by
/// the system leaves the process where it was.
pub fn to_own_core(index: usize, on_machine: usize) -> Option<usize> {
    let cpus = clump::cpu::allowed().ok()?;
    if on_machine > cpus.len() {
        return None;
    }
    let cpu = *cpus.get(index)?;
    clump::cpu::pin(cpu).ok().map(|()| cpu)
}
