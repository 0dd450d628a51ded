//! The shared-memory transport, whole: the verbs of [`Transport`] over the send side
//! (`send.rs`), the poll side (`poll.rs`) and their fast path (`short.rs`). Its peers are
//! queue blocks of this host; it never sends over the network (a refused cross-memory
//! attach is reported as [`Sent::Refused`] and routed above).

use super::remote::RemoteRef;
use super::{poll, send, short};
use crate::endpoint::route::ShmRequester;
use crate::endpoint::transport::{Sent, Transport};
use crate::endpoint::EndpointCore;
use crate::error::{Error, Result};
use crate::message::{Kind, Outgoing};
use std::rc::Rc;

pub(crate) struct Shm;

impl Transport for Shm {
    type Peer = RemoteRef;
    type Requester = ShmRequester;

    #[inline]
    fn request(
        ep: &Rc<EndpointCore>,
        dest: u32,
        remote: &RemoteRef,
        o: &Outgoing<'_>,
    ) -> Result<Sent> {
        let segment = if o.kind == Kind::Long {
            match ep.dest_segment(dest, o.offset as usize, o.payload.len()) {
                Ok(seg) => Some(seg),
                Err(reason) => return send::bounced(ep, o, dest, reason),
            }
        } else {
            None
        };
        send::request(ep, dest, remote, o, segment)
    }

    fn get(
        ep: &Rc<EndpointCore>,
        dest: u32,
        _: &RemoteRef,
        o: &Outgoing<'_>,
        len: usize,
        dst_offset: usize,
    ) -> Result<Sent> {
        // The AM layer checked the local range before routing.
        let local = ep
            .current_segment()
            .ok_or_else(|| Error::BadArg("get needs a local segment".into()))?;
        match ep.dest_segment(dest, o.offset as usize, len) {
            Ok(seg) => send::get(ep, o, &seg, &local, len, dst_offset),
            Err(reason) => send::bounced(ep, o, dest, reason),
        }
    }

    #[inline]
    fn reply(ep: &EndpointCore, to: &ShmRequester, o: &Outgoing<'_>) {
        if !short::try_reply(ep, to.src, to.src_tag, to.credit_slot, o) {
            send::reply(ep, to.src, to.src_tag, to.credit_slot, o)
        }
    }

    fn poll(ep: &Rc<EndpointCore>, budget: usize, requests: bool) -> usize {
        let n = poll::poll_replies(ep, budget);
        if requests {
            n + poll::poll_requests(ep, budget)
        } else {
            n
        }
    }

    #[inline]
    fn has_work(ep: &EndpointCore) -> bool {
        poll::has_work(ep)
    }

    fn send_owed(ep: &EndpointCore) {
        poll::return_credits(ep);
    }

    fn close(eps: &[Rc<EndpointCore>], _: &dyn Fn()) {
        eps.iter().for_each(|ep| poll::close(ep));
    }

    fn finish(ep: &EndpointCore) {
        poll::finish_answers(ep);
    }
}
