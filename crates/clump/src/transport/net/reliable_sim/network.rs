//! The simulated network: datagrams in flight ordered by arrival time, with seeded
//! loss, duplication, extra delay (hence reordering), corruption and link cuts.

use super::rng::Rng;
use crate::transport::net::reliable::Micros;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// Per-datagram fault probabilities.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    pub loss: f64,
    pub dup: f64,
    /// Chance of an extra delay of up to eight base latencies.
    pub reorder: f64,
    /// Chance that one to three random bytes are flipped.
    pub corrupt: f64,
}

/// From `at` on, every datagram between machines `a` and `b` is dropped, including
/// those already in flight.
#[derive(Clone, Copy, Debug)]
pub struct Cut {
    pub a: u8,
    pub b: u8,
    pub at: Micros,
}

impl Cut {
    fn blocks(&self, from: u8, to: u8, at: Micros) -> bool {
        at >= self.at && ((from, to) == (self.a, self.b) || (from, to) == (self.b, self.a))
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NetStats {
    pub sent: u64,
    pub delivered: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub delayed: u64,
    pub corrupted: u64,
    pub cut: u64,
    /// The largest datagram sent, in bytes.
    pub largest: usize,
}

struct Flight {
    at: Micros,
    serial: u64,
    from: u8,
    to: u8,
    data: Vec<u8>,
}

// Min-heap order on (arrival time, send order): ties arrive in the order sent.
impl Ord for Flight {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.serial).cmp(&(self.at, self.serial))
    }
}
impl PartialOrd for Flight {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Flight {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.serial) == (other.at, other.serial)
    }
}
impl Eq for Flight {}

pub struct Network {
    rng: Rng,
    faults: Faults,
    /// One-way delay is `latency` plus up to `jitter`; a link is FIFO (like a real one)
    /// unless the reorder fault delays a datagram further.
    latency: Micros,
    jitter: Micros,
    /// Arrival time of the last datagram on each link (from, to) that kept its place.
    last_arrival: HashMap<(u8, u8), Micros>,
    /// Bytes a link puts on the wire per microsecond, if it has a rate (else a datagram
    /// takes no time to send), and when each link is free to send the next one.
    rate: Option<u64>,
    link_free: HashMap<(u8, u8), Micros>,
    flights: BinaryHeap<Flight>,
    serial: u64,
    cut: Option<Cut>,
    /// Buffers of delivered datagrams, reused.
    pool: Vec<Vec<u8>>,
    pub stats: NetStats,
}

impl Network {
    pub fn new(seed: u64, faults: Faults, cut: Option<Cut>) -> Network {
        Network {
            rng: Rng::new(seed),
            faults,
            latency: 20,
            jitter: 30,
            last_arrival: HashMap::new(),
            rate: None,
            link_free: HashMap::new(),
            flights: BinaryHeap::new(),
            serial: 0,
            cut,
            pool: Vec::new(),
            stats: NetStats::default(),
        }
    }

    /// Makes every link's one-way delay `latency` plus up to `jitter`, after the time a
    /// datagram takes to send at `rate` bytes per microsecond, if given (so a burst of
    /// full-sized datagrams spreads out as on a real link).
    pub fn with_links(mut self, latency: Micros, jitter: Micros, rate: Option<u64>) -> Network {
        self.latency = latency;
        self.jitter = jitter;
        self.rate = rate;
        self
    }

    pub fn send(&mut self, now: Micros, from: u8, to: u8, data: &[u8]) {
        self.stats.sent += 1;
        self.stats.largest = self.stats.largest.max(data.len());
        if self.cut.is_some_and(|c| c.blocks(from, to, now)) {
            self.stats.cut += 1;
            return;
        }
        // A datagram lost on the way still took its time to send.
        let sent = match self.rate {
            Some(rate) => {
                let free = self.link_free.entry((from, to)).or_insert(0);
                *free = (*free).max(now) + (data.len() as u64).div_ceil(rate.max(1));
                *free
            }
            None => now,
        };
        if self.rng.chance(self.faults.loss) {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.rng.chance(self.faults.dup) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut buf = self.pool.pop().unwrap_or_default();
            buf.clear();
            buf.extend_from_slice(data);
            if self.rng.chance(self.faults.corrupt) && !buf.is_empty() {
                self.stats.corrupted += 1;
                for _ in 0..=self.rng.below(3) {
                    let i = self.rng.below(buf.len() as u64) as usize;
                    buf[i] ^= 1 + self.rng.below(255) as u8;
                }
            }
            let mut at = sent + self.latency + self.rng.below(self.jitter + 1);
            if self.rng.chance(self.faults.reorder) {
                self.stats.delayed += 1;
                at += 1 + self.rng.below(8 * self.latency);
            } else {
                let last = self.last_arrival.entry((from, to)).or_insert(0);
                at = at.max(*last);
                *last = at;
            }
            self.serial += 1;
            self.flights.push(Flight {
                at,
                serial: self.serial,
                from,
                to,
                data: buf,
            });
        }
    }

    /// When the next datagram arrives.
    pub fn next_time(&self) -> Option<Micros> {
        self.flights.peek().map(|f| f.at)
    }

    pub fn is_empty(&self) -> bool {
        self.flights.is_empty()
    }

    /// A datagram arriving at `now` or earlier: (from, to, bytes).
    pub fn pop_due(&mut self, now: Micros) -> Option<(u8, u8, Vec<u8>)> {
        loop {
            if self.flights.peek()?.at > now {
                return None;
            }
            let f = self.flights.pop()?;
            if self.cut.is_some_and(|c| c.blocks(f.from, f.to, f.at)) {
                self.stats.cut += 1;
                self.pool.push(f.data);
                continue;
            }
            self.stats.delivered += 1;
            return Some((f.from, f.to, f.data));
        }
    }

    /// Gives a delivered datagram's buffer back for reuse.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        self.pool.push(buf);
    }
}
