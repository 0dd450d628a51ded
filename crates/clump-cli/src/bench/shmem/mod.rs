//! `clump bench shmem`: OpenSHMEM between two PEs (`shmembench.c`, built with `clump
//! oshcc`), over shared memory and over UDP in one run. The summary: 8-byte put (with
//! quiet) and get latency, 1 MiB put and get bandwidth, the fetch-add rate and the barrier
//! time, each beside the Active Message figure it rests on, measured in the same run
//! ([`am`]), and the speedup (how many times faster OpenSHMEM is than that figure; below
//! 1, what it costs over AM). Then the curves by size ([`curves`]): put and get latency
//! and bandwidth, a put with shmem_fence beside one with shmem_quiet, and the large
//! collectives (reduce, fcollect, broadcast, alltoall), shared memory beside UDP. The two
//! transports take turns ([`ROUNDS`] runs each, shm, UDP, UDP, shm), and each figure is
//! the best of its runs, so that both see the same load of a shared machine.

mod am;
mod curves;

pub use am::worker;

use super::progress::Progress;
use super::transport::BenchTransport;
use serde_json::Value;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The benchmark program.
const SOURCE: &str = include_str!("shmembench.c");
/// Batches per figure (the best counts) and the bulk size, as in `shmembench.c`.
pub const BATCHES: usize = 5;
pub const BIG: usize = 1 << 20;
/// Runs of each transport.
pub const ROUNDS: usize = 2;

#[derive(clap::Args, Debug)]
pub struct ShmemArgs {
    /// Fewer repetitions (seconds instead of a minute).
    #[arg(long)]
    quick: bool,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Also write DIR/shmem-latency.png, shmem-bandwidth.png, shmem-fence.png,
    /// shmem-reduce.png, shmem-fcollect.png, shmem-broadcast.png and shmem-alltoall.png:
    /// each curve against message size, shared memory beside UDP.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
}

/// One line of the results: the OpenSHMEM figure, its AM reference, the speedup.
struct Row {
    transport: &'static str,
    figure: &'static str,
    unit: &'static str,
    /// A time (lower is better) rather than a rate.
    time: bool,
    shmem: f64,
    am: f64,
}

impl Row {
    /// How many times faster OpenSHMEM is than its AM reference: above 1, OpenSHMEM ahead
    /// (times: AM / OpenSHMEM; rates: OpenSHMEM / AM).
    fn speedup(&self) -> f64 {
        if self.time {
            self.am / self.shmem
        } else {
            self.shmem / self.am
        }
    }
}

impl Row {
    /// Keeps the better of `self`'s and `other`'s figures, OpenSHMEM's and AM's apart.
    fn keep_best(&mut self, other: &Row) {
        let better = |a: f64, b: f64| if self.time { a.min(b) } else { a.max(b) };
        self.shmem = better(self.shmem, other.shmem);
        self.am = better(self.am, other.am);
    }
}

/// Folds `more`, the rows of another run, into `best` (see [`Row::keep_best`]).
fn keep_best(best: &mut Vec<Row>, more: Vec<Row>) {
    for r in more {
        match best
            .iter_mut()
            .find(|b| (b.transport, b.figure) == (r.transport, r.figure))
        {
            Some(b) => b.keep_best(&r),
            None => best.push(r),
        }
    }
}

/// The figures of `--json` (see [`super::job::document`] for the rest of the object).
fn to_json(rows: &[Row]) -> Value {
    let figures: Vec<Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({"transport": r.transport, "figure": r.figure, "unit": r.unit,
                "shmem": r.shmem, "am": r.am, "speedup": r.speedup()})
        })
        .collect();
    serde_json::json!({ "figures": figures })
}

fn print_table(rows: &[Row], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "{:<4} {:<24} {:>14} {:>14} {:>8}  unit",
        "", "figure", "OpenSHMEM", "AM reference", "speedup"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<4} {:<24} {:>14.3} {:>14.3} {:>7.2}x  {}",
            r.transport,
            r.figure,
            r.shmem,
            r.am,
            r.speedup(),
            r.unit
        )?;
    }
    writeln!(out, "{SHMEM_LEGEND}")
}

const SHMEM_LEGEND: &str = "
speedup: how many times faster OpenSHMEM is than the Active Message figure it rests on
  (times: AM / OpenSHMEM; rates: OpenSHMEM / AM). Above 1x OpenSHMEM is ahead; below 1x,
  0.80x say, it runs at 80% of the speed of the messages beneath it.";

pub fn main(args: &ShmemArgs) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("clump-bench-shmem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = measure(args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let (rows, points) = outcome?;
    let mut fields = to_json(&rows);
    fields["curves"] = curves::to_json(&points);
    let doc = super::job::document("shmem", args.quick, fields);
    if let Some(dir) = &args.plot {
        for file in curves::write_plots(dir, &points, &doc)? {
            eprintln!("clump bench shmem: wrote {}", file.display());
        }
    }
    super::job::print(&doc, args.json, |_, out| {
        print_table(&rows, out)?;
        curves::print_table(&points, out)
    })
}

/// The summary rows and the curves' points, over shared memory and UDP.
fn measure(args: &ShmemArgs, dir: &Path) -> Result<(Vec<Row>, Vec<curves::Point>), String> {
    let src = dir.join("shmembench.c");
    std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
    let clump = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
    let exe = dir.join("shmembench");
    super::mpi::compile(Command::new(&clump).arg("oshcc"), &src, &exe)?;
    let quick: &[&str] = if args.quick { &["--quick"] } else { &[] };
    let mut rows = Vec::new();
    let mut points = Vec::new();
    let progress = Progress::new("shmem:", 4 * ROUNDS);
    let (shm, udp) = (BenchTransport::Shm, BenchTransport::Udp);
    let turns = (0..ROUNDS).flat_map(|r| if r % 2 == 0 { [shm, udp] } else { [udp, shm] });
    for (i, t) in turns.enumerate() {
        progress.step(2 * i, format_args!("{}, AM reference", t.name()));
        let worker: Vec<&str> = ["shmem-am"].iter().chain(quick).copied().collect();
        let am = super::job::run(2, t.launcher_args(), &[], &worker)?;
        progress.step(2 * i + 1, format_args!("{}, OpenSHMEM", t.name()));
        let out = super::mpi::run(
            Command::new(&clump)
                .args(["run", "-n", "2"])
                .args(t.launcher_args())
                .arg("--")
                .arg(&exe)
                .args(quick),
        )?;
        let shmem: Value = out
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| format!("shmembench printed no results:\n{out}"))?;
        keep_best(&mut rows, rows_of(t.name(), &shmem, &am)?);
        curves::keep_best(&mut points, curves::parse(t.name(), &out));
    }
    // Shared memory's figures first, as the table and the JSON list them.
    rows.sort_by_key(|r| r.transport != "shm");
    points.sort_by_key(|p| p.transport != "shm");
    Ok((rows, points))
}

fn rows_of(transport: &'static str, shmem: &Value, am: &Value) -> Result<Vec<Row>, String> {
    let get = |v: &Value, k: &str| v[k].as_f64().ok_or_else(|| format!("no figure {k} in {v}"));
    let rtt = get(am, "rtt_us")?;
    let long = get(am, "long_mb_s")?;
    const TIME: &str = "us (AM: round trip)";
    const BULK: &str = "MB/s (AM: long + reply)";
    // (figure, unit, the key shmembench.c prints it under, the AM figure it rests on)
    let table = [
        ("put 8 B + quiet", TIME, "put_latency_us", rtt),
        ("get 8 B", TIME, "get_latency_us", rtt),
        ("put 1 MiB + quiet", BULK, "put_mb_s", long),
        ("get 1 MiB", BULK, "get_mb_s", long),
        (
            "fetch-add",
            "per s (AM: round trips)",
            "atomics_per_s",
            1e6 / rtt,
        ),
        ("barrier_all, 2 PEs", TIME, "barrier_us", rtt),
    ];
    table
        .into_iter()
        .map(|(figure, unit, key, am)| {
            Ok(Row {
                transport,
                figure,
                unit,
                time: unit == TIME,
                shmem: get(shmem, key)?,
                am,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speedups_are_above_one_where_openshmem_is_faster_for_times_and_rates_alike() {
        let shmem = serde_json::json!({"put_latency_us": 2.0, "get_latency_us": 0.5,
            "put_mb_s": 500.0, "get_mb_s": 2000.0, "atomics_per_s": 250_000.0, "barrier_us": 1.0});
        let am = serde_json::json!({"rtt_us": 1.0, "long_mb_s": 1000.0});
        let rows = rows_of("shm", &shmem, &am).unwrap();
        let speedups: Vec<f64> = rows.iter().map(Row::speedup).collect();
        // put: twice the round trip (half the speed); get: half of it (twice); bandwidths;
        // fetch-adds: a quarter of the rate of round trips; barrier: as fast.
        assert_eq!(speedups, [0.5, 2.0, 0.5, 2.0, 0.25, 1.0]);
        let v = to_json(&rows);
        let figures = v["figures"].as_array().unwrap();
        assert_eq!(figures.len(), 6);
        assert_eq!(
            (
                figures[0]["transport"].as_str(),
                figures[0]["speedup"].as_f64()
            ),
            (Some("shm"), Some(0.5))
        );
        let mut table = Vec::new();
        print_table(&rows, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(
            table.lines().next().unwrap().contains("speedup") && !table.contains("ratio"),
            "{table}"
        );
        assert!(rows_of("shm", &serde_json::json!({}), &am).is_err());
    }

    #[test]
    fn runs_fold_into_the_best_of_each_figure_openshmem_and_am_apart() {
        let am = serde_json::json!({"rtt_us": 1.0, "long_mb_s": 1000.0});
        let fast = serde_json::json!({"put_latency_us": 2.0, "get_latency_us": 0.5,
            "put_mb_s": 500.0, "get_mb_s": 2000.0, "atomics_per_s": 250_000.0, "barrier_us": 1.0});
        let slow = serde_json::json!({"put_latency_us": 4.0, "get_latency_us": 1.0,
            "put_mb_s": 250.0, "get_mb_s": 1000.0, "atomics_per_s": 125_000.0, "barrier_us": 2.0});
        let slower_am = serde_json::json!({"rtt_us": 3.0, "long_mb_s": 500.0});
        let mut rows = rows_of("shm", &slow, &am).unwrap();
        keep_best(&mut rows, rows_of("udp", &slow, &am).unwrap());
        keep_best(&mut rows, rows_of("shm", &fast, &slower_am).unwrap());
        let expect = rows_of("shm", &fast, &am).unwrap();
        assert_eq!(rows.len(), 12);
        for (r, e) in rows.iter().zip(&expect) {
            assert_eq!((r.transport, r.figure), (e.transport, e.figure));
            assert_eq!((r.shmem, r.am), (e.shmem, e.am), "{}", r.figure);
        }
        assert_eq!(rows[6].shmem, 4.0, "udp's own run is kept apart");
    }
}
