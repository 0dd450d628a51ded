//! Every application, with small inputs, through the real launcher: 1, 2 and 4 processes over
//! shared memory, 2 and 4 over UDP, and 2 and 4 on 2 virtual hosts. A run passes only when the
//! job exits 0 and rank 0 reports its result checked against the sequential computation.

use std::path::Path;
use std::process::Command;

const CONFIGS: &[&[&str]] = &[
    &["-n", "1"],
    &["-n", "2"],
    &["-n", "4"],
    &["-n", "2", "--transport", "udp"],
    &["-n", "4", "--transport", "udp"],
    &["-n", "2", "--hosts", "2"],
    &["-n", "4", "--hosts", "2"],
];

/// Runs `app` in every configuration and checks each job's verdict.
fn verify(app: &[&str]) {
    for config in CONFIGS {
        let mut cmd = Command::new(clump_testkit::launcher());
        cmd.arg("run")
            .args(*config)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_clump-apps"))
            .args(app);
        let out = clump_testkit::wait_with_timeout(cmd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ranks = config[1];
        assert!(
            out.status.success()
                && stdout.contains(&format!("ranks={ranks} "))
                && stdout.contains("check=ok"),
            "{app:?} on {config:?} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
            out.status
        );
    }
}

fn em3d(version: &str) {
    em3d_laid_out(version, "naive");
}

fn em3d_laid_out(version: &str, layout: &str) {
    verify(&[
        "em3d",
        "--layout",
        layout,
        "--nodes",
        "200",
        "--degree",
        "4",
        "--remote",
        "0.3",
        "--steps",
        "3",
        "--version",
        version,
    ]);
}

#[test]
fn em3d_blocking_reads() {
    em3d("read");
}

#[test]
fn em3d_split_phase_gets() {
    em3d("get");
}

#[test]
fn em3d_bulk_ghost_gets() {
    em3d("bulk");
}

#[test]
fn em3d_stores() {
    em3d("store");
}

#[test]
fn em3d_packed_stores() {
    em3d("store-packed");
}

#[test]
fn em3d_good_layout() {
    em3d_laid_out("get", "good");
}

#[test]
fn connected_components_on_a_2d_lattice() {
    verify(&[
        "con",
        "--graph",
        "lattice2d",
        "--vertices",
        "400",
        "--present",
        "0.4",
    ]);
}

#[test]
fn connected_components_on_a_3d_lattice() {
    verify(&[
        "con",
        "--graph",
        "lattice3d",
        "--vertices",
        "343",
        "--present",
        "0.25",
    ]);
}

#[test]
fn connected_components() {
    verify(&[
        "con",
        "--graph",
        "random",
        "--vertices",
        "400",
        "--edges",
        "500",
        "--remote",
        "0.2",
    ]);
}

#[test]
fn fft_3d() {
    verify(&["fft", "--n", "8"]);
}

#[test]
fn blocked_matrix_multiply() {
    verify(&["matmul", "--blocks", "3", "--block", "8"]);
}

#[test]
fn sample_sort() {
    verify(&["samplesort", "--keys", "3000", "--version", "bulk"]);
}

#[test]
fn sample_sort_key_by_key() {
    verify(&["samplesort", "--keys", "3000", "--version", "small"]);
}

#[test]
fn radix_sort() {
    verify(&["radixsort", "--keys", "3000", "--version", "bulk"]);
}

#[test]
fn radix_sort_key_by_key() {
    verify(&["radixsort", "--keys", "3000", "--version", "small"]);
}

#[test]
fn bad_arguments_fail_the_job_with_a_message() {
    let out = clump_testkit::run(
        &clump_testkit::launcher(),
        2,
        &[],
        Path::new(env!("CARGO_BIN_EXE_clump-apps")),
        &["fft", "--n", "12"],
        &[],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("power of two"));
}

/// The checks that scale (each rank its own part) pass wherever the full ones do.
#[test]
fn each_rank_checks_its_own_part() {
    verify(&["--check", "part", "fft", "--n", "8"]);
    verify(&[
        "--check", "part", "em3d", "--nodes", "100", "--degree", "4", "--steps", "2",
    ]);
    for graph in ["lattice2d", "random"] {
        verify(&[
            "--check",
            "part",
            "con",
            "--graph",
            graph,
            "--vertices",
            "400",
        ]);
    }
    for sort in ["samplesort", "radixsort"] {
        for version in ["small", "bulk"] {
            verify(&[
                "--check",
                "part",
                sort,
                "--keys",
                "2000",
                "--version",
                version,
            ]);
        }
    }
}
