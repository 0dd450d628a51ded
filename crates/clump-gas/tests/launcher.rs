//! Every GAS operation and bad use, checked byte by byte by `clump-test-gas` in jobs the
//! real launcher starts: one process, shared memory, UDP and two virtual hosts, with
//! same-host accesses direct and as Active Messages.

use std::path::PathBuf;
use std::process::Command;

/// The `clump` launcher beside this test's build (built first if it is missing).
fn clump_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let clump = dir.join("clump");
    if !clump.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "clump-cli", "--bin", "clump"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building clump failed");
    }
    clump
}

fn job(n: u32, placement: &[&str], local: &str) {
    let out = Command::new(clump_binary())
        .args(["run", "-n", &n.to_string()])
        .args(placement)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_clump-test-gas"))
        .env("CLUMP_GAS_LOCAL", local)
        .env("CLUMP_GAS_SEGMENT", "8M")
        .output()
        .expect("clump run starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "n={n} {placement:?} {local}: {:?}\n{stdout}\n{stderr}",
        out.status
    );
    assert_eq!(
        stdout.matches("gas ok").count(),
        n as usize,
        "{stdout}\n{stderr}"
    );
}

#[test]
fn shared_memory_direct_and_am() {
    for local in ["direct", "am"] {
        for n in [1, 2, 4] {
            job(n, &[], local);
        }
    }
}

#[test]
fn udp_and_two_hosts() {
    for local in ["direct", "am"] {
        job(2, &["--transport", "udp"], local);
        job(4, &["--hosts", "2"], local);
    }
}
