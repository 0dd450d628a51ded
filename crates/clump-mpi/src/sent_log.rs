//! The log of eager non-blocking sends: such a send completes as it starts and keeps no
//! request, so the program holds a logged id instead, by which a cancel
//! ([`crate::cancel`]) can still find the message it sent.

use std::collections::VecDeque;

/// Logged ids have the top bit set; the request table's ids never do.
const LOGGED: u64 = 1 << 63;
/// The eager sends a cancel can still reach (older ones fail to cancel).
const LOG_LEN: usize = 1024;

/// The message a send sent: its destination (job rank), context and sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub dest: u32,
    pub ctx: u32,
    pub seq: u32,
}

/// The last [`LOG_LEN`] eager non-blocking sends, by logged id.
#[derive(Default)]
pub struct SentLog {
    next: u64,
    entries: VecDeque<(u64, Sent)>,
}

/// Whether `id` names a logged eager send (complete, nothing held).
#[inline]
pub fn is_logged(id: u64) -> bool {
    (LOGGED..u64::MAX - 2).contains(&id)
}

impl SentLog {
    /// Logs `sent` and returns its id.
    #[inline]
    pub fn push(&mut self, sent: Sent) -> u64 {
        let id = LOGGED | (self.next % (LOGGED - 3));
        self.next = self.next.wrapping_add(1);
        if self.entries.len() == LOG_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back((id, sent));
        id
    }

    /// Takes logged send `id` out, if the log still holds it.
    pub fn take(&mut self, id: u64) -> Option<Sent> {
        let i = self.entries.iter().rposition(|(k, _)| *k == id)?;
        self.entries.remove(i).map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_latest_sends_under_ids_the_request_table_never_gives() {
        let mut log = SentLog::default();
        let s = |seq| Sent {
            dest: 1,
            ctx: 0,
            seq,
        };
        let first = log.push(s(0));
        assert!(is_logged(first));
        let ids: Vec<u64> = (1..=LOG_LEN as u32).map(|q| log.push(s(q))).collect();
        assert_eq!(log.take(first), None, "the oldest is gone");
        assert_eq!(log.take(ids[5]), Some(s(6)));
        assert_eq!(log.take(ids[5]), None, "taken once");
        for reserved in [0, u64::MAX, u64::MAX - 1, u64::MAX - 2, u32::MAX as u64] {
            assert!(!is_logged(reserved));
        }
    }
}
