//! `clump bench apps` end to end with small inputs: the real binary runs the applications
//! through the real launcher on SMP, NOW and Clump, and reports traffic by protocol. Shape and
//! counts are checked here, never times.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

/// `clump bench apps` with `args` (split at spaces).
fn bench_apps(args: &str) -> std::process::Output {
    Command::new(CLUMP)
        .args(["bench", "apps"])
        .args(args.split(' '))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn quick_run_reports_every_configuration_with_traffic_by_protocol_and_plots() {
    let apps = Path::new(CLUMP).with_file_name("clump-apps");
    assert!(
        apps.exists(),
        "{} missing: cargo build --release -p clump-apps",
        apps.display()
    );
    let plots = std::env::temp_dir().join(format!("clump-bench-apps-{}", std::process::id()));
    let out = Command::new(CLUMP)
        .args([
            "bench",
            "apps",
            "--quick",
            "--apps",
            "fft,samplesort",
            "--procs",
            "1,2",
            "--json",
            "--plot",
        ])
        .arg(&plots)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["cores"].as_u64().unwrap() >= 1);
    let runs = v["runs"].as_array().unwrap();
    let configs: Vec<(&str, &str, u64)> = runs
        .iter()
        .map(|r| {
            (
                r["app"].as_str().unwrap(),
                r["config"].as_str().unwrap(),
                r["procs"].as_u64().unwrap(),
            )
        })
        .collect();
    for app in ["fft", "samplesort"] {
        for (config, procs) in [("SMP", 1), ("SMP", 2), ("NOW", 2), ("Clump", 2)] {
            assert!(
                configs.contains(&(app, config, procs)),
                "{app} {config} {procs} missing: {configs:?}"
            );
        }
    }
    for r in runs {
        let count = |k: &str| r[k].as_u64().unwrap();
        match (r["config"].as_str().unwrap(), count("procs")) {
            ("SMP", 1) => {
                assert_eq!(r["speedup"].as_f64(), Some(1.0));
                assert_eq!(count("shm_messages") + count("net_messages"), 0, "{r}");
            }
            ("SMP", _) => assert!(
                count("shm_messages") > 0 && count("net_messages") == 0,
                "{r}"
            ),
            // Two processes on two hosts: everything goes over the network.
            (_, _) => assert!(
                count("net_messages") > 0 && count("net_bytes") > 0 && count("shm_messages") == 0,
                "{r}"
            ),
        }
        let share = r["comm_share"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&share), "{r}");
        assert_eq!(r["verified"], true, "{r}");
        let local = r["per_processor"]["local_percent"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&local), "{r}");
        // Every rank says how much memory it held (paper 001's Table 3).
        assert!(
            r["per_processor"]["mem_bytes"]["min"].as_f64().unwrap() > 0.0,
            "{r}"
        );
        // The papers ran none of these on 1 or 2 processes: nothing to set beside them.
        assert_eq!(r["paper"], serde_json::json!([]), "{r}");
    }
    // The sorts run in both of paper 004's versions by default.
    for version in ["small", "bulk"] {
        assert!(runs
            .iter()
            .any(|r| r["app"] == "samplesort" && r["version"] == version));
    }
    assert_eq!(
        (v["size"].as_str(), v["local"].as_str()),
        (Some("quick"), Some("direct"))
    );
    for app in ["fft", "samplesort"] {
        for figure in ["time", "speedup", "local"] {
            let png = std::fs::read(plots.join(format!("{app}-{figure}.png"))).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        }
    }
    std::fs::remove_dir_all(&plots).unwrap();
}

/// Paper 001's EM3D runs at a small size on 16 processes of 2 hosts with accesses as Active
/// Messages: the good layout keeps more of the traffic on the host than the naive one.
#[test]
fn em3d_good_layout_keeps_more_traffic_local_than_naive() {
    let out =
        bench_apps("--apps em3d --size 100 --procs 16 --configs clump --hosts 2 --local am --json");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let local = |case: &str| {
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["app"] == case)
            .map(|r| r["per_processor"]["local_percent"].as_f64().unwrap())
            .unwrap()
    };
    // A 4x2x2 grid: naive gives each host a 4x2x1 slab (2.5 of 3.5 neighbours on the host,
    // 71%), good a 2x2x2 block (3 of 3.5, 86%).
    let (naive, good) = (local("em3d/naive"), local("em3d/good"));
    assert!(
        (65.0..78.0).contains(&naive) && (80.0..92.0).contains(&good),
        "{naive} {good}"
    );
}

/// A run whose job fails is reported under `failed` and the command fails, but the other
/// runs go on and are reported.
#[test]
fn a_failed_run_is_reported_and_the_others_go_on() {
    // An FFT of side 12 is refused (not a power of two); a radix sort of 12 keys runs.
    let out =
        bench_apps("--apps fft,radixsort --size 12 --procs 1 --configs smp --versions bulk --json");
    assert!(!out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["app"], "radixsort", "{v}");
    assert_eq!(v["failed"][0]["app"], "fft", "{v}");
    assert!(v["failed"][0]["error"]
        .as_str()
        .unwrap()
        .contains("no RESULT line"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("power of two") && stderr.contains("1 failed without results"));
}

#[test]
fn an_unknown_application_is_a_clear_error() {
    let out = bench_apps("--apps nbody");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown application nbody"));
}

/// `--rank-wrapper` starts every rank of every run through the given program (as
/// `scripts/netns-bench apps` puts each in its host's network namespace).
#[test]
fn every_rank_starts_through_the_rank_wrapper() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("clump-rank-wrapper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("wrapper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$CLUMP_HOST\" >> {}/rank-\"$CLUMP_RANK\"\nexec \"$@\"\n",
            dir.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = bench_apps(&format!(
        "--apps radixsort --versions bulk --size 100 --procs 2 --configs now,clump --json \
         --rank-wrapper {}",
        wrapper.display()
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rank_wrapper"].as_str(), wrapper.to_str());
    assert_eq!(v["runs"].as_array().unwrap().len(), 2, "{v}");
    // Two runs (NOW, Clump of 2) of two ranks, each rank on a host of its own.
    for rank in 0..2 {
        let hosts = std::fs::read_to_string(dir.join(format!("rank-{rank}"))).unwrap();
        assert_eq!(hosts, format!("{rank}\n{rank}\n"), "rank {rank}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
