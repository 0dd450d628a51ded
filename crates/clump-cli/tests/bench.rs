//! `clump bench loggp` and `clump bench contention` end to end: the real binary starts
//! its ranks through the real launcher and reports every figure. Only shape and sanity are checked here; the
//! performance targets live in the benchmark's own report, not in a timed test.

use serde_json::Value;
use std::process::{Command, Stdio};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

fn number(v: &Value, path: &str) -> f64 {
    let mut at = v;
    for key in path.split('.') {
        at = &at[key];
    }
    at.as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number in {v:#}"))
}

fn sizes(list: &[Value], kind: &str) -> Vec<u64> {
    list.iter()
        .filter(|b| b["kind"] == kind)
        .map(|b| b["bytes"].as_u64().unwrap())
        .collect()
}

fn doubling(from: u64, to: u64) -> Vec<u64> {
    std::iter::successors(Some(from), |n| Some(n * 2))
        .take_while(|&n| n <= to)
        .collect()
}

/// Runs `clump bench ARGS` (with `--json`) and returns the object it printed.
fn bench_json(args: &[&str]) -> Value {
    let out = Command::new(CLUMP)
        .arg("bench")
        .args(args)
        .arg("--json")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "clump bench failed: {}\n{stderr}",
        out.status
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A fresh directory for one test's `--plot` files.
fn plot_dir(bench: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("clump-bench-{bench}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `file` is a PNG with something drawn in it (a blank 800x500 image compresses to a few
/// KB), then removes its directory.
fn assert_png_and_clean(file: &std::path::Path) {
    let png = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", file.display());
    assert!(
        png.len() > 20_000,
        "{}: {} bytes",
        file.display(),
        png.len()
    );
    std::fs::remove_dir_all(file.parent().unwrap()).unwrap();
}

#[test]
fn quick_loggp_reports_every_figure_as_json_and_plots_bandwidth() {
    let plots = plot_dir("loggp");
    let v = bench_json(&["loggp", "--quick", "--plot", plots.to_str().unwrap()]);
    assert_png_and_clean(&plots.join("loggp-bandwidth.png"));
    assert_eq!(v["transport"], "shm");
    assert_eq!(v["segment"], "shared region");
    assert_eq!(v["baseline"]["bandwidth_name"], "memcpy");
    check_loggp(
        &v,
        &["long_1mib_vs_memcpy", "medium_8kib_vs_memcpy", "g_vs_ring"],
    );
    assert!(number(&v, "baseline.ring_ns_per_msg") > 0.0);
}

/// The receiver's segment in its own program memory: long messages reach it by
/// cross-memory attach, and every payload is checked as before.
#[test]
fn quick_loggp_with_the_segment_in_program_memory() {
    let v = bench_json(&["loggp", "--quick", "--program-segment"]);
    assert_eq!(v["segment"], "program memory");
    check_loggp(
        &v,
        &["long_1mib_vs_memcpy", "medium_8kib_vs_memcpy", "g_vs_ring"],
    );
}

/// The same figures, JSON keys included, over UDP with a 1% loss injected, and goodput
/// beside the lossless stream.
#[test]
fn quick_loggp_over_udp_under_loss_reports_the_same_figures() {
    let v = bench_json(&["loggp", "--quick", "--transport", "udp", "--loss", "1"]);
    assert_eq!(v["transport"], "udp");
    assert_eq!(v["baseline"]["bandwidth_name"], "bare UDP stream");
    check_loggp(&v, &["long_64kib_vs_stream", "goodput_vs_lossless"]);
    assert_eq!(v["reference"]["loss_percent"], 1.0);
    for key in ["reference.lossless_mb_s", "reference.lossy_mb_s"] {
        assert!(number(&v, key) > 0.0, "{key}");
    }
}

/// Heavy loss slows delivery and never stops it: the quick run completes at 20% and 50%
/// loss each way, every payload checked. Minutes long: only under `CLUMP_SOAK=1`.
#[test]
fn quick_loggp_over_udp_completes_at_heavy_loss() {
    if std::env::var("CLUMP_SOAK").as_deref() != Ok("1") {
        clump_testkit::skip("minutes long: set CLUMP_SOAK=1");
        return;
    }
    for loss in ["20", "50"] {
        let v = bench_json(&["loggp", "--quick", "--transport", "udp", "--loss", loss]);
        check_loggp(&v, &["long_64kib_vs_stream", "goodput_vs_lossless"]);
        assert_eq!(v["reference"]["loss_percent"].as_f64(), loss.parse().ok());
    }
}

/// What ran where and when: version, commit, host, cores, load, date.
fn check_run_metadata(v: &Value) {
    let run = &v["run"];
    assert_eq!(run["version"], env!("CARGO_PKG_VERSION"));
    let commit = run["commit"].as_str().expect("commit");
    assert!(commit == "unknown" || commit.len() == 12, "{commit}");
    assert!(!run["host"].as_str().expect("host").is_empty());
    assert!(run["cores"].as_u64().expect("cores") >= 1);
    assert_eq!(run["load_average"].as_array().map(Vec::len), Some(3));
    let date = run["date"].as_str().expect("date");
    assert!(
        date.len() == 20 && date.ends_with('Z') && date.starts_with("20"),
        "{date}"
    );
}

/// Every figure of a loggp report, the transport's `ratios` included.
fn check_loggp(v: &Value, ratios: &[&str]) {
    check_run_metadata(v);
    assert_eq!(v["quick"], true);
    assert!(v["pinned"].is_boolean());
    for key in [
        "rtt_us",
        "os_us",
        "or_us",
        "g_us",
        "G_ns_per_byte",
        "peak_mb_s",
        "half_power_bytes",
        "baseline.raw_rtt_us",
        "baseline.bandwidth_mb_s",
        "ratios.rtt_vs_raw",
        "min.rtt_us",
        "min.os_us",
        "min.or_us",
        "min.g_us",
        "min.raw_rtt_us",
    ] {
        let x = number(v, key);
        assert!(x.is_finite() && x > 0.0, "{key} = {x}");
    }
    for key in ratios {
        let x = number(&v["ratios"], key);
        assert!(x.is_finite() && x > 0.0, "ratios.{key} = {x}");
    }
    let targets = v["targets"].as_array().expect("targets is a list");
    assert_eq!(targets.len(), ratios.len() + 1, "{targets:?}");
    for t in targets {
        assert!(
            number(t, "measured").is_finite() && t["met"].is_boolean(),
            "{t}"
        );
    }
    // L = RTT/2 - o_s - o_r may be negative (the overheads overlap), but it is a number.
    assert!(number(v, "L_us").is_finite());
    assert!(number(v, "min.L_us").is_finite());
    let l = number(v, "rtt_us") / 2.0 - number(v, "os_us") - number(v, "or_us");
    assert!((l - number(v, "L_us")).abs() < 1e-9);

    let rtt_args: Vec<u64> = v["rtt_by_args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert!(number(r, "rtt_us") > 0.0);
            r["args"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(rtt_args, [0, 4, 8, 16]);

    let bw = v["bandwidth"].as_array().expect("bandwidth is a list");
    assert_eq!(sizes(bw, "medium"), doubling(8, 64 << 10));
    assert_eq!(sizes(bw, "long"), doubling(8, 16 << 20));
    for b in bw {
        for key in ["mb_s", "baseline_mb_s", "ratio"] {
            let x = number(b, key);
            assert!(x.is_finite() && x > 0.0, "{key} = {x} in {b}");
        }
    }
    assert_eq!(v["verified"]["failures"], 0);
    let goodput_streams = u64::from(v["reference"]["kind"] == "no loss") * 2;
    assert_eq!(
        v["verified"]["checks"].as_u64(),
        Some(2 * (bw.len() as u64 + goodput_streams))
    );
}

#[test]
fn quick_contention_counts_every_client_over_the_servers_window_and_plots_shares() {
    let plots = plot_dir("contention");
    let v = bench_json(&[
        "contention",
        "--quick",
        "--clients",
        "3",
        "--plot",
        plots.to_str().unwrap(),
    ]);
    assert_png_and_clean(&plots.join("contention-shares.png"));
    check_run_metadata(&v);
    assert_eq!(v["benchmark"], "contention");
    assert_eq!(v["transport"], "shm");
    assert_eq!(
        (v["clients"].as_u64(), v["processes"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(number(&v, "target_fair_share_deviation"), 0.2);
    for (phase, endpoints) in [("one_vnet", 1), ("per_client_vnet", 3)] {
        let p = &v[phase];
        assert_eq!(p["server_endpoints"], endpoints, "{phase}");
        let rates: Vec<f64> = p["client_rates"]
            .as_array()
            .unwrap_or_else(|| panic!("{phase}.client_rates is not a list"))
            .iter()
            .map(|r| r.as_f64().unwrap())
            .collect();
        assert_eq!(rates.len(), 3, "{phase}");
        assert!(
            rates.iter().all(|&r| r > 0.0),
            "{phase}: a client made no progress: {rates:?}"
        );
        assert_eq!(p["client_rate_ranges"].as_array().map(Vec::len), Some(3));
        // The server's rate is the sum of its clients', counted over one window.
        let server = number(p, "server_rate_msgs_per_s");
        let sum: f64 = rates.iter().sum();
        assert!(
            (server - sum).abs() <= 1e-9 * server,
            "{phase}: {server} vs {sum}"
        );
        let (messages, seconds) = (number(p, "messages"), number(p, "seconds"));
        assert!(seconds > 0.0 && (messages / seconds - server).abs() <= 1e-9 * server);
        assert!((number(p, "fair_share_msgs_per_s") - server / 3.0).abs() <= 1e-9 * server);
        let range = &p["server_rate_range_msgs_per_s"];
        let (slowest, fastest) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
        let slack = 1e-9 * server;
        assert!(
            slowest <= server + slack && server <= fastest + slack,
            "{phase}: {range}"
        );
        let deviation = number(p, "max_fair_share_deviation");
        assert!(deviation >= 0.0, "{phase}: {deviation}");
        assert_eq!(p["fair_share_met"], deviation <= 0.2, "{phase}");
    }
}

#[test]
fn unknown_or_contradictory_options_are_usage_errors() {
    for (args, says) in [
        (&["--transport", "ib"][..], "invalid value 'ib'"),
        (
            &["--transport", "udp", "--with-network"][..],
            "--with-network",
        ),
        (&["--loss", "1"][..], "--loss needs a network"),
        (
            &["--transport", "udp", "--program-segment"][..],
            "--program-segment",
        ),
        (&["--transport", "udp", "--loss", "100"][..], "--loss 100"),
    ] {
        let out = Command::new(CLUMP)
            .args(["bench", "loggp"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_worker_subcommand_is_hidden() {
    let out = Command::new(CLUMP)
        .args(["bench", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("loggp") && help.contains("contention") && !help.contains("worker"),
        "{help}"
    );
}

/// The readable tables say what each figure means and what a missed target means.
#[test]
fn quick_tables_explain_each_figure() {
    for (bench, lines) in [
        (
            "loggp",
            &["  RTT ", "  o_s, o_r ", "  G, 1/G ", "  missed "][..],
        ),
        (
            "contention",
            &["  msgs/s ", "  vs fair ", "  fair share met "],
        ),
    ] {
        let out = Command::new(CLUMP)
            .args(["bench", bench, "--quick"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\nWhat the figures mean"), "{text}");
        for start in lines {
            assert!(
                text.lines().any(|l| l.starts_with(start)),
                "{start:?}:\n{text}"
            );
        }
        // G stands alone: no unrelated bandwidth figure beside it.
        if let Some(g) = text.lines().find(|l| l.starts_with("  G gap per byte")) {
            assert!(
                g.contains("largest long sizes") && !g.contains("memcpy"),
                "{g}"
            );
        }
    }
}
