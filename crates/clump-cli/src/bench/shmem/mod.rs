//! `clump bench shmem`: OpenSHMEM between two PEs (`shmembench.c`, built with `clump
//! oshcc`): 8-byte put (with quiet) and get latency, 1 MiB put and get bandwidth, the
//! fetch-add rate and the barrier time, over shared memory and over UDP. Beside each, the
//! Active Message figure it rests on, measured in the same run ([`am`]), and the ratio.

mod am;

pub use am::worker;

use super::transport::BenchTransport;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The benchmark program.
const SOURCE: &str = include_str!("shmembench.c");
/// Batches per figure (the best counts) and the bulk size, as in `shmembench.c`.
pub const BATCHES: usize = 5;
pub const BIG: usize = 1 << 20;

#[derive(clap::Args, Debug)]
pub struct ShmemArgs {
    /// Fewer repetitions (seconds instead of a minute).
    #[arg(long)]
    quick: bool,
    /// Print the figures as JSON lines instead of a table.
    #[arg(long)]
    json: bool,
}

/// One line of the results: the OpenSHMEM figure, its AM reference, their ratio.
struct Row {
    transport: &'static str,
    figure: &'static str,
    unit: &'static str,
    shmem: f64,
    am: f64,
}

pub fn main(args: &ShmemArgs) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("clump-bench-shmem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = measure(args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let rows = outcome?;
    for r in &rows {
        if args.json {
            println!(
                "{}",
                serde_json::json!({"transport": r.transport, "figure": r.figure, "unit": r.unit,
                    "shmem": r.shmem, "am": r.am, "ratio": r.shmem / r.am})
            );
        } else {
            println!(
                "{:<4} {:<24} {:>14.3} {:>14.3} {:>8.2}  {}",
                r.transport,
                r.figure,
                r.shmem,
                r.am,
                r.shmem / r.am,
                r.unit
            );
        }
    }
    Ok(())
}

fn measure(args: &ShmemArgs, dir: &Path) -> Result<Vec<Row>, String> {
    let src = dir.join("shmembench.c");
    std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
    let clump = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
    let exe = dir.join("shmembench");
    super::mpi::compile(Command::new(&clump).arg("oshcc"), &src, &exe)?;
    let quick: &[&str] = if args.quick { &["--quick"] } else { &[] };
    if !args.json {
        println!(
            "{:<4} {:<24} {:>14} {:>14} {:>8}  unit",
            "", "figure", "OpenSHMEM", "AM reference", "ratio"
        );
    }
    let mut rows = Vec::new();
    for t in [BenchTransport::Shm, BenchTransport::Udp] {
        let worker: Vec<&str> = ["shmem-am"].iter().chain(quick).copied().collect();
        let am = super::job::run(2, t.launcher_args(), &[], &worker)?;
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
        rows.extend(rows_of(t.name(), &shmem, &am)?);
    }
    Ok(rows)
}

fn rows_of(transport: &'static str, shmem: &Value, am: &Value) -> Result<Vec<Row>, String> {
    let get = |v: &Value, k: &str| v[k].as_f64().ok_or_else(|| format!("no figure {k} in {v}"));
    let rtt = get(am, "rtt_us")?;
    let long = get(am, "long_mb_s")?;
    // (figure, unit, the key shmembench.c prints it under, the AM figure it rests on)
    let table = [
        (
            "put 8 B + quiet",
            "us (AM: round trip)",
            "put_latency_us",
            rtt,
        ),
        ("get 8 B", "us (AM: round trip)", "get_latency_us", rtt),
        (
            "put 1 MiB + quiet",
            "MB/s (AM: long + reply)",
            "put_mb_s",
            long,
        ),
        ("get 1 MiB", "MB/s (AM: long + reply)", "get_mb_s", long),
        (
            "fetch-add",
            "per s (AM: round trips)",
            "atomics_per_s",
            1e6 / rtt,
        ),
        (
            "barrier_all, 2 PEs",
            "us (AM: round trip)",
            "barrier_us",
            rtt,
        ),
    ];
    table
        .into_iter()
        .map(|(figure, unit, key, am)| {
            Ok(Row {
                transport,
                figure,
                unit,
                shmem: get(shmem, key)?,
                am,
            })
        })
        .collect()
}
