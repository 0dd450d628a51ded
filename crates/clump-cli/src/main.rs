//! The `clump` command: `run` starts a job on this host, `bench` measures clump.

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
    /// Compile and link an MPI C program against clump (cc with `clump config` flags).
    #[command(disable_help_flag = true)]
    Mpicc {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Compile and link an OpenSHMEM C program against clump (cc with `clump config` flags).
    #[command(disable_help_flag = true)]
    Oshcc {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Start an OpenSHMEM program: `oshrun -n N PROGRAM` (also `-np N`) as `clump run`.
    #[command(disable_help_flag = true)]
    Oshrun {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Start an MPI program: `mpiexec -n N PROGRAM` (also `-np N`) as `clump run`.
    #[command(visible_alias = "mpirun", disable_help_flag = true)]
    Mpiexec {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    if let Some(wrapper) = argv.next().as_ref().and_then(mpi_wrappers::by_link_name) {
        return wrapper(argv.collect());
    }
    match Cli::parse_from(run::mpirun_spellings(std::env::args_os().collect())).command {
        Command::Run(args) => run::main(args),
        Command::Bench(args) => bench::main(args),
        Command::Config(args) => config_cmd::main(args),
        Command::Info(args) => info::main(args),
        Command::Mpicc { args } => mpi_wrappers::mpicc(args),
        Command::Mpiexec { args } => mpi_wrappers::mpiexec(args),
        Command::Oshcc { args } => mpi_wrappers::oshcc(args),
        Command::Oshrun { args } => mpi_wrappers::mpiexec(args),
    }
}
