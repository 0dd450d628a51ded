//! The adaptive network polling policy of paper 001, as pure logic.
//!
//! Shared-memory queues cost a cache-line read to poll; the network costs a system call.
//! So every poll looks at the shared-memory queues, and only one poll in `every_busy`
//! (busy network) to one in `every_idle` (idle network) also looks at the network. Where
//! the rate sits between the two follows the history of the last 32 network polls: the
//! more of them found messages, the more often the network is polled. A network poll
//! accepts more datagrams the rarer network polls are, so a rarely polled network still
//! drains its backlog.

/// Datagrams a network poll accepts when the network is polled at its busiest rate.
pub const BASE_BATCH: usize = 16;

/// When to poll the network. One per bundle; it reads no clock and does no I/O.
#[derive(Clone, Copy, Debug)]
pub struct NetPollPolicy {
    every_busy: u32,
    every_idle: u32,
    /// Bit i set: the network poll i polls ago found messages.
    history: u32,
    /// Polls from one network poll to the next, at present.
    interval: u32,
    /// Polls left before the next network poll.
    countdown: u32,
}

impl NetPollPolicy {
    /// A policy that starts as for an idle network. `every_busy <= every_idle`, both >= 1.
    pub fn new(every_busy: u32, every_idle: u32) -> NetPollPolicy {
        let every_idle = every_idle.max(1);
        let every_busy = every_busy.clamp(1, every_idle);
        NetPollPolicy {
            every_busy,
            every_idle,
            history: 0,
            interval: every_idle,
            countdown: 1,
        }
    }

    /// Called once per poll: whether this poll looks at the network.
    pub fn tick(&mut self) -> bool {
        if self.countdown <= 1 {
            self.countdown = self.interval;
            true
        } else {
            self.countdown -= 1;
            false
        }
    }

    /// Called after each network poll with whether it found any message.
    pub fn record(&mut self, found: bool) {
        self.history = (self.history << 1) | found as u32;
        let busy = self.history.count_ones();
        let span = self.every_idle - self.every_busy;
        self.interval = self.every_idle - span * busy / 32;
        self.countdown = self.countdown.min(self.interval);
    }

    /// Makes the next poll look at the network (a wait saw a datagram arrive).
    pub fn poll_next(&mut self) {
        self.countdown = 1;
    }

    /// Polls from one network poll to the next at present.
    pub fn interval(&self) -> u32 {
        self.interval
    }

    /// Datagrams the next network poll accepts: more when network polls are rarer.
    pub fn batch(&self) -> usize {
        BASE_BATCH * self.interval as usize / self.every_busy as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Network polls among the next `polls` polls.
    fn net_polls(p: &mut NetPollPolicy, polls: u32, found: bool) -> u32 {
        let mut n = 0;
        for _ in 0..polls {
            if p.tick() {
                n += 1;
                p.record(found);
            }
        }
        n
    }

    #[test]
    fn the_first_poll_looks_at_the_network_then_one_in_32_while_idle() {
        let mut p = NetPollPolicy::new(8, 32);
        assert!(p.tick());
        p.record(false);
        assert_eq!(p.interval(), 32);
        let looked: Vec<bool> = (0..64).map(|_| p.tick()).collect();
        assert_eq!(looked.iter().filter(|&&b| b).count(), 2);
        assert!(looked[31] && looked[63], "every 32nd poll");
    }

    #[test]
    fn a_busy_network_is_polled_one_in_8() {
        let mut p = NetPollPolicy::new(8, 32);
        net_polls(&mut p, 2000, true);
        assert_eq!(p.interval(), 8);
        assert_eq!(net_polls(&mut p, 800, true), 100);
    }

    #[test]
    fn the_rate_moves_with_the_history_of_the_last_32_network_polls() {
        let mut p = NetPollPolicy::new(8, 32);
        net_polls(&mut p, 4000, true);
        // Half of the last 32 found messages: halfway between the two rates.
        for i in 0..32 {
            p.record(i % 2 == 0);
        }
        assert_eq!(p.interval(), 20);
        // 32 idle network polls later the busy past is forgotten.
        for _ in 0..32 {
            p.record(false);
        }
        assert_eq!(p.interval(), 32);
        // Each busy poll among the last 32 shortens the interval by (32-8)/32 polls,
        // rounded down: one alone does not, four make it 29.
        p.record(true);
        assert_eq!(p.interval(), 32);
        for _ in 0..3 {
            p.record(true);
        }
        assert_eq!(p.interval(), 29);
    }

    #[test]
    fn a_network_poll_accepts_more_when_polls_are_rarer() {
        let mut p = NetPollPolicy::new(8, 32);
        assert_eq!(p.batch(), BASE_BATCH * 4);
        net_polls(&mut p, 2000, true);
        assert_eq!(p.batch(), BASE_BATCH);
    }

    #[test]
    fn a_shorter_interval_takes_effect_at_once_and_poll_next_forces_one() {
        let mut p = NetPollPolicy::new(8, 32);
        assert!(p.tick());
        p.record(false);
        assert!(!p.tick());
        p.poll_next();
        assert!(p.tick());
        p.record(true);
        // The countdown never exceeds the new interval.
        let next = (1..=32).find(|_| p.tick()).unwrap();
        assert!(next <= p.interval() as usize, "{next} > {}", p.interval());
    }

    #[test]
    fn degenerate_constants_are_clamped() {
        let mut p = NetPollPolicy::new(0, 0);
        assert!((0..10).all(|_| {
            let t = p.tick();
            p.record(false);
            t
        }));
        let p = NetPollPolicy::new(64, 32);
        assert_eq!(p.batch(), BASE_BATCH);
    }
}
