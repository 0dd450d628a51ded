//! The state the message handlers and the blocking calls share (one process, one thread).

use crate::protocol::RpcFn;
use std::cell::RefCell;
use std::collections::HashMap;

/// The lane of the `Gas`'s own puts and gets (threads of a `SharedGas` have lanes from 1).
pub(crate) const OWN_LANE: u32 = 0;

/// A collective message being assembled from its chunks.
pub(crate) struct Partial {
    pub data: Vec<u8>,
    pub got: usize,
}

/// Where a collective message is filed: its group's key, the call's sequence number in
/// that group, and the sending rank.
pub(crate) type MailKey = (u64, u32, u32);

/// An answer to a posted remote procedure call kept for its settle (`posted.rs`): the
/// answering rank, the status, the bytes.
pub(crate) type Answer = (u32, u32, Vec<u8>);

/// A reply to a read, an atomic or a remote procedure call: a status and its bytes.
pub(crate) type Reply = (u32, Vec<u8>);

#[derive(Default)]
pub(crate) struct Shared {
    /// Replies by request number.
    pub replies: RefCell<HashMap<u32, Reply>>,
    /// Puts and gets of this rank not yet complete, by lane: the thread that started them
    /// (`SharedGas`); lane 0 is the `Gas`'s own.
    pub pending: RefCell<Vec<usize>>,
    /// Collective messages by (group key, sequence number, source rank).
    pub mailbox: RefCell<HashMap<MailKey, Partial>>,
    /// The first message that came back undelivered, or that arrived and could not run;
    /// the rank's next wait ends with it.
    pub failure: RefCell<Option<String>>,
    pub rpcs: RefCell<Vec<RpcFn>>,
    /// Posted remote procedure calls not yet answered, by target rank (`posted.rs`).
    pub posted: RefCell<Vec<u64>>,
    /// The answers of posted calls kept for their settle: failures and non-empty results.
    pub posted_answers: RefCell<Vec<Answer>>,
}

impl Shared {
    /// Records why a message failed, unless an earlier failure is still unreported.
    pub fn fail(&self, why: impl FnOnce() -> String) {
        let mut failure = self.failure.borrow_mut();
        if failure.is_none() {
            *failure = Some(why());
        }
    }

    /// A put or get of `lane` left.
    pub fn started(&self, lane: u32) {
        let mut pending = self.pending.borrow_mut();
        let lane = lane as usize;
        if pending.len() <= lane {
            pending.resize(lane + 1, 0);
        }
        pending[lane] += 1;
    }

    /// A put or get of `lane` completed (or never left).
    pub fn completed(&self, lane: u32) {
        if let Some(n) = self.pending.borrow_mut().get_mut(lane as usize) {
            *n = n.saturating_sub(1);
        }
    }

    /// The puts and gets of `lane` not yet complete.
    pub fn outstanding(&self, lane: u32) -> usize {
        self.pending
            .borrow()
            .get(lane as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Counts `delta` (1 or -1) posted calls to `rank`; the count never goes below zero
    /// (an answer nothing posted, from a confused peer, changes nothing).
    pub fn posted_to(&self, rank: u32, delta: i64) {
        let mut posted = self.posted.borrow_mut();
        let rank = rank as usize;
        if posted.len() <= rank {
            posted.resize(rank + 1, 0);
        }
        posted[rank] = posted[rank].saturating_add_signed(delta);
    }

    /// Posted calls not yet answered, to `rank` or to any rank when `None`.
    pub fn posted_outstanding(&self, rank: Option<u32>) -> u64 {
        let posted = self.posted.borrow();
        match rank {
            Some(r) => posted.get(r as usize).copied().unwrap_or(0),
            None => posted.iter().sum(),
        }
    }

    /// Files one chunk of a collective message.
    pub fn deposit(&self, key: MailKey, total: usize, at: usize, chunk: &[u8]) {
        let mut mailbox = self.mailbox.borrow_mut();
        let entry = mailbox.entry(key).or_insert_with(|| Partial {
            data: vec![0; total],
            got: 0,
        });
        if let Some(dst) = at
            .checked_add(chunk.len())
            .and_then(|end| entry.data.get_mut(at..end))
        {
            dst.copy_from_slice(chunk);
            entry.got += chunk.len();
        }
    }

    /// The whole message `key` if every chunk has come.
    pub fn take_complete(&self, key: MailKey) -> Option<Vec<u8>> {
        let mut mailbox = self.mailbox.borrow_mut();
        let done = mailbox.get(&key).is_some_and(|p| p.got == p.data.len());
        done.then(|| mailbox.remove(&key).map(|p| p.data)).flatten()
    }
}

/// Splits a 64-bit value into two message arguments, and joins them again.
pub(crate) fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

pub(crate) fn join(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}
