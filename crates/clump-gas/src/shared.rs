//! The state the message handlers and the blocking calls share (one process, one thread).

use crate::rpc::RpcFn;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A collective message being assembled from its chunks.
pub(crate) struct Partial {
    pub data: Vec<u8>,
    pub got: usize,
}

/// A reply to a read, an atomic or a remote procedure call: a status and its bytes.
pub(crate) type Reply = (u32, Vec<u8>);

#[derive(Default)]
pub(crate) struct Shared {
    /// Replies by request number.
    pub replies: RefCell<HashMap<u32, Reply>>,
    /// Puts and gets of this rank not yet complete.
    pub pending: Cell<usize>,
    /// Collective messages by (sequence number, source rank).
    pub mailbox: RefCell<HashMap<(u32, u32), Partial>>,
    /// The first message that came back undelivered.
    pub failure: RefCell<Option<String>>,
    pub rpcs: RefCell<Vec<RpcFn>>,
}

impl Shared {
    /// Files one chunk of a collective message.
    pub fn deposit(&self, seq: u32, src: u32, total: usize, at: usize, chunk: &[u8]) {
        let mut mailbox = self.mailbox.borrow_mut();
        let entry = mailbox.entry((seq, src)).or_insert_with(|| Partial {
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

    /// The whole message (seq, src) if every chunk has come.
    pub fn take_complete(&self, seq: u32, src: u32) -> Option<Vec<u8>> {
        let mut mailbox = self.mailbox.borrow_mut();
        let done = mailbox
            .get(&(seq, src))
            .is_some_and(|p| p.got == p.data.len());
        done.then(|| mailbox.remove(&(seq, src)).map(|p| p.data))
            .flatten()
    }
}

/// Splits a 64-bit value into two message arguments, and joins them again.
pub(crate) fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

pub(crate) fn join(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}
