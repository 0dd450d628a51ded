//! `clump run`'s command line as mpirun users write it, through the real binary.

use std::process::{Command, Output};

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");

fn clump_run(args: &[&str]) -> Output {
    Command::new(CLUMP)
        .arg("run")
        .args(args)
        .env("CLUMP_TEST_PASSED", "from-launcher")
        .output()
        .unwrap()
}

fn stdout_lines(o: &Output) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

#[test]
fn mpirun_process_counts_are_accepted() {
    for spelling in [&["-np", "2"][..], &["-np2"], &["-n2"], &["--np", "2"]] {
        let mut args = spelling.to_vec();
        args.extend(["sh", "-c", "echo rank $CLUMP_RANK of $CLUMP_SIZE"]);
        let o = clump_run(&args);
        assert_eq!(o.status.code(), Some(0), "{spelling:?}: {o:?}");
        assert_eq!(
            stdout_lines(&o),
            ["rank 0 of 2", "rank 1 of 2"],
            "{spelling:?}"
        );
    }
}

#[test]
fn an_unknown_option_is_not_taken_for_the_program() {
    let o = clump_run(&["-n", "2", "--mca", "btl", "true"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unexpected argument '--mca'"), "{err}");
    assert!(!err.contains("cannot start"), "{err}");
}

#[test]
fn the_programs_own_options_are_left_alone() {
    let o = clump_run(&[
        "-n",
        "1",
        "sh",
        "-c",
        "echo \"$@\"",
        "x",
        "-np",
        "3",
        "--hostfile",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(stdout_lines(&o), ["-np 3 --hostfile"]);
}

#[test]
fn environment_variables_are_passed_with_x_and_env() {
    let o = clump_run(&[
        "-n",
        "2",
        "-x",
        "CLUMP_TEST_PASSED",
        "--env",
        "CLUMP_TEST_SET=a=b",
        "-x",
        "CLUMP_TEST_OTHER=c",
        "sh",
        "-c",
        "echo $CLUMP_TEST_PASSED $CLUMP_TEST_SET $CLUMP_TEST_OTHER",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(
        stdout_lines(&o),
        ["from-launcher a=b c", "from-launcher a=b c"]
    );
}

#[test]
fn passing_an_unset_variable_is_an_error() {
    let o = clump_run(&["-n", "1", "-x", "CLUMP_TEST_NEVER_SET", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "clump run: -x CLUMP_TEST_NEVER_SET: CLUMP_TEST_NEVER_SET is not set in the launcher's environment"
    );
}

#[test]
fn a_program_that_cannot_run_exits_126() {
    let dir = std::env::temp_dir();
    let o = clump_run(&["-n", "1", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(126));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.trim().ends_with(": is a directory"), "{err}");

    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("not-executable.sh");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    let o = clump_run(&["-n", "1", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(126));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.trim().ends_with(": not executable"), "{err}");
}
