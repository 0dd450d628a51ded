//! `clump bench apps`: the Split-C evaluations' applications (the `clump-apps` binary), run as
//! the papers ran them (cases.rs), on an SMP (`clump run -n P`: shared memory only), a NOW
//! (`--transport udp`: the network only) and a Clump (`--hosts K`: both), for a range of
//! process counts; the papers' tables (report.rs): times, speedup and communication balance,
//! per-processor traffic and memory (traffic.rs), times per version, and the papers' own
//! figures beside clump's (paper.rs).

mod cases;
mod line;
mod paper;
mod plot;
mod report;
mod runs;
mod traffic;

use super::job;
use cases::{Case, CASES};
use runs::{Config, Run};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AppsArgs {
    /// Process counts to run each application with.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    procs: Vec<u32>,
    /// Only these runs: an application (em3d, con, fft, matmul, samplesort, radixsort) or
    /// one of its runs (em3d/naive, em3d/good, con/comm, con/comp, matmul/128, matmul/16).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Versions to run where an application has them (em3d: read, get, bulk, store,
    /// store-packed; the sorts: small, bulk); others run their defaults (em3d: get; the
    /// sorts: both).
    #[arg(long, value_delimiter = ',')]
    versions: Vec<String>,
    /// Input sizes: the papers' (paper 001's Table 3, paper 004's Table 5), quick ones, or a
    /// number for every run's size argument (EM3D nodes, CON sites and sort keys a process,
    /// FFT side, matrix blocks or block side).
    #[arg(long, default_value = "paper", conflicts_with = "quick")]
    size: cases::Size,
    /// The same as --size quick: the whole benchmark in well under a minute.
    #[arg(long)]
    quick: bool,
    /// Configurations: smp (shared memory only), now (the network only), clump (both, on
    /// --hosts virtual hosts), or all.
    #[arg(long, value_delimiter = ',', default_value = "all")]
    configs: Vec<String>,
    /// Virtual hosts of the Clump configuration.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=64))]
    hosts: u32,
    /// How the global address space reaches same-host processes: direct loads and stores,
    /// or Active Messages through shared memory (as the papers' Split-C did).
    #[arg(long, default_value = "direct", value_parser = ["direct", "am"])]
    local: String,
    /// Print the results as one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Also write PNGs here: per run, time, speedup and local share against processes.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Start each rank through this program (it is given the application and its
    /// arguments), for example one that enters the network namespace of the rank's host
    /// (`CLUMP_HOST`), as `scripts/netns-bench apps` does.
    #[arg(long, value_name = "PROGRAM")]
    rank_wrapper: Option<PathBuf>,
}

/// Whether `case` takes its size per process (see [`cases::Case::size_per_rank`]).
pub fn size_per_rank(case: &str) -> bool {
    Case::find(case).is_some_and(|c| c.size_per_rank)
}

/// The `clump-apps` binary, built beside `clump`.
fn apps_binary() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the clump executable: {e}"))?;
    let apps = exe.with_file_name("clump-apps");
    if apps.exists() {
        Ok(apps)
    } else {
        Err(format!(
            "{} not found: build it (cargo build --release -p clump-apps)",
            apps.display()
        ))
    }
}

pub fn main(args: &AppsArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("clump bench apps: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &AppsArgs) -> Result<(), String> {
    check_names(args)?;
    let configs = Config::chosen(&args.configs, args.hosts)?;
    let size = if args.quick {
        cases::Size::Quick
    } else {
        args.size.clone()
    };
    let (results, failed) = run_selected(args, &configs, &size)?;
    let cores = crate::about::cores();
    let mut fields = report::to_json(&results, cores);
    fields["size"] = serde_json::json!(format!("{size:?}").to_lowercase());
    fields["local"] = serde_json::json!(args.local);
    fields["failed"] = serde_json::json!(failed);
    fields["rank_wrapper"] = serde_json::json!(args.rank_wrapper);
    let doc = job::document("apps", size == cases::Size::Quick, fields);
    if let Some(dir) = &args.plot {
        for file in plot::write(dir, &results, &doc)? {
            eprintln!("clump bench apps: wrote {}", file.display());
        }
    }
    job::print(&doc, args.json, |_, _| {
        report::print_tables(&results, cores);
        Ok(())
    })?;
    let wrong = results.iter().filter(|r| !r.verified).count();
    match (wrong, failed.len()) {
        (0, 0) => Ok(()),
        (w, f) => Err(format!(
            "{w} run(s) computed a wrong result (verified: false), {f} failed without results (failed)"
        )),
    }
}

/// Refuses an application or version no case knows, before anything runs.
fn check_names(args: &AppsArgs) -> Result<(), String> {
    if let Some(bad) = args
        .apps
        .iter()
        .find(|a| !CASES.iter().any(|c| c.selected_by(a)))
    {
        return Err(format!("unknown application {bad}"));
    }
    if let Some(bad) = args
        .versions
        .iter()
        .find(|v| !CASES.iter().any(|c| c.versions.contains(&v.as_str())))
    {
        return Err(format!("unknown version {bad}"));
    }
    Ok(())
}

/// Runs every selected case, version, configuration and process count; returns the runs
/// with results and, for each job that ended without results, what failed. A failed run
/// is reported and the others go on.
fn run_selected(
    args: &AppsArgs,
    configs: &[Config],
    size: &cases::Size,
) -> Result<(Vec<Run>, Vec<serde_json::Value>), String> {
    let apps_bin = apps_binary()?;
    let clump = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut results: Vec<Run> = Vec::new();
    let mut failed: Vec<serde_json::Value> = Vec::new();
    for case in CASES
        .iter()
        .filter(|c| args.apps.is_empty() || args.apps.iter().any(|a| c.selected_by(a)))
    {
        for version in case.versions_to_run(&args.versions) {
            let app_args = case.arguments(size, version);
            for &config in configs {
                for &procs in args.procs.iter().filter(|&&p| config.allows(p)) {
                    eprintln!(
                        "clump bench apps: {}{} on {} with {procs} process(es)",
                        case.name,
                        version.map_or(String::new(), |v| format!(" ({v})")),
                        config.name()
                    );
                    let job = runs::Job {
                        case: case.name,
                        version,
                        args: &app_args,
                        config,
                        procs,
                        local: &args.local,
                        wrapper: args.rank_wrapper.as_deref(),
                    };
                    match runs::run(&clump, &apps_bin, &job) {
                        Ok(run) => results.push(run),
                        Err(error) => {
                            eprintln!("clump bench apps: {error}");
                            failed.push(serde_json::json!({
                                "app": case.name,
                                "version": version,
                                "config": config.name(),
                                "procs": procs,
                                "error": error,
                            }));
                        }
                    }
                }
            }
        }
    }
    Ok((results, failed))
}
