//! Flow control of one endpoint's requests, as pure bookkeeping: a credit window per
//! translation, a bound on all requests in flight (every answer must find a slot in the
//! endpoint's reply queue), the requests in flight kept until answered (so that they come
//! back to handler 0 if their destination is lost), and, for the network, which
//! translation each answer from a peer settles.
//!
//! Every request a destination receives is answered by exactly one message, in request
//! order, over either transport: the oldest request in flight is the one an answer
//! settles. Shared memory names the translation in each answer (its credit slot); the
//! network keeps the order per peer here instead (`flights`), with no id in the packet.
//! A network peer is named as the reliability machine names it (address and endpoint),
//! so that what one peer sends or loses never settles or drops another's flights.

use super::fifo::Fifo;
use crate::error::ReturnReason;
use crate::message::{ReturnedMessage, SavedRequest};
use crate::name::IdHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash};

/// The requests in flight through one translation.
#[derive(Debug, Default)]
struct Lane {
    outstanding: Fifo<SavedRequest>,
    /// Why the destination can no longer be reached: later sends return at once.
    dead: Option<ReturnReason>,
}

#[derive(Debug)]
pub(crate) struct Flow<P> {
    /// Credits per translation over shared memory...
    window: usize,
    /// ... and over the network, whose round trip is longer (`CLUMP_NET_CREDITS`).
    net_window: usize,
    /// Requests in flight at most, over all translations.
    limit: usize,
    lanes: Vec<Lane>,
    total: usize,
    /// Per network peer, the translations of its requests in flight, oldest first. A
    /// peer's queue stays when it empties (until the peer is forgotten), so that a lone
    /// request, answered before the next, allocates and hashes in nothing.
    flights: HashMap<P, VecDeque<u32>, BuildHasherDefault<IdHasher>>,
}

impl<P: Copy + Eq + Hash> Flow<P> {
    pub fn new(window: usize, net_window: usize, limit: usize) -> Flow<P> {
        Flow {
            window,
            net_window,
            limit,
            lanes: Vec::new(),
            total: 0,
            flights: HashMap::default(),
        }
    }

    fn lane(&self, dest: u32) -> Option<&Lane> {
        self.lanes.get(dest as usize)
    }

    /// A fresh start for translation `dest` (just mapped or unmapped): nothing in flight,
    /// not dead. The caller refuses to remap while requests are in flight.
    pub fn reset(&mut self, dest: u32) {
        let i = dest as usize;
        if self.lanes.len() <= i {
            self.lanes.resize_with(i + 1, Lane::default);
        }
        let lane = std::mem::take(&mut self.lanes[i]);
        self.total -= lane.outstanding.len();
    }

    /// Requests in flight through `dest`.
    #[inline]
    pub fn in_flight(&self, dest: u32) -> usize {
        self.lane(dest).map_or(0, |l| l.outstanding.len())
    }

    /// Requests in flight through every translation.
    #[inline]
    pub fn total(&self) -> usize {
        self.total
    }

    /// Credits per translation over shared memory.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Credits per translation over the network.
    pub fn net_window(&self) -> usize {
        self.net_window
    }

    /// Whether one more request may go through `dest`, a shared-memory route, now.
    #[inline]
    pub fn has_credit(&self, dest: u32) -> bool {
        self.in_flight(dest) < self.window && self.total < self.limit
    }

    /// Whether one more request may go through `dest`, a network route, now.
    #[inline]
    pub fn has_net_credit(&self, dest: u32) -> bool {
        self.in_flight(dest) < self.net_window && self.total < self.limit
    }

    /// Whether one more request may go through `dest` now and `dest` is not dead: one
    /// look at its lane, for the short send's fast path.
    #[inline(always)]
    pub fn may_send(&self, dest: u32) -> bool {
        let lane_ok = match self.lane(dest) {
            Some(l) => l.dead.is_none() && l.outstanding.len() < self.window,
            None => self.window > 0,
        };
        lane_ok && self.total < self.limit
    }

    /// Why `dest` cannot be reached any more, if it cannot.
    #[inline]
    pub fn dead(&self, dest: u32) -> Option<ReturnReason> {
        self.lane(dest)?.dead
    }

    /// A request went out through `dest`; `peer` names the network peer it went to.
    #[inline]
    pub fn sent(&mut self, dest: u32, request: SavedRequest, peer: Option<P>) {
        let i = dest as usize;
        if self.lanes.len() <= i {
            self.add_lanes(i + 1);
        }
        self.lanes[i].outstanding.push_back(request);
        self.total += 1;
        if let Some(peer) = peer {
            self.fly(peer, dest);
        }
    }

    /// Lanes up to `len`, for the first request through a new translation. Out of line,
    /// with [`Flow::fly`], so that a shared-memory send inlines the rest.
    #[cold]
    #[inline(never)]
    fn add_lanes(&mut self, len: usize) {
        self.lanes.resize_with(len, Lane::default);
    }

    /// A request through `dest` went to network peer `peer`.
    #[inline(never)]
    fn fly(&mut self, peer: P, dest: u32) {
        self.flights.entry(peer).or_default().push_back(dest);
    }

    /// `credits` answers came back through `dest` (shared memory names the translation).
    #[inline]
    pub fn answered(&mut self, dest: u32, credits: u32) {
        if let Some(lane) = self.lanes.get_mut(dest as usize) {
            self.total -= lane.outstanding.discard_front(credits as usize);
        }
    }

    /// An answer came from network peer `peer`: settles its oldest request in flight and
    /// names the translation it went through; `None` if nothing was in flight to it (a
    /// confused or hostile peer).
    pub fn answered_by(&mut self, peer: P) -> Option<u32> {
        let dest = self.flights.get_mut(&peer)?.pop_front()?;
        self.answered(dest, 1);
        Some(dest)
    }

    /// Whether answers are awaited from network peer `peer`.
    #[inline]
    pub fn awaits(&self, peer: &P) -> bool {
        self.flights.get(peer).is_some_and(|f| !f.is_empty())
    }

    /// The destination of `dest` is lost for `reason`: later sends return at once (as
    /// `Unreachable` if its process is gone: they never leave), and its requests in
    /// flight come back for `reason`, oldest first.
    pub fn lose(&mut self, dest: u32, reason: ReturnReason) -> Vec<ReturnedMessage> {
        let Some(lane) = self.lanes.get_mut(dest as usize) else {
            return Vec::new();
        };
        lane.dead = Some(match reason {
            ReturnReason::PeerGone => ReturnReason::Unreachable,
            other => other,
        });
        let lost: Vec<SavedRequest> = lane.outstanding.take_all();
        self.total -= lost.len();
        lost.into_iter()
            .map(|r| ReturnedMessage {
                reason,
                request: true,
                kind: r.kind,
                handler: r.handler,
                args: r.args,
                payload: Vec::new(),
                offset: r.offset,
                translation: Some(dest),
            })
            .collect()
    }

    /// How many of network peer `peer`'s newest requests in flight, `newest` in all, went
    /// through each translation: the split [`Flow::lose_split`] needs when the transport
    /// knows that the newest ones were never sent.
    pub fn newest_by_translation(&self, peer: &P, newest: usize) -> Vec<(u32, usize)> {
        let mut counts: Vec<(u32, usize)> = Vec::new();
        let flights = self.flights.get(peer).into_iter().flatten();
        for &dest in flights.rev().take(newest) {
            match counts.iter_mut().find(|(d, _)| *d == dest) {
                Some((_, n)) => *n += 1,
                None => counts.push((dest, 1)),
            }
        }
        counts
    }

    /// As [`Flow::lose`], for a destination some of whose requests may have arrived: the
    /// `unsent` newest come back as `Unreachable` (they never left), the older ones for
    /// `left` (`OutcomeUnknown`, or `PeerGone`); later sends return as `Unreachable`.
    pub fn lose_split(&mut self, dest: u32, unsent: usize, left: ReturnReason) -> Vec<ReturnedMessage> {
        let mut lost = self.lose(dest, ReturnReason::Unreachable);
        let sent = lost.len().saturating_sub(unsent);
        for r in &mut lost[..sent] {
            r.reason = left;
        }
        lost
    }

    /// Network peer `peer` is gone: no answer from it is awaited any more.
    pub fn forget(&mut self, peer: &P) {
        self.flights.remove(peer);
    }

    /// Translations with requests in flight, for the scan for lost peers.
    pub fn busy(&self) -> impl Iterator<Item = u32> + '_ {
        self.lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.outstanding.is_empty())
            .map(|(i, _)| i as u32)
    }

    /// Forgets everything (the endpoint is freed).
    pub fn clear(&mut self) {
        self.lanes.clear();
        self.flights.clear();
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ArgBuf, Kind};
    use crate::name::EndpointId;

    /// Network peers as the reliability machine names them: (address, endpoint).
    type Peer = (u16, EndpointId);

    fn req(handler: u8) -> SavedRequest {
        SavedRequest {
            kind: Kind::Short,
            handler,
            args: ArgBuf::from_slice(&[handler as u32]),
            offset: 0,
        }
    }

    fn peer(n: u64) -> Peer {
        (1, EndpointId {
            pid: 1,
            fd: 2,
            nonce: n,
        })
    }

    #[test]
    fn the_window_and_the_total_bound_credits() {
        let mut f = Flow::<Peer>::new(2, 2, 3);
        f.reset(0);
        f.reset(1);
        f.sent(0, req(1), None);
        f.sent(0, req(2), None);
        assert!(!f.has_credit(0), "the window of translation 0 is full");
        assert!(f.has_credit(1));
        f.sent(1, req(3), None);
        assert!(!f.has_credit(1), "three in flight reach the total bound");
        f.answered(0, 1);
        assert!(f.has_credit(0) && f.has_credit(1));
        assert_eq!((f.in_flight(0), f.total()), (1, 2));
    }

    #[test]
    fn network_routes_have_their_own_window() {
        let mut f = Flow::<Peer>::new(2, 4, 8);
        f.reset(0);
        for n in 0..2 {
            f.sent(0, req(n), Some(peer(1)));
        }
        assert!(!f.has_credit(0), "two fill the shared-memory window");
        assert!(f.has_net_credit(0), "the network's is larger");
        for n in 2..4 {
            f.sent(0, req(n), Some(peer(1)));
        }
        assert!(!f.has_net_credit(0), "four fill the network's window");
        assert_eq!((f.window(), f.net_window()), (2, 4));
    }

    #[test]
    fn a_send_may_go_where_there_is_credit_and_the_destination_lives() {
        let mut f = Flow::<Peer>::new(2, 2, 3);
        assert!(f.may_send(5), "a translation with no lane yet");
        f.sent(0, req(1), None);
        f.sent(0, req(2), None);
        assert!(!f.may_send(0), "the window of translation 0 is full");
        f.sent(1, req(3), None);
        assert!(!f.may_send(1) && !f.may_send(5), "the total bound is reached");
        f.answered(0, 2);
        assert!(f.may_send(0) && f.may_send(1));
        f.lose(1, ReturnReason::PeerGone);
        assert!(!f.may_send(1), "a dead destination");
        assert!(f.may_send(0));
        for dest in [0, 1, 5] {
            assert_eq!(
                f.may_send(dest),
                f.has_credit(dest) && f.dead(dest).is_none()
            );
        }
    }

    #[test]
    fn network_answers_settle_the_oldest_flight_of_their_peer() {
        let mut f = Flow::<Peer>::new(8, 8, 64);
        f.sent(3, req(1), Some(peer(1)));
        f.sent(5, req(2), Some(peer(1)));
        f.sent(4, req(3), Some(peer(2)));
        assert_eq!(f.answered_by(peer(1)), Some(3));
        assert_eq!(f.answered_by(peer(2)), Some(4));
        assert!(!f.awaits(&peer(2)));
        assert_eq!(f.answered_by(peer(2)), None, "nothing in flight: ignored");
        assert_eq!(f.answered_by(peer(1)), Some(5));
        assert_eq!(f.total(), 0);
    }

    /// Round trips one at a time: the peer's queue of flights is kept, empty, between
    /// them (its storage reused), and an empty queue awaits nothing.
    #[test]
    fn a_settled_flight_keeps_its_queue_for_the_next_request() {
        let mut f = Flow::<Peer>::new(8, 8, 64);
        let kept = |f: &Flow<Peer>| f.flights.get(&peer(1)).map_or(0, VecDeque::capacity);
        f.sent(3, req(1), Some(peer(1)));
        assert_eq!(f.answered_by(peer(1)), Some(3));
        assert!(kept(&f) > 0, "the empty queue keeps its storage");
        assert!(!f.awaits(&peer(1)));
        assert_eq!(f.answered_by(peer(1)), None, "nothing in flight: ignored");
        f.sent(4, req(2), Some(peer(1)));
        assert!(f.awaits(&peer(1)));
        f.forget(&peer(1));
        assert!(f.flights.is_empty(), "a forgotten peer's queue goes");
    }

    #[test]
    fn a_lost_destination_returns_its_requests_in_order_and_stays_dead() {
        let mut f = Flow::<Peer>::new(8, 8, 64);
        f.sent(1, req(7), None);
        f.sent(1, req(8), None);
        f.sent(2, req(9), None);
        let back = f.lose(1, ReturnReason::PeerGone);
        let handlers: Vec<u8> = back.iter().map(|r| r.handler).collect();
        assert_eq!(handlers, vec![7, 8]);
        assert!(back.iter().all(|r| r.translation == Some(1) && r.request));
        assert_eq!(back[0].reason, ReturnReason::PeerGone, "in flight: it may have run");
        assert_eq!(f.dead(1), Some(ReturnReason::Unreachable), "later sends never leave");
        assert_eq!(f.total(), 1);
        assert_eq!(f.busy().collect::<Vec<_>>(), vec![2]);
        f.reset(1);
        assert_eq!(f.dead(1), None, "remapping revives the translation");
    }

    #[test]
    fn an_endpoint_at_another_address_is_another_peer() {
        // A datagram replayed from a new port names the real endpoint at a new address:
        // its answers and its loss must leave the real peer's flights alone.
        let mut f = Flow::<Peer>::new(8, 8, 64);
        let real = peer(1);
        let replayed = (2, real.1);
        f.sent(3, req(1), Some(real));
        f.sent(3, req(2), Some(real));
        assert_eq!(f.answered_by(replayed), None, "nothing in flight to it");
        assert!(!f.awaits(&replayed));
        f.forget(&replayed);
        assert!(f.awaits(&real));
        assert_eq!(f.answered_by(real), Some(3));
        assert_eq!(f.answered_by(real), Some(3));
    }

    #[test]
    fn only_the_newest_never_sent_requests_come_back_unreachable() {
        let mut f = Flow::new(8, 8, 64);
        for (dest, handler) in [(1, 1), (2, 2), (1, 3), (2, 4), (1, 5)] {
            f.sent(dest, req(handler), Some(peer(9)));
        }
        // The transport sent all but the two newest (handlers 4 and 5).
        let newest = f.newest_by_translation(&peer(9), 2);
        assert_eq!(newest, vec![(1, 1), (2, 1)]);
        let mut back: Vec<(u8, ReturnReason)> = Vec::new();
        for (dest, unsent) in [(1, 1), (2, 1)] {
            back.extend(f.lose_split(dest, unsent, ReturnReason::OutcomeUnknown).iter().map(|r| (r.handler, r.reason)));
        }
        back.sort_by_key(|b| b.0);
        use ReturnReason::{OutcomeUnknown as Unknown, Unreachable};
        assert_eq!(
            back,
            vec![(1, Unknown), (2, Unknown), (3, Unknown), (4, Unreachable), (5, Unreachable)]
        );
        assert_eq!(f.dead(1), Some(Unreachable), "later sends never leave");
        assert_eq!(f.total(), 0);
    }
}
