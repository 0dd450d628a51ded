//! Credit-only answers: how the network transport returns the credits of requests whose
//! handlers did not reply (pure: the header convention, no I/O). Every request a peer
//! receives is answered by exactly one message on the reply channel; a credit-only answer
//! stands for a run of them.

use crate::transport::net::wire::{Args, Channel, Header, PacketKind};

/// A credit-only answer: a short reply to handler 0 (which no send may name), with the
/// number of requests it answers as its one argument.
pub(crate) fn is_credit_answer(h: &Header) -> bool {
    h.kind == PacketKind::Short && h.handler == 0
}

/// The credit-only answer for `count` requests whose handlers did not reply.
pub(crate) fn credit_answer(count: u32) -> Header {
    let mut h = Header::new(PacketKind::Short, Channel::Reply);
    h.args = Args::new(&[count]).unwrap_or_default();
    h
}

/// How many requests in flight an answer settles: a credit-only answer as many as it
/// says (at least one), any other answer one.
pub(crate) fn requests_settled(h: &Header) -> u32 {
    if is_credit_answer(h) {
        h.args.as_slice().first().copied().unwrap_or(1).max(1)
    } else {
        1
    }
}
