//! Closing endpoints' network sides without losing what they sent: TCP's linger, QUIC's
//! draining state. A request (or a returned request, or an answer) that left a freed
//! endpoint may still be unacknowledged: its first copy lost, or refused by a peer that
//! had not mapped the endpoint's name yet (`members.rs`), waiting for the retransmission
//! one RTO later. Dropping the socket then would lose it without a word, and the peer
//! could wait for it forever.
//!
//! So a closing endpoint keeps its socket for a bounded time: it takes in datagrams,
//! handles acks and timers and retransmits, returns what it receives to its senders as
//! `EndpointGone`, until its reliability machine is settled with every peer (everything
//! acknowledged, no ack owed) or the peer is known gone. The bound is the network's
//! silence timeout (`CLUMP_NET_TIMEOUT_MS`, 10 s by default): the time after which the
//! protocol judges a silent peer anyway, and so the least that does not turn a peer that
//! is merely slow (descheduled on a loaded host) into a failure. A peer still unsettled
//! then is given up, and the requests in flight to it come back to handler 0 as
//! `OutcomeUnknown` (`Unreachable` for those never sent) before the free returns. A
//! close with a live, polling peer takes a round trip, or an RTO when a copy was lost.
//!
//! Endpoints freed together (a bundle's) linger together, each taking in the others'
//! datagrams; `neighbours` moves the datagrams of the other endpoints of the freed
//! endpoint's thread that could answer it (its bundle's), running no handler.

use crate::endpoint::EndpointCore;
use crate::transport::net::poll::{drain_closing, give_up};
use crate::transport::net::NetPeer;
use crate::transport::shm::wake::{readable, wait_readable};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Longest nap between rounds: neighbours' delayed acks and timers are not this
/// endpoint's, so it looks again this often even when its own socket is quiet.
const NAP: Duration = Duration::from_millis(1);

/// Closes the network sides of freed endpoints `closing` once what they sent is
/// delivered or, after the bound, returned (see the module documentation).
pub(crate) fn close(closing: &[Rc<EndpointCore>], neighbours: &dyn Fn()) {
    let bound = closing
        .iter()
        .filter_map(|ep| ep.net.port(|p| p.timeout()))
        .max();
    let Some(bound) = bound else {
        return;
    };
    let deadline = Instant::now() + bound;
    loop {
        // Every endpoint takes its round, settled or not, so each answers the others.
        for ep in closing {
            drain_closing(ep);
            forget_the_gone(ep);
        }
        if closing.iter().all(|ep| settled(ep)) {
            break;
        }
        if Instant::now() >= deadline {
            closing.iter().for_each(|ep| expire(ep));
            break;
        }
        neighbours();
        nap(closing, deadline);
    }
    for ep in closing {
        // Closed outside the part (the socket's close is a system call, nothing more).
        let port = ep.net.port.with(|p| p.take());
        drop(port);
    }
}

/// The bound passed: the peers still unsettled are given up, their requests in flight
/// returned.
fn expire(ep: &EndpointCore) {
    for peer in unsettled(ep) {
        give_up(ep, peer, false);
    }
}

fn unsettled(ep: &EndpointCore) -> Vec<NetPeer> {
    ep.net.port(|p| p.unsettled_peers()).unwrap_or_default()
}

fn settled(ep: &EndpointCore) -> bool {
    ep.net.port(|p| p.settled()).unwrap_or(true)
}

/// Gives up on the unsettled peers whose process the launcher said has exited: their
/// requests in flight return as `PeerGone`.
fn forget_the_gone(ep: &EndpointCore) {
    for peer in unsettled(ep) {
        if crate::boot::watch::is_gone(peer.id.pid) {
            give_up(ep, peer, true);
        }
    }
}

/// Sleeps until a datagram reaches one of `closing`'s sockets, the earliest of their
/// timers, [`NAP`], or `deadline`.
fn nap(closing: &[Rc<EndpointCore>], deadline: Instant) {
    let mut fds = Vec::new();
    let mut left = deadline.saturating_duration_since(Instant::now()).min(NAP);
    for ep in closing {
        if let Some((sockets, timer)) = ep.net.port(|p| (p.fds(), p.next_timer())) {
            fds.extend(sockets.into_iter().map(readable));
            if let Some(timer) = timer {
                left = left.min(timer);
            }
        }
    }
    wait_readable(&mut fds, left);
}
