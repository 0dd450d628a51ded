//! Every message MPI sends goes through [`Runtime::emit`]. clump lets a destination have at
//! most `CLUMP_CREDITS` requests in flight and a send past them waits in the core, which
//! would make `MPI_Isend` block while its receiver computes or sleeps. So a message that
//! finds no credit is queued (`send_queue.rs`; a send's request stays incomplete until it
//! has left), and once a destination has a queue every later message to it (eager,
//! rendezvous control and data, cancels, blocking sends) goes behind it, so messages of
//! one sender never overtake each other. MPI's progress sends what waits, in order, as
//! credits come back.

use crate::error::Result;
use crate::runtime::{bytes_at, Runtime};
use crate::send_queue::Queued;

impl Runtime {
    /// Sends request `args` (with `payload`, a medium one) to job rank `dest` now if it
    /// has credit and nothing waits for it; else queues it behind what waits. True when
    /// it left now; when it did not, [`Runtime::finish_when_sent`] names the request it
    /// completes.
    ///
    /// # Safety
    /// `payload` must stay valid until the message has left: until the request it is to
    /// complete does, or (a request to send's first bytes) until the rendezvous it starts
    /// does, which cannot happen before.
    #[inline]
    pub(crate) unsafe fn emit(
        &self,
        dest: u32,
        handler: usize,
        args: &[u32],
        payload: Option<&[u8]>,
    ) -> Result<bool> {
        let handler = handler as u8;
        if !self.sendq.has(dest) && self.try_send(dest, handler, args, payload)? {
            return Ok(true);
        }
        // SAFETY: this function's contract.
        unsafe { self.emit_later(dest, handler, args, payload) }
    }

    /// [`Runtime::emit`] of a message that did not leave at once (out of line: the common
    /// case stays short).
    ///
    /// # Safety
    /// As [`Runtime::emit`].
    #[inline(never)]
    unsafe fn emit_later(
        &self,
        dest: u32,
        handler: u8,
        args: &[u32],
        payload: Option<&[u8]>,
    ) -> Result<bool> {
        // No credit, or messages wait before this one: credits may have come back since
        // the last poll. One poll (what a send waiting in clump did, but once: it never
        // waits), then what waits for `dest` goes first.
        self.spmd.borrow().bundle.poll()?;
        self.drain(dest)?;
        if !self.sendq.has(dest) && self.try_send(dest, handler, args, payload)? {
            return Ok(true);
        }
        let mut words = [0u32; clump::MAX_ARGS];
        let nargs = args.len().min(clump::MAX_ARGS);
        words[..nargs].copy_from_slice(&args[..nargs]);
        let q = Queued {
            handler,
            nargs: nargs as u8,
            args: words,
            payload: payload.map(|p| (p.as_ptr(), p.len())),
            finish: None,
        };
        self.sendq.push(dest, q);
        Ok(false)
    }

    /// Sends a short request as [`Runtime::emit`] does (it has no payload to keep valid).
    #[inline]
    pub(crate) fn emit_short(&self, dest: u32, handler: usize, args: &[u32]) -> Result<bool> {
        // SAFETY: no payload.
        unsafe { self.emit(dest, handler, args, None) }
    }

    /// The message last queued to `dest` completes request `id` once it has left.
    pub(crate) fn finish_when_sent(&self, dest: u32, id: u64) {
        self.sendq.finish_last_with(dest, id);
    }

    /// Sends the queued messages, in order per destination, as far as credits allow; true
    /// when any left.
    pub(crate) fn send_queued(&self) -> Result<bool> {
        if self.sendq.is_empty() {
            return Ok(false);
        }
        let mut any = false;
        // By index, without a copy of the list: nothing run from here queues a message.
        for i in 0.. {
            let Some(dest) = self.sendq.waiting_at(i) else {
                break;
            };
            any |= self.drain(dest)?;
        }
        self.sendq.settle();
        Ok(any)
    }

    /// Sends the messages queued to `dest`, in order, as far as credits allow; true when
    /// any left.
    fn drain(&self, dest: u32) -> Result<bool> {
        let mut any = false;
        while let Some(q) = self.sendq.front(dest) {
            // SAFETY: `emit`'s contract keeps a queued payload valid until it has left.
            let payload = q.payload.map(|(p, len)| unsafe { bytes_at(p, len) });
            let sent = self.try_send(dest, q.handler, &q.args[..q.nargs as usize], payload);
            if matches!(sent, Ok(false)) {
                break;
            }
            // Sent, or failed for good: the error goes to the caller, not again, and the
            // request this message was to complete completes in error.
            self.sendq.pop(dest);
            if let (Err(e), Some(id)) = (&sent, q.finish) {
                self.fail(id, e.class);
            }
            sent?;
            any = true;
            if let Some(id) = q.finish {
                self.finish(id);
            }
        }
        Ok(any)
    }

    /// Sends one message unless it would wait for credit.
    #[inline]
    fn try_send(
        &self,
        dest: u32,
        handler: u8,
        args: &[u32],
        payload: Option<&[u8]>,
    ) -> Result<bool> {
        let spmd = self.spmd.borrow();
        Ok(match payload {
            None => spmd.ep.try_request(dest, handler, args)?,
            Some(p) => spmd.ep.try_request_medium(dest, handler, args, p)?,
        })
    }
}
