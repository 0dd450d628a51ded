//! `clump run` end to end: the real binary launching the real `clump-test-boot` helper.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");
const PROBE: &str = env!("CARGO_BIN_EXE_clump-test-boot");

/// How long a job may take before the test calls it hung. Only a guard: what a test
/// checks is which events ended the job (its messages), never how fast, so that a
/// machine loaded twentyfold passes as an idle one does.
const HANG: Duration = Duration::from_secs(600);

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Outcome {
    /// The launcher's own lines on stderr.
    fn launcher_lines(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("clump run:"))
            .collect()
    }
}

/// A private TMPDIR per test, so that leftovers of exactly this job can be checked.
fn tmpdir() -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "launcher-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "left behind in {}: {left:?}",
        dir.display()
    );
    std::fs::remove_dir(dir).unwrap();
}

fn launcher(tmp: &Path, args: &[&str]) -> Child {
    Command::new(CLUMP)
        .arg("run")
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for the launcher, killing it (and failing) if it takes longer than `limit`.
fn finish(mut child: Child, started: Instant, limit: Duration) -> Outcome {
    let out = child.stdout.take();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut out) = out {
            out.read_to_string(&mut s).unwrap();
        }
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "clump run took longer than {limit:?}; stderr: {}",
                err.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Outcome {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        elapsed: started.elapsed(),
    }
}

/// Runs `clump run ARGS` to completion with its own TMPDIR, then checks nothing is left in it.
fn run(args: &[&str], limit: Duration) -> Outcome {
    let tmp = tmpdir();
    let o = finish(launcher(&tmp, args), Instant::now(), limit);
    assert_empty(&tmp);
    o
}

fn probe(n: u32, extra: &[&str]) -> Outcome {
    let n = n.to_string();
    let mut args = vec!["-n", &n, PROBE];
    args.extend_from_slice(extra);
    run(&args, HANG)
}

/// The `rank R/N ok ...` lines, checked to come from one job and one private socket directory.
fn ok_lines(o: &Outcome, n: usize) {
    let oks: Vec<&str> = o.stdout.lines().filter(|l| l.contains(" ok ")).collect();
    assert_eq!(oks.len(), n, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    for r in 0..n {
        assert!(
            oks.iter()
                .any(|l| l.starts_with(&format!("rank {r}/{n} ok "))),
            "rank {r} missing"
        );
    }
    let field = |l: &str, k: &str| {
        l.split(' ')
            .find_map(|w| w.strip_prefix(k))
            .unwrap()
            .to_owned()
    };
    let job = field(oks[0], "job=");
    assert_eq!(job.len(), 16);
    assert!(job.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(oks
        .iter()
        .all(|l| field(l, "job=") == job && field(l, "mode=") == "700"));
    // The socket's directory is the launcher's, and its name does not give the job id away.
    let boot = field(oks[0], "boot=");
    assert!(boot.contains("/clump-"), "{boot}");
    assert!(!boot.contains(&job), "{boot}");
}

#[test]
fn a_sigkilled_launchers_scratch_directory_is_removed_by_the_next_run() {
    let tmp = tmpdir();
    let started = Instant::now();
    let mut child = launcher(&tmp, &["-n", "1", "sleep", "30"]);
    while std::fs::read_dir(&tmp).unwrap().next().is_none() {
        assert!(started.elapsed() < HANG, "no scratch directory");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    assert!(std::fs::read_dir(&tmp).unwrap().next().is_some());
    let o = finish(launcher(&tmp, &["-n", "1", "true"]), Instant::now(), HANG);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_empty(&tmp);
}

#[test]
fn four_ranks_allgather_and_barrier() {
    let o = probe(4, &[]);
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    ok_lines(&o, 4);
    assert!(o.launcher_lines().is_empty(), "{}", o.stderr);
}

#[test]
fn sixteen_ranks_on_two_cores_finish_quickly() {
    let o = probe(16, &["--barriers", "30"]);
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    ok_lines(&o, 16);
}

#[test]
fn a_failing_rank_ends_the_job_with_its_status() {
    let o = probe(4, &["--exit", "2:3"]);
    assert_eq!(o.code, Some(3), "stderr: {}", o.stderr);
    let lines = o.launcher_lines();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(
        lines[0].contains("rank 2 (pid ") && lines[0].contains("status 3"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("clump run: summary: rank 2 failed")
            && lines[1].ends_with("; exit status 3"),
        "{}",
        lines[1]
    );
}

/// `MPIEXEC_TIMEOUT` (hydra's and Open MPI's): past it the job is ended and says why; a
/// value that is not whole seconds is refused before anything starts.
#[test]
fn a_job_past_mpiexec_timeout_is_ended() {
    let tmp = tmpdir();
    let child = Command::new(CLUMP)
        .args(["run", "-n", "2", "sleep", "60"])
        .env("TMPDIR", &tmp)
        .env("MPIEXEC_TIMEOUT", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = finish(child, Instant::now(), HANG);
    assert_empty(&tmp);
    assert_eq!(o.code, Some(124), "stderr: {}", o.stderr);
    assert!(o.elapsed < Duration::from_secs(20), "{:?}", o.elapsed);
    let lines = o.launcher_lines();
    assert!(
        lines[0].contains("time limit (MPIEXEC_TIMEOUT=1)"),
        "{}",
        o.stderr
    );
    let bad = Command::new(CLUMP)
        .args(["run", "-n", "1", "true"])
        .env("MPIEXEC_TIMEOUT", "soon")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("MPIEXEC_TIMEOUT=\"soon\""));
}

#[test]
fn a_killed_rank_ends_the_job_quickly() {
    let o = probe(4, &["--kill", "1"]);
    assert_eq!(o.code, Some(128 + 9), "stderr: {}", o.stderr);
    let lines = o.launcher_lines();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    // Quickly: the launcher ended the others on the kill, before any gave up by itself.
    assert_eq!(
        lines[1],
        "clump run: summary: rank 1 failed, ranks 0,2-3 ended by the launcher; exit status 137"
    );
    assert!(
        lines[0].contains("rank 1 (pid ") && lines[0].contains("signal 9 (SIGKILL)"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_rank_leaving_without_joining_the_barrier_ends_the_job() {
    let o = probe(3, &["--exit", "1:0"]);
    assert_eq!(o.code, Some(1), "stderr: {}", o.stderr);
    let lines = o.launcher_lines();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(
        lines[0].contains("rank 1 (pid ") && lines[0].contains("without entering barrier #2"),
        "{}",
        lines[0]
    );
}

#[test]
fn abort_ends_the_job_with_its_status_and_reason() {
    let o = probe(4, &["--abort", "1:7:bad input file"]);
    assert_eq!(o.code, Some(7), "stderr: {}", o.stderr);
    let lines = o.launcher_lines();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(
        lines[0].contains("rank 1 (pid ") && lines[0].contains("status 7: bad input file"),
        "{}",
        lines[0]
    );
}

#[test]
fn ranks_that_ignore_sigterm_are_killed_after_the_grace() {
    // Only SIGKILL ends the others: the job's end is the proof, however long it took.
    let script = "trap '' TERM; [ $CLUMP_RANK = 1 ] && exit 5; exec sleep 100000";
    let o = run(&["-n", "3", "sh", "-c", script], HANG);
    assert_eq!(o.code, Some(5), "stderr: {}", o.stderr);
    assert_eq!(o.launcher_lines().len(), 2, "{}", o.stderr);
    assert_eq!(
        o.launcher_lines()[1],
        "clump run: summary: rank 1 failed, ranks 0,2 ended by the launcher; exit status 5"
    );
}

#[test]
fn a_missing_program_is_a_clear_error() {
    let o = run(&["-n", "2", "/nonexistent/clump-program"], HANG);
    assert_eq!(o.code, Some(127));
    assert_eq!(
        o.stderr.trim(),
        "clump run: cannot start /nonexistent/clump-program: No such file or directory"
    );
}

#[test]
fn bad_process_counts_are_refused() {
    for n in ["0", "4097", "many"] {
        let o = run(&["-n", n, PROBE], HANG);
        assert_eq!(o.code, Some(2), "-n {n}: {}", o.stderr);
        assert!(
            o.stderr.contains(&format!("invalid value '{n}'")),
            "{}",
            o.stderr
        );
    }
    let o = run(&["--np", "2"], HANG);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
}

#[test]
fn program_arguments_are_passed_through() {
    let o = run(&["--np", "2", "echo", "-n", "x", "--", "-y"], HANG);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    // Each rank's unfinished line is ended, not joined to the other's.
    assert_eq!(o.stdout, "x -- -y\nx -- -y\n");
}

#[test]
fn tagged_output_names_the_rank() {
    let o = run(
        &[
            "-n",
            "2",
            "--tag-output",
            "sh",
            "-c",
            "echo out; echo err >&2",
        ],
        HANG,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for r in 0..2 {
        assert!(
            o.stdout.lines().any(|l| l == format!("[{r}] out")),
            "{}",
            o.stdout
        );
        assert!(
            o.stderr.lines().any(|l| l == format!("[{r}] err")),
            "{}",
            o.stderr
        );
    }
}

#[test]
fn leftover_shared_memory_of_the_job_is_removed() {
    let o = probe(2, &["--shm"]);
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    let job = o.stdout.split("job=").nth(1).unwrap()[..16].to_owned();
    assert!(!Path::new(&format!("/dev/shm/clump-{job}-probe")).exists());
}

/// Ctrl-C (or SIGTERM) to the launcher while ranks wait: the whole job goes, 128+signal.
fn interrupt(sig: i32) {
    let tmp = tmpdir();
    let started = Instant::now();
    let mut child = launcher(&tmp, &["-n", "4", PROBE, "--sleep", "1"]);
    // Every rank prints "ready" after the allgather; then 0, 2, 3 wait in a barrier.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut pids = Vec::new();
    while pids.len() < 4 {
        let line = lines.next().expect("launcher ended early").unwrap();
        pids.push(line.split("pid=").nth(1).unwrap().parse::<u32>().unwrap());
    }
    std::thread::sleep(Duration::from_millis(100));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let signal = nix::sys::signal::Signal::try_from(sig).unwrap();
    nix::sys::signal::kill(pid, signal).unwrap();
    child.stdout = None;
    let o = finish(child, started, HANG);
    assert_eq!(o.code, Some(128 + sig), "stderr: {}", o.stderr);
    assert!(
        o.launcher_lines()[0].contains("interrupted by SIG"),
        "{}",
        o.stderr
    );
    for pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "rank pid {pid} survived"
        );
    }
    drop(lines);
    assert_empty(&tmp);
}

#[test]
fn sigint_tears_the_job_down() {
    interrupt(libc::SIGINT);
}

#[test]
fn sigterm_tears_the_job_down() {
    interrupt(libc::SIGTERM);
}

#[test]
fn the_job_id_and_key_are_nowhere_another_user_can_read_them() {
    let first = probe(2, &["--secret"]);
    assert_eq!(first.code, Some(0), "stderr: {}", first.stderr);
    // The scratch directory: private (0700), named without the id (checked here).
    ok_lines(&first, 2);
    // Not in a command line, file name, socket name or world-readable environment.
    assert_eq!(
        first.stdout.matches("secret=hidden").count(),
        2,
        "{}",
        first.stdout
    );
    // Drawn afresh for every job, not derived from a clock or a pid.
    let second = probe(2, &[]);
    let id = |o: &Outcome| o.stdout.split("job=").nth(1).unwrap()[..16].to_owned();
    assert_ne!(id(&first), id(&second));
}

/// Opt-in (`CLUMP_SCALE_TESTS=1`, a few minutes on 2 cores): 1024 processes start, join
/// and pass barriers; the start-up timeout measures the launcher's silence, so ranks
/// started first do not give up while it starts the last ones.
#[test]
fn a_thousand_and_twenty_four_ranks_start() {
    if std::env::var_os("CLUMP_SCALE_TESTS").is_none() {
        clump_testkit::skip("set CLUMP_SCALE_TESTS=1 to start 1024 processes");
        return;
    }
    let o = run(
        &["-n", "1024", PROBE, "--barriers", "2"],
        Duration::from_secs(900),
    );
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    ok_lines(&o, 1024);
}

/// Runs README's Rust example (`examples/hello`, which `cargo test` builds) as a job of
/// `n` and checks that every rank got its reply.
fn hello_job(n: u32, limit: Duration) {
    let hello = Path::new(CLUMP).parent().unwrap().join("examples/hello");
    let n_arg = n.to_string();
    let o = run(&["-n", &n_arg, hello.to_str().unwrap()], limit);
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    let mut lines: Vec<&str> = o.stdout.lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<String> = (0..n)
        .map(|r| format!("rank {r}: reply [2, 3, 4]"))
        .collect();
    expected.sort_unstable();
    assert_eq!(lines, expected, "stderr: {}", o.stderr);
    eprintln!("hello with {n} ranks: {:?}", o.elapsed);
}

/// More ranks than cores, each mapping every other at start-up (a second or so).
#[test]
fn the_hello_example_runs_as_a_job_of_64() {
    hello_job(64, HANG);
}

/// Opt-in (`CLUMP_SCALE_TESTS=1`, seconds on 2 cores): the real AM program with 1024
/// ranks, which maps peers' queues on first use only, so start-up does not grow as n^2.
#[test]
fn the_hello_example_runs_as_a_job_of_1024() {
    if std::env::var_os("CLUMP_SCALE_TESTS").is_none() {
        clump_testkit::skip("set CLUMP_SCALE_TESTS=1 to run 1024 processes of examples/hello");
        return;
    }
    hello_job(1024, Duration::from_secs(900));
}
