//! The Active Message handlers of the global address space, one per kind of access.

use crate::atomic::apply;
use crate::protocol::*;
use crate::rmw::Rmw;
use crate::shared::{join, Shared};
use clump::{Endpoint, Kind, Message, MAX_MEDIUM};
use std::rc::Rc;

fn reply(token: &mut clump::Token<'_>, args: &[u32], payload: &[u8]) {
    // A reply fails only if the requester is gone; its own return path reports that.
    let _ = token.reply_medium(H_REPLY, args, payload);
}

/// The `N` arguments every message to `handler` carries. A message with fewer did not come
/// from this layer: like a reply the AM layer cannot run, it is reported where this rank
/// hears of undeliverable messages (its next wait ends with the error), and dropped.
fn args<const N: usize>(
    s: &Shared,
    token: &clump::Token<'_>,
    msg: &Message<'_>,
) -> Option<[u32; N]> {
    let args = msg.args.get(..N).and_then(|a| a.try_into().ok());
    if args.is_none() {
        let why = format!("{} arguments, {N} expected", msg.args.len());
        s.fail(|| malformed(token, msg, &why));
    }
    args
}

fn malformed(token: &clump::Token<'_>, msg: &Message<'_>, why: &str) -> String {
    format!(
        "a {:?} message from {:?} to global-address-space handler {} cannot run ({why}); dropped",
        msg.kind,
        token.source(),
        msg.handler
    )
}

/// Installs the global address space's handlers on `ep`; a message that comes back
/// undelivered becomes the failure the rank's next wait ends with.
pub(crate) fn install(ep: &Endpoint, shared: &Rc<Shared>) -> clump::Result<()> {
    let s = shared.clone();
    ep.set_return_handler(move |r| {
        if r.request && r.handler == H_RPC_POSTED {
            // Its answer will never come: its settle must not wait for it.
            if let Some(&target) = r.args.get(2) {
                s.posted_to(target, -1);
            }
        }
        s.fail(|| {
            format!(
                "{:?} message to rank {:?} (handler {}): {:?}",
                r.kind, r.translation, r.handler, r.reason
            )
        })
    })?;
    access_handlers(ep, shared)?;
    call_handlers(ep, shared)
}

/// The handlers of reads, puts, gets and stores, and of the replies they get.
fn access_handlers(ep: &Endpoint, shared: &Rc<Shared>) -> clump::Result<()> {
    // args: request. The get's bytes already lie in the landing area: file its completion.
    let s = shared.clone();
    ep.set_handler(H_LANDED as usize, move |token, msg| {
        let Some([req]) = args(&s, token, msg) else {
            return;
        };
        s.replies.borrow_mut().insert(req, (STATUS_OK, Vec::new()));
    })?;

    let s = shared.clone();
    ep.set_handler(H_REPLY as usize, move |token, msg| {
        let Some([req, status]) = args(&s, token, msg) else {
            return;
        };
        s.replies
            .borrow_mut()
            .insert(req, (status, msg.payload.to_vec()));
    })?;

    // A put's payload already lies in the segment: acknowledge it.
    // Its argument is the lane that started it, which the acknowledgement carries back.
    ep.set_handler(H_PUT as usize, |token, msg| {
        let _ = token.reply(H_PUT_ACK, msg.args);
    })?;
    let s = shared.clone();
    ep.set_handler(H_PUT_ACK as usize, move |_token, msg| {
        s.completed(lane_of(msg.args));
    })?;
    let s = shared.clone();
    ep.set_handler(H_GET_DONE as usize, move |_token, msg| {
        s.completed(lane_of(msg.args));
    })?;

    // A store's payload already lies in the segment: count it where store_sync looks. A
    // store that cannot be counted would leave store_sync waiting for it: report it instead.
    let s = shared.clone();
    ep.set_handler(H_STORE as usize, move |token, msg| {
        if msg.kind != Kind::Long {
            return s.fail(|| malformed(token, msg, "a store is a long message"));
        }
        let bytes = msg.payload.len() as u64;
        if let Err(e) = apply(&token.endpoint(), STORED_COUNTER, Rmw::Add(bytes)) {
            s.fail(|| format!("a store of {bytes} bytes landed but could not be counted: {e}"));
        }
    })?;
    Ok(())
}

/// The handlers that run something at the target: atomics, collective messages, remote
/// procedure calls.
fn call_handlers(ep: &Endpoint, shared: &Rc<Shared>) -> clump::Result<()> {
    // args: request, op, offset lo, hi, operand lo, hi, expected lo, hi. Replies the old value
    // (atomic instructions, so direct same-host atomics on the same word stay correct).
    let s = shared.clone();
    ep.set_handler(H_ATOMIC as usize, move |token, msg| {
        let Some([req, op, lo, hi, a_lo, a_hi, b_lo, b_hi]) = args(&s, token, msg) else {
            return;
        };
        let op = Rmw::decode(op, join(a_lo, a_hi), join(b_lo, b_hi));
        let ep = token.endpoint();
        match op.map(|op| apply(&ep, join(lo, hi) as usize, op)) {
            Some(Ok(old)) => reply(token, &[req, STATUS_OK], &old.to_le_bytes()),
            _ => reply(token, &[req, STATUS_BAD_RANGE], &[]),
        }
    })?;

    // args: group key lo, hi, sequence, source, total length, chunk offset; the payload is
    // the chunk.
    let s = shared.clone();
    ep.set_handler(H_COLL as usize, move |token, msg| {
        let Some([k_lo, k_hi, seq, src, total, at]) = args(&s, token, msg) else {
            return;
        };
        let key = (join(k_lo, k_hi), seq, src);
        s.deposit(key, total as usize, at as usize, msg.payload);
    })?;

    // args: request, function, source rank; the payload is the argument.
    let s = shared.clone();
    ep.set_handler(H_RPC as usize, move |token, msg| {
        let Some([req, id, source]) = args(&s, token, msg) else {
            return;
        };
        let (status, out) = run_rpc(&s, id, source, msg.payload);
        reply(token, &[req, status], &out);
    })?;
    posted_handlers(ep, shared)
}

/// Runs remote procedure `id` for `source` on `arg`: the status and result to answer.
fn run_rpc(s: &Shared, id: u32, source: u32, arg: &[u8]) -> (u32, Vec<u8>) {
    let f = s.rpcs.borrow().get(id as usize).cloned();
    let Some(f) = f else {
        return (STATUS_NO_SUCH_RPC, Vec::new());
    };
    let out = f(&RpcContext { source }, arg);
    if out.len() > MAX_MEDIUM {
        return (STATUS_RESULT_TOO_LARGE, Vec::new());
    }
    (STATUS_OK, out)
}

/// The handlers of posted remote procedure calls (`posted.rs`) and of their answers.
fn posted_handlers(ep: &Endpoint, shared: &Rc<Shared>) -> clump::Result<()> {
    // args: function, source rank, this rank (which the answer names); the payload is the
    // argument.
    let s = shared.clone();
    ep.set_handler(H_RPC_POSTED as usize, move |token, msg| {
        let Some([id, source, me]) = args(&s, token, msg) else {
            return;
        };
        let (status, out) = run_rpc(&s, id, source, msg.payload);
        // As for `reply`: only a requester that is gone makes this fail.
        let _ = token.reply_medium(H_POSTED_DONE, &[me, status], &out);
    })?;

    // args: the answering rank, the status; the payload is the result.
    let s = shared.clone();
    ep.set_handler(H_POSTED_DONE as usize, move |token, msg| {
        let Some([from, status]) = args(&s, token, msg) else {
            return;
        };
        if status != STATUS_OK || !msg.payload.is_empty() {
            let answer = (from, status, msg.payload.to_vec());
            s.posted_answers.borrow_mut().push(answer);
        }
        s.posted_to(from, -1);
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clump::Bundle;

    const TAG: u64 = 0x6a5;

    /// An endpoint with this layer's handlers and a segment of `segment` bytes, the state
    /// they share, and an endpoint of the same bundle whose translation 0 reaches it.
    fn target(segment: usize) -> (Bundle, Rc<Shared>, Endpoint) {
        let bundle = Bundle::new().unwrap();
        let gas = bundle.create_endpoint(TAG).unwrap();
        gas.set_segment(segment).unwrap();
        let shared = Rc::new(Shared::default());
        install(&gas, &shared).unwrap();
        let forger = bundle.create_endpoint(TAG).unwrap();
        forger.map(0, gas.name(), TAG).unwrap();
        (bundle, shared, forger)
    }

    /// Polls until the target has recorded a failure; returns it.
    fn failure(bundle: &Bundle, shared: &Shared) -> String {
        for _ in 0..100_000 {
            bundle.poll().unwrap();
            if let Some(why) = shared.failure.borrow_mut().take() {
                return why;
            }
        }
        panic!("no failure recorded");
    }

    #[test]
    fn a_message_with_too_few_arguments_is_reported_not_a_panic() {
        let (bundle, shared, forger) = target(4096);
        let short = [
            (H_LANDED, 0),
            (H_REPLY, 1),
            (H_ATOMIC, 7),
            (H_COLL, 5),
            (H_RPC, 0),
            (H_RPC_POSTED, 2),
            (H_POSTED_DONE, 1),
        ];
        for (handler, n) in short {
            forger
                .request_medium(0, handler, &vec![1; n], &[0; 8])
                .unwrap();
            let why = failure(&bundle, &shared);
            assert!(
                why.contains(&format!("handler {handler} cannot run ({n} arguments")),
                "{why}"
            );
        }
        // A store that is not a long message carries no bytes to count.
        forger.request(0, H_STORE, &[]).unwrap();
        let why = failure(&bundle, &shared);
        assert!(why.contains("a store is a long message"), "{why}");
    }

    #[test]
    fn a_store_that_cannot_be_counted_is_reported() {
        // Too small a segment for the stored-bytes counter: the store lands, the count fails.
        let (bundle, shared, forger) = target(4);
        forger.request_long(0, H_STORE, &[], &[7; 2], 0).unwrap();
        let why = failure(&bundle, &shared);
        assert!(
            why.contains("a store of 2 bytes landed but could not be counted"),
            "{why}"
        );
    }
}

/// The lane a put's acknowledgement or a get's completion names (lane 0 if none).
fn lane_of(args: &[u32]) -> u32 {
    args.first().copied().unwrap_or(0)
}
