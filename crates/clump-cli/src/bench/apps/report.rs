//! The benchmark's output: one table per application (the papers' layout), or one JSON object.

use super::runs::Run;
use super::traffic::Traffic;
use serde_json::json;

/// Time of the same run and version on one SMP process, the speedup baseline.
fn one_process_time(runs: &[Run], r: &Run) -> Option<f64> {
    runs.iter()
        .find(|o| o.app == r.app && o.version == r.version && o.procs == 1)
        .map(|o| o.time_s)
}

/// Speedup against one process: t(1)/t(P) for a fixed total size, and the scaled speedup
/// P·t(1)/t(P) for applications whose size is per process (P processes do P times the work).
pub fn speedup(runs: &[Run], r: &Run) -> Option<f64> {
    let work = if super::size_per_rank(r.app) {
        f64::from(r.procs)
    } else {
        1.0
    };
    one_process_time(runs, r).map(|t1| work * t1 / r.time_s.max(1e-12))
}

fn comm_share(r: &Run) -> f64 {
    r.comm_s / (r.comm_s + r.compute_s).max(1e-12)
}

pub fn print_tables(runs: &[Run], cores: usize) {
    println!("clump bench apps: {cores} core(s); more processes than cores share them, so compare counts, not times, past {cores}");
    let mut apps: Vec<&str> = runs.iter().map(|r| r.app).collect();
    apps.dedup();
    for app in apps {
        let kind = if super::size_per_rank(app) {
            "size per process: scaled speedup P*t(1)/t(P)"
        } else {
            "fixed total size: speedup t(1)/t(P)"
        };
        let input = runs.iter().find(|r| r.app == app).map_or("", |r| &r.input);
        println!("\n{app} ({kind})\ninput: clump-apps {input}");
        println!(
            "{:<12} {:<6} {:>5} {:>10} {:>8} {:>6} {:>17} {:>13} {:>8}",
            "version",
            "config",
            "procs",
            "time_ms",
            "speedup",
            "comm%",
            "comm_ms min..max",
            "mem_MB avg max",
            "verified"
        );
        for r in runs.iter().filter(|r| r.app == app) {
            let speedup = speedup(runs, r).map_or("-".to_string(), |s| format!("{s:.2}"));
            let t = Traffic::of(&r.ranks);
            println!(
                "{:<12} {:<6} {:>5} {:>10.3} {:>8} {:>6.1} {:>17} {:>13} {:>8}",
                r.version.unwrap_or("-"),
                r.config.name(),
                r.procs,
                r.time_s * 1e3,
                speedup,
                comm_share(r) * 100.0,
                format!("{:.2}..{:.2}", t.comm_s.min * 1e3, t.comm_s.max * 1e3),
                format!("{:.1} {:.1}", t.mem_bytes.mean / 1e6, t.mem_bytes.max / 1e6),
                if r.verified { "ok" } else { "FAILED" }
            );
        }
        print_traffic(runs.iter().filter(|r| r.app == app));
        print_versions(runs.iter().filter(|r| r.app == app).collect());
        super::paper::print(runs.iter().filter(|r| r.app == app));
    }
}

/// Paper 004's Table 5 shape: one row per configuration and process count, one time per
/// version; nothing when the run has fewer than two versions.
fn print_versions(runs: Vec<&Run>) {
    let mut versions: Vec<&str> = runs.iter().filter_map(|r| r.version).collect();
    versions.dedup();
    if versions.len() < 2 {
        return;
    }
    println!("time (s) per version:");
    print!("{:<6} {:>5}", "config", "procs");
    for v in &versions {
        print!(" {v:>12}");
    }
    println!();
    let mut rows: Vec<(&str, u32)> = runs.iter().map(|r| (r.config.name(), r.procs)).collect();
    rows.dedup();
    rows.sort_by_key(|&(c, p)| (p, c));
    rows.dedup();
    for (config, procs) in rows {
        print!("{config:<6} {procs:>5}");
        for v in &versions {
            let t = runs
                .iter()
                .find(|r| r.config.name() == config && r.procs == procs && r.version == Some(*v));
            match t {
                Some(r) => print!(" {:>12.3}", r.time_s),
                None => print!(" {:>12}", "-"),
            }
        }
        println!();
    }
}

/// Paper 001's Table 4 for each run: per-processor short messages (mean, min, max) and bulk
/// data (mean messages x mean size), network and local apart, and the local share of the
/// messages to other processes.
fn print_traffic<'a>(runs: impl Iterator<Item = &'a Run>) {
    println!("per processor, messages to other processes:");
    println!(
        "{:<12} {:<6} {:>5} | {:>26} {:>16} | {:>26} {:>16} | {:>6}",
        "version",
        "config",
        "procs",
        "network short mean min max",
        "network bulk",
        "local short mean min max",
        "local bulk",
        "%local"
    );
    for r in runs {
        let t = Traffic::of(&r.ranks);
        let short = |s: super::traffic::Spread| format!("{:.0} {:.0} {:.0}", s.mean, s.min, s.max);
        let bulk = |(n, b): (f64, f64)| {
            if n == 0.0 {
                "none".to_string()
            } else {
                format!("{n:.0} x {b:.0} B")
            }
        };
        println!(
            "{:<12} {:<6} {:>5} | {:>26} {:>16} | {:>26} {:>16} | {:>6.1}",
            r.version.unwrap_or("-"),
            r.config.name(),
            r.procs,
            short(t.net_short),
            bulk(t.net_bulk),
            short(t.local_short),
            bulk(t.local_bulk),
            t.local_percent
        );
    }
}

/// The figures of `--json` (see [`crate::bench::job::document`] for the rest of the object).
pub fn to_json(runs: &[Run], cores: usize) -> serde_json::Value {
    let rows: Vec<_> = runs
        .iter()
        .map(|r| {
            json!({
                "app": r.app,
                "version": r.version,
                "input": r.input,
                "config": r.config.name(),
                "procs": r.procs,
                "time_s": r.time_s,
                "comm_s": r.comm_s,
                "compute_s": r.compute_s,
                "speedup": speedup(runs, r),
                "speedup_scaled": super::size_per_rank(r.app),
                "comm_share": comm_share(r),
                "shm_messages": r.shm_messages,
                "shm_bytes": r.shm_bytes,
                "net_messages": r.net_messages,
                "net_bytes": r.net_bytes,
                "direct_accesses": r.direct_accesses,
                "direct_bytes": r.direct_bytes,
                "per_processor": Traffic::of(&r.ranks).json(),
                "verified": r.verified,
                "paper": super::paper::json(r),
            })
        })
        .collect();
    json!({ "cores": cores, "runs": rows })
}

#[cfg(test)]
mod tests {
    use super::super::runs::{sample, Config};
    use super::*;

    #[test]
    fn the_json_has_one_row_per_run_with_its_speedup() {
        let runs = [
            sample("fft", Config::Smp, 1, 0.2),
            sample("fft", Config::Now, 2, 0.1),
        ];
        let v = to_json(&runs, 2);
        assert_eq!(v["cores"], 2);
        let rows = v["runs"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[1]["config"].as_str(), rows[1]["speedup"].as_f64()),
            (Some("NOW"), Some(2.0))
        );
        assert_eq!(rows[1]["comm_share"], 0.5);
    }
}
