//! The `clump` command: `run` starts a job on this host, `bench` measures clump.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod about;
mod bench;
mod config_cmd;
mod info;
mod run;

#[derive(Parser)]
#[command(
    name = "clump",
    version,
    about = "Multi-protocol Active Messages: launcher and benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start N processes of PROGRAM on this host as one job.
    Run(run::RunArgs),
    /// Measure clump (LogGP figures beside hardware baselines; contention for one server).
    Bench(bench::BenchArgs),
    /// Print the C compiler and linker flags for libclump (like pkg-config).
    Config(config_cmd::ConfigArgs),
    /// Print the version, the effective CLUMP_* settings and what this machine allows.
    Info(info::InfoArgs),
}

fn main() -> ExitCode {
    match Cli::parse_from(run::mpirun_spellings(std::env::args_os().collect())).command {
        Command::Run(args) => run::main(args),
        Command::Bench(args) => bench::main(args),
        Command::Config(args) => config_cmd::main(args),
        Command::Info(args) => info::main(args),
    }
}
