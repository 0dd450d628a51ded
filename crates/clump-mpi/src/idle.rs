//! Waiting with nothing to do. A blocking call polls; when a while passes with nothing
//! arriving it blocks in clump's event wait, which sleeps until a message comes (a timed
//! sleep would oversleep, and a sleeping process loses its core). How long it polls
//! first depends on the host: with no more processes than cores, each keeps its core
//! (as a vendor MPI does: a wake-up costs tens of microseconds, far more on a busy
//! machine); with more, it lets the core go soon.

use std::time::{Duration, Instant};

use clump::EventMask;

use crate::error::Result;
use crate::runtime::Runtime;

/// Looks at the shared-memory queues between two polls that found nothing, when all a
/// wait waits for comes through them (the other work of a poll, such as liveness checks
/// and the network's timers, still runs every few hundred nanoseconds).
pub const LOOKS: u32 = 64;
/// Polls that found nothing between two looks at the clock (a look costs as much as a
/// poll, and delays noticing the message that arrives meanwhile).
const IDLE_POLLS: u32 = 16;
/// The polling time with a core per process, unless `CLUMP_MPI_SPIN_US` says otherwise.
const OWN_CORE_SPIN: Duration = Duration::from_millis(2);
/// How long one blocking wait lasts at most before polling again (clump's own timers,
/// such as retransmission, run from polls).
const BLOCK: Duration = Duration::from_millis(1);

/// The polling time before sleeping: `CLUMP_MPI_SPIN_US` if set, else by whether the
/// processes of this host have a core each.
pub fn spin_budget(spin_us: Option<usize>, core_each: bool) -> Duration {
    match spin_us {
        Some(us) => Duration::from_micros(us as u64),
        None if core_each => OWN_CORE_SPIN,
        None => Duration::ZERO,
    }
}

#[derive(Default)]
pub struct Idle {
    polls: u32,
    since: Option<Instant>,
}

impl Idle {
    /// One round of nothing to do: poll on, or block in clump until a message comes.
    pub fn wait(&mut self, rt: &Runtime) -> Result<()> {
        self.polls = self.polls.wrapping_add(1);
        if !self.polls.is_multiple_of(IDLE_POLLS) {
            std::hint::spin_loop();
            return Ok(());
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        if since.elapsed() < rt.spin {
            std::hint::spin_loop();
            return Ok(());
        }
        let spmd = rt.spmd.borrow();
        spmd.bundle.set_event_mask(EventMask::NotEmpty);
        spmd.bundle.wait_timeout(BLOCK)?;
        Ok(())
    }
}
