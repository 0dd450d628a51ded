//! Waiting with nothing to do: the one back-off every spin/yield wait of every layer uses.
//! A wait spins a while (a message due soon is noticed within a poll), then lets the core
//! go (the caller yields, or blocks in an event wait where it has one).
//!
//! How long to spin follows from two costs measured on the shared 2-core machines clump
//! is developed on: a shared-memory round trip takes about 0.13 µs, waking a process that
//! sleeps about 70 µs (far more when the machine is loaded). A process with a core of its
//! own ([`spin_budget`]) therefore spins for [`OWN_CORE_SPIN`], long enough for the gaps
//! between the messages of a collective or a rendezvous (thousands of round trips) and
//! short enough that a wait for a slow peer costs little CPU, as vendor MPIs do; a process
//! that shares its core with the peers it waits for spins only [`SPIN_ROUNDS`] rounds,
//! since every round it spins delays them. Pure logic apart from the clock and the final
//! spin or yield: the caller polls.

use std::time::{Duration, Instant};

/// Rounds a wait spins without reading the clock: most waits end within them, and a wait
/// that never gets that far pays for no clock.
pub const SPIN_ROUNDS: u32 = 16;
/// Rounds between two looks at the clock while the spin budget lasts (a look costs about
/// as much as an empty poll, and delays noticing a message that arrives meanwhile).
const CLOCK_EVERY: u32 = 16;
/// How long a process with a core of its own spins before it lets the core go: about 30
/// wake-ups' worth of polling (see the module's comment).
pub const OWN_CORE_SPIN: Duration = Duration::from_millis(2);

/// What a waiter does after a round that found nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pause {
    /// Look again soon (a spin-loop hint, or nothing, between looks).
    Spin,
    /// Give the core up: yield, or block until a message comes.
    LetGo,
}

/// One wait's back-off: [`Backoff::idle_round`] after each round that found nothing,
/// [`Backoff::reset`] after one that found something.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    rounds: u32,
    /// When the first look at the clock was taken.
    since: Option<Instant>,
    budget: Duration,
    /// The budget is spent: every further idle round lets go.
    spent: bool,
}

impl Backoff {
    /// A wait that spins for `budget` (after its first [`SPIN_ROUNDS`] rounds) before it
    /// lets the core go.
    pub const fn new(budget: Duration) -> Backoff {
        Backoff {
            rounds: 0,
            since: None,
            budget,
            spent: false,
        }
    }

    /// A wait of a process among `processes_here` of its job on this machine.
    pub fn for_host(processes_here: u32) -> Backoff {
        Backoff::new(spin_budget(processes_here, cores()))
    }

    /// A round found something: the next idle round starts a fresh spin.
    #[inline]
    pub fn reset(&mut self) {
        *self = Backoff::new(self.budget);
    }

    /// A round found nothing: what to do before the next.
    #[inline]
    pub fn idle_round(&mut self) -> Pause {
        if self.spent {
            return Pause::LetGo;
        }
        self.rounds = self.rounds.wrapping_add(1);
        if self.rounds < SPIN_ROUNDS || !self.rounds.is_multiple_of(CLOCK_EVERY) {
            return Pause::Spin;
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        if since.elapsed() < self.budget {
            return Pause::Spin;
        }
        self.spent = true;
        Pause::LetGo
    }

    /// [`Backoff::idle_round`], carried out: a spin-loop hint or a yield; in a process
    /// whose faces are shared by threads, when another thread waits for its lock, a pause
    /// of it (`serial::pause`, which yields), so that the other thread's call runs while
    /// this one waits. Says which it was, for a waiter that polls more often once it lets
    /// the core go.
    #[inline]
    pub fn snooze(&mut self) -> Pause {
        if crate::serial::pause() {
            return Pause::LetGo;
        }
        let pause = self.idle_round();
        match pause {
            Pause::Spin => std::hint::spin_loop(),
            Pause::LetGo => std::thread::yield_now(),
        }
        pause
    }
}

/// How long a waiting process spins before it lets its core go: [`OWN_CORE_SPIN`] when the
/// `processes_here` of its job on this machine have a core each of its `cores`, nothing
/// past the first rounds when they share (a thousand ranks on 2 cores).
pub fn spin_budget(processes_here: u32, cores: u32) -> Duration {
    if processes_here <= cores.max(1) {
        OWN_CORE_SPIN
    } else {
        Duration::ZERO
    }
}

/// The cores this process may run on, as first asked (binding to one core later does not
/// make the machine's other cores busy).
pub fn cores() -> u32 {
    static CORES: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(b: &mut Backoff, n: usize) -> Vec<Pause> {
        (0..n).map(|_| b.idle_round()).collect()
    }

    #[test]
    fn a_process_sharing_its_core_lets_go_after_the_first_rounds_and_then_every_round() {
        let mut b = Backoff::for_host(1024);
        let got = rounds(&mut b, 2 * SPIN_ROUNDS as usize);
        let first = got.iter().position(|&p| p == Pause::LetGo);
        assert_eq!(first, Some(SPIN_ROUNDS as usize - 1));
        assert!(got[first.unwrap()..].iter().all(|&p| p == Pause::LetGo));
        // A round that found something starts the spin again.
        b.reset();
        assert_eq!(rounds(&mut b, 3), [Pause::Spin; 3]);
    }

    #[test]
    fn a_process_with_a_core_of_its_own_spins_for_its_budget() {
        let mut b = Backoff::new(Duration::from_millis(30));
        let start = Instant::now();
        while b.idle_round() == Pause::Spin {
            assert!(start.elapsed() < Duration::from_secs(10), "never let go");
        }
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert_eq!(b.idle_round(), Pause::LetGo);
        for (here, cores, budget) in [(2, 2, OWN_CORE_SPIN), (1, 0, OWN_CORE_SPIN), (3, 2, Duration::ZERO)] {
            assert_eq!(spin_budget(here, cores), budget, "{here} on {cores}");
        }
    }
}
