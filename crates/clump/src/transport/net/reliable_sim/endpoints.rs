//! Whole endpoints in the seeded simulation: each machine is the pure part of an endpoint
//! with a network, as the AM layer runs it: its flow control ([`Flow`]: credits per
//! translation, requests in flight, which translation each answer settles, what comes
//! back when a peer is lost), its owed credits ([`AckRuns`]), and its reliability machine.
//! With `hold`, owed credits wait as `net/send/owed.rs` makes them: for the next request to
//! carry them (in its datagram), half a window owed, or [`CREDIT_DELAY`] at most.
//!
//! Each machine sends requests to every other one within its credits; a request's
//! "handler" (chosen by the seed) replies or not, and the credits of requests without a
//! reply go back coalesced at the end of the poll (or held), as `net/poll.rs` does. The checks:
//! every request is settled exactly once, by the answer to it (in request order) or by
//! coming back to its sender when its peer is lost; no receiver ever holds more
//! unanswered requests from one sender through one translation than its credits allow;
//! nothing is left in flight.

use super::network::{Cut, Faults, Network};
use super::rng::{mix, Rng};
use crate::error::ReturnReason;
use crate::message::{ArgBuf, Kind, SavedRequest};
use crate::name::EndpointId;
use crate::transport::net::reliable::{Event, Micros, Peer, Reliable, ReliableConfig, SendError};
use crate::transport::net::credit::{credit_answer, requests_settled};
use crate::proto::held::CREDIT_DELAY;
use crate::transport::net::wire::{Args, Channel, Header, PacketKind, MAX_DATAGRAM};
use crate::proto::acks::AckRuns;
use crate::proto::flow::Flow;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Scenario {
    pub seed: u64,
    pub machines: u8,
    /// Requests from each machine to each other one.
    pub requests: u64,
    pub credits: usize,
    /// Chance that a request's handler replies (else its credit goes back in an ack run).
    pub replies: f64,
    pub faults: Faults,
    pub cut: Option<Cut>,
    /// Owed credits are held back (`net/send/owed.rs`) instead of sent at the end of each poll.
    pub hold: bool,
}

/// What a run counted besides the settled requests.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Packets that left behind another in its datagram (credit-only answers before requests).
    pub coalesced: u64,
    /// The longest any owed credit waited (virtual microseconds).
    pub longest_hold: Micros,
}

/// How long held credits may wait, in the simulation's microseconds.
fn credit_delay() -> Micros {
    CREDIT_DELAY.as_micros() as Micros
}

fn id(m: u8) -> EndpointId {
    EndpointId {
        pid: 200 + u32::from(m),
        fd: 9,
        nonce: mix(u64::from(m) ^ 0xe9),
    }
}

fn peer(m: u8) -> Peer<u8> {
    Peer { addr: m, id: id(m) }
}

/// A request: handler 1, its number as arguments.
fn request(n: u64) -> Header {
    let mut h = Header::new(PacketKind::Short, Channel::Request);
    h.handler = 1;
    h.args = Args::new(&[n as u32, (n >> 32) as u32]).unwrap_or_default();
    h
}

fn number(h: &Header) -> u64 {
    let a = h.args.as_slice();
    u64::from(a[0]) | u64::from(a[1]) << 32
}

/// The translation request `n` to machine `to` goes through: two per peer, alternating,
/// so that which translation an answer settles depends on the order of the flights.
fn translation(to: u8, n: u64) -> u32 {
    2 * u32::from(to) + (n % 2) as u32
}

/// One machine: the pure state of an endpoint, and the model the checks compare it with.
struct Machine {
    me: u8,
    rel: Reliable<u8>,
    flow: Flow<Peer<u8>>,
    acks: AckRuns<Peer<u8>>,
    /// Per destination machine: the next request number, and the numbers in flight,
    /// oldest first.
    next: Vec<u64>,
    in_flight: Vec<VecDeque<u64>>,
    /// Per destination: requests settled by an answer, and returned to handler 0.
    answered: Vec<u64>,
    returned: Vec<u64>,
    /// Per source: requests taken and not yet answered, and the next number expected.
    /// Per source: the numbers of the requests taken and not yet answered, oldest first.
    unanswered: Vec<VecDeque<u64>>,
    expected: Vec<u64>,
    lost: Vec<bool>,
    /// When the oldest credit still owed was held back.
    held_since: Option<Micros>,
    longest_hold: Micros,
}

struct Sim<'a> {
    s: &'a Scenario,
    net: Network,
    rng: Rng,
    machines: Vec<Machine>,
    now: Micros,
    buf: Vec<u8>,
}

impl Sim<'_> {
    fn send_requests(&mut self, m: usize) {
        let n = self.s.machines;
        for to in (0..n).filter(|&t| usize::from(t) != m) {
            let t = usize::from(to);
            let mc = &mut self.machines[m];
            while mc.next[t] < self.s.requests {
                let number = mc.next[t];
                let dest = translation(to, number);
                if !mc.flow.has_net_credit(dest) || mc.flow.dead(dest).is_some() {
                    break;
                }
                if self.s.hold {
                    // Queued first, the credit-only answer rides in the request's datagram.
                    flush_acks(mc, self.now);
                }
                match mc.rel.send(self.now, peer(to), request(number), Vec::new()) {
                    Ok(()) => {}
                    Err(SendError::Unreachable) => break,
                    Err(e) => panic!("machine {m} cannot send to {to}: {e}"),
                }
                let saved = SavedRequest {
                    kind: Kind::Short,
                    handler: 1,
                    args: ArgBuf::from_slice(&[number as u32]),
                    offset: number,
                };
                mc.flow.sent(dest, saved, Some(peer(to)));
                mc.in_flight[t].push_back(number);
                let through = mc.in_flight[t].iter().filter(|&&n| translation(to, n) == dest);
                assert!(through.count() <= self.s.credits, "{m} -> {dest}: past its credits");
                mc.next[t] += 1;
            }
        }
    }

    /// One poll of machine `m`, as `net/poll.rs` runs it.
    fn poll(&mut self, m: usize) {
        self.settle_silent_peers(m);
        self.take_answers(m);
        self.serve_requests(m);
        self.flush_owed_acks(m);
    }

    /// Peers the machine gave up on: every request in flight to them comes back, each
    /// with its translation, and none that ran there comes back "unreachable".
    fn settle_silent_peers(&mut self, m: usize) {
        let mc = &mut self.machines[m];
        let mut unreachable = Vec::new();
        while let Some(Event::Silent(p)) = mc.rel.poll_event() {
            assert!(
                self.s.cut.is_some_and(|c| [c.a, c.b] == [mc.me, p.addr] || [c.b, c.a] == [mc.me, p.addr]),
                "machine {} lost {} without a cut",
                mc.me,
                p.addr
            );
            let unsent = mc.rel.give_up(p);
            let newest = mc.flow.newest_by_translation(&p, unsent);
            mc.flow.forget(&p);
            let t = usize::from(p.addr);
            for dest in [translation(p.addr, 0), translation(p.addr, 1)] {
                let unsent = newest.iter().find(|(d, _)| *d == dest).map_or(0, |&(_, n)| n);
                for r in mc.flow.lose_split(dest, unsent, ReturnReason::OutcomeUnknown) {
                    // Each names the translation it went through.
                    assert_eq!(r.translation, Some(dest));
                    assert_eq!(translation(p.addr, r.offset), dest);
                    let at = mc.in_flight[t].iter().position(|&n| n == r.offset);
                    assert!(at.is_some(), "returned a request not in flight");
                    mc.in_flight[t].retain(|&n| n != r.offset);
                    mc.returned[t] += 1;
                    if r.reason == ReturnReason::Unreachable {
                        unreachable.push((t, r.offset));
                    }
                }
            }
            assert!(mc.in_flight[t].is_empty(), "every request in flight came back");
            mc.lost[t] = true;
        }
        // "Unreachable" promises the request never ran at its destination.
        for (t, n) in unreachable {
            let ran = self.machines[t].expected[m];
            assert!(n >= ran, "request {n} from {m} returned unreachable, but {t} ran it");
        }
    }

    /// Replies and acks: each settles its peer's oldest request in flight.
    fn take_answers(&mut self, m: usize) {
        let mc = &mut self.machines[m];
        while let Some(msg) = mc.rel.poll_inbound(Channel::Reply) {
            let from = usize::from(msg.from.addr);
            for _ in 0..requests_settled(&msg.header) {
                let dest = mc.flow.answered_by(msg.from);
                let oldest = mc.in_flight[from].pop_front();
                assert!(oldest.is_some(), "an answer for nothing in flight");
                assert_eq!(
                    dest,
                    oldest.map(|n| translation(msg.from.addr, n)),
                    "an answer settles the translation of its peer's oldest request"
                );
                if msg.header.handler != 0 {
                    assert_eq!(oldest, Some(number(&msg.header)), "a reply answers the oldest request");
                }
                mc.answered[from] += 1;
            }
        }
    }

    /// Requests run once and in order, within the sender's credits; each is answered by a
    /// reply or an owed ack.
    fn serve_requests(&mut self, m: usize) {
        let credits = self.s.credits;
        let mc = &mut self.machines[m];
        while let Some(msg) = mc.rel.poll_inbound(Channel::Request) {
            let from = usize::from(msg.from.addr);
            let n = number(&msg.header);
            assert_eq!(n, mc.expected[from], "requests run once, in order");
            mc.expected[from] += 1;
            mc.unanswered[from].push_back(n);
            // The sender's credits are per translation, two of which lead here.
            let through = mc.unanswered[from].iter().filter(|&&u| u % 2 == n % 2);
            assert!(through.count() <= credits, "more requests than credits from {from}");
            if self.rng.chance(self.s.replies) {
                // A reply carries its request's number, after the acks owed before it.
                flush_acks(mc, self.now);
                let mut h = request(n);
                h.channel = Channel::Reply;
                h.handler = 2;
                send_answer(mc, self.now, msg.from, h);
                // The acks owed went first: the reply answers the only one left.
                assert_eq!(mc.unanswered[from].pop_back(), Some(n));
            } else {
                mc.acks.owe(msg.from);
            }
        }
    }

    /// Owed acks go at once, or (held) at half a window or after the credit delay.
    fn flush_owed_acks(&mut self, m: usize) {
        let credits = self.s.credits;
        let mc = &mut self.machines[m];
        if !self.s.hold {
            flush_acks(mc, self.now);
        } else if !mc.acks.is_empty() {
            let since = *mc.held_since.get_or_insert(self.now);
            if mc.acks.half_window_owed(credits) || self.now >= since + credit_delay() {
                flush_acks(mc, self.now);
            }
        }
    }

    fn transmit(&mut self, m: usize) {
        while let Some((to, len)) = self.machines[m].rel.poll_transmit(self.now, &mut self.buf) {
            self.net.send(self.now, m as u8, to, &self.buf[..len]);
        }
    }

    fn done(&self) -> bool {
        self.net.is_empty()
            && self.machines.iter().all(|mc| {
                mc.rel.idle()
                    && mc.flow.total() == 0
                    && mc.acks.is_empty()
                    && (0..self.s.machines).all(|t| {
                        let t = usize::from(t);
                        t == usize::from(mc.me) || mc.lost[t] || mc.next[t] == self.s.requests
                    })
            })
    }

    fn run(mut self) -> Vec<Machine> {
        let limit: Micros = 4_000_000_000;
        loop {
            while let Some((from, to, data)) = self.net.pop_due(self.now) {
                let rel = &mut self.machines[usize::from(to)].rel;
                rel.handle_datagram(self.now, from, &data, &mut |_, _| false);
                self.net.recycle(data);
            }
            for mc in &mut self.machines {
                if mc.rel.poll_timeout().is_some_and(|t| t <= self.now) {
                    mc.rel.handle_timeout(self.now);
                }
            }
            for m in 0..self.machines.len() {
                self.poll(m);
                self.send_requests(m);
            }
            for m in 0..self.machines.len() {
                self.transmit(m);
            }
            if self.done() {
                return self.machines;
            }
            let timers = self.machines.iter().filter_map(|mc| mc.rel.poll_timeout());
            let held = self.machines.iter().filter_map(|mc| mc.held_since.map(|t| t + credit_delay()));
            let timers = timers.chain(held);
            let next = self.net.next_time().into_iter().chain(timers).min();
            let next = next.unwrap_or_else(|| panic!("nothing scheduled at {}, not done", self.now));
            self.now = next.max(self.now + 1);
            assert!(self.now < limit, "virtual time ran out: a hang");
        }
    }
}

fn send_answer(mc: &mut Machine, now: Micros, to: Peer<u8>, h: Header) {
    match mc.rel.send(now, to, h, Vec::new()) {
        Ok(()) | Err(SendError::Unreachable) => {}
        Err(e) => panic!("an answer could not be sent: {e}"),
    }
}

fn flush_acks(mc: &mut Machine, now: Micros) {
    if let Some(since) = mc.held_since.take() {
        mc.longest_hold = mc.longest_hold.max(now - since);
    }
    for (to, count) in mc.acks.take() {
        send_answer(mc, now, to, credit_answer(count));
        mc.unanswered[usize::from(to.addr)].drain(..count as usize);
    }
}

/// Runs `s` and checks that every request was settled exactly once; returns, per
/// machine and destination, how many were answered and how many returned.
pub fn run(s: &Scenario) -> Vec<Vec<(u64, u64)>> {
    run_counting(s).0
}

/// [`run`], with what it counted besides.
pub fn run_counting(s: &Scenario) -> (Vec<Vec<(u64, u64)>>, Counts) {
    let n = usize::from(s.machines);
    let cfg = ReliableConfig {
        job: mix(s.seed),
        recv_queue: 4 * s.credits,
        // As endpoints' ports send.
        coalesce: true,
        ..ReliableConfig::default()
    };
    let machines = (0..s.machines)
        .map(|me| Machine {
            me,
            rel: Reliable::new(id(me), cfg.clone()),
            flow: Flow::new(s.credits, s.credits, usize::MAX),
            acks: AckRuns::default(),
            next: vec![0; n],
            in_flight: vec![VecDeque::new(); n],
            answered: vec![0; n],
            returned: vec![0; n],
            unanswered: vec![VecDeque::new(); n],
            expected: vec![0; n],
            lost: vec![false; n],
            held_since: None,
            longest_hold: 0,
        })
        .collect();
    let sim = Sim {
        s,
        net: Network::new(mix(s.seed ^ 0x7a), s.faults, s.cut),
        rng: Rng::new(mix(s.seed ^ 0x3c)),
        machines,
        now: 0,
        buf: vec![0; MAX_DATAGRAM],
    };
    let machines = sim.run();
    let counts = Counts {
        coalesced: machines.iter().map(|mc| mc.rel.stats().coalesced).sum(),
        longest_hold: machines.iter().map(|mc| mc.longest_hold).max().unwrap_or(0),
    };
    let settled = machines
        .iter()
        .map(|mc| {
            (0..n)
                .map(|t| {
                    assert_eq!(
                        mc.answered[t] + mc.returned[t],
                        mc.next[t],
                        "machine {} to {t}: every request settled once",
                        mc.me
                    );
                    (mc.answered[t], mc.returned[t])
                })
                .collect()
        })
        .collect();
    (settled, counts)
}
