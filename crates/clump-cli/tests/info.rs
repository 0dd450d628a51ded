//! `clump info` through the real binary.

use std::process::Command;

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

fn info(env: &[(&str, &str)]) -> (Option<i32>, String) {
    let o = Command::new(CLUMP)
        .arg("info")
        .env_remove("CLUMP_CREDITS")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn line<'a>(out: &'a str, start: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starting with {start:?} in:\n{out}"))
}

#[test]
fn info_names_version_machine_and_settings_with_their_source() {
    let (code, out) = info(&[("CLUMP_SPIN_US", "7")]);
    assert_eq!(code, Some(0), "{out}");
    assert!(line(&out, "clump ").contains(env!("CARGO_PKG_VERSION")));
    assert!(line(&out, "host: ").contains(" cores, load average "));
    assert!(line(&out, "/dev/shm: ").contains("GiB free"));
    let doorbell = line(&out, "eBPF socket doorbell: ");
    assert!(doorbell.contains("works") || doorbell.contains("not available"));
    let cma = line(&out, "cross-memory attach (process_vm_readv): ");
    assert!(cma.contains("works") || cma.contains("not available"));
    let seal = line(&out, "datagram seal (CLUMP_NET_AUTH): AEGIS ");
    assert!(
        seal.contains(" a 64 KiB one in ") && seal.ends_with(" GB/s)"),
        "{out}"
    );
    let words = |l: &str| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        words(line(&out, "CLUMP_SPIN_US")),
        ["CLUMP_SPIN_US", "7", "environment"]
    );
    assert_eq!(
        words(line(&out, "CLUMP_CREDITS")),
        ["CLUMP_CREDITS", "64", "default"]
    );
}

#[test]
fn info_reports_a_bad_setting() {
    let (code, out) = info(&[("CLUMP_CREDITS", "0")]);
    assert_eq!(code, Some(1));
    assert!(
        line(&out, "error: ").contains("CLUMP_CREDITS=\"0\" is invalid"),
        "{out}"
    );
}
