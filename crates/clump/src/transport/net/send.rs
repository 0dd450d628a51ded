//! The send side of Active Messages over the network: requests, gets, replies, returned
//! requests and credit-only answers, as packets for the endpoint's reliability machine.
//!
//! Every request a peer receives is answered by exactly one message on the reply
//! channel (a reply, a get's data, the request returned, or a credit-only answer for a
//! handler that did not reply), in request order: that is how the requester's credits
//! and its record of requests in flight stay exact without any id in the packet.

use crate::endpoint::route::Route;
use crate::endpoint::wait::{Stall, StallOutcome};
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result, ReturnReason};
use crate::message::{Kind, Outgoing};
use crate::transport::net::reliable::SendError;
use crate::transport::net::credit::credit_answer;
use crate::transport::net::wire::{Args, Channel, DataKind, Header, PacketKind};
use crate::transport::net::NetPeer;
use std::rc::Rc;

pub(crate) mod owed;

/// Payload bytes queued to one peer before a new request waits: bounds the memory a
/// stream of long messages can pin in the reliability machine.
const NET_BACKLOG: usize = 8 << 20;

/// The wire's kind of a message of `kind`: the one conversion from the AM layer's kinds.
pub(crate) fn data_kind(kind: Kind) -> DataKind {
    match kind {
        Kind::Short => DataKind::Short,
        Kind::Medium => DataKind::Medium,
        Kind::Long => DataKind::Long,
        Kind::Get => DataKind::Get,
    }
}

/// The AM layer's kind of a message the wire calls `kind`: the one conversion back.
pub(crate) fn message_kind(kind: DataKind) -> Kind {
    match kind {
        DataKind::Short => Kind::Short,
        DataKind::Medium => Kind::Medium,
        DataKind::Long => Kind::Long,
        DataKind::Get | DataKind::GetReply => Kind::Get,
    }
}

/// The header of a message `o` on `channel` to an endpoint whose tag is `tag`.
fn header(kind: PacketKind, channel: Channel, o: &Outgoing<'_>, tag: u64) -> Header {
    let mut h = Header::new(kind, channel);
    h.handler = o.handler;
    // Outgoing::validate bounded the count.
    h.args = Args::new(o.args).unwrap_or_default();
    h.tag = tag;
    h.total_len = o.payload.len() as u32;
    if o.kind == Kind::Long {
        h.segment_offset = o.offset;
    }
    h
}

/// Sends request `o` through translation `dest`, which reaches `peer` over the network.
pub(crate) fn request(
    ep: &Rc<EndpointCore>,
    dest: u32,
    peer: NetPeer,
    o: &Outgoing<'_>,
) -> Result<()> {
    let Some(tag) = wait_for_credit(ep, dest, peer, o)? else {
        return Ok(());
    };
    let h = header(
        PacketKind::from(data_kind(o.kind)),
        Channel::Request,
        o,
        tag,
    );
    send_request(ep, dest, peer, o, h, o.payload)
}

/// Asks `peer` for `len` bytes at `o.offset` of its segment, to land at `dst_offset`
/// of this endpoint's; the local handler runs when they have.
pub(crate) fn get(
    ep: &Rc<EndpointCore>,
    dest: u32,
    peer: NetPeer,
    o: &Outgoing<'_>,
    len: usize,
    dst_offset: usize,
) -> Result<()> {
    let Some(tag) = wait_for_credit(ep, dest, peer, o)? else {
        return Ok(());
    };
    let mut h = header(PacketKind::Get, Channel::Request, o, tag);
    h.segment_offset = o.offset;
    h.reply_offset = dst_offset as u64;
    h.total_len = len as u32;
    send_request(ep, dest, peer, o, h, &[])
}

/// Waits until translation `dest` has a credit and its peer's backlog has room;
/// returns the destination's tag, or `None` if `o` came back to handler 0 instead.
fn wait_for_credit(
    ep: &Rc<EndpointCore>,
    dest: u32,
    peer: NetPeer,
    o: &Outgoing<'_>,
) -> Result<Option<u64>> {
    let route = Route::Net(peer);
    let mut stall = Stall::new();
    let ready = || may_request(ep, dest, &peer);
    while !ready() {
        ep.count(|s| s.credit_waits += 1);
        if let StallOutcome::Gone(reason) = ep.stall(dest, &route, &mut stall, &ready)? {
            ep.bounce(o, dest, reason)?;
            return Ok(None);
        }
    }
    // A handler run while waiting may have freed this endpoint or unmapped `dest`.
    ep.check_live()?;
    let tag = ep
        .tables
        .translations
        .with(|table| Some(table.get(dest as usize)?.as_ref()?.tag));
    Ok(Some(tag.ok_or(Error::NoTranslation(dest))?))
}

/// Whether a request through translation `dest` to `peer` may go now: it has a credit
/// and the peer's backlog has room.
pub(crate) fn may_request(ep: &EndpointCore, dest: u32, peer: &NetPeer) -> bool {
    ep.has_net_credit(dest) && backlog(ep, peer) <= NET_BACKLOG
}

fn backlog(ep: &EndpointCore, peer: &NetPeer) -> usize {
    ep.net.port(|p| p.queued_bytes(peer)).unwrap_or(0)
}

fn send_request(
    ep: &Rc<EndpointCore>,
    dest: u32,
    peer: NetPeer,
    o: &Outgoing<'_>,
    h: Header,
    payload: &[u8],
) -> Result<()> {
    let flushed = !ep.net.acks.with(|a| a.is_empty());
    if flushed {
        // Queued first, the credit-only answer rides in the request's datagram.
        flush_acks(ep);
    }
    let sent = ep.net.port(|port| {
        // A port that holds already is on the thread's list, unless flushing the answers
        // took it off: a burst then reads the clock and walks the list once, not per send.
        let listed = port.holds() && !flushed;
        let payload = port.copy_payload(payload);
        port.send(peer, h, payload).map(|held| held && !listed)
    });
    let Some(sent) = sent else {
        return Err(Error::EndpointFreed);
    };
    match sent {
        Ok(false) => {}
        // Held for the next poll of its bundle, or of any bundle of the thread once
        // the credit delay ran out, or before a wait sleeps (`send/owed.rs`).
        Ok(true) => ep.net.held.hold(ep, std::time::Instant::now()),
        Err(SendError::Unreachable) => {
            ep.peer_lost(dest, ReturnReason::Unreachable);
            return ep.bounce(o, dest, ReturnReason::Unreachable);
        }
        Err(e) => {
            return Err(Error::BadArg(format!(
                "cannot send over the network: {e:?}"
            )))
        }
    }
    ep.flow.with(|f| f.sent(dest, o.saved(), Some(peer)));
    ep.net.port(|p| p.await_answers(peer, true));
    ep.count(|s| s.requests_sent += 1);
    Ok(())
}

/// Replies `o` to the network request from `from`, which carried tag `tag`.
pub(crate) fn reply(ep: &EndpointCore, from: NetPeer, tag: u64, o: &Outgoing<'_>) {
    let kind = PacketKind::from(data_kind(o.kind));
    let payload = if o.kind == Kind::Short {
        Vec::new()
    } else {
        o.payload.to_vec()
    };
    send_answer(ep, from, header(kind, Channel::Reply, o, tag), payload);
}

/// Returns the network request `req` from `from` to its sender with `reason`; a
/// medium request's payload goes back with it.
pub(crate) fn return_request(
    ep: &EndpointCore,
    from: NetPeer,
    req: &Header,
    reason: ReturnReason,
    medium: &[u8],
) {
    let of = match req.kind {
        PacketKind::Short => DataKind::Short,
        PacketKind::Medium => DataKind::Medium,
        PacketKind::Long => DataKind::Long,
        PacketKind::Get => DataKind::Get,
        // Not a request a correct peer sends: answer for the credit only.
        _ => return ep.net.acks.with(|a| a.owe(from)),
    };
    let mut h = *req;
    h.kind = PacketKind::Returned { reason, of };
    h.channel = Channel::Reply;
    h.frag_offset = 0;
    // A medium message goes back whole; a long one only names where it was to land.
    let payload = match of {
        DataKind::Medium => medium.to_vec(),
        _ => Vec::new(),
    };
    if of == DataKind::Long {
        h.total_len = 0;
    }
    send_answer(ep, from, h, payload);
}

/// Queues the credits owed for requests whose handlers did not reply, one answer per run.
pub(crate) fn flush_acks(ep: &EndpointCore) {
    let acks = ep.net.acks.with(|a| a.take());
    for &(peer, count) in &acks {
        send_on_reply_channel(ep, peer, credit_answer(count), Vec::new());
    }
    ep.net.acks.with(|a| a.give_back(acks));
    ep.net.held.released(ep);
}

/// At the end of a poll: the credits owed go now if half a window is owed, else they
/// wait for a request to carry them, in bounded time (`send/owed.rs`).
pub(crate) fn flush_or_hold_acks(ep: &Rc<EndpointCore>) {
    let window = ep.flow.with(|f| f.net_window());
    let Some(must_go) = ep.net.acks.with(|a| (!a.is_empty()).then(|| a.half_window_owed(window)))
    else {
        return;
    };
    if must_go {
        flush_acks(ep);
    } else {
        ep.net.held.hold(ep, std::time::Instant::now());
    }
}

/// Sends every credit `ep` owes now, and the messages it holds.
pub(crate) fn send_owed(ep: &EndpointCore) {
    if !ep.net.acks.with(|a| a.is_empty()) {
        flush_acks(ep);
    }
    ep.net.port(|p| p.transmit());
}

/// Sends an answer to a request, after the credit-only answers owed for earlier ones.
pub(crate) fn send_answer(ep: &EndpointCore, to: NetPeer, h: Header, payload: Vec<u8>) {
    if !ep.net.acks.with(|a| a.is_empty()) {
        flush_acks(ep);
    }
    send_on_reply_channel(ep, to, h, payload);
}

/// Queues an answer; the poll that ran its request sends it with the others.
fn send_on_reply_channel(ep: &EndpointCore, to: NetPeer, h: Header, payload: Vec<u8>) {
    let queued = ep.net.port(|p| p.queue(to, h, payload));
    match queued {
        // An unreachable requester has given up on its requests (or is gone): it
        // needs no answer, and the machine already reported it.
        None | Some(Ok(()) | Err(SendError::Unreachable)) => {}
        Some(Err(e)) => eprintln!("clump: an answer to {to:?} could not be sent: {e}"),
    }
}
