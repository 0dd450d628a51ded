//! When credits held back for a request to carry them must go (pure: the caller gives
//! the time). `net/send/owed.rs` holds them; this decides when they may wait no longer.

use std::time::{Duration, Instant};

/// How long held credits wait for a request to carry them: a few round trips of a
/// loopback ping-pong, well below the least retransmission timeout (1 ms) and the
/// reliability machine's ack delay (200 µs), so that the ack of the requests rides on
/// the answer rather than going alone.
pub(crate) const CREDIT_DELAY: Duration = Duration::from_micros(50);

/// When held credits must go: [`CREDIT_DELAY`] after the oldest was held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
    /// Nothing held.
    pub const NONE: Deadline = Deadline(None);

    /// Credits were held at `now`: the deadline of the oldest stands, or this one's.
    pub fn hold(&mut self, now: Instant) {
        self.0.get_or_insert(now + CREDIT_DELAY);
    }

    /// Whether held credits are due at `now` (none held: never).
    pub fn due(&self, now: Instant) -> bool {
        self.0.is_some_and(|at| now >= at)
    }

    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }
}


#[cfg(test)]
mod tests {
    use super::{Deadline, CREDIT_DELAY};
    use std::time::{Duration, Instant};

    #[test]
    fn held_credits_are_due_from_the_oldest() {
        let t0 = Instant::now();
        let mut d = Deadline::default();
        assert!(!d.due(t0 + Duration::from_secs(3600)), "nothing held is never due");
        d.hold(t0);
        d.hold(t0 + CREDIT_DELAY / 2);
        assert!(!d.due(t0 + CREDIT_DELAY - Duration::from_micros(1)));
        assert!(d.due(t0 + CREDIT_DELAY), "due from the first hold, not the last");
        d = Deadline::default();
        assert!(!d.is_set() && !d.due(t0 + CREDIT_DELAY));
        d.hold(t0 + CREDIT_DELAY);
        assert!(!d.due(t0 + CREDIT_DELAY), "the clock restarts once they went");
    }
}
