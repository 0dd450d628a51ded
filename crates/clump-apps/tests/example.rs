//! `examples/rust/splitc.rs` runs on 1, 2 and 4 processes over shared memory, UDP and 2
//! virtual hosts, and gives the same answer everywhere: relaxation keeps the sum, and the
//! histogram counts every value once.

use std::path::Path;
use std::process::Command;

#[test]
fn the_split_c_style_example_runs_everywhere_with_one_answer() {
    let launcher = clump_testkit::launcher();
    let example = Path::new(&launcher)
        .parent()
        .unwrap()
        .join("examples/splitc");
    // `cargo test` builds the examples, `cargo test --test example` does not.
    if !example.exists() {
        let built = Command::new(env!("CARGO"))
            .args([
                "build",
                "--release",
                "-p",
                "clump-apps",
                "--example",
                "splitc",
            ])
            .status()
            .unwrap();
        assert!(built.success(), "building the example failed");
    }
    for (procs, extra) in [
        (1, &[][..]),
        (2, &[][..]),
        (4, &[][..]),
        (2, &["--transport", "udp"][..]),
        (4, &["--transport", "udp"][..]),
        (2, &["--hosts", "2"][..]),
        (4, &["--hosts", "2"][..]),
    ] {
        let out = clump_testkit::run(&launcher, procs, extra, &example, &[], &[]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{procs} {extra:?}: {out:?}");
        // The start values (i mod 7 over 1000 * P values) sum to 3 * 1000 * P minus what
        // the last partial cycle leaves out; the ring keeps it.
        let start: u64 = (0..1000 * procs as u64).map(|i| i % 7).sum();
        let line = stdout.lines().next().unwrap_or_default();
        assert!(line.starts_with(&format!("sum {start}.000 ")), "{line}");
        let hist: u64 = line
            .split(['[', ']'])
            .nth(1)
            .unwrap()
            .split(", ")
            .map(|c| c.parse::<u64>().unwrap())
            .sum();
        assert_eq!(hist, 1000 * procs as u64, "{line}");
    }
}
