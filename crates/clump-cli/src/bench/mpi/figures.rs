//! The figures of `clump bench mpi`: parsed from the benchmark's JSON lines, paired
//! clump against Open MPI, printed with clump's speedup and the targets.

use crate::bench::stats::median;
use serde_json::Value;
use std::io::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Shm,
    Network,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Shm => "shm",
            Side::Network => "network",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub side: Side,
    pub bench: String,
    pub bytes: u64,
    pub unit: String,
    pub clump: f64,
    pub openmpi: f64,
}

impl Figure {
    /// Higher is better (MB/s, Mop/s), rather than a time.
    pub fn is_rate(&self) -> bool {
        self.unit.ends_with("/s")
    }

    /// How many times faster clump is than Open MPI: above 1, clump ahead (times: Open
    /// MPI's / clump's; rates: clump's / Open MPI's).
    pub fn speedup(&self) -> f64 {
        if self.is_rate() {
            self.clump / self.openmpi
        } else {
            self.openmpi / self.clump
        }
    }
}

/// One benchmark line: (bench, bytes, value, unit).
pub fn parse_line(line: &str) -> Option<(String, u64, f64, String)> {
    let v: Value = serde_json::from_str(line).ok()?;
    Some((
        v["bench"].as_str()?.to_owned(),
        v["bytes"].as_u64()?,
        v["value"].as_f64()?,
        v["unit"].as_str()?.to_owned(),
    ))
}

/// Pairs each figure clump printed with Open MPI's for the same benchmark and size.
pub fn pair(side: Side, clump: &str, openmpi: &str) -> Result<Vec<Figure>, String> {
    let theirs: Vec<_> = openmpi.lines().filter_map(parse_line).collect();
    let mut out = Vec::new();
    for (bench, bytes, value, unit) in clump.lines().filter_map(parse_line) {
        let Some(other) = theirs.iter().find(|t| t.0 == bench && t.1 == bytes) else {
            return Err(format!(
                "Open MPI printed no {bench} figure for {bytes} bytes"
            ));
        };
        out.push(Figure {
            side,
            bench,
            bytes,
            unit,
            clump: value,
            openmpi: other.2,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "the {} run printed no figures:\n{clump}",
            side.name()
        ));
    }
    Ok(out)
}

/// Each figure as the median of its rounds, clump's and Open MPI's values taken apart.
/// Every round must have printed the same figures in the same order.
pub fn median_of_rounds(rounds: Vec<Vec<Figure>>) -> Result<Vec<Figure>, String> {
    let Some(first) = rounds.first() else {
        return Err("no rounds were run".into());
    };
    let mut out = first.clone();
    for (i, figure) in out.iter_mut().enumerate() {
        let mut clump = Vec::with_capacity(rounds.len());
        let mut openmpi = Vec::with_capacity(rounds.len());
        for round in &rounds {
            match round.get(i) {
                Some(f) if f.bench == figure.bench && f.bytes == figure.bytes => {
                    clump.push(f.clump);
                    openmpi.push(f.openmpi);
                }
                _ => {
                    return Err(format!(
                        "the rounds printed different figures ({} of {} bytes is missing from one)",
                        figure.bench, figure.bytes
                    ))
                }
            }
        }
        figure.clump = median(&clump);
        figure.openmpi = median(&openmpi);
    }
    Ok(out)
}

/// The figures of `--json` (see [`crate::bench::job::document`] for the rest of the object).
pub fn to_json(figures: &[Figure]) -> Value {
    let list: Vec<Value> = figures
        .iter()
        .map(|f| {
            serde_json::json!({
                "transport": f.side.name(), "bench": f.bench, "bytes": f.bytes,
                "unit": f.unit, "clump": f.clump, "openmpi": f.openmpi,
                "speedup": f.speedup(),
            })
        })
        .collect();
    serde_json::json!({ "figures": list })
}

pub fn print_table(figures: &[Figure], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "{:<8} {:<14} {:>9} {:>12} {:>12} {:>6} {:>8}",
        "over", "bench", "bytes", "clump", "Open MPI", "unit", "speedup"
    )?;
    for f in figures {
        writeln!(
            out,
            "{:<8} {:<14} {:>9} {:>12.3} {:>12.3} {:>6} {:>7.2}x",
            f.side.name(),
            f.bench,
            f.bytes,
            f.clump,
            f.openmpi,
            f.unit,
            f.speedup()
        )?;
    }
    writeln!(out, "{MPI_LEGEND}")?;
    writeln!(out, "\ntargets (speedup over Open MPI):")?;
    for (side, bench, bytes, need, what) in TARGETS {
        let found = figures
            .iter()
            .find(|f| f.side == *side && f.bench == *bench && f.bytes == *bytes);
        match found {
            Some(f) => writeln!(
                out,
                "  {what:<52} {:>6.2}x  need >= {need:.2}x  {}",
                f.speedup(),
                if f.speedup() >= *need {
                    "met"
                } else {
                    "NOT MET"
                }
            )?,
            None => writeln!(out, "  {what:<52} not measured")?,
        }
    }
    Ok(())
}

const MPI_LEGEND: &str = "
speedup: how many times faster clump is than Open MPI, for times (latency, allreduce,
  alltoall: Open MPI's time / clump's) and rates (bandwidth: clump's / Open MPI's) alike.
  Above 1x clump is ahead; below 1x Open MPI is (0.50x: clump takes twice as long).
msg_rate: the bandwidth run's windows of 64 non-blocking sends counted in messages (million
  per second), as osu_mbw_mr reports it for one pair.
one-sided (rank 0 to rank 1's MPI_Win_allocate window; Open MPI's osc sm over shared
  memory, osc pt2pt over TCP): /lock is one MPI_Win_lock_all epoch with a flush per
  access (latency, accumulate, fetch-and-op) or per window of 64 (bandwidth); /fence
  completes each with MPI_Win_fence (a window of 64 fetch-and-ops per fence).";

/// (transport, bench, bytes, least speedup, description).
const TARGETS: &[(Side, &str, u64, f64, &str)] = &[
    (
        Side::Shm,
        "latency",
        8,
        1.0,
        "8 B latency at most Open MPI's",
    ),
    (
        Side::Shm,
        "latency",
        128,
        1.0,
        "128 B latency at most Open MPI's",
    ),
    (
        Side::Shm,
        "msg_rate",
        8,
        1.0,
        "8 B message rate at least Open MPI's",
    ),
    (
        Side::Shm,
        "msg_rate",
        128,
        1.0,
        "128 B message rate at least Open MPI's",
    ),
    (
        Side::Shm,
        "bandwidth",
        2048,
        1.0,
        "2 KiB bandwidth at least Open MPI's",
    ),
    (
        Side::Shm,
        "bandwidth",
        1 << 20,
        1.5,
        "1 MiB bandwidth at least 1.5x Open MPI's",
    ),
    (
        Side::Shm,
        "allreduce",
        8,
        1.0,
        "8 B allreduce (2 processes) at most Open MPI's",
    ),
    (
        Side::Network,
        "latency",
        8,
        1.0,
        "network 8 B latency at most Open MPI TCP's",
    ),
    (
        Side::Shm,
        "put_lat/lock",
        8,
        1.0,
        "8 B put latency (flushed) at most Open MPI's",
    ),
    (
        Side::Shm,
        "get_lat/lock",
        8,
        1.0,
        "8 B get latency (flushed) at most Open MPI's",
    ),
    (
        Side::Shm,
        "put_bw/lock",
        1 << 20,
        1.5,
        "1 MiB put bandwidth at least 1.5x Open MPI's",
    ),
    (
        Side::Shm,
        "fop_rate/lock",
        8,
        1.0,
        "8 B fetch-and-op rate at least Open MPI's",
    ),
    (
        Side::Network,
        "put_lat/lock",
        8,
        1.0,
        "network 8 B put latency at most Open MPI TCP's",
    ),
    (
        Side::Network,
        "put_bw/lock",
        1 << 20,
        1.0,
        "network 1 MiB put bandwidth at least Open MPI TCP's",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_pair_by_bench_and_size_and_ratios_favour_the_faster() {
        let ours = "{\"bench\":\"latency\",\"bytes\":8,\"value\":0.1,\"unit\":\"us\"}\nnoise\n\
                    {\"bench\":\"bandwidth\",\"bytes\":8,\"value\":300,\"unit\":\"MB/s\"}";
        let theirs = "{\"bench\":\"bandwidth\",\"bytes\":8,\"value\":100,\"unit\":\"MB/s\"}\n\
                      {\"bench\":\"latency\",\"bytes\":8,\"value\":0.2,\"unit\":\"us\"}";
        let f = pair(Side::Shm, ours, theirs).unwrap();
        assert_eq!(f.len(), 2);
        assert!((f[0].speedup() - 2.0).abs() < 1e-9);
        assert!((f[1].speedup() - 3.0).abs() < 1e-9);
    }

    /// The column says what it shows: clump twice as fast in latency (half Open MPI's
    /// time) reads 2.00x under "speedup", and so does twice Open MPI's bandwidth; a clump
    /// twice as slow reads 0.50x. No "clump/OMPI" heading over Open MPI / clump.
    #[test]
    fn the_table_and_json_name_the_speedup_and_agree_on_its_direction() {
        let fig = |bench: &str, unit: &str, clump: f64, openmpi: f64| Figure {
            side: Side::Shm,
            bench: bench.into(),
            bytes: 8,
            unit: unit.into(),
            clump,
            openmpi,
        };
        let figures = [
            fig("latency", "us", 1.0, 2.0),
            fig("bandwidth", "MB/s", 200.0, 100.0),
            fig("allreduce", "us", 4.0, 2.0),
        ];
        let mut table = Vec::new();
        print_table(&figures, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        let mut lines = table.lines();
        assert!(lines.next().unwrap().ends_with("speedup"), "{table}");
        assert!(!table.contains("clump/OMPI"), "{table}");
        let speedups: Vec<&str> = lines
            .take(3)
            .map(|l| l.split_whitespace().last().unwrap())
            .collect();
        assert_eq!(speedups, ["2.00x", "2.00x", "0.50x"]);
        assert!(table.contains("Above 1x clump is ahead"), "{table}");
        let v = to_json(&figures);
        let json: Vec<f64> = v["figures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["speedup"].as_f64().unwrap())
            .collect();
        assert_eq!(json, [2.0, 2.0, 0.5]);
        assert_eq!(v["figures"][0]["openmpi"], 2.0);
    }

    #[test]
    fn an_operation_rate_is_a_rate_and_a_one_sided_latency_a_time() {
        let line = |bench: &str, v: f64, unit: &str| {
            format!("{{\"bench\":\"{bench}\",\"bytes\":8,\"value\":{v},\"unit\":\"{unit}\"}}")
        };
        let ours = [
            line("fop_rate/lock", 10.0, "Mop/s"),
            line("put_lat/fence", 0.5, "us"),
        ];
        let theirs = [
            line("fop_rate/lock", 5.0, "Mop/s"),
            line("put_lat/fence", 1.0, "us"),
        ];
        let f = pair(Side::Shm, &ours.join("\n"), &theirs.join("\n")).unwrap();
        assert!(f[0].is_rate() && !f[1].is_rate());
        assert_eq!((f[0].speedup(), f[1].speedup()), (2.0, 2.0));
    }

    /// The message rate sits beside bandwidth as a rate, with a target at 8 bytes.
    #[test]
    fn a_message_rate_is_a_rate_with_a_small_message_target() {
        let line = |v: f64| {
            format!("{{\"bench\":\"msg_rate\",\"bytes\":8,\"value\":{v},\"unit\":\"Mmsg/s\"}}")
        };
        let f = pair(Side::Shm, &line(6.0), &line(4.0)).unwrap();
        assert!(f[0].is_rate());
        assert_eq!(f[0].speedup(), 1.5);
        let mut table = Vec::new();
        print_table(&f, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        let target = table
            .lines()
            .find(|l| l.contains("8 B message rate"))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(
            target.contains("1.50x") && target.ends_with(" met"),
            "{table}"
        );
    }

    #[test]
    fn each_figure_is_the_median_of_its_rounds_each_side_apart() {
        let round = |ours: f64, theirs: f64| {
            let line = |v: f64| {
                format!("{{\"bench\":\"latency\",\"bytes\":8,\"value\":{v},\"unit\":\"us\"}}")
            };
            pair(Side::Shm, &line(ours), &line(theirs)).unwrap()
        };
        let f = median_of_rounds(vec![round(0.4, 0.2), round(0.1, 0.15), round(0.2, 0.4)]).unwrap();
        assert_eq!((f[0].clump, f[0].openmpi), (0.2, 0.2));
        let f = median_of_rounds(vec![round(0.4, 0.2), round(0.2, 0.4)]).unwrap();
        assert!((f[0].clump - 0.3).abs() < 1e-12 && (f[0].openmpi - 0.3).abs() < 1e-12);
        let other = pair(
            Side::Shm,
            "{\"bench\":\"bandwidth\",\"bytes\":8,\"value\":1,\"unit\":\"MB/s\"}",
            "{\"bench\":\"bandwidth\",\"bytes\":8,\"value\":1,\"unit\":\"MB/s\"}",
        )
        .unwrap();
        assert!(median_of_rounds(vec![round(0.1, 0.1), other]).is_err());
        assert!(median_of_rounds(Vec::new()).is_err());
    }

    #[test]
    fn a_figure_open_mpi_lacks_or_an_empty_run_is_an_error() {
        let ours = "{\"bench\":\"latency\",\"bytes\":8,\"value\":0.1,\"unit\":\"us\"}";
        assert!(pair(Side::Shm, ours, "").is_err());
        assert!(pair(Side::Network, "", "").is_err());
    }
}
