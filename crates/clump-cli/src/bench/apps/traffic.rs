//! One rank's counts as its `RANK` line gives them, and the papers' per-processor view of a
//! run's traffic (paper 001, Table 4): network and local apart, short messages and bulk data
//! apart, mean, minimum and maximum across processors, and the share that stayed local. A
//! rank's traffic to itself is neither: it never leaves the processor.

use super::line::value;
use serde_json::{json, Value};

/// What one rank reported (see `clump-apps`'s `run.rs` for the fields).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankCounts {
    pub comm_s: f64,
    pub net_messages: u64,
    pub net_bulk_messages: u64,
    pub net_bulk_bytes: u64,
    pub shm_messages: u64,
    pub shm_bulk_messages: u64,
    pub shm_bulk_bytes: u64,
    pub direct_accesses: u64,
    pub direct_bulk_accesses: u64,
    pub direct_bulk_bytes: u64,
    pub self_messages: u64,
    pub self_bulk_messages: u64,
    pub self_bulk_bytes: u64,
    pub self_direct: u64,
    pub self_direct_bulk: u64,
    pub self_direct_bulk_bytes: u64,
    /// The most memory the rank held by the end of the application's part (paper 001's
    /// Table 3: the resident high-water mark).
    pub mem_bytes: u64,
}

impl RankCounts {
    /// Reads the fields of a `RANK` line.
    pub fn parse(line: &str) -> Result<RankCounts, String> {
        let count = |key: &str| value::<u64>(line, key);
        Ok(RankCounts {
            comm_s: value(line, "comm_s")?,
            net_messages: count("net_messages")?,
            net_bulk_messages: count("net_bulk_messages")?,
            net_bulk_bytes: count("net_bulk_bytes")?,
            shm_messages: count("shm_messages")?,
            shm_bulk_messages: count("shm_bulk_messages")?,
            shm_bulk_bytes: count("shm_bulk_bytes")?,
            direct_accesses: count("direct_accesses")?,
            direct_bulk_accesses: count("direct_bulk_accesses")?,
            direct_bulk_bytes: count("direct_bulk_bytes")?,
            self_messages: count("self_messages")?,
            self_bulk_messages: count("self_bulk_messages")?,
            self_bulk_bytes: count("self_bulk_bytes")?,
            self_direct: count("self_direct")?,
            self_direct_bulk: count("self_direct_bulk")?,
            self_direct_bulk_bytes: count("self_direct_bulk_bytes")?,
            mem_bytes: count("mem_bytes")?,
        })
    }

    pub fn net_short(&self) -> u64 {
        self.net_messages - self.net_bulk_messages
    }

    /// Short messages and direct accesses to other processes of the host.
    pub fn local_short(&self) -> u64 {
        let shm = self.shm_messages - self.shm_bulk_messages;
        let own = self.self_messages - self.self_bulk_messages;
        let direct = self.direct_accesses - self.direct_bulk_accesses;
        let own_direct = self.self_direct - self.self_direct_bulk;
        shm - own + direct - own_direct
    }

    /// Bulk messages and direct accesses to other processes of the host, and their bytes.
    pub fn local_bulk(&self) -> (u64, u64) {
        (
            self.shm_bulk_messages - self.self_bulk_messages + self.direct_bulk_accesses
                - self.self_direct_bulk,
            self.shm_bulk_bytes - self.self_bulk_bytes + self.direct_bulk_bytes
                - self.self_direct_bulk_bytes,
        )
    }

    /// Messages and accesses to other processes, local or not.
    fn towards_others(&self) -> (u64, u64) {
        let local = self.local_short() + self.local_bulk().0;
        (local, local + self.net_messages)
    }
}

/// Mean, minimum and maximum of one figure across processors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(values: impl Iterator<Item = f64>) -> Spread {
        let v: Vec<f64> = values.collect();
        if v.is_empty() {
            return Spread {
                mean: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        Spread {
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    fn json(&self) -> Value {
        json!({"mean": self.mean, "min": self.min, "max": self.max})
    }
}

/// The per-processor view of a run: Table 4's columns and Table 6's balance.
#[derive(Debug, Clone, PartialEq)]
pub struct Traffic {
    pub net_short: Spread,
    /// Mean bulk messages per processor and their mean size in bytes.
    pub net_bulk: (f64, f64),
    pub local_short: Spread,
    pub local_bulk: (f64, f64),
    /// Local share of all messages to other processes, in percent.
    pub local_percent: f64,
    /// Time spent communicating, across processors (the papers' communication balance).
    pub comm_s: Spread,
    /// Memory held per processor, in bytes (Table 3).
    pub mem_bytes: Spread,
}

fn bulk(ranks: &[RankCounts], of: impl Fn(&RankCounts) -> (u64, u64)) -> (f64, f64) {
    let (n, bytes) = ranks
        .iter()
        .map(of)
        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
    let per_rank = n as f64 / ranks.len().max(1) as f64;
    (per_rank, if n == 0 { 0.0 } else { bytes as f64 / n as f64 })
}

impl Traffic {
    pub fn of(ranks: &[RankCounts]) -> Traffic {
        let (local, all) = ranks
            .iter()
            .map(RankCounts::towards_others)
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        Traffic {
            net_short: Spread::of(ranks.iter().map(|r| r.net_short() as f64)),
            net_bulk: bulk(ranks, |r| (r.net_bulk_messages, r.net_bulk_bytes)),
            local_short: Spread::of(ranks.iter().map(|r| r.local_short() as f64)),
            local_bulk: bulk(ranks, RankCounts::local_bulk),
            local_percent: if all == 0 {
                0.0
            } else {
                100.0 * local as f64 / all as f64
            },
            comm_s: Spread::of(ranks.iter().map(|r| r.comm_s)),
            mem_bytes: Spread::of(ranks.iter().map(|r| r.mem_bytes as f64)),
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "net_short": self.net_short.json(),
            "net_bulk": {"messages": self.net_bulk.0, "mean_bytes": self.net_bulk.1},
            "local_short": self.local_short.json(),
            "local_bulk": {"messages": self.local_bulk.0, "mean_bytes": self.local_bulk.1},
            "local_percent": self.local_percent,
            "comm_s": self.comm_s.json(),
            "mem_bytes": self.mem_bytes.json(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_leaves_out_traffic_to_itself_and_spreads_cover_every_rank() {
        let line = "RANK rank=0 time_s=1 comm_s=0.5 compute_s=0.5 shm_messages=10 shm_bytes=0 \
                    net_messages=6 net_bytes=0 direct_accesses=3 direct_bytes=0 \
                    shm_bulk_messages=4 shm_bulk_bytes=400 net_bulk_messages=2 \
                    net_bulk_bytes=100 self_messages=5 self_bulk_messages=1 \
                    self_bulk_bytes=100 self_direct=1 direct_bulk_accesses=2 \
                    direct_bulk_bytes=64 self_direct_bulk=1 self_direct_bulk_bytes=16 \
                    mem_bytes=3000000";
        let a = RankCounts::parse(line).unwrap();
        // Local short: 6 shm - 4 own, 1 direct - 0 own; bulk: 3 shm and 1 direct to others.
        assert_eq!(
            (a.net_short(), a.local_short(), a.local_bulk()),
            (4, 3, (4, 348))
        );
        let b = RankCounts {
            comm_s: 1.5,
            net_messages: 2,
            mem_bytes: 1_000_000,
            ..RankCounts::default()
        };
        let t = Traffic::of(&[a, b]);
        assert_eq!(
            t.net_short,
            Spread {
                mean: 3.0,
                min: 2.0,
                max: 4.0
            }
        );
        assert_eq!(t.net_bulk, (1.0, 50.0));
        assert_eq!(t.local_bulk, (2.0, 87.0));
        // 7 local of 7 + 8 network messages to other processes.
        assert!((t.local_percent - 700.0 / 15.0).abs() < 1e-9);
        assert_eq!((t.comm_s.min, t.comm_s.max), (0.5, 1.5));
        assert_eq!(
            (t.mem_bytes.mean, t.mem_bytes.min, t.mem_bytes.max),
            (2e6, 1e6, 3e6)
        );
        assert!(RankCounts::parse("RANK rank=0 comm_s=1")
            .unwrap_err()
            .contains("net_messages"));
    }
}
