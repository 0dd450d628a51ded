//! One configuration table for every layer: `clump info` shows each layer's variables
//! with their source, and a misspelt `CLUMP_*` name is warned about once per job.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");
const SLIP: &str = "CLUMP_NET_TIMEOUT is not a clump setting and is ignored \
                    (did you mean CLUMP_NET_TIMEOUT_MS?)";

fn info(env: &[(&str, &str)]) -> Output {
    Command::new(CLUMP)
        .arg("info")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn words_of(out: &str, name: &str) -> Vec<String> {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in:\n{out}"));
    line.split_whitespace().map(str::to_owned).collect()
}

fn hello() -> PathBuf {
    Path::new(CLUMP).parent().unwrap().join("examples/hello")
}

#[test]
fn info_shows_every_layers_settings_with_their_source() {
    let o = info(&[
        ("CLUMP_NET_AUTH", "1"),
        ("CLUMP_MPI_EAGER_SHM", "4K"),
        ("SHMEM_SYMMETRIC_SIZE", "32M"),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let w = |name| words_of(&out, name);
    assert_eq!(w("CLUMP_NET_AUTH"), ["CLUMP_NET_AUTH", "1", "environment"]);
    assert_eq!(
        w("CLUMP_NET_HEARTBEAT"),
        ["CLUMP_NET_HEARTBEAT", "1", "default"]
    );
    assert_eq!(w("CLUMP_NET_REORDER_BYTES")[2], "default");
    assert_eq!(
        w("CLUMP_MPI_EAGER_SHM"),
        ["CLUMP_MPI_EAGER_SHM", "4K", "environment"]
    );
    assert_eq!(w("CLUMP_MPI_BIND"), ["CLUMP_MPI_BIND", "core", "default"]);
    assert_eq!(
        w("CLUMP_GAS_SEGMENT"),
        ["CLUMP_GAS_SEGMENT", "64M", "default"]
    );
    assert_eq!(
        w("SHMEM_SYMMETRIC_SIZE"),
        ["SHMEM_SYMMETRIC_SIZE", "32M", "environment"]
    );
    assert!(!out.contains("warning"), "{out}");
}

#[test]
fn info_reports_a_layers_bad_value_and_a_misspelt_name() {
    let o = info(&[("CLUMP_MPI_BIND", "cores"), ("CLUMP_NET_TIMEOUT", "5")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("error: environment variable CLUMP_MPI_BIND=\"cores\" is invalid: expected core or none"),
        "{out}"
    );
    assert!(out.contains(SLIP), "{out}");
}

#[test]
fn the_launcher_warns_once_per_job_about_a_misspelt_name() {
    for how in [
        ["-x", "CLUMP_NET_TIMEOUT=5"],
        ["-x", "CLUMP_TEST_UNWARNED=1"],
    ] {
        let o = Command::new(CLUMP)
            .args(["run", "-n", "3"])
            .args(how)
            .arg(hello())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let expected = usize::from(how[1].starts_with("CLUMP_NET"));
        assert_eq!(
            err.matches("is not a clump setting").count(),
            expected,
            "{how:?}: {err}"
        );
        assert_eq!(err.matches(SLIP).count(), expected, "{err}");
    }
    // From the launcher's own environment too; the ranks it started stay quiet.
    let o = Command::new(CLUMP)
        .args(["run", "-n", "3"])
        .arg(hello())
        .env("CLUMP_NET_TIMEOUT", "5")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches(SLIP).count(), 1, "{err}");
    assert!(err.starts_with("clump run: warning: "), "{err}");
}

#[test]
fn a_process_started_without_the_launcher_warns_as_rank_0() {
    let o = Command::new(hello())
        .env("CLUMP_NET_TIMEOUT", "5")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches(SLIP).count(), 1, "{err}");
}
