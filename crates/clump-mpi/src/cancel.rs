//! `MPI_Cancel` of a send. A send is cancelled where its message waits: the sender asks the
//! receiver to withdraw the message (by its sender, context and sequence number) from the
//! unexpected queue; the receiver answers whether it did. A message that has matched a
//! receive, or is not there to withdraw, is not cancelled, and the send completes as usual
//! (the standard lets a cancel fail).
//!
//! An eager send completes as it starts and keeps no request; a non-blocking one is named
//! by a logged id instead, so that a cancel can still find its message.

use std::collections::VecDeque;

use crate::engine::{Engine, Req, ReqKind};
use crate::error::Result;
use crate::runtime::{arg, split, wide, Runtime, H_CANCEL, H_CANCELLED};

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
pub fn is_logged(id: u64) -> bool {
    (LOGGED..u64::MAX - 2).contains(&id)
}

impl SentLog {
    /// Logs `sent` and returns its id.
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

impl Engine {
    /// Marks send `id` for cancellation: the message to ask the receiver to withdraw, or
    /// `None` when there is nothing to ask (complete, already asked, not a send).
    fn ask_cancel(&mut self, id: u64) -> Option<Sent> {
        match self.reqs.get_mut(id) {
            Some(Req {
                kind:
                    ReqKind::Send {
                        dest,
                        msg: (ctx, seq),
                        parts,
                        cancel_asked,
                        ..
                    },
                done: false,
                ..
            }) if !*cancel_asked => {
                *cancel_asked = true;
                // The answer is one more part of the transfer to wait for.
                *parts += 1;
                Some(Sent {
                    dest: *dest,
                    ctx: *ctx,
                    seq: *seq,
                })
            }
            _ => None,
        }
    }

    /// The receiver's answer to the cancel of send `id`.
    pub fn cancel_answer(&mut self, id: u64, cancelled: bool) {
        if !cancelled {
            return self.complete(id);
        }
        if let Some(r) = self.reqs.get_mut(id) {
            r.status.cancelled = true;
            r.done = true;
        }
    }
}

impl Runtime {
    /// Cancels send `id` (a request's or a logged id); returns the id the request goes on
    /// under (a logged send gets a request that completes with the receiver's answer), or
    /// `None` when there is nothing to cancel.
    pub(crate) fn cancel_send(&self, id: u64) -> Result<Option<u64>> {
        let (id, sent) = {
            let mut e = self.engine.borrow_mut();
            if is_logged(id) {
                let Some(sent) = e.sent_log.take(id) else {
                    return Ok(None);
                };
                let id = e.add_req(ReqKind::Send {
                    buf: std::ptr::null(),
                    len: 0,
                    dest: sent.dest,
                    owned: Vec::new(),
                    ahead: 0,
                    parts: 1,
                    msg: (sent.ctx, sent.seq),
                    cancel_asked: true,
                });
                (id, sent)
            } else {
                match e.ask_cancel(id) {
                    Some(sent) => (id, sent),
                    None => return Ok(None),
                }
            }
        };
        let [i0, i1] = split(id);
        let args = [self.me, sent.ctx, sent.seq, i0, i1];
        self.spmd
            .borrow()
            .ep
            .request(sent.dest, H_CANCEL as u8, &args)?;
        Ok(Some(id))
    }
}

/// The handlers of a send's cancel: the receiver's withdrawal, and the sender's answer.
pub(crate) fn handlers(
    ep: &clump::Endpoint,
    engine: &std::rc::Rc<std::cell::RefCell<Engine>>,
) -> Result<()> {
    let e = engine.clone();
    ep.set_handler(H_CANCEL, move |t, m| {
        let mut e = e.borrow_mut();
        if m.args.len() < 5 {
            return e.malformed("a cancel with too few arguments");
        }
        let done = e.withdraw(arg(m.args, 0), arg(m.args, 1), arg(m.args, 2));
        let [i0, i1] = split(wide(m.args, 3));
        if let Err(err) = t.reply(H_CANCELLED as u8, &[i0, i1, done as u32]) {
            e.fault.get_or_insert(err.into());
        }
    })?;
    let e = engine.clone();
    ep.set_handler(H_CANCELLED, move |_t, m| {
        e.borrow_mut()
            .cancel_answer(wide(m.args, 0), arg(m.args, 2) != 0)
    })?;
    Ok(())
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
