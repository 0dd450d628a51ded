//! Results of `clump bench contention`: the JSON object (built by the server, rank 0) and
//! the readable table (printed by the parent from that JSON).

use crate::bench::stats::{max, max_relative_deviation, min};
use serde_json::{json, Value};
use std::io::{self, Write};

/// The target: every client's rate within 20% of a fair share of the server's.
pub const TARGET_FAIR_SHARE_DEVIATION: f64 = 0.2;

/// The keys of `--json`, for `--help`.
pub const JSON_KEYS: &str = "\
JSON (--json): one object with
  transport, clients, processes (clients + 1), cpus_available, pinned, cpus (each rank's
  CPU: the server alone on one, the clients spread over the others; null where unpinned),
  credits (requests a client may have in flight), quick, seconds (the whole run), target_fair_share_deviation (0.2), and one
  object per phase, one_vnet (every client to one server endpoint) and per_client_vnet
  (one server endpoint and tag per client), each with
    server_endpoints, seconds (the measured window), messages (requests answered in it),
    server_rate_msgs_per_s, server_rate_range_msgs_per_s ([slowest, fastest] of 10 slices),
    fair_share_msgs_per_s (server rate / clients), client_rates (requests/s, by client),
    client_rate_ranges ([slowest, fastest] slice, by client), max_fair_share_deviation
    (largest |client rate / fair share - 1|), fair_share_met.";

/// One phase as the server counted it.
pub struct Phase {
    pub server_endpoints: usize,
    /// The measured window's slices, as timed.
    pub slice_secs: Vec<f64>,
    /// Requests counted per slice, per client.
    pub counts: Vec<Vec<u64>>,
}

impl Phase {
    pub fn client_total(&self, client: usize) -> u64 {
        self.counts.iter().map(|slice| slice[client]).sum()
    }

    fn to_json(&self) -> Value {
        let secs: f64 = self.slice_secs.iter().sum();
        let clients = self.counts.first().map_or(0, Vec::len);
        let messages: u64 = self.counts.iter().flatten().sum();
        let server_rate = messages as f64 / secs;
        let slice_rates = |counts: &dyn Fn(&Vec<u64>) -> u64| -> Vec<f64> {
            self.counts
                .iter()
                .zip(&self.slice_secs)
                .map(|(slice, s)| counts(slice) as f64 / s)
                .collect()
        };
        let server_slices = slice_rates(&|slice| slice.iter().sum());
        let client_rates: Vec<f64> = (0..clients)
            .map(|c| self.client_total(c) as f64 / secs)
            .collect();
        let client_ranges: Vec<[f64; 2]> = (0..clients)
            .map(|c| {
                let r = slice_rates(&|slice| slice[c]);
                [min(&r), max(&r)]
            })
            .collect();
        let deviation = max_relative_deviation(&client_rates);
        json!({
            "server_endpoints": self.server_endpoints,
            "seconds": secs,
            "messages": messages,
            "server_rate_msgs_per_s": server_rate,
            "server_rate_range_msgs_per_s": [min(&server_slices), max(&server_slices)],
            "fair_share_msgs_per_s": server_rate / clients as f64,
            "client_rates": client_rates,
            "client_rate_ranges": client_ranges,
            "max_fair_share_deviation": deviation,
            "fair_share_met": deviation <= TARGET_FAIR_SHARE_DEVIATION,
        })
    }
}

pub struct Results {
    pub transport: String,
    pub quick: bool,
    pub clients: usize,
    /// CPUs this job may use.
    pub available: usize,
    /// Each rank's CPU, `None` where unpinned.
    pub cpus: Vec<Option<usize>>,
    pub credits: u32,
    pub one_vnet: Phase,
    pub per_client_vnet: Phase,
    pub seconds: f64,
}

/// The JSON object rank 0 prints (see [`JSON_KEYS`]).
pub fn to_json(r: &Results) -> Value {
    json!({
        "benchmark": "contention",
        "transport": r.transport,
        "quick": r.quick,
        "clients": r.clients,
        "processes": r.clients + 1,
        "cpus_available": r.available,
        "pinned": r.cpus.iter().all(Option::is_some),
        "cpus": r.cpus,
        "credits": r.credits,
        "one_vnet": r.one_vnet.to_json(),
        "per_client_vnet": r.per_client_vnet.to_json(),
        "target_fair_share_deviation": TARGET_FAIR_SHARE_DEVIATION,
        "seconds": r.seconds,
    })
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The readable table: per phase the server's rate and the fairness target, then each
/// client's rate in both phases.
pub fn print_table(v: &Value, out: &mut impl Write) -> io::Result<()> {
    let clients = v["clients"].as_u64().unwrap_or(0);
    let phases = [
        ("1 virtual network".to_string(), &v["one_vnet"]),
        (format!("{clients} virtual networks"), &v["per_client_vnet"]),
    ];
    writeln!(
        out,
        "clump bench contention: transport {}, {} and 1 server ({}), {} run, {:.1} s",
        v["transport"].as_str().unwrap_or("?"),
        plural(clients, "client"),
        placement(v),
        if v["quick"] == true { "quick" } else { "full" },
        f(&v["seconds"]),
    )?;
    writeln!(
        out,
        "Each client sends 4-word short requests as fast as its {} credits allow; the server \
         answers each with a 4-word reply.\nRates are requests answered per second over {:.1} s \
         per phase [slowest..fastest of its slices].",
        v["credits"],
        f(&v["one_vnet"]["seconds"]),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<22}{RATE_HEAD}  fair share  max deviation  target <= {:.0}%",
        "Server",
        f(&v["target_fair_share_deviation"]) * 100.0
    )?;
    for (name, p) in &phases {
        writeln!(
            out,
            "  {name:<20}{}  {:>10.0}  {:>12.1}%  {}",
            rate(
                &p["server_rate_msgs_per_s"],
                &p["server_rate_range_msgs_per_s"]
            ),
            f(&p["fair_share_msgs_per_s"]),
            f(&p["max_fair_share_deviation"]) * 100.0,
            if p["fair_share_met"] == true {
                "met"
            } else {
                "missed"
            },
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{:<8}{:<39}{}", "Client", phases[0].0, phases[1].0)?;
    writeln!(out, "      {RATE_HEAD}  vs fair  {RATE_HEAD}  vs fair")?;
    for c in 0..clients as usize {
        let cell = |p: &Value| {
            let share = f(&p["client_rates"][c]) / f(&p["fair_share_msgs_per_s"]) - 1.0;
            format!(
                "{}  {:>+6.1}%",
                rate(&p["client_rates"][c], &p["client_rate_ranges"][c]),
                share * 100.0
            )
        };
        writeln!(
            out,
            "  {:<4}{}  {}",
            c + 1,
            cell(phases[0].1),
            cell(phases[1].1)
        )?;
    }
    writeln!(out, "{CONTENTION_LEGEND}")
}

/// One line per figure: what it is and which way is good; what a missed target means.
const CONTENTION_LEGEND: &str = "
What the figures mean:
  msgs/s           requests answered per second (higher is better); slowest..fastest are
                   the extremes of ten slices of the window: a wide range means stalls.
  vs fair          a client's rate against a fair share (server rate / clients): 0% is fair.
  fair share met   every client within 20% of its fair share; missed on a full run (not
                   --quick, which measures the scheduler as much as clump) is a fairness bug.";

/// Where the ranks ran: "server on CPU 0, clients on CPU 1".
fn placement(v: &Value) -> String {
    let cpus: Vec<u64> = v["cpus"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    match cpus.split_first() {
        Some((server, clients)) if v["pinned"] == true => {
            let mut clients = clients.to_vec();
            clients.sort_unstable();
            clients.dedup();
            let list: Vec<String> = clients.iter().map(u64::to_string).collect();
            let s = if list.len() > 1 { "s" } else { "" };
            format!(
                "server on CPU {server}, clients on CPU{s} {}",
                list.join(",")
            )
        }
        _ => format!(
            "NOT pinned, {}",
            plural(v["cpus_available"].as_u64().unwrap_or(0), "CPU")
        ),
    }
}

/// "1 client", "3 clients".
fn plural(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The heading of [`rate`]'s columns.
const RATE_HEAD: &str = "  msgs/s   slowest..fastest ";

/// A rate and its `[slowest, fastest]` slices.
fn rate(rate: &Value, range: &Value) -> String {
    format!(
        "{:>8.0}  {:>8.0}..{:<8.0}",
        f(rate),
        f(&range[0]),
        f(&range[1])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_sums_its_slices_into_rates_and_shares() {
        // Two slices of half a second; client 0 has 300 requests, client 1 has 100.
        let p = Phase {
            server_endpoints: 2,
            slice_secs: vec![0.5, 0.5],
            counts: vec![vec![100, 50], vec![200, 50]],
        };
        let v = p.to_json();
        assert_eq!(v["messages"], 400);
        assert_eq!(f(&v["server_rate_msgs_per_s"]), 400.0);
        assert_eq!(f(&v["fair_share_msgs_per_s"]), 200.0);
        assert_eq!(v["client_rates"], json!([300.0, 100.0]));
        assert_eq!(
            v["client_rate_ranges"],
            json!([[200.0, 400.0], [100.0, 100.0]])
        );
        assert_eq!(v["server_rate_range_msgs_per_s"], json!([300.0, 500.0]));
        assert_eq!(f(&v["max_fair_share_deviation"]), 0.5);
        assert_eq!(v["fair_share_met"], false);
    }
}
