//! `clump bench`: clump measured the way the papers measure it (see BENCHMARKING.md):
//! LogGP figures, each beside a hardware baseline taken in the same run, as ratios; and
//! many clients contending for one server (002's figures 7 and 10).
//!
//! Each benchmark starts its own job through the real launcher (`clump run -n N -- clump
//! bench worker BENCH ...`, see job.rs); rank 0 measures and prints one JSON line, which
//! this side parses and prints as a table or as JSON. Every benchmark's `--json` is one
//! object with `benchmark`, `quick` and `run` (job.rs); `--plot DIR` charts go through
//! plot.rs.

mod apps;
mod baseline;
mod contention;
mod control;
mod job;
mod loggp;
mod loggp_plot;
mod mpi;
mod pin;
mod plot;
mod progress;
mod rank;
mod report;
mod shmem;
mod stats;
mod stream;
mod threads;
mod transport;
mod udp_baseline;
mod wait;

pub use transport::BenchTransport;

use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(clap::Subcommand, Debug)]
enum BenchCommand {
    /// LogGP parameters (RTT, o_s, o_r, g, L, G, half-power point) and the bandwidth curve,
    /// each beside its hardware baseline, between two processes (over shared memory, or
    /// over UDP between two virtual hosts).
    Loggp(LoggpArgs),
    /// N clients sending short requests to one server endpoint (one virtual network), then
    /// to one server endpoint each (N virtual networks): the server's message rate and
    /// each client's share of it (002's figures 7 and 10).
    Contention(contention::ContentionArgs),
    /// MPI ping-pong latency, streaming bandwidth, allreduce and alltoall, the same
    /// program built against clump and against Open MPI, side by side with ratios.
    Mpi(mpi::MpiArgs),
    /// OpenSHMEM put/get latency and bandwidth, atomic rate and barrier time over shared
    /// memory and UDP, each beside the Active Message figure it rests on, with ratios.
    Shmem(shmem::ShmemArgs),
    /// The multithreaded message rate: N threads per process making round trips to their
    /// peer, clump's AM_PAR Active Messages and MPI_THREAD_MULTIPLE beside Open MPI's.
    Threads(threads::ThreadsArgs),
    /// The papers' applications (EM3D, CON, 3D FFT, matrix multiply, sample and radix sort)
    /// on SMP, NOW and Clump configurations: time, speedup, communication share, traffic.
    Apps(apps::AppsArgs),
    /// One rank of a benchmark job (started by `clump bench` through `clump run`).
    #[command(hide = true)]
    Worker {
        #[command(subcommand)]
        bench: WorkerBench,
    },
}

#[derive(clap::Subcommand, Debug)]
enum WorkerBench {
    Loggp(LoggpArgs),
    Contention(contention::ContentionArgs),
    ShmemAm {
        #[arg(long)]
        quick: bool,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct LoggpArgs {
    /// The transport to measure; baselines follow it (bare shared-memory ping-pong and
    /// memcpy for shm, bare UDP ping-pong and datagram stream for udp and auto).
    #[arg(long, value_enum, default_value_t = BenchTransport::Shm)]
    pub transport: BenchTransport,
    /// With shm: keep the network protocol active (each endpoint has a socket that polls
    /// take turns on) and report its cost beside the same round trip with it off.
    #[arg(long)]
    pub with_network: bool,
    /// With udp or auto: drop this percentage of datagrams in the transport, both ways,
    /// and report goodput beside the same stream without loss.
    #[arg(long, value_name = "PERCENT")]
    pub loss: Option<f64>,
    /// With shm: the receiving rank's segment is its own program memory (as `AM_SetSeg`
    /// on `malloc`'d memory), which long messages reach by cross-memory attach, instead of
    /// a shared region both ranks map.
    #[arg(long)]
    pub program_segment: bool,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A short run (a few seconds) with fewer, shorter batches.
    #[arg(long)]
    pub quick: bool,
    /// Also write DIR/loggp-bandwidth.png: medium and long bandwidth against message size,
    /// beside the baseline's curve.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
}

impl LoggpArgs {
    fn check(&self) -> Result<(), String> {
        if self.with_network && self.transport != BenchTransport::Shm {
            return Err(
                "--with-network measures shared memory: use it with --transport shm".into(),
            );
        }
        if self.program_segment && self.transport != BenchTransport::Shm {
            return Err(
                "--program-segment measures shared memory: use it with --transport shm".into(),
            );
        }
        match self.loss {
            Some(_) if !self.transport.is_network() => {
                Err("--loss needs a network transport (--transport udp or auto)".into())
            }
            Some(p) if !(0.0..100.0).contains(&p) => {
                Err(format!("--loss {p}: a percentage from 0 to below 100"))
            }
            _ => Ok(()),
        }
    }

    /// The arguments that repeat this configuration for `clump bench worker loggp`.
    fn worker_args(&self) -> Vec<String> {
        let mut a = vec![
            "loggp".to_string(),
            "--transport".into(),
            self.transport.name().into(),
        ];
        if self.with_network {
            a.push("--with-network".into());
        }
        if self.program_segment {
            a.push("--program-segment".into());
        }
        if let Some(p) = self.loss {
            a.extend(["--loss".into(), p.to_string()]);
        }
        if self.quick {
            a.push("--quick".into());
        }
        a
    }
}

/// Exit status for a usage error, as clap uses.
const USAGE: u8 = 2;

pub fn main(args: BenchArgs) -> ExitCode {
    match args.command {
        BenchCommand::Loggp(a) => loggp_parent(&a),
        BenchCommand::Worker {
            bench: WorkerBench::Loggp(a),
        } => match a.check() {
            Ok(()) => loggp::worker(&a),
            Err(msg) => fail(USAGE, &msg),
        },
        BenchCommand::Contention(a) => finish(contention::parent(&a)),
        BenchCommand::Mpi(a) => finish(mpi::main(&a)),
        BenchCommand::Apps(a) => apps::main(&a),
        BenchCommand::Threads(a) => finish(threads::main(&a)),
        BenchCommand::Shmem(a) => finish(shmem::main(&a)),
        BenchCommand::Worker {
            bench: WorkerBench::ShmemAm { quick },
        } => shmem::worker(quick),
        BenchCommand::Worker {
            bench: WorkerBench::Contention(a),
        } => contention::worker(&a),
    }
}

fn fail(code: u8, msg: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "clump bench: {msg}");
    ExitCode::from(code)
}

/// Runs the two ranks through `clump run`, then prints what rank 0 measured.
fn loggp_parent(args: &LoggpArgs) -> ExitCode {
    if let Err(msg) = args.check() {
        return fail(USAGE, &msg);
    }
    let mut env = Vec::new();
    let launcher = if args.with_network {
        // One host, and the network on anyway.
        env.push(("CLUMP_NET", "1".to_string()));
        &[][..]
    } else {
        args.transport.launcher_args()
    };
    if let Some(p) = args.loss {
        env.push(("CLUMP_NET_LOSS", p.to_string()));
        if let Some(notice) = loss_notice(p, args.quick) {
            eprintln!("clump bench loggp: {notice}");
        }
    }
    let worker = args.worker_args();
    let worker: Vec<&str> = worker.iter().map(String::as_str).collect();
    let results = job::run(2, launcher, &env, &worker);
    finish(results.and_then(|v| {
        let v = job::stamped(v);
        if let Some(dir) = &args.plot {
            let file = loggp_plot::write(dir, &v)?;
            eprintln!("clump bench loggp: wrote {}", file.display());
        }
        job::print(&v, args.json, report::print_table)
    }))
}

/// Up front, at heavy loss: why the run is slow and about how long it takes. A quick run's
/// time grows with the tries a message and its answer need, 1 / (1 - loss)^2 (fit to a
/// quick run at 50%: 174 s, on a loaded 2-core machine).
fn loss_notice(percent: f64, quick: bool) -> Option<String> {
    if percent < 10.0 {
        return None;
    }
    let why = format!(
        "at {percent}% loss each way every lost datagram costs a retransmission timeout (1 to \
         200 ms): batches end on time and the table counts the samples each figure rests on"
    );
    if !quick {
        return Some(format!(
            "{why}; a full run takes tens of minutes (batches of up to 10 s), --quick a few"
        ));
    }
    let tries = 1.0 / (1.0 - percent / 100.0).powi(2);
    let seconds = 15.0 + 50.0 * (tries - 1.0);
    let time = if seconds < 90.0 {
        format!("{:.0} seconds", (seconds / 10.0).ceil() * 10.0)
    } else {
        format!("{:.0} minutes", (seconds / 60.0).ceil())
    };
    Some(format!("{why}; this quick run takes about {time}"))
}

fn finish(outcome: Result<(), String>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => fail(1, &msg),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn heavy_loss_is_announced_with_the_time_it_takes() {
        use super::loss_notice;
        assert_eq!(loss_notice(1.0, true), None);
        let at50 = loss_notice(50.0, true).unwrap();
        assert!(
            at50.ends_with("this quick run takes about 3 minutes"),
            "{at50}"
        );
        assert!(at50.contains("counts the samples"), "{at50}");
        assert!(loss_notice(20.0, true)
            .unwrap()
            .ends_with("about 50 seconds"));
        assert!(loss_notice(50.0, false)
            .unwrap()
            .contains("tens of minutes"));
    }
}
