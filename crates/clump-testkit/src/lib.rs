//! What clump's multi-process tests share: the real launcher beside the test build, and a
//! job run through it whose every rank must report a line.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

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

/// Longest a job may take before the test kills it: a guard against a hang, with room
/// for a machine loaded twentyfold.
const JOB_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs `launcher run -n n PLACEMENT -- program ARGS` with `env` added (the one job runner
/// of every crate's tests), killed after [`JOB_TIMEOUT`].
pub fn run(
    launcher: &Path,
    n: u32,
    placement: &[&str],
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(launcher);
    cmd.args(["run", "-n", &n.to_string()])
        .args(placement)
        .arg("--")
        .arg(program)
        .args(args)
        .envs(env.iter().copied());
    wait_with_timeout(cmd)
}

/// Runs `cmd` with its output captured (read while it runs: a job that writes more than
/// a pipe holds must not block on it); a job that takes longer than [`JOB_TIMEOUT`] is
/// killed and the test fails.
pub fn wait_with_timeout(mut cmd: Command) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?} does not start: {e}"));
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match finished.recv_timeout(JOB_TIMEOUT) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            // The job's own launcher: killing it ends its ranks.
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("{cmd:?} took longer than {JOB_TIMEOUT:?}");
        }
    }
}

/// Asserts the job succeeded and `needle` appears `times` times in its output; returns it.
pub fn assert_ok(out: &Output, needle: &str, times: usize) -> String {
    assert_ok_in(out, needle, times, "")
}

fn assert_ok_in(out: &Output, needle: &str, times: usize, context: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{context}job failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(
        stdout.matches(needle).count(),
        times,
        "{context}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

/// Runs `program` through `clump run -n n` with `placement` (`--transport udp`,
/// `--hosts 2`, ...) and `env`, and asserts the job succeeded with `ok_line` printed once
/// per rank.
pub fn run_job(n: u32, placement: &[&str], program: &str, env: &[(&str, &str)], ok_line: &str) {
    let out = run(&launcher(), n, placement, Path::new(program), &[], env);
    let context = format!("n={n} {placement:?} {env:?}: ");
    assert_ok_in(&out, ok_line, n as usize, &context);
}

/// Runs of each multithreaded program in a row: 10 under `CLUMP_SOAK=1` (the stress run
/// of the threads tests, which `.ci/run` makes), 1 otherwise.
pub fn soak_runs() -> usize {
    match std::env::var("CLUMP_SOAK").as_deref() {
        Ok("1") => 10,
        _ => 1,
    }
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
