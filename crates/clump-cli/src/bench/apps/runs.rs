//! One run of an application in one configuration, through the real launcher, and the figures
//! its rank 0 reports on its `RESULT` line.

use super::traffic::RankCounts;
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Config {
    /// One host: shared memory only.
    Smp,
    /// Every process its own virtual host: the network only.
    Now,
    /// Two virtual hosts: shared memory within, the network between.
    Clump,
}

impl Config {
    pub const ALL: [Config; 3] = [Config::Smp, Config::Now, Config::Clump];

    pub fn name(self) -> &'static str {
        match self {
            Config::Smp => "SMP",
            Config::Now => "NOW",
            Config::Clump => "Clump",
        }
    }

    fn launcher_args(self) -> &'static [&'static str] {
        match self {
            Config::Smp => &[],
            Config::Now => &["--transport", "udp"],
            Config::Clump => &["--hosts", "2"],
        }
    }

    /// A NOW or a Clump of one process would be an SMP; a Clump needs a process per host.
    pub fn allows(self, procs: u32) -> bool {
        match self {
            Config::Smp => true,
            Config::Now => procs >= 2,
            Config::Clump => procs >= 2,
        }
    }
}

/// What one run measured (times are the slowest rank's; counts are summed over ranks, and
/// `ranks` has each rank's own).
#[derive(Debug, Clone)]
pub struct Run {
    pub app: &'static str,
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

pub fn run(
    clump: &Path,
    apps: &Path,
    app: &'static str,
    args: &[&str],
    config: Config,
    procs: u32,
) -> Result<Run, String> {
    let out = Command::new(clump)
        .args(["run", "-n", &procs.to_string()])
        .args(config.launcher_args())
        .arg("--")
        .arg(apps)
        .args(args)
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
    let field = |key: &str| -> Result<&str, String> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .ok_or_else(|| format!("no {key} in {line:?}"))
    };
    let float = |key: &str| {
        field(key)?
            .parse::<f64>()
            .map_err(|e| format!("{key} in {line:?}: {e}"))
    };
    let count = |key: &str| {
        field(key)?
            .parse::<u64>()
            .map_err(|e| format!("{key} in {line:?}: {e}"))
    };
    Ok(Run {
        app,
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
        let r = parse(LINE, "fft", Config::Clump, 2).unwrap();
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
