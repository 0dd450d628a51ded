//! A wait with nothing to do, carried out: spin a while (the one back-off, [`Backoff`]),
//! then block in the bundle's event wait, which a message to the bundle ends. Every layer's
//! blocking call waits through it (clump-gas, OpenSHMEM, MPI), each choosing how long to
//! spin; spinning long hurts exactly when it is most tempting: on a loaded machine, two
//! processes with "a core each" often queue on one CPU, and the one that spins keeps the
//! one it waits for off the core (small OpenSHMEM broadcasts took 350-550 µs so, against
//! 0.3 µs).
//!
//! What a message announces wakes the sleeper at once. What nothing announces, such as a
//! same-host peer's direct store into this process's memory, is seen when the sleep times
//! out, so such a wait sleeps [`STORE_NAP`] at a time.

use super::bundle::{Bundle, EventMask};
use crate::error::Result;
use crate::idle::{Backoff, Pause};
use std::time::Duration;

/// How long a wait for a message sleeps at most before it polls again (clump's own timers,
/// such as retransmission, run from polls).
pub const MESSAGE_NAP: Duration = Duration::from_millis(1);
/// How long a wait for a store that no message announces sleeps at a time: about what a
/// wake-up costs, so that the store is seen about as late as a message would be.
pub const STORE_NAP: Duration = Duration::from_micros(50);

/// One wait's idle rounds: [`IdleWait::round`] after each round that found nothing,
/// [`IdleWait::reset`] after one that found something.
#[derive(Clone, Copy, Debug)]
pub struct IdleWait {
    backoff: Backoff,
    nap: Duration,
    /// Whether the bundle spins before it sleeps (`CLUMP_SPIN_US`): useless to a wait
    /// whose condition no message signals, since that spin looks only for messages.
    bundle_spin: bool,
}

impl IdleWait {
    /// A wait for a message that polls for `spin`, then sleeps until a message comes
    /// (after the bundle's own short spin, `CLUMP_SPIN_US`), [`MESSAGE_NAP`] at a time.
    /// A `spin` of zero is the brief spin collectives want: a few rounds, then the bundle's.
    pub const fn new(spin: Duration) -> IdleWait {
        IdleWait {
            backoff: Backoff::new(spin),
            nap: MESSAGE_NAP,
            bundle_spin: true,
        }
    }

    /// A wait in `bundle` for a store into this process's memory that no message
    /// announces: its caller looks for `CLUMP_SPIN_US`, then it sleeps [`STORE_NAP`] at a
    /// time (or until a message comes).
    pub fn for_store(bundle: &Bundle) -> IdleWait {
        IdleWait {
            backoff: Backoff::new(bundle.spin_before_sleep()),
            nap: STORE_NAP,
            bundle_spin: false,
        }
    }

    /// A round found something: the next idle round starts a fresh spin.
    #[inline]
    pub fn reset(&mut self) {
        self.backoff.reset();
    }

    /// One round that found nothing: spin on, or block in `bundle` until a message comes or
    /// the nap ends; says which. In a process whose faces threads share it never blocks
    /// (blocking while holding the process lock would stop every other thread): it lets
    /// the lock go when another thread waits for it, and otherwise spins, then yields
    /// ([`Backoff::snooze`]).
    pub fn round(&mut self, bundle: &Bundle) -> Result<Pause> {
        if crate::serial::is_shared() {
            return Ok(self.backoff.snooze());
        }
        if self.backoff.idle_round() == Pause::Spin {
            std::hint::spin_loop();
            return Ok(Pause::Spin);
        }
        bundle.set_event_mask(EventMask::NotEmpty);
        match self.bundle_spin {
            true => bundle.wait_timeout(self.nap)?,
            false => bundle.nap(self.nap)?,
        };
        Ok(Pause::LetGo)
    }
}
