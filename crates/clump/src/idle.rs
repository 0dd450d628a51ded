//! When a program that polls in a loop should give up its core: a process that finds no
//! message poll after poll, in a job with more processes on this machine than cores,
//! spins on a core that the peer it waits for needs (a thousand ranks on 2 cores). Then
//! every run of empty polls ends in a yield. Pure logic: the caller polls and yields.

/// Empty polls in a row after which an oversubscribed process yields.
pub const EMPTY_POLLS_BEFORE_YIELD: u32 = 64;

/// Counts a loop's empty polls. One per polling thread.
#[derive(Clone, Copy, Debug)]
pub struct IdlePolls {
    empty: u32,
    /// 0: never yield (a core for every process).
    yield_after: u32,
}

impl IdlePolls {
    /// For a process among `processes_here` of its job on this machine of `cores` cores.
    pub fn new(processes_here: u32, cores: u32) -> IdlePolls {
        let oversubscribed = processes_here > cores.max(1);
        IdlePolls {
            empty: 0,
            yield_after: if oversubscribed {
                EMPTY_POLLS_BEFORE_YIELD
            } else {
                0
            },
        }
    }

    /// Called after each poll with the messages it handled: whether to yield now.
    #[inline]
    pub fn after_poll(&mut self, handled: usize) -> bool {
        if handled > 0 || self.yield_after == 0 {
            self.empty = 0;
            return false;
        }
        self.empty += 1;
        if self.empty < self.yield_after {
            return false;
        }
        self.empty = 0;
        true
    }
}

/// The cores this process may run on.
pub fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yields(p: &mut IdlePolls, handled: &[usize]) -> Vec<bool> {
        handled.iter().map(|&h| p.after_poll(h)).collect()
    }

    #[test]
    fn an_oversubscribed_process_yields_after_each_run_of_empty_polls() {
        let mut p = IdlePolls::new(1024, 2);
        let n = EMPTY_POLLS_BEFORE_YIELD as usize;
        let empty = yields(&mut p, &vec![0; 2 * n]);
        let at: Vec<usize> = (0..2 * n).filter(|&i| empty[i]).collect();
        assert_eq!(at, [n - 1, 2 * n - 1]);
        // A message starts the count again.
        assert_eq!(yields(&mut p, &vec![0; n - 1]), vec![false; n - 1]);
        assert!(!p.after_poll(3));
        assert_eq!(yields(&mut p, &vec![0; n - 1]), vec![false; n - 1]);
        assert!(p.after_poll(0));
    }

    #[test]
    fn a_process_with_a_core_of_its_own_never_yields() {
        for (here, cores) in [(2, 2), (1, 64), (4, 0)] {
            let mut p = IdlePolls::new(here, cores);
            let polls = 10 * EMPTY_POLLS_BEFORE_YIELD as usize;
            let got = yields(&mut p, &vec![0; polls]);
            let expect_any = here > cores.max(1);
            assert_eq!(got.iter().any(|&y| y), expect_any, "{here} on {cores}");
        }
    }
}
