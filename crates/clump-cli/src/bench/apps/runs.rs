//! One run of an application in one configuration, through the real launcher, and the figures
//! its rank 0 reports on its `RESULT` line.

use super::line::{field, value};
use super::traffic::RankCounts;
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Config {
    /// One host: shared memory only.
    Smp,
    /// Every process its own virtual host: the network only.
    Now,
    /// This many virtual hosts: shared memory within, the network between.
    Clump(u32),
}

impl Config {
    /// The configurations `--configs` names (`all`: every one), the Clump on `hosts` hosts.
    pub fn chosen(names: &[String], hosts: u32) -> Result<Vec<Config>, String> {
        let all = [Config::Smp, Config::Now, Config::Clump(hosts)];
        if names.iter().any(|n| n == "all") {
            return Ok(all.to_vec());
        }
        names
            .iter()
            .map(|n| {
                all.into_iter()
                    .find(|c| c.name().eq_ignore_ascii_case(n))
                    .ok_or_else(|| format!("unknown configuration {n} (smp, now, clump or all)"))
            })
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Config::Smp => "SMP",
            Config::Now => "NOW",
            Config::Clump(_) => "Clump",
        }
    }

    fn launcher_args(self) -> Vec<String> {
        match self {
            Config::Smp => vec![],
            Config::Now => vec!["--transport".into(), "udp".into()],
            Config::Clump(hosts) => vec!["--hosts".into(), hosts.to_string()],
        }
    }

    /// A NOW of one process would be an SMP; a Clump needs a process per host.
    pub fn allows(self, procs: u32) -> bool {
        match self {
            Config::Smp => true,
            Config::Now => procs >= 2,
            Config::Clump(hosts) => procs >= hosts,
        }
    }
}

/// One run to make: a case of cases.rs in one version, configuration and process count.
pub struct Job<'a> {
    pub case: &'static str,
    pub version: Option<&'static str>,
    pub args: &'a [String],
    pub config: Config,
    pub procs: u32,
    /// `CLUMP_GAS_LOCAL` for the run (direct or am).
    pub local: &'a str,
    /// A program each rank starts through (`--rank-wrapper`).
    pub wrapper: Option<&'a Path>,
}

/// What one run measured (times are the slowest rank's; counts are summed over ranks, and
/// `ranks` has each rank's own).
#[derive(Debug, Clone)]
pub struct Run {
    pub app: &'static str,
    pub version: Option<&'static str>,
    /// The `clump-apps` arguments it ran with.
    pub input: String,
    pub config: Config,
    pub procs: u32,
    pub time_s: f64,
    pub comm_s: f64,
    pub compute_s: f64,
    pub shm_messages: u64,
    pub shm_bytes: u64,
    pub net_messages: u64,
    pub net_bytes: u64,
    pub direct_accesses: u64,
    pub direct_bytes: u64,
    pub ranks: Vec<RankCounts>,
    /// Whether every rank's result matched the reference.
    pub verified: bool,
}

pub fn run(clump: &Path, apps: &Path, job: &Job) -> Result<Run, String> {
    let (app, config, procs) = (job.case, job.config, job.procs);
    let out = Command::new(clump)
        .args(["run", "-n", &procs.to_string()])
        .args(config.launcher_args())
        .arg("--")
        .args(job.wrapper)
        .arg(apps)
        .args(job.args)
        .env("CLUMP_GAS_LOCAL", job.local)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start {} run: {e}", clump.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // A wrong result still reports its figures; any other failure has none to report.
    let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT ")) else {
        return Err(format!(
            "{app} on {} with {procs} process(es) failed ({}) with no RESULT line:\n{stdout}",
            config.name(),
            out.status
        ));
    };
    let mut run = parse(line, app, config, procs)?;
    run.version = job.version;
    run.input = job.args.join(" ");
    run.verified &= out.status.success();
    run.ranks = stdout
        .lines()
        .filter(|l| l.starts_with("RANK "))
        .map(RankCounts::parse)
        .collect::<Result<_, _>>()?;
    if run.ranks.len() != procs as usize {
        return Err(format!(
            "{app} reported {} of {procs} ranks:\n{stdout}",
            run.ranks.len()
        ));
    }
    Ok(run)
}

/// The `RESULT` line's figures (`ranks` is left empty).
fn parse(line: &str, app: &'static str, config: Config, procs: u32) -> Result<Run, String> {
    let field = |key: &str| field(line, key);
    let float = |key: &str| value::<f64>(line, key);
    let count = |key: &str| value::<u64>(line, key);
    Ok(Run {
        app,
        version: None,
        input: String::new(),
        config,
        procs,
        time_s: float("time_s")?,
        comm_s: float("comm_s")?,
        compute_s: float("compute_s")?,
        shm_messages: count("shm_messages")?,
        shm_bytes: count("shm_bytes")?,
        net_messages: count("net_messages")?,
        net_bytes: count("net_bytes")?,
        direct_accesses: count("direct_accesses")?,
        direct_bytes: count("direct_bytes")?,
        ranks: Vec::new(),
        verified: field("check")? == "ok",
    })
}

/// A run of `app` that took `time_s` and sent nothing, for the tests of what is made of runs.
#[cfg(test)]
pub fn sample(app: &'static str, config: Config, procs: u32, time_s: f64) -> Run {
    Run {
        app,
        version: None,
        input: String::new(),
        config,
        procs,
        time_s,
        comm_s: time_s / 2.0,
        compute_s: time_s / 2.0,
        shm_messages: 0,
        shm_bytes: 0,
        net_messages: 0,
        net_bytes: 0,
        direct_accesses: 0,
        direct_bytes: 0,
        ranks: vec![RankCounts::default(); procs as usize],
        verified: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str =
        "RESULT app=fft ranks=2 time_s=0.5 comm_s=0.25 compute_s=0.3 shm_messages=6 shm_bytes=16 \
                        net_messages=7 net_bytes=99 direct_accesses=16 direct_bytes=8192 check=ok";

    #[test]
    fn parses_every_field_of_the_result_line() {
        let r = parse(LINE, "fft", Config::Clump(2), 2).unwrap();
        assert_eq!((r.time_s, r.comm_s, r.compute_s), (0.5, 0.25, 0.3));
        assert_eq!(
            (r.shm_messages, r.shm_bytes, r.net_messages, r.net_bytes),
            (6, 16, 7, 99)
        );
        assert_eq!((r.direct_accesses, r.direct_bytes), (16, 8192));
    }

    #[test]
    fn a_failed_check_is_recorded_and_a_missing_field_is_an_error() {
        assert!(parse(LINE, "fft", Config::Smp, 2).unwrap().verified);
        assert!(
            !parse(
                &LINE.replace("check=ok", "check=FAILED"),
                "fft",
                Config::Smp,
                2
            )
            .unwrap()
            .verified
        );
        assert!(
            parse(&LINE.replace("net_bytes=99 ", ""), "fft", Config::Smp, 2)
                .unwrap_err()
                .contains("net_bytes")
        );
    }
}
