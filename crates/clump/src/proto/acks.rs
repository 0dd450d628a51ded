//! Credits owed to requesters whose handlers did not reply. AM-II answers every request
//! (its credit must come back), but a handler that does not reply leaves nothing to carry
//! it: such answers are coalesced, one per run of requests from the same requester, and
//! sent by the first poll that finds the queue empty, or once half a window is owed (or
//! before the next answer to anyone, to keep order).

/// Runs of owed credits, in the order their requests arrived. `K` names where a credit
/// goes back: a requester and its credit slot over shared memory, a peer on the network.
#[derive(Debug)]
pub(crate) struct AckRuns<K> {
    runs: Vec<(K, u32)>,
    /// The storage of the last runs taken, given back to be reused: a poll that owes
    /// credits allocates nothing.
    spare: Vec<(K, u32)>,
    /// Credits owed over all runs.
    owed: usize,
}

impl<K> Default for AckRuns<K> {
    fn default() -> Self {
        AckRuns {
            runs: Vec::new(),
            spare: Vec::new(),
            owed: 0,
        }
    }
}

impl<K: PartialEq + Copy> AckRuns<K> {
    /// Owes `to` one more credit; extends the last run if it goes to the same place.
    #[inline]
    pub fn owe(&mut self, to: K) {
        self.owed += 1;
        match self.runs.last_mut() {
            Some((last, count)) if *last == to => *count += 1,
            _ => self.runs.push((to, 1)),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Whether the credits owed go back now: after a poll that ran no request (`ran`
    /// is 0: the requesters are waiting, not sending), or once half of a requester's
    /// `window` is owed (a requester streaming on never waits for them).
    #[inline]
    pub fn due(&self, ran: usize, window: usize) -> bool {
        !self.is_empty() && (ran == 0 || self.half_window_owed(window))
    }

    /// Whether half of a requester's `window` is owed (a window of one or two never
    /// waits): credits that must go at once, whatever else would hold them.
    #[inline]
    pub fn half_window_owed(&self, window: usize) -> bool {
        2 * self.owed >= window
    }

    /// Takes every run, oldest first, leaving none owed. Hand the list back with
    /// [`AckRuns::give_back`] once its answers are sent.
    pub fn take(&mut self) -> Vec<(K, u32)> {
        self.owed = 0;
        std::mem::replace(&mut self.runs, std::mem::take(&mut self.spare))
    }

    /// Returns the storage of a list [`AckRuns::take`] gave out, for the next runs.
    pub fn give_back(&mut self, mut taken: Vec<(K, u32)>) {
        taken.clear();
        if taken.capacity() > self.spare.capacity() {
            self.spare = taken;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AckRuns;

    #[test]
    fn runs_from_one_requester_coalesce_and_keep_their_order() {
        let mut acks = AckRuns::default();
        for to in [1, 1, 1, 2, 1, 1] {
            acks.owe(to);
        }
        let taken = acks.take();
        assert_eq!(taken, vec![(1, 3), (2, 1), (1, 2)]);
        assert!(acks.is_empty(), "taking leaves nothing owed");
        acks.give_back(taken);
        acks.owe(5);
        assert_eq!(acks.take(), vec![(5, 1)], "storage given back is reused empty");
    }

    #[test]
    fn half_a_window_owed_goes_at_once() {
        let owing = |n| {
            let mut acks = AckRuns::default();
            (0..n).for_each(|_| acks.owe(1));
            acks
        };
        assert!(!owing(7).half_window_owed(16));
        assert!(owing(8).half_window_owed(16));
        assert!(owing(1).half_window_owed(2), "a window of two never waits");
        assert!(owing(1).half_window_owed(1));
    }

    #[test]
    fn credits_go_back_when_the_queue_runs_dry_or_half_a_window_is_owed() {
        let mut acks = AckRuns::default();
        assert!(!acks.due(0, 16), "nothing owed");
        acks.owe(1);
        assert!(!acks.due(1, 16), "a poll that ran requests keeps a few");
        assert!(acks.due(0, 16), "an empty queue sends them");
        for to in [2; 6] {
            acks.owe(to);
        }
        assert!(!acks.due(3, 16));
        acks.owe(2);
        assert!(acks.due(3, 16), "half of 16 owed");
        acks.take();
        assert!(!acks.due(0, 16), "taking leaves nothing owed");
        acks.owe(1);
        assert!(acks.due(1, 1), "a window of one never waits");
    }
}
