//! `clump bench`: clump measured the way the papers measure it (see BENCHMARKING.md):
//! LogGP figures, each beside a hardware baseline taken in the same run, as ratios.
//!
//! `clump bench loggp` starts its own two-process job through the real launcher
//! (`clump run -n 2 -- clump bench worker loggp ...`); rank 0 measures and prints one JSON
//! line, which this side parses and prints as a table or as JSON.

mod baseline;
mod control;
mod loggp;
mod pin;
mod report;
mod stats;
mod stream;
mod wait;

use std::io::Write;
use std::process::{Command, ExitCode, Stdio};

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
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(1, &format!("cannot find the clump executable: {e}")),
    };
    let mut cmd = Command::new(&exe);
    cmd.args(["run", "-n", "2", "--"]).arg(&exe);
    cmd.args(["bench", "worker", "loggp", "--transport", &args.transport]);
    if args.quick {
        cmd.arg("--quick");
    }
    // Progress and errors of the ranks and the launcher go straight to our stderr.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => return fail(1, &format!("cannot start {} run: {e}", exe.display())),
    };
    if !out.status.success() {
        return fail(
            1,
            &format!(
                "the benchmark job failed ({}); see the messages above",
                out.status
            ),
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(results) = stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    else {
        return fail(
            1,
            &format!("the benchmark job printed no results; its output was:\n{stdout}"),
        );
    };
    let mut w = std::io::stdout().lock();
    let printed = if args.json {
        serde_json::to_string_pretty(&results)
            .map_err(std::io::Error::other)
            .and_then(|s| writeln!(w, "{s}"))
    } else {
        report::print_table(&results, &mut w)
    };
    match printed.and_then(|()| w.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, &format!("cannot write the results: {e}")),
    }
}
