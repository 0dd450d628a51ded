//! Building C programs against the built libclump and running them through `clump run`.
//!
//! The library and the `clump` binary are found in the target directory this test runs
//! from (`target/release`, or wherever `CARGO_TARGET_DIR` points), and brought up to date
//! first: `cargo test -p clump-capi` builds neither (it builds the library only as a unit
//! test harness), so the C programs would otherwise run against whatever was built last.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The virtual host counts every multi-process test runs with: one host (shared memory)
/// and two (shared memory within each, UDP between them).
pub const HOSTS: &[u32] = &[1, 2];

pub struct Tree {
    /// The target profile directory: `clump`, `libclump.so`, `libclump.a`.
    pub bin: PathBuf,
    pub repo: PathBuf,
    /// Where the C programs are built.
    pub out: PathBuf,
}

pub fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let bin = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/PROFILE")
            .to_path_buf();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .unwrap();
        build(&bin, &repo);
        let out = bin.join("c-tests");
        std::fs::create_dir_all(&out).unwrap();
        Tree { bin, repo, out }
    })
}

fn build(bin: &Path, repo: &Path) {
    // Two builds: `--bin clump` would also filter clump-capi's targets down to none.
    for args in [
        &["-p", "clump-capi"][..],
        &["-p", "clump-cli", "--bin", "clump"],
    ] {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.current_dir(repo)
            .arg("build")
            .args(args)
            .env("CARGO_TARGET_DIR", bin.parent().unwrap());
        if bin.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "cargo build {args:?} failed");
    }
    for file in ["clump", "libclump.so", "libclump.a"] {
        assert!(bin.join(file).is_file(), "the build made no {file}");
    }
}

/// `clump config --cflags --libs`, split into arguments.
fn clump_flags() -> Vec<String> {
    let out = Command::new(tree().bin.join("clump"))
        .args(["config", "--cflags", "--libs"])
        .output()
        .expect("clump config runs");
    assert!(out.status.success(), "clump config: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Compiles `src` (relative to the repository) into program `name`, with warnings as errors.
pub fn compile(src: &str, name: &str) -> PathBuf {
    let t = tree();
    built_as(name, |exe| {
        let out = Command::new("cc")
            .args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread"])
            .arg(format!("-I{}", t.repo.join("examples/c").display()))
            .arg(t.repo.join(src))
            .arg("-o")
            .arg(exe)
            .args(clump_flags())
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "cc {src} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

/// Builds program `name` through `build(path)` into a path of its own, then renames it
/// into place: tests running at once build the same program, and one must never run
/// (or overwrite) a file another is still writing.
fn built_as(name: &str, build: impl FnOnce(&Path)) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let out = &tree().out;
    let exe = out.join(name);
    let unique = NEXT.fetch_add(1, Ordering::Relaxed);
    let partial = out.join(format!(".{name}.{}.{unique}", std::process::id()));
    build(&partial);
    std::fs::rename(&partial, &exe).expect("rename the built program into place");
    exe
}

/// Builds a program the way a user does: `clump WRAPPER SRC -o EXE` (`mpicc`, `oshcc`),
/// with warnings as errors.
#[allow(dead_code)] // only the tests of the MPI and OpenSHMEM wrappers build this way
pub fn compile_with(wrapper: &str, src: &str, name: &str) -> PathBuf {
    let t = tree();
    built_as(name, |exe| {
        let out = Command::new(t.bin.join("clump"))
            .args([wrapper, "-O2", "-Wall", "-Werror"])
            .arg(t.repo.join(src))
            .arg("-o")
            .arg(exe)
            .output()
            .unwrap_or_else(|e| panic!("clump {wrapper} runs: {e}"));
        assert!(
            out.status.success(),
            "clump {wrapper} {src}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

#[allow(unused_imports)] // each test file uses part of it
pub use clump_testkit::{assert_ok, wait_with_timeout};

/// Runs `program args` as a job of `n` processes on `hosts` virtual hosts.
pub fn run(n: u32, hosts: u32, program: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let hosts = hosts.to_string();
    let placement = ["--hosts", hosts.as_str()];
    let placement: &[&str] = if hosts == "1" { &[] } else { &placement };
    clump_testkit::run(&tree().bin.join("clump"), n, placement, program, args, env)
}

/// Runs `clump bench ARGS` (which must succeed) and returns its JSON object, or None
/// (saying so) where Open MPI, the bench's baseline, is not installed.
#[allow(dead_code)] // only the bench tests run the bench
pub fn bench_json(args: &[&str]) -> Option<serde_json::Value> {
    let out = Command::new(tree().bin.join("clump"))
        .arg("bench")
        .args(args)
        .output()
        .expect("clump bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    if stdout.contains("skipped: Open MPI is not installed") {
        eprintln!("skipped: Open MPI is not installed");
        return None;
    }
    Some(serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}")))
}

/// Where the MPI test programs run, as `clump LAUNCHER -n N PLACEMENT -- exe` commands:
/// 1, 2 and 4 processes over shared memory, 2 and 4 over UDP and on 2 virtual hosts (one
/// process has no peer to reach over the network); each with its process count.
#[allow(dead_code)] // only the tests of MPI programs, C and Fortran, run this way
pub fn everywhere(launcher: &str, exe: &Path) -> Vec<(Command, usize)> {
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    let mut runs = Vec::new();
    for placement in placements {
        for n in [1, 2, 4] {
            if n == 1 && !placement.is_empty() {
                continue;
            }
            let mut cmd = Command::new(tree().bin.join("clump"));
            cmd.args([launcher, "-n", &n.to_string()])
                .args(placement)
                .arg("--")
                .arg(exe);
            runs.push((cmd, n));
        }
    }
    runs
}

/// Runs `exe` through `clump LAUNCHER` (`run`, `mpiexec`) [`everywhere`]; each rank must
/// print `"{name} ok"`.
#[allow(dead_code)] // only the tests of MPI programs, C and Fortran, run this way
pub fn runs_everywhere(launcher: &str, exe: &Path, name: &str) {
    for (cmd, n) in everywhere(launcher, exe) {
        assert_ok(&wait_with_timeout(cmd), &format!("{name} ok"), n);
    }
}

/// A fresh `scripts/install` of this build under the tests' folder `name`: its prefix.
pub fn install(name: &str) -> PathBuf {
    let t = tree();
    let prefix = t.out.join(name);
    let _ = std::fs::remove_dir_all(&prefix);
    let status = Command::new(t.repo.join("scripts/install"))
        .args([
            "--prefix".as_ref(),
            prefix.as_os_str(),
            "--no-build".as_ref(),
        ])
        .env("CARGO_TARGET_DIR", t.bin.parent().unwrap())
        .status()
        .expect("scripts/install runs");
    assert!(status.success());
    prefix
}

/// The functions libclump.so exports (`nm -D --defined-only`, text symbols).
#[allow(dead_code)] // the name tests' helper, which the program tests do not use
pub fn exported_functions() -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(tree().bin.join("libclump.so"))
        .output()
        .expect("nm runs");
    assert!(out.status.success(), "nm: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [_, "T", name] => Some(name.to_owned()),
            _ => None,
        })
        .collect()
}
