//! `clump bench contention`: N clients send short requests to one server, as in 002's
//! figures 7 (all clients to one server endpoint: one virtual network) and 10 (one server
//! endpoint per client: N virtual networks). It reports the server's message rate and each
//! client's share of it.
//!
//! The parent starts N + 1 ranks through `clump run` (rank 0 the server, ranks 1..=N the
//! clients; see worker.rs) and prints what rank 0 measured (see report.rs).

mod plot;
mod report;
mod worker;

use super::{job, BenchTransport};
use std::process::ExitCode;
use std::time::Duration;

/// Most clients: each has an endpoint of its own at the server in the second phase.
const MAX_CLIENTS: i64 = 64;

#[derive(clap::Args, Debug)]
#[command(after_long_help = report::JSON_KEYS)]
pub struct ContentionArgs {
    /// Client processes; the job has one more, the server. The processes may outnumber
    /// the cores: waiting ranks yield them.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..=MAX_CLIENTS))]
    clients: u32,
    /// Transport between clients and server: shm (one host), udp (every process its own
    /// virtual host), or auto (two virtual hosts: the server's and some clients' shared
    /// memory, the network to the others).
    #[arg(long, value_enum, default_value_t = BenchTransport::Shm)]
    transport: BenchTransport,
    /// Measured seconds per phase, after a warm-up [default: 3, or 0.5 with --quick].
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    seconds: Option<f64>,
    /// Print the results as one JSON object instead of a table (keys: see --help).
    #[arg(long)]
    json: bool,
    /// A short run: a shorter warm-up and phases of half a second.
    #[arg(long)]
    quick: bool,
    /// Also write DIR/contention-shares.png: each client's share of the server's rate in
    /// both phases, against the fair share.
    #[arg(long, value_name = "DIR")]
    plot: Option<std::path::PathBuf>,
}

/// How long each phase lasts.
struct Plan {
    /// Before the server starts counting: every client has started sending.
    warm: Duration,
    /// The measured window is cut in this many slices, to show how steady the rates are
    /// (002's figure 10 draws them as error bars).
    slices: u32,
    slice: Duration,
}

impl Plan {
    const SLICES: u32 = 10;

    fn new(args: &ContentionArgs) -> Plan {
        let (warm_ms, seconds) = if args.quick { (100, 0.5) } else { (500, 3.0) };
        let seconds = args.seconds.unwrap_or(seconds);
        Plan {
            warm: Duration::from_millis(warm_ms),
            slices: Self::SLICES,
            slice: Duration::from_secs_f64(seconds / f64::from(Self::SLICES)),
        }
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    const RANGE: std::ops::RangeInclusive<f64> = 0.05..=600.0;
    match s.parse::<f64>() {
        Ok(v) if RANGE.contains(&v) => Ok(v),
        Ok(_) => Err(format!(
            "must lie between {} and {}",
            RANGE.start(),
            RANGE.end()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// `clump bench contention`: runs the job, then prints what rank 0 measured.
pub fn parent(args: &ContentionArgs) -> Result<(), String> {
    let clients = args.clients.to_string();
    let seconds = args.seconds.map(|s| s.to_string());
    let mut worker = vec!["contention", "--clients", &clients];
    worker.extend(["--transport", args.transport.name()]);
    if let Some(s) = &seconds {
        worker.extend(["--seconds", s]);
    }
    if args.quick {
        worker.push("--quick");
    }
    let launcher = args.transport.launcher_args();
    let results = job::stamped(job::run(args.clients + 1, launcher, &[], &worker)?);
    if let Some(dir) = &args.plot {
        let file = plot::write(dir, &results)?;
        eprintln!("clump bench contention: wrote {}", file.display());
    }
    job::print(&results, args.json, report::print_table)
}

/// `clump bench worker contention`: one rank of the job.
pub fn worker(args: &ContentionArgs) -> ExitCode {
    super::rank::main("contention", args.clients + 1, |sp| worker::run(sp, args))
}
