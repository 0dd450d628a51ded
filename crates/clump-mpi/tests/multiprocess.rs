//! The MPI checks through the real launcher: 1, 2 and 4 processes over shared memory, over
//! UDP, and on 2 virtual hosts; and with thresholds moved so other sizes cross them.

use std::path::PathBuf;
use std::process::Command;

/// `target/release/clump`, built by the workspace beside this test.
fn clump() -> PathBuf {
    let exe = std::env::current_exe().expect("test path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let clump = dir.join("clump");
    assert!(
        clump.exists(),
        "{} is missing: build the workspace (cargo build --release) first",
        clump.display()
    );
    clump
}

fn run(n: u32, placement: &[&str], env: &[(&str, &str)]) {
    let out = Command::new(clump())
        .args(["run", "-n", &n.to_string()])
        .args(placement)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_clump-test-mpi"))
        .envs(env.iter().copied())
        .output()
        .expect("clump run starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "job failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(
        stdout.matches("mpi-check ok").count(),
        n as usize,
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn shared_memory_1_2_4() {
    for n in [1, 2, 4] {
        run(n, &[], &[]);
    }
}

#[test]
fn udp() {
    run(2, &["--transport", "udp"], &[]);
}

#[test]
fn two_hosts() {
    run(4, &["--hosts", "2"], &[]);
    // Uneven hosts and a size that is no power of two (the collectives' odd paths).
    run(3, &["--hosts", "2"], &[]);
}

#[test]
fn moved_thresholds() {
    run(
        2,
        &[],
        &[
            ("CLUMP_MPI_EAGER_SHM", "0"),
            ("CLUMP_MPI_EAGER_NET", "65536"),
        ],
    );
    run(2, &[], &[("CLUMP_MPI_EAGER_SHM", "65536")]);
    // Rendezvous over shared memory in one cross-memory read instead of medium chunks
    // (the default only with more processes than cores, as on 4 above).
    run(2, &[], &[("CLUMP_MPI_SINGLE_COPY", "1")]);
}
