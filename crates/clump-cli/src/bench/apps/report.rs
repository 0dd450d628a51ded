//! The benchmark's output: one table per application (the papers' layout), or one JSON object.

use super::runs::Run;
use serde_json::json;

/// Time of the same application on one SMP process, the speedup baseline.
fn one_process_time(runs: &[Run], app: &str) -> Option<f64> {
    runs.iter()
        .find(|r| r.app == app && r.procs == 1)
        .map(|r| r.time_s)
}

/// Speedup against one process: t(1)/t(P) for a fixed total size, and the scaled speedup
/// P·t(1)/t(P) for applications whose size is per process (P processes do P times the work).
fn speedup(runs: &[Run], r: &Run) -> Option<f64> {
    let work = if super::size_per_rank(r.app) {
        f64::from(r.procs)
    } else {
        1.0
    };
    one_process_time(runs, r.app).map(|t1| work * t1 / r.time_s.max(1e-12))
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
        println!("\n{app} ({kind})");
        println!(
            "{:<6} {:>5} {:>10} {:>8} {:>6} {:>10} {:>12} {:>10} {:>12} {:>10}",
            "config",
            "procs",
            "time_ms",
            "speedup",
            "comm%",
            "shm_msgs",
            "shm_bytes",
            "net_msgs",
            "net_bytes",
            "direct"
        );
        for r in runs.iter().filter(|r| r.app == app) {
            let speedup = speedup(runs, r).map_or("-".to_string(), |s| format!("{s:.2}"));
            println!(
                "{:<6} {:>5} {:>10.3} {:>8} {:>6.1} {:>10} {:>12} {:>10} {:>12} {:>10}",
                r.config.name(),
                r.procs,
                r.time_s * 1e3,
                speedup,
                comm_share(r) * 100.0,
                r.shm_messages,
                r.shm_bytes,
                r.net_messages,
                r.net_bytes,
                r.direct_accesses
            );
        }
    }
}

/// The figures of `--json` (see [`crate::bench::job::document`] for the rest of the object).
pub fn to_json(runs: &[Run], cores: usize) -> serde_json::Value {
    let rows: Vec<_> = runs
        .iter()
        .map(|r| {
            json!({
                "app": r.app,
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
