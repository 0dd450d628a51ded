//! Moving a rendezvous message's bytes once it has matched: clear to send and the chunks
//! that answer it, and the single-copy path between processes of one host (the receiver's
//! read, the sender's write of its part, and what each falls back to when the kernel
//! refuses). The handlers in `runtime` record what arrived; these run from `progress`,
//! except the sender's write, which its handler serves at once.

use std::cell::Cell;

use crate::engine::{Action, Engine, ReqKind};
use crate::error::{Error, ErrorClass, Result};
use crate::runtime::{arg, bytes_at, split, wide, Runtime, CHUNK, H_CTS, H_DATA, H_PUSH};
use crate::single_copy::{self, Source, Way};

/// The buffer and destination of send `send_id`, once its message bytes `from..to` (as a
/// peer named them) are checked to lie within it.
fn send_range(e: &Engine, send_id: u64, from: usize, to: usize) -> Result<(*const u8, u32)> {
    match e.reqs.get(send_id).map(|r| &r.kind) {
        Some(ReqKind::Send { buf, len, dest, .. }) if from <= to && to <= *len => Ok((*buf, *dest)),
        _ => Err(Error::new(
            ErrorClass::Intern,
            format!("a peer asked for bytes {from}..{to} of unknown send {send_id}"),
        )),
    }
}

/// Serves a request to write (`args`: send, receive, message bytes `from..to`, the
/// receiver's pid and buffer): writes those bytes of the send straight into the receiver's
/// buffer and returns the reply's arguments (receive, bytes written). Where the kernel
/// refuses, the bytes go in chunks from `progress` instead (a part of the send to finish
/// there); a bad request is a fault. Neither has a reply.
pub(crate) fn push(e: &mut Engine, allowed: &Cell<bool>, args: &[u32]) -> Option<[u32; 4]> {
    let (send_id, recv_id) = (wide(args, 0), wide(args, 2));
    let (from, to) = (wide(args, 4) as usize, wide(args, 6) as usize);
    let buf = match send_range(e, send_id, from, to) {
        Ok((buf, _)) => buf,
        Err(err) => {
            e.fault.get_or_insert(err);
            return None;
        }
    };
    let at = Source {
        pid: arg(args, 8),
        addr: wide(args, 9).wrapping_add(from as u64),
    };
    let wrote = if allowed.get() {
        // SAFETY: the send's contract keeps `buf` valid for its length until it completes,
        // which is not before the receiver has its bytes, and `send_range` checked
        // `from <= to <= len`; the kernel only reads this range.
        unsafe { single_copy::copy(Way::Write, at, buf.add(from).cast_mut(), to - from) }
    } else {
        Err(std::io::Error::from_raw_os_error(libc::EPERM))
    };
    match wrote {
        Ok(()) => {
            let [r0, r1] = split(recv_id);
            let [n0, n1] = split((to - from) as u64);
            Some([r0, r1, n0, n1])
        }
        Err(err) if single_copy::refused(&err) => {
            allowed.set(false);
            if e.expect_part(send_id) {
                e.actions.push(Action::Data {
                    send_id,
                    recv_id,
                    range: Some((from, to)),
                });
            }
            None
        }
        Err(err) => {
            e.fault.get_or_insert(Error::new(
                ErrorClass::Intern,
                format!("writing a message into process {}: {err}", at.pid),
            ));
            None
        }
    }
}

impl Runtime {
    /// Asks `dest` for the bytes of its send `send_id` in chunks: message bytes `range`
    /// (`from..to`), or all after those that came with the request to send.
    pub(crate) fn clear_to_send(
        &self,
        dest: u32,
        send_id: u64,
        recv_id: u64,
        range: Option<(usize, usize)>,
    ) -> Result<()> {
        let [a0, a1] = split(send_id);
        let [b0, b1] = split(recv_id);
        match range {
            None => self.emit_short(dest, H_CTS, &[a0, a1, b0, b1])?,
            Some((from, to)) => {
                let [f0, f1] = split(from as u64);
                let [t0, t1] = split(to as u64);
                self.emit_short(dest, H_CTS, &[a0, a1, b0, b1, f0, f1, t0, t1])?
            }
        };
        Ok(())
    }

    /// Copies the rest of a rendezvous message from its sender's buffer (`from`, in
    /// process `dest`) straight into receive `recv_id`: the receiver reads it all, or,
    /// for a large message with a core each, the front while the sender writes the back.
    /// `None` when this process's part is read (the sender is told it is done); else the
    /// message bytes it could not read because the kernel refuses, to be asked for in
    /// chunks (no later rendezvous offers a single copy).
    pub(crate) fn pull(
        &self,
        dest: u32,
        send_id: u64,
        recv_id: u64,
        from: Source,
        len: usize,
    ) -> Result<Option<(usize, usize)>> {
        let Some((buf, cap, have)) = self.engine.borrow().pull_target(recv_id) else {
            return Err(Error::new(
                ErrorClass::Intern,
                format!("single-copy read for unknown receive {recv_id}"),
            ));
        };
        let end = len.min(cap);
        if !self.single_copy.get() {
            return Ok(Some((have, len)));
        }
        // A prefix that came with the request (none from this runtime's senders) may
        // already fill the capacity.
        let have = have.min(end);
        // Bytes past the receive's capacity are never copied.
        self.engine.borrow_mut().landed(recv_id, len - end);
        let mid = single_copy::split_at(have, end, self.split);
        if mid < end {
            let [a0, a1] = split(send_id);
            let [b0, b1] = split(recv_id);
            let [m0, m1] = split(mid as u64);
            let [e0, e1] = split(end as u64);
            let [p0, p1] = split(buf as u64);
            let args = [a0, a1, b0, b1, m0, m1, e0, e1, self.pid, p0, p1];
            self.emit_short(dest, H_PUSH, &args)?;
        }
        if have < mid {
            let from = Source {
                addr: from.addr + have as u64,
                ..from
            };
            // SAFETY: the receive's contract keeps `buf` valid for `cap` bytes until it
            // completes, which is not before this read, and `have < mid <= end <= cap`;
            // the sender writes only past `mid`.
            let read = unsafe { single_copy::copy(Way::Read, from, buf.add(have), mid - have) };
            if let Err(e) = read {
                if single_copy::refused(&e) {
                    self.single_copy.set(false);
                    return Ok(Some((have, mid)));
                }
                return Err(Error::new(
                    ErrorClass::Intern,
                    format!("reading a message from process {}: {e}", from.pid),
                ));
            }
        }
        self.engine.borrow_mut().landed(recv_id, mid - have);
        Ok(None)
    }

    /// Streams message bytes `range` of a rendezvous send (all after those sent with the
    /// request to send, by default) into the receiver's buffer in medium chunks.
    pub(crate) fn send_data(
        &self,
        send_id: u64,
        recv_id: u64,
        range: Option<(usize, usize)>,
    ) -> Result<()> {
        let (start, end) = match (
            range,
            self.engine.borrow().reqs.get(send_id).map(|r| &r.kind),
        ) {
            (Some(r), _) => r,
            (None, Some(ReqKind::Send { len, ahead, .. })) => (*ahead, *len),
            (None, _) => (0, usize::MAX),
        };
        let (buf, dest) = send_range(&self.engine.borrow(), send_id, start, end)?;
        // SAFETY: the send's contract keeps `buf` valid for its length until it completes,
        // which happens only after this loop, and `send_range` checked `start <= end <= len`.
        let data = unsafe { bytes_at(buf.add(start), end - start) };
        let [r0, r1] = split(recv_id);
        let mut left = true;
        for (i, chunk) in data.chunks(CHUNK).enumerate() {
            let [o0, o1] = split((start + i * CHUNK) as u64);
            // SAFETY: the chunk lies in the send's buffer, valid until the send completes,
            // which is not before its last chunk has left (below).
            left = unsafe { self.emit(dest, H_DATA, &[r0, r1, o0, o1], Some(chunk))? };
        }
        // Once one chunk waits for credit, every later one waits behind it.
        if left {
            self.finish(send_id);
        } else {
            self.finish_when_sent(dest, send_id);
        }
        Ok(())
    }
}
