//! Phase timing as the papers report it: time spent computing apart from time spent
//! communicating (including waiting for data), summed over the phases of a run.

use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Compute,
    Comm,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct PhaseTimes {
    pub compute: Duration,
    pub comm: Duration,
}

impl PhaseTimes {
    /// Runs `f` and charges its wall time to `phase`.
    pub fn time<R>(&mut self, phase: Phase, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let out = f();
        let spent = start.elapsed();
        match phase {
            Phase::Compute => self.compute += spent,
            Phase::Comm => self.comm += spent,
        }
        out
    }

    pub fn total(&self) -> Duration {
        self.compute + self.comm
    }

    /// Share of the total spent communicating, 0 when nothing was timed.
    pub fn comm_share(&self) -> f64 {
        let total = self.total().as_secs_f64();
        if total == 0.0 {
            0.0
        } else {
            self.comm.as_secs_f64() / total
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_charged_apart() {
        let mut t = PhaseTimes::default();
        let v = t.time(Phase::Comm, || {
            std::thread::sleep(Duration::from_millis(5));
            41
        });
        t.time(Phase::Compute, || ());
        assert_eq!(v, 41);
        assert!(t.comm >= Duration::from_millis(5));
        assert!(t.comm > t.compute);
        assert!(t.comm_share() > 0.5 && t.comm_share() <= 1.0);
        assert_eq!(PhaseTimes::default().comm_share(), 0.0);
    }
}
