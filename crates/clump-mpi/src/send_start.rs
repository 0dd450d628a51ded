//! How a point-to-point send leaves (`Runtime::start_send`): in the shortest eager form (the
//! envelope and a few bytes in a short request's arguments), as an eager message inline or
//! through a bulk buffer, or as a request to send that starts the rendezvous (with the
//! first bytes ahead in the hybrid protocol, or an offer to read the buffer in one copy).
//! Each goes through the send queue (`send_queue.rs`): an eager send that waits for credit
//! there gets a request, complete once its message has left.

use crate::engine::{ReqKind, SENT};
use crate::error::Result;
use crate::matching::Envelope;
use crate::runtime::{
    bytes_at, inline_args, split, Runtime, SendMode, H_EAGER, H_EAGER_INLINE, H_EAGER_SHORT, H_RTS,
    INLINE_MAX, RTS_ARGS,
};
use crate::short_eager;
use crate::single_copy;

/// How a message too long for the shortest form goes: decided once, from its mode, its
/// size and where its peer is.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Sent whole at once, complete once handed to clump.
    eager: bool,
    /// A rendezvous whose receiver, on this host, may read the buffer in one copy.
    offer: bool,
    /// Bytes sent with the request to send (the hybrid protocol).
    ahead: usize,
}

impl Runtime {
    /// Starts sending `len` bytes at `buf` to job rank `dest` in context `ctx`; a
    /// synchronous send always takes the rendezvous protocol. Returns the request's id
    /// ([`SENT`] for an eager send that has left) and the message's sequence number, which
    /// an eager `Isend` logs without looking it up again.
    ///
    /// # Safety
    /// `buf` must be valid for reads of `len` bytes until the returned request completes.
    #[inline]
    pub unsafe fn start_send(
        &self,
        buf: *const u8,
        len: usize,
        dest: u32,
        ctx: u32,
        tag: i32,
        mode: SendMode,
    ) -> Result<(u64, u32)> {
        // SAFETY: the caller keeps `buf` valid for `len` bytes.
        let data = unsafe { bytes_at(buf, len) };
        let env = Envelope {
            src: self.rank(),
            ctx,
            tag,
        };
        if let Some((seq, left)) = self.send_short_eager(env, data, dest, mode)? {
            return Ok((self.sent_or_waiting(left, buf, len, dest, (ctx, seq)), seq));
        }
        let plan = self.plan(len, dest, mode);
        let (id, seq) = self.number_send(buf, len, dest, ctx, plan)?;
        let head = [env.src, ctx, tag as u32, seq];
        if plan.eager {
            // SAFETY: the caller keeps `buf` valid until the request returned completes,
            // which for a message that waits is once it has left.
            let left = unsafe { self.send_eager(dest, head, data)? };
            return Ok((self.sent_or_waiting(left, buf, len, dest, (ctx, seq)), seq));
        }
        // SAFETY: as above, until rendezvous `id` completes.
        unsafe { self.send_rts(dest, head, id, buf, data, plan)? };
        Ok((id, seq))
    }

    /// An eager send's id: [`SENT`] when its message `msg` (context, sequence number) has
    /// left, else a request that completes once it has.
    #[inline]
    fn sent_or_waiting(
        &self,
        left: bool,
        buf: *const u8,
        len: usize,
        dest: u32,
        msg: (u32, u32),
    ) -> u64 {
        if left {
            return SENT;
        }
        let id = self.engine.borrow_mut().add_req(ReqKind::Send {
            buf,
            len,
            dest,
            owned: Vec::new(),
            ahead: 0,
            parts: 1,
            msg,
            cancel_asked: false,
        });
        self.finish_when_sent(dest, id);
        id
    }

    /// Sends the message in the shortest form if it fits (a standard send to this host,
    /// eager within the configured limit: `CLUMP_MPI_EAGER_SHM=0` sends all by
    /// rendezvous); returns its sequence number and whether it left (else it waits for
    /// credit), or `None` when it does not fit.
    #[inline(always)]
    fn send_short_eager(
        &self,
        env: Envelope,
        data: &[u8],
        dest: u32,
        mode: SendMode,
    ) -> Result<Option<(u32, bool)>> {
        let fits = mode == SendMode::Standard
            && self.is_local(dest)
            && data.len() <= short_eager::MAX
            && data.len() <= self.thresholds.eager_shm;
        let mut short = [0u32; 4];
        let Some(n) = fits
            .then(|| short_eager::encode(env, data, &mut short))
            .flatten()
        else {
            return Ok(None);
        };
        // The sender counts it, the receiver numbers it.
        let seq = self.engine.borrow_mut().next_seq(dest, env.ctx)?;
        let left = self.emit_short(dest, H_EAGER_SHORT, &short[..n])?;
        Ok(Some((seq, left)))
    }

    /// Eager or rendezvous, and for a rendezvous how it starts: a peer of this host may
    /// read it in one copy; others get its first bytes with the request to send and the
    /// rest in chunks.
    fn plan(&self, len: usize, dest: u32, mode: SendMode) -> Plan {
        let eager = mode == SendMode::Standard && len <= self.eager_limit(dest);
        let offer = !eager
            && self.single_copy.get()
            && self.is_local(dest)
            && single_copy::offered(len, self.split);
        let ahead = match eager || offer {
            true => 0,
            false => self.eager_limit(dest).min(len),
        };
        Plan {
            eager,
            offer,
            ahead,
        }
    }

    /// The message's sequence number, and for a rendezvous the request that follows it
    /// ([`SENT`] for an eager send: complete once handed to clump, no request to keep).
    fn number_send(
        &self,
        buf: *const u8,
        len: usize,
        dest: u32,
        ctx: u32,
        plan: Plan,
    ) -> Result<(u64, u32)> {
        let mut e = self.engine.borrow_mut();
        let seq = e.next_seq(dest, ctx)?;
        if plan.eager {
            return Ok((SENT, seq));
        }
        let id = e.add_req(ReqKind::Send {
            buf,
            len,
            dest,
            owned: Vec::new(),
            ahead: plan.ahead,
            parts: 1,
            msg: (ctx, seq),
            cancel_asked: false,
        });
        Ok((id, seq))
    }

    /// Sends a whole message after its `head` (source, context, tag, sequence number):
    /// in a short request's arguments up to [`INLINE_MAX`] bytes, else a medium request.
    /// Whether it left (else it waits for credit).
    ///
    /// # Safety
    /// `data` must stay valid until the message has left ([`Runtime::emit`]).
    unsafe fn send_eager(&self, dest: u32, head: [u32; 4], data: &[u8]) -> Result<bool> {
        if data.len() <= INLINE_MAX {
            let mut args = [0u32; clump::MAX_ARGS];
            let n = inline_args(head, data, &mut args);
            return self.emit_short(dest, H_EAGER_INLINE, &args[..n]);
        }
        let args = [head[0], head[1], head[2], head[3], data.len() as u32];
        // SAFETY: this function's contract.
        unsafe { self.emit(dest, H_EAGER, &args, Some(data)) }
    }

    /// Sends the request to send of rendezvous `id`: the length, the id, and with an
    /// offer this process and the buffer's address; `plan.ahead` first bytes with it.
    ///
    /// # Safety
    /// `data` must stay valid until rendezvous `id` completes.
    unsafe fn send_rts(
        &self,
        dest: u32,
        head: [u32; 4],
        id: u64,
        buf: *const u8,
        data: &[u8],
        plan: Plan,
    ) -> Result<()> {
        let [l0, l1] = split(data.len() as u64);
        let [s0, s1] = split(id);
        let [a0, a1] = split(buf as u64);
        let args = [
            head[0], head[1], head[2], head[3], l0, l1, s0, s1, self.pid, a0, a1,
        ];
        let args = if plan.offer {
            &args[..]
        } else {
            &args[..RTS_ARGS]
        };
        // With no bytes ahead, no bulk block to claim at the receiver.
        if plan.ahead == 0 {
            self.emit_short(dest, H_RTS, args)?;
        } else {
            // SAFETY: the rendezvous cannot complete before its request to send has left,
            // and this function's contract keeps `data` valid until it does.
            unsafe { self.emit(dest, H_RTS, args, Some(&data[..plan.ahead]))? };
        }
        Ok(())
    }
}
