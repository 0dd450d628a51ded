//! The network transport, whole: the verbs of [`Transport`] over the send side
//! (`send.rs`), the poll side (`poll.rs`) and the closing rounds (`linger.rs`). Its peers
//! are endpoints behind UDP sockets, on other hosts or (a refused cross-memory attach,
//! `endpoint/fallback.rs`) this one.

use super::NetPeer;
use crate::endpoint::route::NetRequester;
use crate::endpoint::transport::{Sent, Transport};
use crate::endpoint::EndpointCore;
use crate::error::Result;
use crate::message::Outgoing;
use std::rc::Rc;

pub(crate) struct Net;

impl Transport for Net {
    type Peer = NetPeer;
    type Requester = NetRequester;

    fn request(ep: &Rc<EndpointCore>, dest: u32, peer: &NetPeer, o: &Outgoing<'_>) -> Result<Sent> {
        super::send::request(ep, dest, *peer, o).map(|()| Sent::Done)
    }

    fn get(
        ep: &Rc<EndpointCore>,
        dest: u32,
        peer: &NetPeer,
        o: &Outgoing<'_>,
        len: usize,
        dst_offset: usize,
    ) -> Result<Sent> {
        super::send::get(ep, dest, *peer, o, len, dst_offset).map(|()| Sent::Done)
    }

    fn reply(ep: &EndpointCore, to: &NetRequester, o: &Outgoing<'_>) {
        super::send::reply(ep, to.from, to.tag, o)
    }

    #[inline]
    fn poll(ep: &Rc<EndpointCore>, budget: usize, requests: bool) -> usize {
        super::poll::poll(ep, budget, requests)
    }

    #[inline]
    fn has_work(ep: &EndpointCore) -> bool {
        super::poll::has_work(ep)
    }

    fn send_owed(ep: &EndpointCore) {
        super::send::send_owed(ep)
    }

    fn close(eps: &[Rc<EndpointCore>], neighbours: &dyn Fn()) {
        super::linger::close(eps, neighbours)
    }

    /// The closing rounds settled everything (`linger.rs`).
    fn finish(_: &EndpointCore) {}
}
