//! Tokens and the reply path. A request handler may reply once through its token; a reply
//! handler may not send at all. Replies never block: if the requester's reply queue has
//! no room (it always has packet room, by the credit bound, but its bulk blocks may be
//! busy), the reply waits in the replier's deferred list and later polls finish it.

use crate::endpoint::{Deferred, Endpoint, EndpointCore, PendingAck};
use crate::error::{Error, Result, ReturnReason};
use crate::message::{HandlerIndex, Kind};
use crate::name::EndpointId;
use crate::route::NetPeer;
use crate::send::Outgoing;
use crate::shm::packet::{Packet, PacketKind, NO_BULK};
use crate::shm::remote::Remote;
use crate::shm::remote::RemoteRef;
use crate::shm::ring::PushError;
use crate::sync::Ordering;
use std::rc::Rc;

/// Where the message a handler is running for came from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Origin {
    Request {
        src: EndpointId,
        src_tag: u64,
        credit_slot: u32,
    },
    /// A request that came over the network, under the destination tag `tag`.
    NetRequest {
        from: NetPeer,
        tag: u64,
    },
    Reply {
        src: EndpointId,
    },
    /// A completed get: no remote party.
    Local,
}

/// Handed to every handler: identifies the message and, for requests, is the only way
/// to reply.
pub struct Token<'a> {
    pub(crate) ep: &'a Rc<EndpointCore>,
    pub(crate) origin: Origin,
    pub(crate) replied: bool,
}

impl Token<'_> {
    /// True in a request handler, false in a reply or local completion handler.
    pub fn is_request(&self) -> bool {
        matches!(
            self.origin,
            Origin::Request { .. } | Origin::NetRequest { .. }
        )
    }

    /// The endpoint that sent the message (`AM_GetSourceEndpoint`); `None` for a get's
    /// local completion.
    pub fn source(&self) -> Option<EndpointId> {
        match self.origin {
            Origin::Request { src, .. } | Origin::Reply { src } => Some(src),
            Origin::NetRequest { from, .. } => Some(from.id),
            Origin::Local => None,
        }
    }

    /// The tag the sender carries (`AM_GetMsgTag`), for requests.
    pub fn source_tag(&self) -> Option<u64> {
        match self.origin {
            Origin::Request { src_tag, .. } => Some(src_tag),
            Origin::NetRequest { tag, .. } => Some(tag),
            _ => None,
        }
    }

    /// The endpoint the handler runs on (`AM_GetDestEndpoint`); it may send requests.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            core: self.ep.clone(),
        }
    }

    /// Replies with a short message.
    pub fn reply(&mut self, handler: HandlerIndex, args: &[u32]) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Short,
            handler,
            args,
            payload: &[],
            offset: 0,
        })
    }

    /// Replies with a medium message.
    pub fn reply_medium(
        &mut self,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
    ) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Medium,
            handler,
            args,
            payload,
            offset: 0,
        })
    }

    /// Replies with a long message written at `dest_offset` of the requester's segment.
    pub fn reply_long(
        &mut self,
        handler: HandlerIndex,
        args: &[u32],
        payload: &[u8],
        dest_offset: usize,
    ) -> Result<()> {
        self.send_reply(Outgoing {
            kind: Kind::Long,
            handler,
            args,
            payload,
            offset: dest_offset as u64,
        })
    }

    fn send_reply(&mut self, o: Outgoing<'_>) -> Result<()> {
        if !self.is_request() {
            return Err(Error::ReplyFromReplyHandler);
        }
        if self.replied {
            return Err(Error::AlreadyReplied);
        }
        o.validate()?;
        self.replied = true;
        let ep = self.ep;
        let (src, src_tag, credit_slot) = match self.origin {
            Origin::Request {
                src,
                src_tag,
                credit_slot,
            } => (src, src_tag, credit_slot),
            Origin::NetRequest { from, tag } => {
                ep.net_reply(from, tag, &o);
                return Ok(());
            }
            Origin::Reply { .. } | Origin::Local => return Err(Error::ReplyFromReplyHandler),
        };
        let Ok(to) = ep.source(src) else {
            // The requester's block cannot be mapped any more: its process is gone.
            ep.return_locally(o.returned(ReturnReason::ReplyRejected, false, None));
            return Ok(());
        };
        if to.closed() {
            ep.return_locally(o.returned(ReturnReason::EndpointGone, false, None));
            return Ok(());
        }
        let header = &to.block.get().header;
        let rejected = if header.tag.load(Ordering::Acquire) != src_tag {
            Some(ReturnReason::ReplyRejected)
        } else if o.kind == Kind::Long {
            write_long_reply(ep, &to, &o).err()
        } else {
            None
        };
        if let Some(reason) = rejected {
            // The reply cannot land, but the requester's credit must still come back.
            ep.return_locally(o.returned(reason, false, None));
            ep.push_reply(&to, ack_packet(ep, credit_slot, 1), &[]);
            return Ok(());
        }
        let mut p = Packet {
            kind: match o.kind {
                Kind::Medium => PacketKind::Medium,
                Kind::Long => PacketKind::Long,
                _ => PacketKind::Short,
            } as u8,
            handler: o.handler,
            nargs: o.args.len() as u8,
            len: o.payload.len() as u32,
            credit_slot,
            credits: 1,
            offset: o.offset,
            src: ep.name.id,
            ..Packet::default()
        };
        p.args[..o.args.len()].copy_from_slice(o.args);
        let medium = if o.kind == Kind::Medium {
            o.payload
        } else {
            &[]
        };
        ep.push_reply(&to, p, medium);
        Ok(())
    }
}

/// Writes a long reply's payload into the requester's segment.
fn write_long_reply(
    ep: &EndpointCore,
    to: &Remote,
    o: &Outgoing<'_>,
) -> std::result::Result<(), ReturnReason> {
    let seg = match to.segment(None) {
        Ok(Some(seg)) => seg,
        _ => return Err(ReturnReason::BadSegmentOffset),
    };
    seg.write(o.offset as usize, o.payload)
        .map_err(|e| ep.segment_failure(&e))
}

/// The packet that returns a credit for a request whose handler did not reply.
pub(crate) fn ack_packet(ep: &EndpointCore, credit_slot: u32, credits: u32) -> Packet {
    Packet {
        kind: PacketKind::Ack as u8,
        credit_slot,
        credits,
        src: ep.name.id,
        bulk: NO_BULK,
        ..Packet::default()
    }
}

impl EndpointCore {
    /// Enqueues a packet on `to`'s reply queue, or defers it. Never blocks.
    pub(crate) fn push_reply(&self, to: &RemoteRef, packet: Packet, medium: &[u8]) {
        // Acks owed for earlier requests go first, keeping each requester's answers in order.
        if !self.pending_acks.borrow().is_empty() {
            self.flush_acks();
        }
        let mut deferred = self.deferred.borrow_mut();
        if !deferred.is_empty() || try_push_reply(to, packet, medium) == Err(PushError::Full) {
            // Keep replies to everyone in order behind the first deferred one.
            self.count(|s| s.deferred_replies += 1);
            deferred.push_back(Deferred {
                to: to.clone(),
                packet,
                payload: medium.to_vec(),
            });
        }
    }

    /// Owes `src` a credit for a request whose handler did not reply. Acks for a run of
    /// requests from one sender go back as one packet at the end of the poll.
    pub(crate) fn ack_later(&self, src: EndpointId, credit_slot: u32) {
        let mut acks = self.pending_acks.borrow_mut();
        match acks.last_mut() {
            Some(a) if a.src == src && a.credit_slot == credit_slot => a.count += 1,
            _ => acks.push(PendingAck {
                src,
                credit_slot,
                count: 1,
            }),
        }
    }

    pub(crate) fn flush_acks(&self) {
        let acks = std::mem::take(&mut *self.pending_acks.borrow_mut());
        for a in acks {
            // A requester whose process is gone needs no credit back.
            if let Ok(to) = self.source(a.src) {
                self.push_reply(&to, ack_packet(self, a.credit_slot, a.count), &[]);
            }
        }
    }

    /// Retries deferred replies in order; stops at the first that still does not fit.
    pub(crate) fn flush_deferred(&self) {
        let mut deferred = self.deferred.borrow_mut();
        while let Some(d) = deferred.front() {
            if try_push_reply(&d.to, d.packet, &d.payload) == Err(PushError::Full) {
                return;
            }
            deferred.pop_front();
        }
    }
}

/// One attempt to enqueue a reply. A closed (freed) requester drops it: nobody is left
/// to deliver it to, and the replier was told through `to.closed()` when it replied.
fn try_push_reply(
    to: &Remote,
    mut packet: Packet,
    medium: &[u8],
) -> std::result::Result<(), PushError> {
    let queue = &to.block.get().reply;
    packet.bulk = NO_BULK;
    if packet.len > 0 && medium.len() == packet.len as usize {
        let Some(block) = queue.bulk().claim() else {
            return Err(PushError::Full);
        };
        queue.write_bulk(block, medium);
        packet.bulk = block;
    }
    match queue.ring().push(|p| p.store_used(&packet)) {
        Ok(()) => {
            to.notify();
            Ok(())
        }
        Err(e) => {
            if packet.bulk != NO_BULK {
                queue.bulk().free(packet.bulk);
            }
            if e == PushError::Closed {
                Ok(())
            } else {
                Err(e)
            }
        }
    }
}
