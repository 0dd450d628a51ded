//! Waiting with nothing to do. A blocking call polls; when a while passes with nothing
//! arriving it blocks in clump's event wait, which sleeps until a message comes (a timed
//! sleep would oversleep, and a sleeping process loses its core). How long it polls
//! first depends on the host: with no more processes than cores, each keeps its core
//! (as a vendor MPI does: a wake-up costs tens of microseconds, far more on a busy
//! machine); with more, it lets the core go soon.

use std::time::Duration;

use clump::idle::{Backoff, Pause};
use clump::EventMask;

use crate::error::Result;

/// Looks at the shared-memory queues between two polls that found nothing, when all a
/// wait waits for comes through them (the other work of a poll, such as liveness checks
/// and the network's timers, still runs every few hundred nanoseconds).
pub const LOOKS: u32 = 64;
/// How long one blocking wait lasts at most before polling again (clump's own timers,
/// such as retransmission, run from polls).
const BLOCK: Duration = Duration::from_millis(1);

/// The polling time before sleeping: `CLUMP_MPI_SPIN_US` if set, else clump's budget for
/// `processes_here` processes of the job on a machine of `cores` cores.
pub fn spin_budget(spin_us: Option<usize>, processes_here: usize, cores: usize) -> Duration {
    spin_us.map_or_else(
        || clump::idle::spin_budget(processes_here as u32, cores as u32),
        |us| Duration::from_micros(us as u64),
    )
}

/// One wait's idle rounds: clump's back-off, letting go by blocking.
#[derive(Default)]
pub struct Idle {
    backoff: Option<Backoff>,
}

impl Idle {
    /// One round of nothing to do: poll on, or block in clump until a message comes.
    /// In a process whose MPI is shared by threads it never blocks (blocking while holding
    /// the process lock would stop every other thread): it lets the lock go when another
    /// thread waits for it, and otherwise spins, then yields (`Backoff::snooze`).
    pub fn wait(&mut self, spin: Duration, bundle: &clump::Bundle) -> Result<()> {
        let backoff = self.backoff.get_or_insert(Backoff::new(spin));
        if clump::serial::is_shared() {
            backoff.snooze();
            return Ok(());
        }
        if backoff.idle_round() == Pause::Spin {
            std::hint::spin_loop();
            return Ok(());
        }
        bundle.set_event_mask(EventMask::NotEmpty);
        bundle.wait_timeout(BLOCK)?;
        Ok(())
    }
}
