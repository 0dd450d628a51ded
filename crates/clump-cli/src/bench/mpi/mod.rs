//! `clump bench mpi`: one set of MPI benchmark programs (`mpibench.c`), compiled against
//! clump (`clump mpicc`) and against Open MPI from the distribution (`mpicc.openmpi`),
//! run on this machine in one run, over shared memory and over the network (clump's UDP
//! transport against Open MPI's TCP transport), each figure printed beside the other with
//! its ratio, then the targets. The two jobs alternate for several rounds and each figure
//! is the median of its rounds: the two virtual cores of this machine change placement
//! between jobs (a cache-to-cache round trip of 0.06 µs or 0.4 µs), and one job of each
//! would compare whichever placements they happened to get.

mod figures;

use figures::{Figure, Side};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The benchmark program, built twice.
const SOURCE: &str = include_str!("mpibench.c");

#[derive(clap::Args, Debug)]
pub struct MpiArgs {
    /// Fewer sizes and repetitions (a minute instead of several).
    #[arg(long)]
    quick: bool,
    /// Print the figures as JSON lines instead of a table.
    #[arg(long)]
    json: bool,
    /// Rounds of the two jobs, run alternately; each figure is the median of its rounds.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
}

/// The Open MPI commands Debian installs beside its alternatives `mpicc`/`mpirun`.
const OMPI_CC: &str = "mpicc.openmpi";
const OMPI_RUN: &str = "mpirun.openmpi";

pub fn main(args: &MpiArgs) -> Result<(), String> {
    if Command::new(OMPI_CC).arg("--version").output().is_err() {
        println!("clump bench mpi: skipped: Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)");
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("clump-bench-mpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = build_and_run(args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let figures = outcome?;
    if args.json {
        figures::print_json(&figures);
    } else {
        figures::print_table(&figures);
    }
    Ok(())
}

fn build_and_run(args: &MpiArgs, dir: &Path) -> Result<Vec<Figure>, String> {
    let src = dir.join("mpibench.c");
    std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
    let clump = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
    let clump_exe = dir.join("mpibench-clump");
    let ompi_exe = dir.join("mpibench-openmpi");
    compile(Command::new(&clump).arg("mpicc"), &src, &clump_exe)?;
    compile(&mut Command::new(OMPI_CC), &src, &ompi_exe)?;

    let quick: &[&str] = if args.quick { &["--quick"] } else { &[] };
    let mut all = Vec::new();
    for side in [Side::Shm, Side::Network] {
        let clump_args: &[&str] = match side {
            Side::Shm => &["run", "-n", "2", "--transport", "shm", "--"],
            Side::Network => &["run", "-n", "2", "--transport", "udp", "--"],
        };
        let ompi_args: &[&str] = match side {
            Side::Shm => &["--mca", "btl", "vader,self"],
            Side::Network => &["--mca", "btl", "tcp,self"],
        };
        let mut rounds = Vec::new();
        for _ in 0..args.rounds {
            let ours = run(Command::new(&clump)
                .args(clump_args)
                .arg(&clump_exe)
                .args(quick))?;
            let theirs = run(Command::new(OMPI_RUN)
                .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
                .args(ompi_args)
                .arg(&ompi_exe)
                .args(quick))?;
            rounds.push(figures::pair(side, &ours, &theirs)?);
        }
        all.extend(figures::median_of_rounds(rounds)?);
    }
    Ok(all)
}

pub(super) fn compile(cmd: &mut Command, src: &Path, exe: &PathBuf) -> Result<(), String> {
    let out = cmd
        .args(["-O2", "-o"])
        .arg(exe)
        .arg(src)
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the benchmark failed: {cmd:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Runs one job and returns what it printed.
pub(super) fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
