//! The `clump` command: `run` starts a job on this host, `bench` measures clump.

// Unsafe code only in the modules that allow it, each for a reason it gives.
#![deny(unsafe_code)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod about;
mod bench;
mod config_cmd;
mod info;
mod mpi_wrappers;
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
    /// Compile and link an MPI C program against clump (`mpicc --help` tells more).
    #[command(disable_help_flag = true)]
    Mpicc(WrapperArgs),
    /// Compile and link an MPI C++ program against clump.
    #[command(visible_alias = "mpic++", disable_help_flag = true)]
    Mpicxx(WrapperArgs),
    /// Compile and link an MPI Fortran program against clump (mpif.h, `use mpi`, `use mpi_f08`).
    #[command(visible_aliases = ["mpif90", "mpif77"], disable_help_flag = true)]
    Mpifort(WrapperArgs),
    /// Compile and link an OpenSHMEM C program against clump.
    #[command(disable_help_flag = true)]
    Oshcc(WrapperArgs),
    /// Compile and link an OpenSHMEM C++ program against clump.
    #[command(name = "oshc++", alias = "oshcxx", disable_help_flag = true)]
    Oshcxx(WrapperArgs),
    /// Start an MPI program: `mpiexec -n N PROGRAM` (also `-np N`) as `clump run`.
    #[command(disable_help_flag = true)]
    Mpiexec(WrapperArgs),
    /// Start an MPI program: `mpirun -n N PROGRAM` (also `-np N`) as `clump run`.
    #[command(disable_help_flag = true)]
    Mpirun(WrapperArgs),
    /// Start an OpenSHMEM program: `oshrun -n N PROGRAM` (also `-np N`) as `clump run`.
    #[command(disable_help_flag = true)]
    Oshrun(WrapperArgs),
    /// What `clump run` starts over ssh on another host: one rank, set up from stdin.
    #[command(hide = true)]
    RankAgent,
}

/// A wrapper's arguments, all of them its own (`--help` too).
#[derive(clap::Args)]
struct WrapperArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<std::ffi::OsString>,
}

fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    if let Some(argv0) = argv.next() {
        if let Some(code) = mpi_wrappers::by_link_name(&argv0, argv.collect()) {
            return code;
        }
    }
    match Cli::parse_from(run::mpirun_spellings(std::env::args_os().collect())).command {
        Command::Run(args) => run::main(args),
        Command::Bench(args) => bench::main(args),
        Command::Config(args) => config_cmd::main(args),
        Command::Info(args) => info::main(args),
        Command::Mpicc(w) => mpi_wrappers::compile(&mpi_wrappers::MPICC, w.args),
        Command::Mpicxx(w) => mpi_wrappers::compile(&mpi_wrappers::MPICXX, w.args),
        Command::Mpifort(w) => mpi_wrappers::compile(&mpi_wrappers::MPIFORT, w.args),
        Command::Oshcc(w) => mpi_wrappers::compile(&mpi_wrappers::OSHCC, w.args),
        Command::Oshcxx(w) => mpi_wrappers::compile(&mpi_wrappers::OSHCXX, w.args),
        Command::Mpiexec(w) => mpi_wrappers::launch("mpiexec", w.args),
        Command::Mpirun(w) => mpi_wrappers::launch("mpirun", w.args),
        Command::Oshrun(w) => mpi_wrappers::launch("oshrun", w.args),
        Command::RankAgent => run::rank_agent(),
    }
}
