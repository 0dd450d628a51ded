//! Polling the network: datagrams into the reliability machine, then the handlers of
//! the whole messages it delivers. Long messages and get data land in the segment as
//! their fragments arrive in order, before their handler runs.

use crate::dispatch::{segment_bytes, segment_write};
use crate::endpoint::EndpointCore;
use crate::error::ReturnReason;
use crate::message::{Kind, Message, Returned};
use crate::net::reliable::{Event, Inbound};
use crate::net::wire::{Channel, DataKind, Header, PacketKind};
use crate::net_send::is_credit_answer;
use crate::route::{NetPeer, Route};
use crate::shm::remote::SegMapping;
use crate::sync::Ordering;
use crate::token::Origin;
use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::sync::Arc;

/// Messages of each channel one network poll runs at most.
const NET_POLL_BUDGET: usize = 64;

impl EndpointCore {
    /// Reads up to `max_datagrams` datagrams (one system call), then runs replies and,
    /// when `requests`, request handlers; sends the answers in one batch. Returns how
    /// many messages ran.
    pub(crate) fn poll_net(self: &Rc<Self>, max_datagrams: usize, requests: bool) -> usize {
        if self.net.borrow().is_none() || self.freed.get() {
            return 0;
        }
        self.receive_datagrams(max_datagrams);
        self.handle_net_events();
        let mut n = 0;
        while n < NET_POLL_BUDGET {
            let Some(m) = self.next_inbound(Channel::Reply) else {
                break;
            };
            self.handle_net_reply(m);
            n += 1;
        }
        if requests {
            for _ in 0..NET_POLL_BUDGET {
                let Some(m) = self.next_inbound(Channel::Request) else {
                    break;
                };
                self.handle_net_request(m);
                n += 1;
            }
        }
        self.flush_net_acks();
        if let Some(port) = self.net.borrow_mut().as_mut() {
            port.transmit();
        }
        n
    }

    /// Moves what waits on the socket into the machine, fires due timers and sends
    /// what that produced (acks, retransmissions), running no handler: a waiting thread
    /// learns whether a whole message is there, not merely a datagram.
    pub(crate) fn pump_net(&self) {
        if self.net.borrow().is_none() || self.freed.get() {
            return;
        }
        while self.receive_datagrams(crate::net::udp::BATCH) == crate::net::udp::BATCH {}
        self.handle_net_events();
        if let Some(port) = self.net.borrow_mut().as_mut() {
            port.transmit();
        }
    }

    /// Whether this endpoint's socket doorbell says datagrams wait.
    pub(crate) fn net_rang(&self) -> bool {
        self.net.borrow().as_ref().is_some_and(|p| p.rang())
    }

    fn next_inbound(&self, channel: Channel) -> Option<Inbound<SocketAddrV4>> {
        self.net.borrow_mut().as_mut()?.next_inbound(channel)
    }

    /// Reads up to `max` datagrams into the machine; returns how many.
    fn receive_datagrams(&self, max: usize) -> usize {
        let own_tag = self.own.block.get().header.tag.load(Ordering::Relaxed);
        let flights = &self.net_flights;
        // A fragment lands only where its message may: a request under this endpoint's
        // tag, or an answer from a peer this endpoint awaits answers from. The whole
        // message must fit, so that none of it lands if it is returned.
        let mut land = |h: &Header, data: &[u8]| {
            let allowed = match h.channel {
                Channel::Request => h.tag == own_tag,
                Channel::Reply => flights.borrow().contains_key(&h.src),
            };
            // Borrowed only here: most polls land nothing, and cloning the mapping's
            // Arc on every one cost more than the rest of an empty poll.
            let segment = self.segment.borrow();
            let fits = h
                .segment_offset
                .checked_add(u64::from(h.total_len))
                .is_some_and(|end| segment.as_ref().is_some_and(|s| end <= s.len as u64));
            allowed
                && fits
                && segment_write(
                    segment.as_ref(),
                    h.segment_offset + u64::from(h.frag_offset),
                    data,
                )
        };
        match self.net.borrow_mut().as_mut() {
            Some(port) => port.receive(max, &mut land),
            None => 0,
        }
    }

    /// Peers the network gave up on: their requests in flight return as unreachable.
    fn handle_net_events(&self) {
        loop {
            let event = self.net.borrow_mut().as_mut().and_then(|p| p.next_event());
            let Some(Event::Unreachable(peer)) = event else {
                return;
            };
            self.net_flights.borrow_mut().remove(&peer.id);
            let lost: Vec<u32> = self
                .translations
                .borrow()
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    t.as_ref()
                        .is_some_and(|t| matches!(t.route, Route::Net(p) if p == peer))
                })
                .map(|(i, _)| i as u32)
                .collect();
            for dest in lost {
                self.peer_lost(dest, ReturnReason::Unreachable);
            }
        }
    }

    fn handle_net_request(self: &Rc<Self>, m: Inbound<SocketAddrV4>) {
        let h = &m.header;
        let own_tag = self.own.block.get().header.tag.load(Ordering::Acquire);
        if h.tag != own_tag {
            return self.net_return(m.from, h, ReturnReason::BadTag, &m.payload);
        }
        if h.kind == PacketKind::Get {
            return self.serve_net_get(m.from, h);
        }
        let mut segment = None;
        let Some((kind, payload)) = self.data_view(&m, &mut segment) else {
            return self.net_ack_later(m.from);
        };
        let Some(payload) = payload else {
            return self.net_return(m.from, h, ReturnReason::BadSegmentOffset, &[]);
        };
        let msg = Message {
            kind,
            handler: h.handler,
            args: h.args.as_slice(),
            payload,
            offset: h.segment_offset,
        };
        let origin = Origin::NetRequest {
            from: m.from,
            tag: h.tag,
        };
        match self.call_request_handler(origin, &msg) {
            Ok(true) => {}
            Ok(false) => self.net_ack_later(m.from),
            Err(reason) => self.net_return(m.from, h, reason, &m.payload),
        }
    }

    /// A short, medium or long message as its handler sees it: its kind and payload, the
    /// payload `None` for a long message that did not land in the segment; `None` for
    /// other kinds. `segment` keeps the mapping a long payload borrows.
    fn data_view<'a>(
        &self,
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
                *segment = self.current_segment();
                let segment: &'a Option<Arc<SegMapping>> = segment;
                segment_bytes(segment.as_ref(), h.segment_offset, h.total_len).filter(|_| m.landed)
            }
            _ => Some(&[][..]),
        };
        Some((kind, payload))
    }

    /// Answers a get with the bytes it asked for, to land at its reply offset.
    fn serve_net_get(&self, from: NetPeer, req: &Header) {
        let segment = self.current_segment();
        let Some(bytes) = segment_bytes(segment.as_ref(), req.segment_offset, req.total_len) else {
            return self.net_return(from, req, ReturnReason::BadSegmentOffset, &[]);
        };
        let mut h = Header::new(PacketKind::GetReply, Channel::Reply);
        h.handler = req.handler;
        h.args = req.args;
        h.tag = req.tag;
        h.segment_offset = req.reply_offset;
        h.total_len = req.total_len;
        self.send_answer(from, h, bytes.to_vec());
    }

    fn handle_net_reply(self: &Rc<Self>, m: Inbound<SocketAddrV4>) {
        let h = &m.header;
        let answered = if is_credit_answer(h) {
            h.args.as_slice().first().copied().unwrap_or(1).max(1)
        } else {
            1
        };
        let mut dest = None;
        for _ in 0..answered {
            // An answer for nothing in flight is a confused or hostile peer: ignore it.
            let Some(d) = self.pop_flight(&m.from) else {
                return;
            };
            self.return_credit(d, 1);
            dest = Some(d);
        }
        if is_credit_answer(h) {
            return;
        }
        let args = h.args.as_slice();
        match h.kind {
            PacketKind::Returned { reason, of } => self.deliver_returned(&Returned {
                reason,
                request: true,
                kind: match of {
                    DataKind::Short => Kind::Short,
                    DataKind::Medium => Kind::Medium,
                    DataKind::Long => Kind::Long,
                    DataKind::Get | DataKind::GetReply => Kind::Get,
                },
                handler: h.handler,
                args,
                payload: &m.payload,
                offset: h.segment_offset,
                translation: dest,
            }),
            PacketKind::GetReply => self.run_get_done(
                h.handler,
                args,
                h.segment_offset,
                h.total_len as usize,
                m.landed,
            ),
            PacketKind::Short | PacketKind::Medium | PacketKind::Long => {
                let mut segment = None;
                let Some((kind, payload)) = self.data_view(&m, &mut segment) else {
                    return;
                };
                self.call_reply_handler(
                    Origin::Reply { src: m.from.id },
                    kind,
                    h.handler,
                    args,
                    payload,
                    h.segment_offset,
                    &m.payload,
                );
            }
            _ => {}
        }
    }

    /// Sleeps until a datagram reaches this endpoint's socket, or `timeout`.
    pub(crate) fn wait_for_datagram(&self, timeout: std::time::Duration) {
        let Some(fd) = self.net.borrow().as_ref().map(|p| p.as_raw_fd()) else {
            return;
        };
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.as_micros().div_ceil(1000).max(1) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        unsafe { libc::poll(&mut p, 1, ms) };
    }

    /// The translation the oldest request in flight to `peer` went through.
    fn pop_flight(&self, peer: &NetPeer) -> Option<u32> {
        let mut flights = self.net_flights.borrow_mut();
        let flight = flights.get_mut(&peer.id)?;
        let dest = flight.pop_front();
        if flight.is_empty() {
            flights.remove(&peer.id);
        }
        dest
    }

    /// Frees the network side of a freed endpoint: requests it received and never ran go
    /// back to their senders, then the socket closes.
    pub(crate) fn close_net(self: &Rc<Self>) {
        // What already reached the socket is taken in, so that it too goes back.
        for _ in 0..64 {
            if self.net.borrow().is_none() || self.receive_datagrams(crate::net::udp::BATCH) == 0 {
                break;
            }
        }
        while let Some(m) = self.next_inbound(Channel::Request) {
            self.net_return(m.from, &m.header, ReturnReason::EndpointGone, &m.payload);
        }
        self.flush_net_acks();
        if let Some(mut port) = self.net.borrow_mut().take() {
            port.transmit();
        }
        self.net_flights.borrow_mut().clear();
    }
}
