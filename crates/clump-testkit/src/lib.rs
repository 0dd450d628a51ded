//! What clump's multi-process tests share: the real launcher beside the test build, and a
//! job run through it whose every rank must report a line.

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/clump` beside the running test, built first if it is missing (a
/// package's own tests do not build another package's binaries).
pub fn launcher() -> PathBuf {
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

/// Runs `program` through `clump run -n n` with `placement` (`--transport udp`,
/// `--hosts 2`, ...) and `env`, and asserts the job succeeded with `ok_line` printed once
/// per rank.
pub fn run_job(n: u32, placement: &[&str], program: &str, env: &[(&str, &str)], ok_line: &str) {
    let out = Command::new(launcher())
        .args(["run", "-n", &n.to_string()])
        .args(placement)
        .arg("--")
        .arg(program)
        .envs(env.iter().copied())
        .output()
        .expect("clump run starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!("n={n} {placement:?} {env:?}");
    assert!(
        out.status.success(),
        "{context}: job failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(
        stdout.matches(ok_line).count(),
        n as usize,
        "{context}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

/// What a skipped test writes; `scripts/test` counts these lines as skipped, not passed.
pub const SKIP_MARKER: &str = "clump-test-skipped: ";

/// Marks the running test as skipped (the caller then returns): one line naming the
/// test and why, written to stderr past the test harness's capture so that it shows and
/// `scripts/test` counts it.
pub fn skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let line = format!("{SKIP_MARKER}{test}: {why}\n");
    // One write: the line stays whole among the harness's own output.
    let _ = std::io::stderr().write_all(line.as_bytes());
}
