//! `clump bench apps`: the Split-C evaluations' applications (the `clump-apps` binary) on an
//! SMP (`clump run -n P`: shared memory only), a NOW (`--transport udp`: the network only) and
//! a Clump (`--hosts 2`: both), for a range of process counts; the papers' kind of table (time,
//! speedup against one process, communication share, messages and bytes by protocol).

mod plot;
mod report;
mod runs;
mod traffic;

use super::job;
use runs::{Config, Run};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AppsArgs {
    /// Process counts to run each application with.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    procs: Vec<u32>,
    /// Only these applications (em3d, con, fft, matmul, samplesort, radixsort).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Print the results as one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Small inputs: the whole benchmark in well under a minute.
    #[arg(long)]
    quick: bool,
    /// Also write one PNG per application here (time against processes per configuration).
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
}

/// One application as the benchmark runs it: its name and its arguments (full, quick).
struct App {
    name: &'static str,
    /// Whether its size arguments are per process (P processes do P times the work), so
    /// that its speedup is the scaled one, P·t(1)/t(P), rather than t(1)/t(P).
    size_per_rank: bool,
    full: &'static [&'static str],
    quick: &'static [&'static str],
}

const APPS: &[App] = &[
    App {
        name: "em3d",
        size_per_rank: true,
        full: &[
            "em3d",
            "--nodes",
            "20000",
            "--degree",
            "10",
            "--remote",
            "0.2",
            "--steps",
            "10",
            "--version",
            "bulk",
        ],
        quick: &[
            "em3d",
            "--nodes",
            "2000",
            "--degree",
            "10",
            "--remote",
            "0.2",
            "--steps",
            "5",
            "--version",
            "bulk",
        ],
    },
    App {
        name: "con",
        size_per_rank: true,
        full: &[
            "con",
            "--vertices",
            "100000",
            "--edges",
            "80000",
            "--remote",
            "0.1",
        ],
        quick: &[
            "con",
            "--vertices",
            "10000",
            "--edges",
            "8000",
            "--remote",
            "0.1",
        ],
    },
    App {
        name: "fft",
        size_per_rank: false,
        full: &["fft", "--n", "64"],
        quick: &["fft", "--n", "16"],
    },
    App {
        name: "matmul",
        size_per_rank: false,
        full: &["matmul", "--blocks", "8", "--block", "64"],
        quick: &["matmul", "--blocks", "4", "--block", "32"],
    },
    App {
        name: "samplesort",
        size_per_rank: true,
        full: &["samplesort", "--keys", "500000"],
        quick: &["samplesort", "--keys", "20000"],
    },
    App {
        name: "radixsort",
        size_per_rank: true,
        full: &["radixsort", "--keys", "500000"],
        quick: &["radixsort", "--keys", "20000"],
    },
];

/// Whether `app` takes its size per process (see [`App::size_per_rank`]).
pub fn size_per_rank(app: &str) -> bool {
    APPS.iter().any(|a| a.name == app && a.size_per_rank)
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
    if let Some(bad) = args
        .apps
        .iter()
        .find(|a| !APPS.iter().any(|app| app.name == a.as_str()))
    {
        return Err(format!("unknown application {bad}"));
    }
    let apps_bin = apps_binary()?;
    let clump = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut results: Vec<Run> = Vec::new();
    for app in APPS
        .iter()
        .filter(|a| args.apps.is_empty() || args.apps.iter().any(|n| n == a.name))
    {
        let app_args = if args.quick { app.quick } else { app.full };
        for config in Config::ALL {
            for &procs in args.procs.iter().filter(|&&p| config.allows(p)) {
                eprintln!(
                    "clump bench apps: {} on {} with {procs} process(es)",
                    app.name,
                    config.name()
                );
                results.push(runs::run(
                    &clump, &apps_bin, app.name, app_args, config, procs,
                )?);
            }
        }
    }
    let cores = crate::about::cores();
    let doc = job::document("apps", args.quick, report::to_json(&results, cores));
    if let Some(dir) = &args.plot {
        for file in plot::write(dir, &results, &doc)? {
            eprintln!("clump bench apps: wrote {}", file.display());
        }
    }
    job::print(&doc, args.json, |_, _| {
        report::print_tables(&results, cores);
        Ok(())
    })?;
    match results.iter().filter(|r| !r.verified).count() {
        0 => Ok(()),
        n => Err(format!(
            "{n} run(s) computed a wrong result (verified: false)"
        )),
    }
}
