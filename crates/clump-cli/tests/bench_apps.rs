//! `clump bench apps` end to end with small inputs: the real binary runs the applications
//! through the real launcher on SMP, NOW and Clump, and reports traffic by protocol. Shape and
//! counts are checked here, never times.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

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
    }
    for app in ["fft", "samplesort"] {
        let png = std::fs::read(plots.join(format!("{app}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    std::fs::remove_dir_all(&plots).unwrap();
}

#[test]
fn an_unknown_application_is_a_clear_error() {
    let out = Command::new(CLUMP)
        .args(["bench", "apps", "--apps", "nbody"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown application nbody"));
}
