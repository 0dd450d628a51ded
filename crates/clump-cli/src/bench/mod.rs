//! `clump bench`: clump measured the way the papers measure it (see BENCHMARKING.md):
//! LogGP figures, each beside a hardware baseline taken in the same run, as ratios; and
//! many clients contending for one server (002's figures 7 and 10).
//!
//! Each benchmark starts its own job through the real launcher (`clump run -n N -- clump
//! bench worker BENCH ...`, see job.rs); rank 0 measures and prints one JSON line, which
//! this side parses and prints as a table or as JSON.

mod baseline;
mod contention;
mod control;
mod job;
mod loggp;
mod pin;
mod rank;
mod report;
mod stats;
mod stream;
mod wait;

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
    /// each beside its hardware baseline, between two processes of this host.
    Loggp(LoggpArgs),
    /// N clients sending short requests to one server endpoint (one virtual network), then
    /// to one server endpoint each (N virtual networks): the server's message rate and
    /// each client's share of it (002's figures 7 and 10).
    Contention(contention::ContentionArgs),
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
}

#[derive(clap::Args, Debug)]
struct LoggpArgs {
    /// Transport to measure; only `shm` (shared memory) is available for now.
    #[arg(long, value_name = "TRANSPORT", default_value = "shm")]
    transport: String,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// A short run (a few seconds) with fewer, shorter batches.
    #[arg(long)]
    quick: bool,
}

/// Exit status for a usage error, as clap uses.
const USAGE: u8 = 2;

pub fn main(args: BenchArgs) -> ExitCode {
    match args.command {
        BenchCommand::Loggp(a) => loggp_parent(&a),
        BenchCommand::Worker {
            bench: WorkerBench::Loggp(a),
        } => match check_transport(&a.transport) {
            Ok(()) => loggp::worker(a.quick),
            Err(msg) => fail(USAGE, &msg),
        },
        BenchCommand::Contention(a) => finish(contention::parent(&a)),
        BenchCommand::Worker {
            bench: WorkerBench::Contention(a),
        } => contention::worker(&a),
    }
}

fn fail(code: u8, msg: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "clump bench: {msg}");
    ExitCode::from(code)
}

fn check_transport(t: &str) -> Result<(), String> {
    match t {
        "shm" => Ok(()),
        other => Err(format!("transport '{other}' is not available yet")),
    }
}

/// Runs the two ranks through `clump run`, then prints what rank 0 measured.
fn loggp_parent(args: &LoggpArgs) -> ExitCode {
    if let Err(msg) = check_transport(&args.transport) {
        return fail(USAGE, &msg);
    }
    let mut worker = vec!["loggp", "--transport", &args.transport];
    if args.quick {
        worker.push("--quick");
    }
    let results = job::run(2, &[], &worker);
    finish(results.and_then(|v| job::print(&v, args.json, report::print_table)))
}

fn finish(outcome: Result<(), String>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => fail(1, &msg),
    }
}
