//! An endpoint's network port: its UDP socket joined to its reliability state machine,
//! with the clock the machine does not read itself.

use crate::config::{JobConfig, NetConfig};
use crate::transport::net::auth::{self, DatagramKey, SEAL_LEN};
use crate::transport::net::fragment::Fragment;
use crate::name::EndpointId;
use crate::transport::net::reliable::{
    Event, Inbound, Liveness, Reliable, ReliableConfig, SendError, COALESCE_AT_MOST,
};
use crate::transport::net::udp::{Offload, UdpPort, UdpStats};
use crate::transport::net::wire::{Channel, Header, Integrity, MAGIC};
use crate::transport::net::NetPeer;
use std::io;
use std::net::SocketAddrV4;
use std::os::fd::RawFd;
use std::time::Instant;

/// What an endpoint's network transport did: its reliability protocol and its socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    pub protocol: crate::transport::net::reliable::Stats,
    pub socket: UdpStats,
    /// Whether the socket has a doorbell (polls skip it while nothing came).
    pub doorbell: bool,
    /// The segmentation offloads in force on the socket.
    pub offload: Offload,
    /// The largest datagram sent to any peer so far (0 before the first send).
    pub datagram: usize,
    /// Whether datagrams are sealed (`CLUMP_NET_AUTH`), and how many arrived without a
    /// right one (dropped before the protocol saw them).
    pub auth: bool,
    pub unauthenticated: u64,
}

/// See [`NetPort::open`].
const ACK_DELAY_US: u64 = 200;

pub(crate) struct NetPort {
    udp: UdpPort,
    machine: Reliable<SocketAddrV4>,
    origin: Instant,
    /// Microseconds since `origin` at the last clock read: one read per poll or send,
    /// shared by everything the poll does (a read costs as much as the rest of a
    /// short message's protocol work).
    now: u64,
    /// The peer whose datagram size the machine was told last: consecutive sends mostly
    /// go to one peer, which then costs no lookup.
    sized: Option<NetPeer>,
    /// The largest datagram size the machine was told of.
    largest: usize,
    /// The datagram seal's key, with `CLUMP_NET_AUTH`.
    key: Option<DatagramKey>,
    unauthenticated: u64,
    /// Whether a datagram of the job sealed otherwise than this port's were reported.
    misfit_said: bool,
    /// Microseconds between beats to the launcher (`None`: no beats), and the next one.
    beat_every: Option<u64>,
    next_beat: u64,
    /// The launcher's count of deaths when this port last looked ([`NetPort::news_of_death`]).
    deaths_seen: u64,
    /// A send transmitted since the last poll's transmission: small messages sent now are
    /// held for the next poll, to leave together ([`NetPort::send`]).
    sent_since_poll: bool,
    /// Messages are held for the next poll.
    holding: bool,
}

impl NetPort {
    pub fn open(
        local: EndpointId,
        job: &JobConfig,
        window: u32,
        cfg: &NetConfig,
    ) -> io::Result<NetPort> {
        let mut udp = UdpPort::bind(cfg.bind_ip, cfg.max_datagram, cfg.offload, cfg.faults)?;
        if cfg.doorbell {
            // Without BPF rights the socket works without one: polls ration their reads.
            let _ = udp.attach_doorbell();
        }
        if cfg.connect {
            // Only where the socket has a doorbell, which each twin gets too.
            udp.connect_peers();
        }
        let defaults = ReliableConfig::default();
        let key = cfg.auth.then(|| DatagramKey::new(job.job_key));
        // The machine's datagrams leave room for the seal.
        let overhead = if key.is_some() { SEAL_LEN } else { 0 };
        let mut machine = Reliable::new(
            local,
            ReliableConfig {
                job: job.job_id,
                max_datagram: udp.max_datagram() - overhead,
                timeout: cfg.timeout.as_micros() as u64,
                // The receive queue holds what the credits of many senders allow.
                recv_queue: defaults.recv_queue.max(4 * window as usize),
                // An ack waits this long for a message to carry it (the next request, or
                // a reply), so a ping-pong sends no datagram of acks alone; well below
                // the least retransmission timeout.
                ack_delay: ACK_DELAY_US,
                reorder_peer: cfg.reorder_peer,
                reorder_total: cfg.reorder_total,
                coalesce: true,
                // Sealed, a datagram's tag checks every byte: a CRC would repeat it.
                integrity: if key.is_some() { Integrity::Sealed } else { Integrity::Crc },
                ..defaults
            },
        );
        // Only the job's endpoints get protocol state (see `members.rs`).
        machine.set_admission(Box::new(crate::transport::net::members::is_member));
        Ok(NetPort {
            udp,
            machine,
            origin: Instant::now(),
            now: 0,
            sized: None,
            largest: 0,
            key,
            unauthenticated: 0,
            misfit_said: false,
            beat_every: cfg.heartbeat.then(|| beat_period(cfg.timeout)),
            next_beat: 0,
            deaths_seen: crate::boot::watch::deaths(),
            sent_since_poll: false,
            holding: false,
        })
    }

    fn overhead(&self) -> usize {
        if self.key.is_some() {
            SEAL_LEN
        } else {
            0
        }
    }

    pub fn addr(&self) -> SocketAddrV4 {
        self.udp.local_addr()
    }

    fn read_clock(&mut self) -> u64 {
        self.now = self.origin.elapsed().as_micros() as u64;
        self.now
    }

    /// A copy of a message's payload to queue, in a reused buffer where one fits.
    pub fn copy_payload(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.machine.copy_payload(bytes)
    }

    /// Queues a message and sends what the window allows at once, unless the message is
    /// small and a send went out since the last poll: then it is held until the next
    /// poll ([`NetPort::transmit`]), so that a burst of small messages leaves in shared
    /// datagrams while a lone one (the first since a poll) goes at once. Returns whether
    /// it was held.
    pub fn send(&mut self, to: NetPeer, header: Header, payload: Vec<u8>) -> Result<bool, SendError> {
        self.read_clock();
        let small = payload.len() <= COALESCE_AT_MOST;
        self.queue(to, header, payload)?;
        if small && self.sent_since_poll {
            self.holding = true;
        } else {
            self.send_ready();
            self.sent_since_poll = true;
        }
        Ok(self.holding)
    }

    /// Whether messages are held for the next poll.
    pub fn holds(&self) -> bool {
        self.holding
    }

    /// Queues a message for the next [`NetPort::transmit`]: answers produced during a
    /// poll leave together, in one batch, at its end. Its timers start from the poll's
    /// clock reading.
    pub fn queue(
        &mut self,
        to: NetPeer,
        header: Header,
        payload: Vec<u8>,
    ) -> Result<(), SendError> {
        if self.sized != Some(to) {
            // The wire carries the seal after what the machine makes.
            let datagram = self.udp.path_datagram(*to.addr.ip());
            self.machine.set_path_datagram(to, datagram - self.overhead());
            self.largest = self.largest.max(datagram);
            self.sized = Some(to);
        }
        self.machine.send(self.now, to, header, payload)
    }

    /// A poll's transmission: every datagram the machine has ready, held messages among
    /// them.
    pub fn transmit(&mut self) {
        self.send_ready();
        self.sent_since_poll = false;
        self.holding = false;
    }

    /// Sends every datagram the machine has ready, in batches, as of the last poll or
    /// send's clock reading: each header from its buffer, each fragment of payload from
    /// the machine's copy of its message; with the seal, each tagged where it lies (the
    /// tag in front of the header, in the buffer).
    fn send_ready(&mut self) {
        let now = self.now;
        let overhead = self.overhead();
        loop {
            let buf = self.udp.tx_buffer();
            let Some((to, len, fragment)) =
                self.machine.poll_transmit_parts(now, &mut buf[overhead..])
            else {
                break;
            };
            if let Some(key) = &self.key {
                let tail = fragment.as_ref().map_or(&[][..], Fragment::bytes);
                key.seal(&mut buf[..SEAL_LEN + len], tail);
            }
            self.udp.tx_commit_parts(to, overhead + len, fragment);
        }
        if self.udp.tx_pending() {
            self.udp.flush();
        }
    }

    /// Reads up to `max` datagrams into the machine (one system call), fires its timers
    /// if due; `land` writes long fragments from a peer into the segment. Returns
    /// datagrams read. Out of line: its caller holds three parts around it
    /// (`net/poll.rs`), and inlined there it cost more per poll (callgrind).
    #[inline(never)]
    pub fn receive(
        &mut self,
        max: usize,
        land: &mut dyn FnMut(&NetPeer, &Header, &[u8]) -> bool,
    ) -> usize {
        let now = self.read_clock();
        let n = self.udp.receive(max, now);
        for i in 0..n {
            let (addr, bytes) = self.udp.received(i);
            let bytes = match &self.key {
                // A datagram that does not start with a packet may be a sealed one.
                None if !bytes.starts_with(&MAGIC) => {
                    let job = self.machine.config().job;
                    say_misfit(&mut self.misfit_said, addr, bytes, job, false);
                    bytes
                }
                None => bytes,
                Some(key) => match key.open(bytes) {
                    Some(body) => body,
                    None => {
                        self.unauthenticated += 1;
                        let job = self.machine.config().job;
                        say_misfit(&mut self.misfit_said, addr, bytes, job, true);
                        continue;
                    }
                },
            };
            // The machine names the peer by this address and the header's source, so the
            // flights a fragment may land for are that peer's.
            let mut land_from = |h: &Header, data: &[u8]| land(&NetPeer { addr, id: h.src }, h, data);
            self.machine.handle_datagram(now, addr, bytes, &mut land_from);
        }
        if self.machine.poll_timeout().is_some_and(|t| t <= now) {
            self.machine.handle_timeout(now);
        }
        if let Some(every) = self.beat_every.filter(|_| now >= self.next_beat) {
            self.next_beat = now + every;
            crate::boot::watch::beat();
        }
        n
    }

    /// Whether the launcher reported a death since the last call (the beat reads its
    /// reports): the caller then returns what it sent to processes now gone.
    pub fn news_of_death(&mut self) -> bool {
        let deaths = crate::boot::watch::deaths();
        std::mem::replace(&mut self.deaths_seen, deaths) != deaths
    }

    /// How long a peer that owes something may stay silent before it is judged.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.machine.config().timeout)
    }

    /// Whether the socket's doorbell says datagrams wait (false without a doorbell).
    pub fn rang(&self) -> bool {
        self.udp.rang()
    }

    pub fn next_inbound(&mut self, channel: Channel) -> Option<Inbound<SocketAddrV4>> {
        self.machine.poll_inbound(channel)
    }

    pub fn has_inbound(&self) -> bool {
        self.machine.has_inbound()
    }

    pub fn next_event(&mut self) -> Option<Event<SocketAddrV4>> {
        self.machine.poll_event()
    }

    /// Whether answers are awaited from `peer`: while they are, its silence is watched.
    pub fn await_answers(&mut self, peer: NetPeer, on: bool) {
        self.machine.await_answers(self.now, peer, on);
    }

    /// Whether `peer` was reported silent and has not been heard from since.
    pub fn is_silent(&self, peer: &NetPeer) -> bool {
        self.machine.is_silent(peer)
    }

    /// Judges a silent `peer` by what the launcher says of its process; returns whether
    /// it is waited for (else the caller gives it up).
    pub fn judge(&mut self, peer: NetPeer, process: Liveness) -> bool {
        self.machine.judge(self.now, peer, process)
    }

    /// Declares a silent `peer` unreachable; returns how many of the requests queued to
    /// it were never sent (the newest).
    pub fn give_up(&mut self, peer: NetPeer) -> usize {
        self.machine.give_up(peer)
    }

    /// Whether everything sent is acknowledged and no ack is owed, to every peer not
    /// given up: a closing endpoint may drop its socket.
    pub fn settled(&self) -> bool {
        self.machine.idle()
    }

    /// The peers that still have messages of this endpoint queued or unacknowledged.
    pub fn unsettled_peers(&self) -> Vec<NetPeer> {
        self.machine.unsettled_peers()
    }

    pub fn queued_bytes(&self, peer: &NetPeer) -> usize {
        self.machine.queued_bytes(peer)
    }

    /// How long a sleeping process may leave the machine alone: until its next timer.
    pub fn next_timer(&self) -> Option<std::time::Duration> {
        let at = self.machine.poll_timeout()?;
        Some(std::time::Duration::from_micros(
            at.saturating_sub(self.origin.elapsed().as_micros() as u64),
        ))
    }

    pub fn stats(&self) -> NetStats {
        NetStats {
            protocol: self.machine.stats(),
            socket: self.udp.stats(),
            doorbell: self.udp.has_doorbell(),
            offload: self.udp.offload(),
            datagram: self.largest,
            auth: self.key.is_some(),
            unauthenticated: self.unauthenticated,
        }
    }
}

/// Says, the first time (`said`), that a datagram from `from` was dropped for a seal that
/// differs from this port's (`sealed`) although it is a packet of job `job`: the ranks'
/// `CLUMP_NET_AUTH` differ (or someone forges the job's datagrams), which would otherwise
/// look like a peer that stopped answering.
#[cold]
fn say_misfit(said: &mut bool, from: SocketAddrV4, datagram: &[u8], job: u64, sealed: bool) {
    if *said {
        return;
    }
    if let Some(what) = auth::misfit(datagram, job, sealed) {
        *said = true;
        eprintln!(
            "clump: datagrams of this job from {from} {what} (CLUMP_NET_AUTH={} here): \
             dropped. Every rank must have the same CLUMP_NET_AUTH; if they do, someone \
             forges this job's datagrams",
            u8::from(sealed)
        );
    }
}

/// Microseconds between beats: eight per timeout, so that a peer that polls has beaten
/// well within the half timeout the launcher is asked about; 10 ms ..= 1 s.
fn beat_period(timeout: std::time::Duration) -> u64 {
    (timeout.as_micros() as u64 / 8).clamp(10_000, 1_000_000)
}

impl NetPort {
    /// The descriptors a sleep waits on for a datagram: the socket's and its twins'.
    pub fn fds(&self) -> Vec<RawFd> {
        self.udp.fds().collect()
    }
}

#[cfg(test)]
#[path = "port_tests.rs"]
mod tests;
