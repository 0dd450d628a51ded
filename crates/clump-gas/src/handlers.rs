//! The Active Message handlers of the global address space, one per kind of access.

use crate::atomic::{apply, AtomicOp};
use crate::rpc::RpcContext;
use crate::shared::{join, Shared};
use clump::{Endpoint, Kind, MAX_MEDIUM};
use std::rc::Rc;

pub(crate) const H_READ: u8 = 1;
pub(crate) const H_REPLY: u8 = 2;
pub(crate) const H_PUT: u8 = 3;
pub(crate) const H_PUT_ACK: u8 = 4;
pub(crate) const H_STORE: u8 = 5;
pub(crate) const H_GET_DONE: u8 = 6;
pub(crate) const H_ATOMIC: u8 = 7;
pub(crate) const H_COLL: u8 = 8;
pub(crate) const H_RPC: u8 = 9;

pub(crate) const STATUS_OK: u32 = 0;
pub(crate) const STATUS_BAD_RANGE: u32 = 1;
pub(crate) const STATUS_NO_SUCH_RPC: u32 = 2;
pub(crate) const STATUS_RESULT_TOO_LARGE: u32 = 3;

/// Offset in every segment of the count of bytes stored into this rank (an AtomicU64).
pub(crate) const STORED_COUNTER: usize = 0;

fn reply(token: &mut clump::Token<'_>, args: &[u32], payload: &[u8]) {
    // A reply fails only if the requester is gone; its own return path reports that.
    let _ = token.reply_medium(H_REPLY, args, payload);
}

pub(crate) fn install(ep: &Endpoint, shared: &Rc<Shared>) -> clump::Result<()> {
    let s = shared.clone();
    ep.set_return_handler(move |r| {
        let mut failure = s.failure.borrow_mut();
        if failure.is_none() {
            *failure = Some(format!(
                "{:?} message to rank {:?} (handler {}): {:?}",
                r.kind, r.translation, r.handler, r.reason
            ));
        }
    })?;

    // args: request, offset lo, offset hi, length. Replies with the bytes.
    ep.set_handler(H_READ as usize, |token, msg| {
        let [req, lo, hi, len] = msg.args[..4] else {
            return;
        };
        let mut buf = vec![0; (len as usize).min(MAX_MEDIUM)];
        let ok = token
            .endpoint()
            .read_segment(join(lo, hi) as usize, &mut buf)
            .is_ok();
        let status = if ok { STATUS_OK } else { STATUS_BAD_RANGE };
        reply(token, &[req, status], if ok { &buf } else { &[] });
    })?;

    let s = shared.clone();
    ep.set_handler(H_REPLY as usize, move |_token, msg| {
        let [req, status] = msg.args[..2] else { return };
        s.replies
            .borrow_mut()
            .insert(req, (status, msg.payload.to_vec()));
    })?;

    // A put's payload already lies in the segment: acknowledge it.
    ep.set_handler(H_PUT as usize, |token, _msg| {
        let _ = token.reply(H_PUT_ACK, &[]);
    })?;
    let s = shared.clone();
    ep.set_handler(H_PUT_ACK as usize, move |_token, _msg| {
        s.pending.set(s.pending.get().saturating_sub(1));
    })?;
    let s = shared.clone();
    ep.set_handler(H_GET_DONE as usize, move |_token, _msg| {
        s.pending.set(s.pending.get().saturating_sub(1));
    })?;

    // A store's payload already lies in the segment: count it where store_sync looks.
    ep.set_handler(H_STORE as usize, |token, msg| {
        if msg.kind == Kind::Long {
            let ep = token.endpoint();
            let _ = apply(
                &ep,
                STORED_COUNTER,
                AtomicOp::FetchAdd(msg.payload.len() as u64),
            );
        }
    })?;

    // args: request, op, offset lo, hi, operand lo, hi, expected lo, hi. Replies the old value
    // (atomic instructions, so direct same-host atomics on the same word stay correct).
    ep.set_handler(H_ATOMIC as usize, |token, msg| {
        let [req, op, lo, hi, a_lo, a_hi, b_lo, b_hi] = msg.args[..8] else {
            return;
        };
        let op = AtomicOp::decode(op, join(a_lo, a_hi), join(b_lo, b_hi));
        let ep = token.endpoint();
        match op.map(|op| apply(&ep, join(lo, hi) as usize, op)) {
            Some(Ok(old)) => reply(token, &[req, STATUS_OK], &old.to_le_bytes()),
            _ => reply(token, &[req, STATUS_BAD_RANGE], &[]),
        }
    })?;

    // args: group key lo, hi, sequence, source, total length, chunk offset; the payload is
    // the chunk.
    let s = shared.clone();
    ep.set_handler(H_COLL as usize, move |_token, msg| {
        let [k_lo, k_hi, seq, src, total, at] = msg.args[..6] else {
            return;
        };
        let key = (join(k_lo, k_hi), seq, src);
        s.deposit(key, total as usize, at as usize, msg.payload);
    })?;

    // args: request, function, source rank; the payload is the argument.
    let s = shared.clone();
    ep.set_handler(H_RPC as usize, move |token, msg| {
        let [req, id, source] = msg.args[..3] else {
            return;
        };
        let f = s.rpcs.borrow().get(id as usize).cloned();
        let Some(f) = f else {
            return reply(token, &[req, STATUS_NO_SUCH_RPC], &[]);
        };
        let out = f(&RpcContext { source }, msg.payload);
        if out.len() > MAX_MEDIUM {
            reply(token, &[req, STATUS_RESULT_TOO_LARGE], &[]);
        } else {
            reply(token, &[req, STATUS_OK], &out);
        }
    })?;
    Ok(())
}
