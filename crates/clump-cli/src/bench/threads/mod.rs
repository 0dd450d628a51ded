//! `clump bench threads`: the multithreaded message rate. N threads per process on two
//! processes make round trips of short messages to their peer, each waiting for its own
//! answer: clump's Active Messages with one `AM_PAR` endpoint per process shared by the
//! threads (`amtbench.c`, GASNet-EX's testam under PAR), and the same pattern in MPI
//! under `MPI_THREAD_MULTIPLE` (`mtlat.c`, OSU's osu_latency_mt), built against clump and
//! against Open MPI. The three jobs alternate for each thread count, for `--rounds`
//! rounds, and each figure is the median of its rounds.

use super::mpi::{OMPI_CC, OMPI_RUN};
use super::progress::Progress;
use super::transport::BenchTransport;
use serde_json::{json, Value};
use std::io::{self, Write};
use std::path::Path;
use std::process::Command;

const AM_SOURCE: &str = include_str!("amtbench.c");
const MPI_SOURCE: &str = include_str!("mtlat.c");
/// Threads per process the programs accept.
const MOST_THREADS: u32 = 64;

#[derive(clap::Args, Debug)]
pub struct ThreadsArgs {
    /// Fewer round trips per thread (see --iters).
    #[arg(long)]
    quick: bool,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Threads per process, each count measured in turn.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2, 4, 8],
          value_parser = clap::value_parser!(u32).range(1..=MOST_THREADS as i64))]
    threads: Vec<u32>,
    /// Shared memory (Open MPI: vader), or the network (clump: UDP between two virtual
    /// hosts; Open MPI: TCP).
    #[arg(long, value_enum, default_value_t = BenchTransport::Shm)]
    transport: BenchTransport,
    /// Round trips per thread (after a tenth as many to warm up); the default is 20,000,
    /// 2,000 with --quick.
    #[arg(long, value_parser = clap::value_parser!(u32).range(10..))]
    iters: Option<u32>,
    /// Rounds of the three jobs, run alternately; each figure is the median of its rounds.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
}

/// Who made a figure.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    AmPar,
    ClumpMpi,
    OpenMpi,
}

impl Side {
    const ALL: [Side; 3] = [Side::AmPar, Side::ClumpMpi, Side::OpenMpi];

    fn name(self) -> &'static str {
        match self {
            Side::AmPar => "clump_am_par",
            Side::ClumpMpi => "clump_mpi",
            Side::OpenMpi => "openmpi",
        }
    }
}

/// One thread count's figures from one side: half a thread's mean round trip (µs) and
/// the round trips per second of all threads together.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Figure {
    threads: u32,
    side: Side,
    lat_us: f64,
    rate: f64,
}

pub fn main(args: &ThreadsArgs) -> Result<(), String> {
    if super::mpi::open_mpi_missing("threads") {
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("clump-bench-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = measure(args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let figures = outcome?;
    let doc = super::job::document(
        "threads",
        args.quick,
        json!({
            "transport": args.transport.name(),
            "rounds": args.rounds,
            "iters": iters(args),
            "figures": to_json(&figures),
        }),
    );
    super::job::print(&doc, args.json, |_, out| print_table(&figures, out))
}

fn iters(args: &ThreadsArgs) -> u32 {
    args.iters
        .unwrap_or(if args.quick { 2_000 } else { 20_000 })
}

fn measure(args: &ThreadsArgs, dir: &Path) -> Result<Vec<Figure>, String> {
    let clump = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
    let build = |name: &str, source: &str, cc: &mut Command| {
        let src = dir.join(format!("{name}.c"));
        std::fs::write(&src, source).map_err(|e| format!("{}: {e}", src.display()))?;
        let exe = dir.join(name);
        super::mpi::compile(cc.arg("-pthread"), &src, &exe)?;
        Ok::<_, String>(exe)
    };
    eprintln!("threads: building the programs against clump and against Open MPI...");
    let am = build("amtbench", AM_SOURCE, Command::new(&clump).arg("mpicc"))?;
    let clump_mpi = build("mtlat-clump", MPI_SOURCE, Command::new(&clump).arg("mpicc"))?;
    let ompi = build("mtlat-openmpi", MPI_SOURCE, &mut Command::new(OMPI_CC))?;
    let btl = match args.transport {
        BenchTransport::Shm => "vader,self",
        _ => "tcp,self",
    };
    let steps = args.threads.len() * args.rounds as usize * Side::ALL.len();
    let progress = Progress::new("threads:", steps);
    let mut figures = Vec::new();
    for (k, &n) in args.threads.iter().enumerate() {
        let job_args = [n.to_string(), iters(args).to_string()];
        let mut rounds: Vec<Vec<Figure>> = vec![Vec::new(); Side::ALL.len()];
        for r in 0..args.rounds as usize {
            for (s, side) in Side::ALL.into_iter().enumerate() {
                let step = (k * args.rounds as usize + r) * Side::ALL.len() + s;
                progress.step(
                    step,
                    format_args!("{n} threads, round {}: {}", r + 1, side.name()),
                );
                let mut cmd = match side {
                    Side::OpenMpi => {
                        let mut c = Command::new(OMPI_RUN);
                        c.args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
                            .args(["--mca", "btl", btl])
                            .arg(&ompi);
                        c
                    }
                    Side::AmPar | Side::ClumpMpi => {
                        let mut c = Command::new(&clump);
                        c.args(["run", "-n", "2"])
                            .args(args.transport.launcher_args())
                            .arg("--")
                            .arg(if side == Side::AmPar { &am } else { &clump_mpi });
                        c
                    }
                };
                let out = super::mpi::run(cmd.args(&job_args))?;
                rounds[s].push(parse(&out, side, n)?);
            }
        }
        figures.extend(rounds.into_iter().map(median));
    }
    Ok(figures)
}

/// The figure in a program's output line `threads=N iters=I lat_us=X rate=Y`.
fn parse(out: &str, side: Side, threads: u32) -> Result<Figure, String> {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("threads={threads} ")))
        .ok_or_else(|| format!("{}: no result line in {out:?}", side.name()))?;
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("{}: no {key} in {line:?}", side.name()))
    };
    Ok(Figure {
        threads,
        side,
        lat_us: field("lat_us")?,
        rate: field("rate")?,
    })
}

/// The round whose latency is the median (its rate goes with it).
fn median(mut rounds: Vec<Figure>) -> Figure {
    rounds.sort_by(|a, b| a.lat_us.total_cmp(&b.lat_us));
    rounds[rounds.len() / 2]
}

/// How many times faster `a` is than `b` (by rate).
fn speedup(figures: &[Figure], threads: u32, a: Side, b: Side) -> f64 {
    let rate = |s: Side| {
        figures
            .iter()
            .find(|f| f.threads == threads && f.side == s)
            .map_or(f64::NAN, |f| f.rate)
    };
    rate(a) / rate(b)
}

fn to_json(figures: &[Figure]) -> Value {
    let mut counts: Vec<u32> = figures.iter().map(|f| f.threads).collect();
    counts.dedup();
    counts
        .into_iter()
        .map(|n| {
            let mut row = json!({ "threads": n });
            for f in figures.iter().filter(|f| f.threads == n) {
                row[f.side.name()] = json!({ "lat_us": f.lat_us, "rate_per_s": f.rate });
            }
            row["speedup_am_par"] = speedup(figures, n, Side::AmPar, Side::OpenMpi).into();
            row["speedup_clump_mpi"] = speedup(figures, n, Side::ClumpMpi, Side::OpenMpi).into();
            row
        })
        .collect()
}

fn print_table(figures: &[Figure], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "{:>7}  {:>24}  {:>24}  {:>24}  {:>9}  {:>9}",
        "threads", "clump AM_PAR", "clump MPI", "Open MPI", "AM_PAR", "clump MPI"
    )?;
    writeln!(
        out,
        "{:>7}  {:>24}  {:>24}  {:>24}  {:>9}  {:>9}",
        "", "µs   round trips/s", "µs   round trips/s", "µs   round trips/s", "speedup", "speedup"
    )?;
    let mut counts: Vec<u32> = figures.iter().map(|f| f.threads).collect();
    counts.dedup();
    for n in counts {
        write!(out, "{n:>7}")?;
        for side in Side::ALL {
            match figures.iter().find(|f| f.threads == n && f.side == side) {
                Some(f) => write!(out, "  {:>10.2} {:>13.0}", f.lat_us, f.rate)?,
                None => write!(out, "  {:>24}", "-")?,
            }
        }
        writeln!(
            out,
            "  {:>8.2}x  {:>8.2}x",
            speedup(figures, n, Side::AmPar, Side::OpenMpi),
            speedup(figures, n, Side::ClumpMpi, Side::OpenMpi)
        )?;
    }
    writeln!(out, "{LEGEND}")
}

const LEGEND: &str = "
µs: half a thread's mean round trip of a short message (8 bytes in MPI), every thread
  waiting for its own answer; round trips/s: all threads of the process together.
speedup: round trips per second against Open MPI's under MPI_THREAD_MULTIPLE; above 1x
  clump is ahead. clump's MPI serializes its calls behind one process lock.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_line_gives_its_figure_and_a_missing_one_says_whose() {
        let f = parse(
            "x\nthreads=4 iters=10 lat_us=2.5 rate=8000\n",
            Side::OpenMpi,
            4,
        )
        .unwrap();
        assert_eq!((f.lat_us, f.rate), (2.5, 8000.0));
        let e = parse("threads=2 iters=10 lat_us=2.5 rate=8000\n", Side::AmPar, 4).unwrap_err();
        assert!(e.contains("clump_am_par"), "{e}");
        assert!(parse("threads=4 lat_us=nan rate=1\n", Side::ClumpMpi, 4).is_err());
    }
}
