//! Messages that wait for credit: MPI's per-destination send queue, which `emit.rs` fills
//! and drains (why MPI has one is said there).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// A message waiting for credit.
#[derive(Clone, Copy)]
pub(crate) struct Queued {
    pub handler: u8,
    pub nargs: u8,
    pub args: [u32; clump::MAX_ARGS],
    /// A medium message's payload, in a buffer that stays valid until the message has
    /// left (the contract of `Runtime::emit`).
    pub payload: Option<(*const u8, usize)>,
    /// The request that completes once this message has left.
    pub finish: Option<u64>,
}

/// The queues, by destination job rank, and which destinations have one.
#[derive(Default)]
pub(crate) struct SendQueue {
    queues: RefCell<Vec<VecDeque<Queued>>>,
    /// The destinations whose queue holds a message, in no order.
    waiting: RefCell<Vec<u32>>,
    /// Messages queued to every destination: the send path's one look while none are.
    len: Cell<usize>,
}

impl SendQueue {
    /// Whether no message waits.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len.get() == 0
    }

    /// Whether a message to `dest` waits.
    #[inline]
    pub(crate) fn has(&self, dest: u32) -> bool {
        !self.is_empty()
            && self
                .queues
                .borrow()
                .get(dest as usize)
                .is_some_and(|q| !q.is_empty())
    }

    pub(crate) fn push(&self, dest: u32, q: Queued) {
        let mut queues = self.queues.borrow_mut();
        let i = dest as usize;
        if queues.len() <= i {
            queues.resize_with(i + 1, VecDeque::new);
        }
        let mut waiting = self.waiting.borrow_mut();
        if !waiting.contains(&dest) {
            waiting.push(dest);
        }
        queues[i].push_back(q);
        self.len.set(self.len.get() + 1);
    }

    pub(crate) fn front(&self, dest: u32) -> Option<Queued> {
        self.queues
            .borrow()
            .get(dest as usize)
            .and_then(|q| q.front().copied())
    }

    /// Takes the message at the front of `dest`'s queue off.
    pub(crate) fn pop(&self, dest: u32) {
        if let Some(q) = self.queues.borrow_mut().get_mut(dest as usize) {
            if q.pop_front().is_some() {
                self.len.set(self.len.get() - 1);
            }
        }
    }

    /// The message last queued to `dest` completes request `id` once it has left.
    pub(crate) fn finish_last_with(&self, dest: u32, id: u64) {
        if let Some(q) =
            (self.queues.borrow_mut().get_mut(dest as usize)).and_then(|q| q.back_mut())
        {
            q.finish = Some(id);
        }
    }

    /// The `i`-th destination with a queue, if there are that many.
    pub(crate) fn waiting_at(&self, i: usize) -> Option<u32> {
        self.waiting.borrow().get(i).copied()
    }

    /// Forgets the destinations whose queue has emptied.
    pub(crate) fn settle(&self) {
        let queues = self.queues.borrow();
        self.waiting
            .borrow_mut()
            .retain(|&d| queues.get(d as usize).is_some_and(|q| !q.is_empty()));
    }
}
