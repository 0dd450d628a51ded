//! `clump bench mpi`: one set of MPI benchmark programs (`mpibench.c`), compiled against
//! clump (`clump mpicc`) and against Open MPI from the distribution (`mpicc.openmpi`),
//! run on this machine in one run, over shared memory and over the network (clump's UDP
//! transport against Open MPI's TCP transport), each figure printed beside the other with
//! clump's speedup, then the targets. One-sided communication (put, get, accumulate,
//! fetch-and-op under passive and active target synchronization) is measured the same way. The two jobs alternate for several rounds and each
//! figure is the median of its rounds: the two virtual cores of this machine change
//! placement between jobs (a cache-to-cache round trip of 0.06 µs or 0.4 µs), and one job
//! of each would compare whichever placements they happened to get.

pub(in crate::bench) mod figures;
mod plot;

use super::progress::Progress;
use figures::{Figure, Side};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The benchmark program, built twice.
const SOURCE: &str = include_str!("mpibench.c");

/// The largest message `--max-bytes` allows (the program holds a few buffers of it).
const MOST_BYTES: u64 = 16 << 20;

#[derive(clap::Args, Debug)]
pub struct MpiArgs {
    /// Fewer sizes and repetitions (a minute instead of several).
    #[arg(long)]
    quick: bool,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Rounds of the two jobs, run alternately; each figure is the median of its rounds.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// The smallest message (bytes; K and M suffixes for KiB and MiB). Sizes grow by 4
    /// (16 with --quick) from it to --max-bytes.
    #[arg(long, value_name = "BYTES", default_value = "8", value_parser = parse_bytes)]
    min_bytes: u64,
    /// The largest message (bytes, K or M suffix; at most 16M): latency and bandwidth end
    /// at it, allreduce and alltoall stay within it.
    #[arg(long, value_name = "BYTES", default_value = "1M", value_parser = parse_bytes)]
    max_bytes: u64,
    /// Also write DIR/mpi-latency.png, mpi-bandwidth.png, mpi-message-rate.png,
    /// mpi-allreduce.png, mpi-alltoall.png and the one-sided mpi-put-latency.png,
    /// mpi-get-latency.png, mpi-put-bandwidth.png, mpi-get-bandwidth.png: each figure
    /// against message size, clump beside Open MPI.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Start each rank of the network side (clump's and Open MPI's) through this program,
    /// given the benchmark and its arguments: for example one that enters the network
    /// namespace of the rank's host (`CLUMP_HOST`, or Open MPI's `OMPI_COMM_WORLD_RANK`),
    /// as `scripts/netns-bench mpi` does.
    #[arg(long, value_name = "PROGRAM")]
    rank_wrapper: Option<PathBuf>,
}

/// "4096", "64K" (KiB), "1M" (MiB): a size in bytes from 1 to [`MOST_BYTES`].
fn parse_bytes(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?} is not a size (bytes, or a number with K or M)"))?;
    match n.checked_mul(unit) {
        Some(b) if (1..=MOST_BYTES).contains(&b) => Ok(b),
        _ => Err(format!("{s}: sizes run from 1 byte to 16M")),
    }
}

/// The Open MPI commands Debian installs beside its alternatives `mpicc`/`mpirun`.
pub(super) const OMPI_CC: &str = "mpicc.openmpi";
pub(super) const OMPI_RUN: &str = "mpirun.openmpi";

/// Whether Open MPI's compiler is missing; says that `bench` skipped if so.
pub(super) fn open_mpi_missing(bench: &str) -> bool {
    if Command::new(OMPI_CC).arg("--version").output().is_ok() {
        return false;
    }
    println!("clump bench {bench}: skipped: Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)");
    true
}

pub fn main(args: &MpiArgs) -> Result<(), String> {
    if args.min_bytes > args.max_bytes {
        return Err(format!(
            "--min-bytes {} is above --max-bytes {}",
            args.min_bytes, args.max_bytes
        ));
    }
    if open_mpi_missing("mpi") {
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("clump-bench-mpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = build_and_run(args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let figures = outcome?;
    let mut fields = figures::to_json(&figures);
    fields["rounds"] = args.rounds.into();
    fields["min_bytes"] = args.min_bytes.into();
    fields["max_bytes"] = args.max_bytes.into();
    fields["rank_wrapper"] = serde_json::json!(args.rank_wrapper);
    let doc = super::job::document("mpi", args.quick, fields);
    if let Some(dir) = &args.plot {
        for file in plot::write(dir, &figures, &doc)? {
            eprintln!("clump bench mpi: wrote {}", file.display());
        }
    }
    super::job::print(&doc, args.json, |_, out| {
        figures::print_table(&figures, out)
    })
}

fn build_and_run(args: &MpiArgs, dir: &Path) -> Result<Vec<Figure>, String> {
    let src = dir.join("mpibench.c");
    std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
    let clump = std::env::current_exe().map_err(|e| format!("cannot locate clump: {e}"))?;
    let clump_exe = dir.join("mpibench-clump");
    let ompi_exe = dir.join("mpibench-openmpi");
    eprintln!("mpi: building the benchmark against clump and against Open MPI...");
    compile(Command::new(&clump).arg("mpicc"), &src, &clump_exe)?;
    compile(&mut Command::new(OMPI_CC), &src, &ompi_exe)?;

    let mut bench_args = vec![
        "--min".to_string(),
        args.min_bytes.to_string(),
        "--max".into(),
        args.max_bytes.to_string(),
    ];
    if args.quick {
        bench_args.push("--quick".into());
    }
    let sides = [Side::Shm, Side::Network];
    let jobs = sides.len() * args.rounds as usize * 2;
    let progress = Progress::new("mpi:", jobs);
    let mut all = Vec::new();
    for (s, side) in sides.into_iter().enumerate() {
        let clump_args: &[&str] = match side {
            Side::Shm => &["run", "-n", "2", "--transport", "shm", "--"],
            Side::Network => &["run", "-n", "2", "--transport", "udp", "--"],
        };
        let ompi_args: &[&str] = match side {
            Side::Shm => &["--mca", "btl", "vader,self"],
            // osc sm would keep windows in shared memory whatever the byte transport.
            Side::Network => &["--mca", "btl", "tcp,self", "--mca", "osc", "pt2pt"],
        };
        // The shared-memory side stays on one host, as its name says.
        let wrapper = match side {
            Side::Shm => None,
            Side::Network => args.rank_wrapper.as_deref(),
        };
        let mut rounds = Vec::new();
        for r in 0..args.rounds {
            let job = |who: &str, k: usize| {
                let i = (s * args.rounds as usize + r as usize) * 2 + k;
                progress.step(
                    i,
                    format_args!("{}, round {} of {}: {who}", side.name(), r + 1, args.rounds),
                );
            };
            job("clump", 0);
            let ours = run(Command::new(&clump)
                .args(clump_args)
                .args(wrapper)
                .arg(&clump_exe)
                .args(&bench_args))?;
            job("Open MPI", 1);
            let theirs = run(Command::new(OMPI_RUN)
                .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
                .args(ompi_args)
                .args(wrapper)
                .arg(&ompi_exe)
                .args(&bench_args))?;
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

/// Runs one job and returns what it printed; a job that runs long (a full run's take
/// minutes) says on stderr which benchmark it has finished.
pub(super) fn run(cmd: &mut Command) -> Result<String, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let progress = Progress::quiet_for("mpi:  ", 0, Duration::from_secs(10));
    let mut stdout = String::new();
    // The benchmark whose figures are coming; announced done when the next one starts.
    let mut bench: Option<String> = None;
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let line = line.map_err(|e| format!("{cmd:?}: {e}"))?;
        if let Some((name, ..)) = figures::parse_line(&line) {
            if bench.as_ref() != Some(&name) {
                if let Some(done) = bench.replace(name) {
                    progress.note(format_args!("{done} done"));
                }
            }
        }
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let status = child.wait().map_err(|e| format!("{cmd:?}: {e}"))?;
    let errors = errors.join().unwrap_or_default();
    if !status.success() {
        return Err(format!("{cmd:?} failed ({status}):\n{errors}"));
    }
    Ok(stdout)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_take_k_and_m_suffixes_within_bounds() {
        use super::parse_bytes;
        assert_eq!(parse_bytes("8"), Ok(8));
        assert_eq!(parse_bytes("64K"), Ok(64 << 10));
        assert_eq!(parse_bytes("1M"), Ok(1 << 20));
        assert_eq!(parse_bytes("16M"), Ok(16 << 20));
        for bad in ["0", "17M", "x", "-1", "1G", ""] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }
}
