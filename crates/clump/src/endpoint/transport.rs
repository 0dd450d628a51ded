//! The verbs every transport implements, completely: shared memory (`shm/transport.rs`)
//! and the network (`net/transport.rs`), as GASNet-EX's conduits each take the whole of
//! an Active Message. The routing point (`route.rs`, used by `am/send.rs` and
//! `am/token.rs`) picks the transport and hands it its own kind of peer; a transport
//! never chooses another one, and never calls it.

use super::EndpointCore;
use crate::error::Result;
use crate::message::Outgoing;
use std::rc::Rc;

/// How a send a transport took on ended.
pub(crate) enum Sent {
    /// Sent, or returned to handler 0 (the transport said why).
    Done,
    /// Nothing left: the kernel refused to copy the payload into (or out of) the peer's
    /// segment. What follows is a routing decision (`fallback.rs`), not the transport's.
    Refused(std::io::Error),
}

pub(crate) trait Transport {
    /// How the transport names a destination (the part of a [`super::route::Route`]).
    type Peer;
    /// How it names the requester an answer goes back to (the token's reply route).
    type Requester;

    /// Sends request `o` (short, medium or long) through translation `dest` to `peer`,
    /// waiting for credit and room as needed.
    fn request(ep: &Rc<EndpointCore>, dest: u32, peer: &Self::Peer, o: &Outgoing<'_>)
        -> Result<Sent>;

    /// Pulls `len` bytes at `o.offset` of `peer`'s segment to `dst_offset` of this
    /// endpoint's; the local handler runs at a later poll.
    fn get(
        ep: &Rc<EndpointCore>,
        dest: u32,
        peer: &Self::Peer,
        o: &Outgoing<'_>,
        len: usize,
        dst_offset: usize,
    ) -> Result<Sent>;

    /// Replies `o` to the request of `to`. Never blocks; what cannot land comes back to
    /// this endpoint's handler 0.
    fn reply(ep: &EndpointCore, to: &Self::Requester, o: &Outgoing<'_>);

    /// Runs waiting answers and, when `requests`, request handlers, reading at most
    /// `budget` (messages for shared memory, datagrams for the network); returns how
    /// many messages ran.
    fn poll(ep: &Rc<EndpointCore>, budget: usize, requests: bool) -> usize;

    /// Whether a poll would find a whole message waiting.
    fn has_work(ep: &EndpointCore) -> bool;

    /// Sends what this endpoint holds back (owed credits, held messages): before a wait
    /// sleeps, when no poll would.
    fn send_owed(ep: &EndpointCore);

    /// Closes the transport's side of freed endpoints: what waits for them goes back to
    /// its senders, what they sent is settled (`neighbours` moves the datagrams of the
    /// thread's other endpoints that may answer them).
    fn close(eps: &[Rc<EndpointCore>], neighbours: &dyn Fn());

    /// Delivers, within a bound, what a closed endpoint still owes its peers (answers
    /// that waited for room), since no poll comes any more.
    fn finish(ep: &EndpointCore);
}
