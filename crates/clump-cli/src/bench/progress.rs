//! Progress lines on stderr for benchmark phases that take a while: once a phase has run
//! for [`QUIET_FOR`], one line per step ("loggp: bandwidth 16 KiB (7/20)..."), so that a
//! long run shows it is alive and a short one stays quiet.

use std::fmt::Display;
use std::time::{Duration, Instant};

/// How long a phase runs before its steps are announced.
const QUIET_FOR: Duration = Duration::from_secs(3);

pub struct Progress {
    phase: String,
    steps: usize,
    started: Instant,
    quiet_for: Duration,
}

impl Progress {
    /// A phase of `steps` steps, named like "loggp: bandwidth", starting now.
    pub fn new(phase: impl Into<String>, steps: usize) -> Progress {
        Progress::quiet_for(phase, steps, QUIET_FOR)
    }

    /// The same, announcing steps only once the phase has run for `quiet_for`.
    pub fn quiet_for(phase: impl Into<String>, steps: usize, quiet_for: Duration) -> Progress {
        Progress {
            phase: phase.into(),
            steps,
            started: Instant::now(),
            quiet_for,
        }
    }

    /// Step `index` (from 0), named `step`, is starting.
    pub fn step(&self, index: usize, step: impl Display) {
        if let Some(line) = self.line(self.started.elapsed(), index, step) {
            eprintln!("{line}");
        }
    }

    /// Something within the current step, `what`, has happened (no count).
    pub fn note(&self, what: impl Display) {
        if self.started.elapsed() >= self.quiet_for {
            eprintln!("{} {what}", self.phase);
        }
    }

    fn line(&self, elapsed: Duration, index: usize, step: impl Display) -> Option<String> {
        (elapsed >= self.quiet_for)
            .then(|| format!("{} {step} ({}/{})...", self.phase, index + 1, self.steps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_announced_only_once_the_phase_is_long() {
        let p = Progress::new("loggp: bandwidth", 20);
        assert_eq!(p.line(Duration::from_millis(100), 6, "16 KiB"), None);
        assert_eq!(
            p.line(QUIET_FOR, 6, "16 KiB").as_deref(),
            Some("loggp: bandwidth 16 KiB (7/20)...")
        );
    }
}
