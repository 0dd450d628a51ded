//! `MPI_Cancel` of a send. A send is cancelled where its message waits: the sender asks the
//! receiver to withdraw the message (by its sender, context and sequence number) from the
//! unexpected queue; the receiver answers whether it did. A message that has matched a
//! receive, or is not there to withdraw, is not cancelled, and the send completes as usual
//! (the standard lets a cancel fail).
//!
//! An eager send completes as it starts and keeps no request; a non-blocking one is named
//! by a logged id instead ([`crate::sent_log`]), so that a cancel can still find its message.

use crate::engine::{Engine, Req, ReqKind};
use crate::error::Result;
use crate::runtime::{arg, split, wide, Runtime, H_CANCEL, H_CANCELLED};
use crate::sent_log::{is_logged, Sent};

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
        self.emit_short(sent.dest, H_CANCEL, &args)?;
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
