//! Credits owed to requesters whose handlers did not reply. AM-II answers every request
//! (its credit must come back), but a handler that does not reply leaves nothing to carry
//! it: such answers are coalesced, one per run of requests from the same requester, and
//! sent at the end of the poll (or before the next answer to anyone, to keep order).

/// Runs of owed credits, in the order their requests arrived. `K` names where a credit
/// goes back: a requester and its credit slot over shared memory, a peer on the network.
#[derive(Debug)]
pub(crate) struct AckRuns<K> {
    runs: Vec<(K, u32)>,
    /// The storage of the last runs taken, given back to be reused: a poll that owes
    /// credits allocates nothing.
    spare: Vec<(K, u32)>,
}

impl<K> Default for AckRuns<K> {
    fn default() -> Self {
        AckRuns {
            runs: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl<K: PartialEq + Copy> AckRuns<K> {
    /// Owes `to` one more credit; extends the last run if it goes to the same place.
    #[inline]
    pub fn owe(&mut self, to: K) {
        match self.runs.last_mut() {
            Some((last, count)) if *last == to => *count += 1,
            _ => self.runs.push((to, 1)),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Takes every run, oldest first, leaving none owed. Hand the list back with
    /// [`AckRuns::give_back`] once its answers are sent.
    pub fn take(&mut self) -> Vec<(K, u32)> {
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
}
