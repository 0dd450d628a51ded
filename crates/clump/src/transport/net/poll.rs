//! The poll side of Active Messages over the network: datagrams into the reliability
//! machine, then the handlers of the whole messages it delivers. Long messages and get
//! data land in the segment as their fragments arrive in order, before their handler runs.

use crate::boot::frame::PeerState;
use crate::endpoint::handlers::{Answer, Origin, Reply};
use crate::endpoint::route::{NetRequester, Requester, Route};
use crate::endpoint::EndpointCore;
use crate::error::ReturnReason;
use crate::message::{Kind, Message, Returned};
use crate::transport::net::reliable::{Event, Inbound, Liveness};
use crate::transport::net::credit::{is_credit_answer, requests_settled};
use crate::transport::net::send::{flush_acks, flush_or_hold_acks, message_kind, return_request, send_answer};
use crate::transport::net::wire::{Channel, Header, PacketKind};
use crate::transport::net::NetPeer;
use crate::transport::shm::remote::SegMapping;
use std::net::SocketAddrV4;
use std::rc::Rc;
use std::sync::Arc;

/// Messages of each channel one network poll runs at most.
const NET_POLL_BUDGET: usize = 64;

/// Reads up to `max_datagrams` datagrams (one system call), then runs replies and,
/// when `requests`, request handlers; sends the answers in one batch (credit-only
/// answers when due: `send/owed.rs`). Returns how many messages ran.
pub(crate) fn poll(ep: &Rc<EndpointCore>, max_datagrams: usize, requests: bool) -> usize {
    if !ep.net.has_port() || ep.freed.get() {
        return 0;
    }
    receive_datagrams(ep, max_datagrams);
    handle_events(ep);
    if ep.net.port(|p| p.news_of_death()) == Some(true) {
        ep.poll_liveness_now();
    }
    let mut n = 0;
    while n < NET_POLL_BUDGET {
        let Some(m) = next_inbound(ep, Channel::Reply) else {
            break;
        };
        handle_reply(ep, m);
        n += 1;
    }
    if requests {
        for _ in 0..NET_POLL_BUDGET {
            let Some(m) = next_inbound(ep, Channel::Request) else {
                break;
            };
            handle_request(ep, m);
            n += 1;
        }
    }
    flush_or_hold_acks(ep);
    ep.net.port(|p| p.transmit());
    n
}

/// Moves what waits on the socket into the machine, fires due timers and sends
/// what that produced (acks, retransmissions), running no handler: a waiting thread
/// learns whether a whole message is there, not merely a datagram.
pub(crate) fn pump(ep: &EndpointCore) {
    if !ep.net.has_port() || ep.freed.get() {
        return;
    }
    while receive_datagrams(ep, crate::transport::net::udp::BATCH) == crate::transport::net::udp::BATCH {}
    handle_events(ep);
    ep.net.port(|p| p.transmit());
}

/// Sends the messages held for a poll (`NetPort::send`), when a poll does not look at the
/// socket.
#[inline]
pub(crate) fn send_held(ep: &EndpointCore) {
    ep.net.port(|p| {
        if p.holds() {
            p.transmit();
        }
    });
}

/// Whether this endpoint's socket doorbell says datagrams wait.
#[inline]
pub(crate) fn rang(ep: &EndpointCore) -> bool {
    ep.net.port(|p| p.rang()) == Some(true)
}

/// Whether a whole message waits in the machine for a poll.
#[inline]
pub(crate) fn has_work(ep: &EndpointCore) -> bool {
    ep.net.port(|p| p.has_inbound()) == Some(true)
}

fn next_inbound(ep: &EndpointCore, channel: Channel) -> Option<Inbound<SocketAddrV4>> {
    ep.net.port.with(|p| p.as_mut()?.next_inbound(channel))
}

/// Reads up to `max` datagrams into the machine; returns how many.
fn receive_datagrams(ep: &EndpointCore, max: usize) -> usize {
    let own_tag = ep.tag();
    // The port, the flow and the segment together, in one door (`part.rs`): a fragment
    // lands as the port decodes it.
    ep.net.port.with_others(&ep.flow, &ep.segment, |port, flow, segment| {
        let Some(port) = port else {
            return 0;
        };
        // A fragment lands only where its message may: a request under this endpoint's
        // tag, or an answer from a peer this endpoint awaits answers from. The whole
        // message must fit, so that none of it lands if it is returned.
        let mut land = |from: &NetPeer, h: &Header, data: &[u8]| {
            let allowed = match h.channel {
                Channel::Request => h.tag == own_tag,
                Channel::Reply => flow.awaits(from),
            };
            // Looked at only here: most polls land nothing, and cloning the mapping's
            // Arc on every one cost more than the rest of an empty poll.
            allowed
                && segment.as_ref().is_some_and(|s| {
                    s.fits(h.segment_offset, u64::from(h.total_len))
                        && s.write((h.segment_offset + u64::from(h.frag_offset)) as usize, data)
                            .is_ok()
                })
        };
        port.receive(max, &mut land)
    })
}

/// Peers silent for the network timeout, judged by what the launcher knows (the rules
/// are `Reliable::judge`'s): one whose process lives but does not poll (stopped,
/// computing) is waited for, and so is one that just resumed; one whose process exited
/// is gone, its requests in flight return as `PeerGone`; otherwise (it polls yet is not
/// heard: a cut link; or no launcher to ask) it is unreachable (see [`give_up`]).
pub(crate) fn handle_events(ep: &EndpointCore) {
    loop {
        let event = ep.net.port.with(|p| p.as_mut()?.next_event());
        let Some(Event::Silent(peer)) = event else {
            return;
        };
        // Heard from since it was reported (in the same batch of datagrams): no silence.
        let Some(timeout) = ep
            .net
            .port(|p| p.is_silent(&peer).then(|| p.timeout()))
            .flatten()
        else {
            continue;
        };
        let verdict = crate::boot::watch::judge(peer.id.pid, timeout / 2);
        let process = match verdict {
            Some(PeerState::Gone) => Liveness::Exited,
            Some(PeerState::Quiet) => Liveness::Stopped,
            Some(PeerState::Polling) => Liveness::Polling,
            Some(PeerState::Unknown) | None => Liveness::Unknown,
        };
        let wait = ep.net.port(|p| p.judge(peer, process)) == Some(true);
        if !wait {
            give_up(ep, peer, process == Liveness::Exited);
        }
    }
}

/// Gives up on `peer`: its requests in flight return to handler 0, as `Unreachable` if
/// the transport never sent them, else (they may have run there) as `PeerGone` if its
/// process is `gone` and `OutcomeUnknown` if not known.
pub(crate) fn give_up(ep: &EndpointCore, peer: NetPeer, gone: bool) {
    let Some(unsent) = ep.net.port(|p| p.give_up(peer)) else {
        return;
    };
    let newest = ep.flow.with(|f| f.newest_by_translation(&peer, unsent));
    ep.flow.with(|f| f.forget(&peer));
    let left = if gone { ReturnReason::PeerGone } else { ReturnReason::OutcomeUnknown };
    for dest in translations_to(ep, &peer) {
        let unsent = newest.iter().find(|(d, _)| *d == dest).map_or(0, |&(_, n)| n);
        let lost = ep.flow.with(|f| f.lose_split(dest, unsent, left));
        for r in lost {
            ep.return_locally(r);
        }
    }
}

/// The translations that reach `peer` over the network.
fn translations_to(ep: &EndpointCore, peer: &NetPeer) -> Vec<u32> {
    ep.tables.translations.with(|table| {
        (0..table.len() as u32)
            .filter(|&i| {
                table
                    .get(i as usize)
                    .and_then(|t| t.as_ref())
                    .is_some_and(|t| matches!(&t.route, Some(Route::Net(p)) if p == peer))
            })
            .collect()
    })
}

fn handle_request(ep: &Rc<EndpointCore>, m: Inbound<SocketAddrV4>) {
    let h = &m.header;
    if h.tag != ep.tag() {
        return return_request(ep, m.from, h, ReturnReason::BadTag, &m.payload);
    }
    if h.kind == PacketKind::Get {
        return serve_get(ep, m.from, h);
    }
    let mut segment = None;
    let Some((kind, payload)) = data_view(ep, &m, &mut segment) else {
        return ep.net.acks.with(|a| a.owe(m.from));
    };
    let Some(payload) = payload else {
        return return_request(ep, m.from, h, ReturnReason::BadSegmentOffset, &[]);
    };
    let msg = Message {
        kind,
        handler: h.handler,
        args: h.args.as_slice(),
        payload,
        offset: h.segment_offset,
    };
    let origin = Origin::Request(Requester::Net(NetRequester {
        from: m.from,
        tag: h.tag,
    }));
    match ep.call_request_handler(origin, &msg) {
        Ok(true) => {}
        Ok(false) => ep.net.acks.with(|a| a.owe(m.from)),
        Err(reason) => return_request(ep, m.from, h, reason, &m.payload),
    }
}

/// A short, medium or long message as its handler sees it: its kind and payload, the
/// payload `None` for a long message that did not land in the segment; `None` for
/// other kinds. `segment` keeps the mapping a long payload borrows.
fn data_view<'a>(
    ep: &EndpointCore,
    m: &'a Inbound<SocketAddrV4>,
    segment: &'a mut Option<Arc<SegMapping>>,
) -> Option<(Kind, Option<&'a [u8]>)> {
    let h = &m.header;
    let kind = match h.kind {
        PacketKind::Short => Kind::Short,
        PacketKind::Medium => Kind::Medium,
        PacketKind::Long => Kind::Long,
        _ => return None,
    };
    let payload = match kind {
        Kind::Medium => Some(&m.payload[..]),
        Kind::Long => {
            *segment = ep.current_segment();
            let segment: &'a Option<Arc<SegMapping>> = segment;
            segment
                .as_ref()
                .and_then(|s| s.bytes(h.segment_offset, u64::from(h.total_len)))
                .filter(|_| m.landed)
        }
        _ => Some(&[][..]),
    };
    Some((kind, payload))
}

/// Answers a get with the bytes it asked for, to land at its reply offset.
fn serve_get(ep: &EndpointCore, from: NetPeer, req: &Header) {
    let segment = ep.current_segment();
    let Some(bytes) = segment
        .as_ref()
        .and_then(|s| s.bytes(req.segment_offset, u64::from(req.total_len)))
    else {
        return return_request(ep, from, req, ReturnReason::BadSegmentOffset, &[]);
    };
    let mut h = Header::new(PacketKind::GetReply, Channel::Reply);
    h.handler = req.handler;
    h.args = req.args;
    h.tag = req.tag;
    h.segment_offset = req.reply_offset;
    h.total_len = req.total_len;
    send_answer(ep, from, h, bytes.to_vec());
}

fn handle_reply(ep: &Rc<EndpointCore>, m: Inbound<SocketAddrV4>) {
    let h = &m.header;
    let mut dest = None;
    for _ in 0..requests_settled(h) {
        // An answer for nothing in flight is a confused or hostile peer: ignore it.
        let Some(d) = ep.flow.with(|f| f.answered_by(m.from)) else {
            return;
        };
        dest = Some(d);
    }
    if !ep.flow.with(|f| f.awaits(&m.from)) {
        ep.net.port(|p| p.await_answers(m.from, false));
    }
    let args = h.args.as_slice();
    let mut segment = None;
    let answer = match h.kind {
        _ if is_credit_answer(h) => Answer::Credit,
        PacketKind::Returned { reason, of } => Answer::Returned(Returned {
            reason,
            request: true,
            kind: message_kind(of),
            handler: h.handler,
            args,
            payload: &m.payload,
            offset: h.segment_offset,
            translation: dest,
        }),
        PacketKind::GetReply => Answer::GetDone {
            handler: h.handler,
            args,
            offset: h.segment_offset,
            len: h.total_len as usize,
            landed: m.landed,
        },
        PacketKind::Short | PacketKind::Medium | PacketKind::Long => {
            let Some((kind, payload)) = data_view(ep, &m, &mut segment) else {
                return;
            };
            Answer::Reply(Reply {
                kind,
                handler: h.handler,
                args,
                payload,
                offset: h.segment_offset,
                medium: &m.payload,
            })
        }
        _ => return,
    };
    ep.run_answer(m.from.id, answer);
}

/// One round of a closing endpoint (`net/linger.rs`): takes in what its socket holds
/// and fires its timers, judges silent peers, returns the requests it received to their
/// senders as `EndpointGone`, settles the answers that came (their handlers do not run:
/// the program freed the endpoint they were for), and sends what that produced.
pub(crate) fn drain_closing(ep: &EndpointCore) {
    if !ep.net.has_port() {
        return;
    }
    while receive_datagrams(ep, crate::transport::net::udp::BATCH) == crate::transport::net::udp::BATCH {}
    handle_events(ep);
    if ep.net.port(|p| p.news_of_death()) == Some(true) {
        ep.poll_liveness_now();
    }
    while let Some(m) = next_inbound(ep, Channel::Request) {
        return_request(ep, m.from, &m.header, ReturnReason::EndpointGone, &m.payload);
    }
    while let Some(m) = next_inbound(ep, Channel::Reply) {
        for _ in 0..requests_settled(&m.header) {
            ep.flow.with(|f| f.answered_by(m.from));
        }
    }
    flush_acks(ep);
    ep.net.port(|p| p.transmit());
}
