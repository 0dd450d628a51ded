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
mod udp_baseline;
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
    /// each beside its hardware baseline, between two processes (over shared memory, or
    /// over UDP between two virtual hosts).
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

/// Which transport a benchmark measures.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchTransport {
    /// Shared memory: both processes on one host.
    Shm,
    /// UDP between the processes, each its own virtual host (`clump run --transport udp`).
    Udp,
    /// Two virtual hosts, the layer choosing the protocol (`clump run --hosts 2`).
    Auto,
}

impl BenchTransport {
    pub fn name(self) -> &'static str {
        match self {
            BenchTransport::Shm => "shm",
            BenchTransport::Udp => "udp",
            BenchTransport::Auto => "auto",
        }
    }

    pub fn is_network(self) -> bool {
        self != BenchTransport::Shm
    }
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
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A short run (a few seconds) with fewer, shorter batches.
    #[arg(long)]
    pub quick: bool,
}

impl LoggpArgs {
    fn check(&self) -> Result<(), String> {
        if self.with_network && self.transport != BenchTransport::Shm {
            return Err(
                "--with-network measures shared memory: use it with --transport shm".into(),
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
        let mut a = vec!["--transport".to_string(), self.transport.name().into()];
        if self.with_network {
            a.push("--with-network".into());
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
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(1, &format!("cannot find the clump executable: {e}")),
    };
    let mut cmd = Command::new(&exe);
    cmd.args(["run", "-n", "2"]);
    match (args.transport, args.with_network) {
        (BenchTransport::Shm, false) => cmd.args(["--transport", "shm"]),
        // One host, and the network on anyway.
        (BenchTransport::Shm, true) => cmd.env("CLUMP_NET", "1"),
        (BenchTransport::Udp, _) => cmd.args(["--transport", "udp"]),
        (BenchTransport::Auto, _) => cmd.args(["--hosts", "2"]),
    };
    if let Some(p) = args.loss {
        cmd.env("CLUMP_NET_LOSS", p.to_string());
    }
    cmd.arg("--").arg(&exe);
    cmd.args(["bench", "worker", "loggp"])
        .args(args.worker_args());
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
