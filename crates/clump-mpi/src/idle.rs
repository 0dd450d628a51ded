//! Waiting with nothing to do. A blocking call polls; when a while passes with nothing
//! arriving it blocks in clump's event wait, which sleeps until a message comes (a timed
//! sleep would oversleep, and a sleeping process loses its core): `clump::IdleWait`, which
//! every layer's waits share. How long MPI polls
//! first depends on the host: with no more processes than cores, each keeps its core
//! (as a vendor MPI does: a wake-up costs tens of microseconds, far more on a busy
//! machine); with more, it lets the core go soon.

use std::time::Duration;

/// Looks at the shared-memory queues between two polls that found nothing, when all a
/// wait waits for comes through them (the other work of a poll, such as liveness checks
/// and the network's timers, still runs every few hundred nanoseconds).
pub const LOOKS: u32 = 64;

/// The polling time before sleeping: `CLUMP_MPI_SPIN_US` if set, else clump's budget for
/// `processes_here` processes of the job on a machine of `cores` cores.
pub fn spin_budget(spin_us: Option<usize>, processes_here: usize, cores: usize) -> Duration {
    spin_us.map_or_else(
        || clump::idle::spin_budget(processes_here as u32, cores as u32),
        |us| Duration::from_micros(us as u64),
    )
}
