//! The simulated machines, their workload (requests within credits, a reply to each
//! request taken), the event loop on the virtual clock, and the checks.

use super::network::{Cut, Faults, NetStats, Network};
use super::rng::mix;
use super::spec::{self, Ids, Spec, SEGMENT};
use crate::name::EndpointId;
use crate::transport::net::auth::{DatagramKey, SEAL_LEN};
use crate::transport::net::reliable::{
    Event, Inbound, Liveness, Micros, Peer, Reliable, ReliableConfig, SendError, Stats,
};
use crate::transport::net::wire::{Channel, Header, Integrity, MAX_DATAGRAM};
use std::collections::HashMap;

/// Machine `machine` stops taking requests during `[from, until)`.
#[derive(Clone, Copy, Debug)]
pub struct Stall {
    pub machine: u8,
    pub from: Micros,
    pub until: Micros,
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub seed: u64,
    pub machines: u8,
    /// Requests from each machine to each other one.
    pub requests: u64,
    /// Requests awaiting their reply per pair (the AM layer's credits).
    pub credits: u64,
    pub faults: Faults,
    pub cfg: ReliableConfig,
    /// First sequence number of every channel.
    pub initial_seq: u32,
    pub cut: Option<Cut>,
    pub stall: Option<Stall>,
    /// The machine's process is stopped (SIGSTOP) during `[from, until)`: it runs
    /// nothing, and datagrams to it wait in its socket. Its peers judge its silence
    /// as the launcher would tell them (see [`World::liveness`]).
    pub stop: Option<Stall>,
    /// The largest datagram between two machines, as their path's MTU would give it
    /// (`cfg.max_datagram` for every pair if `None`).
    pub paths: Option<fn(u8, u8) -> usize>,
    /// Datagrams are sealed as `CLUMP_NET_AUTH` (the default) makes ports seal them
    /// (`auth.rs`): a tag under the job's key in front, packets without a CRC
    /// ([`Integrity::Sealed`]), and a datagram whose tag is wrong dropped before its
    /// machine reads it.
    pub sealed: bool,
}

#[derive(Debug)]
pub struct Outcome {
    /// Messages delivered: requests taken and replies received.
    pub delivered: u64,
    /// Virtual time at the end.
    pub end: Micros,
    pub stats: Vec<Stats>,
    pub net: NetStats,
    /// (machine, peer, when) of each `Event::Unreachable`.
    pub unreachable: Vec<(u8, u8, Micros)>,
    /// (machine, peer, since): the machine had data in flight to its cut peer from then.
    pub cut_pending: Vec<(u8, u8, Micros)>,
    /// Sealed datagrams dropped for a wrong tag.
    pub unauthenticated: u64,
}

fn endpoint(machine: u8) -> EndpointId {
    EndpointId {
        pid: 100 + u32::from(machine),
        fd: 7,
        nonce: mix(u64::from(machine)),
    }
}

fn peer(machine: u8) -> Peer<u8> {
    Peer {
        addr: machine,
        id: endpoint(machine),
    }
}

/// A receiver's view of the bulk messages landing from one peer on one channel.
#[derive(Clone, Debug, Default)]
struct Landing {
    /// Message whose fragments land now (numbers only grow: nothing lands twice).
    n: Option<u64>,
    /// Bytes of it landed, in order.
    landed: u64,
    /// A fragment fell outside the segment: nothing more of it may land.
    failed: bool,
    /// Bytes landed of each message not yet taken by the application (complete
    /// messages wait in the machine's queue while later ones land).
    untaken: HashMap<u64, u64>,
}

/// One machine's application: what it sent, took and expects.
struct App {
    me: u8,
    next_request: Vec<u64>,
    outstanding: Vec<u64>,
    next_reply: Vec<u64>,
    next_taken: Vec<u64>,
    /// Indexed by peer, then 0 for requests and 1 for replies.
    landing: Vec<[Landing; 2]>,
    dead: Vec<Option<Micros>>,
    delivered: u64,
}

struct World<'a> {
    s: &'a Scenario,
    salt: u64,
    net: Network,
    rels: Vec<Reliable<u8>>,
    apps: Vec<App>,
    now: Micros,
    unreachable: Vec<(u8, u8, Micros)>,
    cut_pending: Vec<(u8, u8, Micros)>,
    buf: Vec<u8>,
    /// Datagrams waiting in a stopped machine's socket, oldest first.
    parked: Vec<Vec<(u8, Vec<u8>)>>,
    /// When each machine last told the launcher it polls, and when it tells it next
    /// (as `net/port.rs` beats: eight times per timeout, after its datagrams and timers).
    beats: Vec<(Option<Micros>, Micros)>,
    /// The job's datagram key, when the scenario seals.
    key: Option<DatagramKey>,
    unauthenticated: u64,
}

/// Checks a long or get-reply fragment as the machine lands it.
fn land(salt: u64, me: u8, landing: &mut [[Landing; 2]], h: &Header, data: &[u8]) -> bool {
    let ids = spec::ids(&h.args).expect("a landing fragment carries its ids");
    assert_eq!(ids.to, me, "fragment landed at the wrong machine: {ids:?}");
    let l = &mut landing[usize::from(ids.from)][usize::from(ids.reply)];
    if h.frag_offset == 0 {
        assert!(
            l.n.is_none_or(|n| ids.n > n),
            "message {ids:?} lands again or out of order (last {:?})",
            l.n
        );
        l.n = Some(ids.n);
        l.landed = 0;
        l.failed = false;
    } else {
        assert_eq!(l.n, Some(ids.n), "fragment of {ids:?} without its start");
        assert!(!l.failed, "{ids:?} lands after a refused fragment");
        assert_eq!(
            u64::from(h.frag_offset),
            l.landed,
            "fragments of {ids:?} land out of order or twice"
        );
    }
    let end = h.segment_offset + u64::from(h.frag_offset) + data.len() as u64;
    if end > SEGMENT {
        l.failed = true;
        return false;
    }
    let spec = spec_of(salt, ids);
    assert_eq!(h.segment_offset, spec.header.segment_offset, "{ids:?}");
    assert!(
        spec::matches(spec.seed, h.frag_offset as usize, data),
        "wrong bytes landed for {ids:?} at {}",
        h.frag_offset
    );
    l.landed += data.len() as u64;
    l.untaken.insert(ids.n, l.landed);
    true
}

/// The message `ids` names, as its sender made it.
fn spec_of(salt: u64, ids: Ids) -> Spec {
    if ids.reply {
        spec::reply(salt, ids.to, ids.from, ids.n)
    } else {
        spec::request(salt, ids.from, ids.to, ids.n)
    }
}

impl World<'_> {
    fn new(s: &Scenario) -> World<'_> {
        let n = usize::from(s.machines);
        // As a port does: the machine's datagrams leave room for the seal.
        let seal = if s.sealed { SEAL_LEN } else { 0 };
        let cfg = ReliableConfig {
            job: mix(s.seed),
            max_datagram: s.cfg.max_datagram - seal,
            integrity: if s.sealed { Integrity::Sealed } else { s.cfg.integrity },
            ..s.cfg.clone()
        };
        let rels = (0..s.machines)
            .map(|m| {
                let mut r = Reliable::new(endpoint(m), cfg.clone());
                r.set_initial_seq(s.initial_seq);
                for (to, path) in (0..s.machines).filter_map(|to| Some((to, s.paths?(m, to)))) {
                    r.set_path_datagram(peer(to), path - seal);
                }
                r
            })
            .collect();
        let apps = (0..s.machines)
            .map(|me| App {
                me,
                next_request: vec![0; n],
                outstanding: vec![0; n],
                next_reply: vec![0; n],
                next_taken: vec![0; n],
                landing: vec![[Landing::default(), Landing::default()]; n],
                dead: vec![None; n],
                delivered: 0,
            })
            .collect();
        World {
            s,
            salt: mix(s.seed ^ 0x5a17),
            net: Network::new(mix(s.seed ^ 0x2e7), s.faults, s.cut),
            rels,
            apps,
            now: 0,
            unreachable: Vec::new(),
            cut_pending: Vec::new(),
            buf: vec![0; MAX_DATAGRAM],
            parked: vec![Vec::new(); n],
            beats: vec![(None, 0); n],
            key: s.sealed.then(|| DatagramKey::new(u128::from(mix(s.seed ^ 0x5ea1)))),
            unauthenticated: 0,
        }
    }

    fn is_cut(&self, a: u8, b: u8) -> bool {
        self.s
            .cut
            .is_some_and(|c| (a, b) == (c.a, c.b) || (a, b) == (c.b, c.a))
    }

    fn stopped(&self, m: u8) -> bool {
        self.s
            .stop
            .is_some_and(|st| st.machine == m && (st.from..st.until).contains(&self.now))
    }

    /// What the launcher tells `m` of its silent peer `p`'s process: it polls if it beat
    /// within half a timeout (`net/poll.rs` asks so), else it is stopped.
    fn liveness(&self, p: u8) -> Liveness {
        let within = self.s.cfg.timeout / 2;
        match self.beats[usize::from(p)].0 {
            Some(at) if self.now - at <= within => Liveness::Polling,
            _ => Liveness::Stopped,
        }
    }

    /// Machine `m` runs its receive side as a port does: datagrams, timers, a beat.
    fn receive(&mut self, m: usize) {
        for (from, data) in std::mem::take(&mut self.parked[m]) {
            self.handle_datagram(from, m as u8, data);
        }
        let r = &mut self.rels[m];
        if r.poll_timeout().is_some_and(|t| t <= self.now) {
            r.handle_timeout(self.now);
        }
        let beat = &mut self.beats[m];
        if self.now >= beat.1 {
            *beat = (Some(self.now), self.now + self.s.cfg.timeout / 8);
        }
    }

    fn handle_datagram(&mut self, from: u8, to: u8, data: Vec<u8>) {
        let t = usize::from(to);
        let (salt, app) = (self.salt, &mut self.apps[t]);
        let body = match &self.key {
            None => Some(&data[..]),
            Some(key) => key.open(&data),
        };
        match body {
            Some(body) => self.rels[t].handle_datagram(self.now, from, body, &mut |h, d| {
                land(salt, to, &mut app.landing, h, d)
            }),
            None => self.unauthenticated += 1,
        }
        self.net.recycle(data);
    }

    fn stalled(&self, m: u8) -> bool {
        self.s
            .stall
            .is_some_and(|st| st.machine == m && (st.from..st.until).contains(&self.now))
    }

    /// Checks a message `me` takes from channel `channel`.
    fn check_inbound(&mut self, me: u8, channel: Channel, msg: &Inbound<u8>) -> Ids {
        let ids = spec::ids(&msg.header.args).expect("a message carries its ids");
        let from = ids.from;
        assert_eq!(msg.from, peer(from), "{ids:?} from the wrong peer");
        assert_eq!(ids.to, me, "{ids:?} delivered at machine {me}");
        assert_eq!(ids.reply, channel == Channel::Reply, "{ids:?} on {channel}");
        if let Some(cut) = self.s.cut {
            assert!(
                !(self.is_cut(me, from) && self.now >= cut.at),
                "{ids:?} delivered across the cut link after the cut"
            );
        }
        let spec = spec_of(self.salt, ids);
        let (h, e) = (&msg.header, &spec.header);
        assert_eq!(
            (h.kind, h.channel, h.handler, h.tag, h.args),
            (e.kind, e.channel, e.handler, e.tag, e.args),
            "{ids:?}"
        );
        assert_eq!(
            (h.total_len, h.segment_offset, h.reply_offset, h.frag_offset),
            (e.total_len, e.segment_offset, e.reply_offset, 0),
            "{ids:?}"
        );
        assert_eq!((h.src, h.dst), (endpoint(from), endpoint(me)), "{ids:?}");
        let app = &mut self.apps[usize::from(me)];
        let f = usize::from(from);
        let next = match channel {
            Channel::Request => &mut app.next_taken[f],
            Channel::Reply => &mut app.next_reply[f],
        };
        assert_eq!(
            ids.n, *next,
            "{ids:?} out of order, duplicated or after a gap"
        );
        *next += 1;
        if spec.lands() {
            assert!(msg.payload.is_empty(), "{ids:?}");
            assert_eq!(msg.landed, spec.in_bounds, "{ids:?} landing");
            let landed = app.landing[f][usize::from(ids.reply)]
                .untaken
                .remove(&ids.n);
            if msg.landed {
                assert_eq!(landed.unwrap_or(0), spec.len as u64, "{ids:?} landed bytes");
            }
        } else {
            assert!(!msg.landed, "{ids:?}");
            assert_eq!(msg.payload.len(), spec.len, "{ids:?} payload length");
            assert!(spec::matches(spec.seed, 0, &msg.payload), "{ids:?} bytes");
        }
        app.delivered += 1;
        ids
    }

    /// Sends `spec` from `me` to `to`; false if the peer is unreachable (which the
    /// application must have been told).
    fn send(&mut self, me: u8, to: u8, spec: Spec) -> bool {
        let payload = spec.payload();
        match self.rels[usize::from(me)].send(self.now, peer(to), spec.header, payload) {
            Ok(()) => true,
            Err(SendError::Unreachable) => {
                assert!(
                    self.apps[usize::from(me)].dead[usize::from(to)].is_some(),
                    "send refused before the application was told"
                );
                false
            }
            Err(e) => panic!("send from {me} to {to} refused: {e}"),
        }
    }

    /// The application of machine `me` runs: events, requests, replies, new requests.
    fn step(&mut self, me: u8) {
        let m = usize::from(me);
        while let Some(event) = self.rels[m].poll_event() {
            let Event::Silent(p) = event;
            let process = self.liveness(p.addr);
            if self.rels[m].judge(self.now, p, process) {
                continue;
            }
            self.rels[m].give_up(p);
            assert!(
                self.is_cut(me, p.addr),
                "machine {me} declared {p:?} unreachable at {} without a cut",
                self.now
            );
            assert!(
                self.apps[m].dead[usize::from(p.addr)].is_none(),
                "reported twice"
            );
            self.apps[m].dead[usize::from(p.addr)] = Some(self.now);
            self.unreachable.push((me, p.addr, self.now));
            assert!(self.rels[m].is_unreachable(&p));
            assert_eq!(self.rels[m].pending(&p), 0, "its send state was dropped");
            let probe = spec::request(self.salt, me, p.addr, u64::MAX);
            assert!(!self.send(me, p.addr, probe), "sends to it are refused");
        }
        if !self.stalled(me) {
            while let Some(msg) = self.rels[m].poll_inbound(Channel::Request) {
                let ids = self.check_inbound(me, Channel::Request, &msg);
                let reply = spec::reply(self.salt, ids.from, me, ids.n);
                self.send(me, ids.from, reply);
            }
        }
        while let Some(msg) = self.rels[m].poll_inbound(Channel::Reply) {
            let ids = self.check_inbound(me, Channel::Reply, &msg);
            self.apps[m].outstanding[usize::from(ids.from)] -= 1;
        }
        for i in 1..self.s.machines {
            let to = (me + i) % self.s.machines;
            let t = usize::from(to);
            while self.apps[m].dead[t].is_none()
                && self.apps[m].outstanding[t] < self.s.credits
                && self.apps[m].next_request[t] < self.s.requests
            {
                let n = self.apps[m].next_request[t];
                if !self.send(me, to, spec::request(self.salt, me, to, n)) {
                    break;
                }
                self.apps[m].next_request[t] += 1;
                self.apps[m].outstanding[t] += 1;
            }
        }
    }

    fn transmit(&mut self, me: u8) {
        let seal = if self.key.is_some() { SEAL_LEN } else { 0 };
        while let Some((to, len)) =
            self.rels[usize::from(me)].poll_transmit(self.now, &mut self.buf[seal..])
        {
            let datagram = &mut self.buf[..seal + len];
            if let Some(key) = &self.key {
                key.seal(datagram, &[]);
            }
            self.net.send(self.now, me, to, datagram);
        }
    }

    /// Every pair not cut finished its requests and replies; cut pairs gave up or are
    /// done.
    fn workload_done(&self) -> bool {
        self.apps.iter().all(|app| {
            (0..self.s.machines).all(|to| {
                let t = usize::from(to);
                if to == app.me {
                    return true;
                }
                if self.is_cut(app.me, to) {
                    let pending = self.rels[usize::from(app.me)].pending(&peer(to));
                    return app.dead[t].is_some() || pending == 0;
                }
                app.next_request[t] == self.s.requests && app.outstanding[t] == 0
            })
        })
    }

    fn quiet(&self) -> bool {
        self.net.is_empty() && self.rels.iter().all(|r| r.idle())
    }

    fn watch_cut(&mut self) {
        let Some(cut) = self.s.cut else { return };
        if self.now < cut.at {
            return;
        }
        for (me, other) in [(cut.a, cut.b), (cut.b, cut.a)] {
            let seen = self.cut_pending.iter().any(|&(m, _, _)| m == me);
            let dead = self.apps[usize::from(me)].dead[usize::from(other)].is_some();
            if !seen && !dead && self.rels[usize::from(me)].pending(&peer(other)) > 0 {
                self.cut_pending.push((me, other, self.now));
            }
        }
    }

    fn next_time(&self) -> Option<Micros> {
        // A stopped machine's timers wait for it to resume.
        let timers = (0..self.s.machines)
            .filter(|&m| !self.stopped(m))
            .filter_map(|m| self.rels[usize::from(m)].poll_timeout());
        let stall = self
            .s
            .stall
            .iter()
            .chain(&self.s.stop)
            .flat_map(|st| [st.from, st.until])
            .filter(|&t| t > self.now);
        self.net
            .next_time()
            .into_iter()
            .chain(timers)
            .chain(stall)
            .min()
    }

    fn run(mut self) -> Outcome {
        let limit: Micros = 4_000_000_000; // over an hour of virtual time: a hang
        let mut draining = false;
        let mut same_time = 0;
        loop {
            while let Some((from, to, data)) = self.net.pop_due(self.now) {
                self.parked[usize::from(to)].push((from, data));
            }
            let running: Vec<u8> = (0..self.s.machines).filter(|&m| !self.stopped(m)).collect();
            for &me in &running {
                self.receive(usize::from(me));
            }
            for &me in &running {
                self.step(me);
            }
            for &me in &running {
                self.transmit(me);
            }
            self.watch_cut();
            if !draining && self.workload_done() {
                draining = true;
            }
            if draining && self.quiet() {
                break;
            }
            let Some(next) = self.next_time() else {
                panic!(
                    "nothing scheduled at {} but the workload is not done (draining {draining})",
                    self.now
                );
            };
            if next <= self.now {
                same_time += 1;
                assert!(same_time < 10_000, "no progress at {}", self.now);
            } else {
                same_time = 0;
            }
            self.now = next.max(self.now);
            assert!(self.now < limit, "virtual time ran out: a hang");
        }
        Outcome {
            delivered: self.apps.iter().map(|a| a.delivered).sum(),
            end: self.now,
            stats: self.rels.iter().map(|r| r.stats()).collect(),
            net: self.net.stats,
            unreachable: self.unreachable,
            cut_pending: self.cut_pending,
            unauthenticated: self.unauthenticated,
        }
    }
}

/// Runs a scenario to the end and checks everything but the scenario's own outcome.
pub fn run(s: &Scenario) -> Outcome {
    let out = World::new(s).run();
    let all_delivered = 2 * u64::from(s.machines) * u64::from(s.machines - 1) * s.requests;
    if s.cut.is_none() {
        assert_eq!(out.delivered, all_delivered, "every message delivered");
        assert!(out.unreachable.is_empty());
    }
    for st in &out.stats {
        assert_eq!(st.stray_fragments, 0, "{st:?}");
    }
    out
}
