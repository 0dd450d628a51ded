//! `clump run`'s command line as mpirun users write it, through the real binary, with
//! the hosts of `--host` as far as they can be checked without other hosts (this
//! machine's own names start without ssh; `scripts/ssh-test` starts ranks over ssh on
//! network namespaces).

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

/// Any clump subcommand (`run`, `mpirun`, ...).
fn clump(args: &[&str]) -> Output {
    Command::new(CLUMP).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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

#[test]
fn single_dash_forms_are_options_and_unknown_ones_errors_not_help() {
    // `-hostfilx` once read as `-h` (help, status 0): a batch script "succeeded".
    for launcher in ["run", "mpirun", "oshrun"] {
        let o = clump(&[launcher, "-hostfilx", "hf", "-n", "2", "true"]);
        assert_eq!(o.status.code(), Some(2), "{launcher}: {o:?}");
        assert!(o.stdout.is_empty(), "{launcher}: {o:?}");
        assert!(
            stderr(&o).contains("unexpected argument '--hostfilx'"),
            "{launcher}: {o:?}"
        );
        let o = clump(&[
            launcher,
            "-hostfile",
            "/no/such/hostfile",
            "-np",
            "2",
            "true",
        ]);
        assert_eq!(o.status.code(), Some(2), "{launcher}: {o:?}");
        assert!(
            stderr(&o)
                .contains("cannot read hostfile /no/such/hostfile: No such file or directory"),
            "{launcher}: {o:?}"
        );
    }
}

#[test]
fn this_machines_names_start_without_ssh_each_its_own_host() {
    let o = clump(&[
        "mpirun",
        "-host",
        "localhost:2",
        "-np",
        "2",
        "-map-by",
        "node",
        "sh",
        "-c",
        "echo rank $CLUMP_RANK host $CLUMP_HOST net $CLUMP_NET",
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout_lines(&o),
        ["rank 0 host 0 net 0", "rank 1 host 0 net 0"]
    );
}

#[test]
fn bind_to_core_gives_each_rank_of_a_host_its_own_core() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = cpus.min(4).to_string();
    let o = clump(&[
        "run",
        "--host",
        &format!("localhost:{n}"),
        "-n",
        &n,
        "--bind-to",
        "core",
        "sh",
        "-c",
        "grep Cpus_allowed_list /proc/self/status",
    ]);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    let mut each: Vec<&str> = lines
        .iter()
        .map(|l| l.rsplit('\t').next().unwrap_or_default())
        .collect();
    each.dedup();
    assert_eq!(each.len(), lines.len(), "{lines:?}");
    assert!(each.iter().all(|c| c.parse::<u32>().is_ok()), "{lines:?}");
}

#[test]
fn bad_host_lists_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--host", "a,b", "-n", "3"],
            "3 processes but only 2 slots on 2 hosts",
        ),
        (&["--host", "a:0", "-n", "1"], "is not a number of slots"),
        (&["--host", "a", "--hostfile", "hf", "-n", "1"], "not both"),
        (
            &["--host", "a", "--hosts", "2", "-n", "2"],
            "--hosts K makes virtual hosts",
        ),
        (&["--map-by", "ppr", "-n", "1"], "invalid value 'ppr'"),
    ];
    for (args, why) in cases {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        all.push("true");
        let o = clump(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn an_unreachable_remote_shell_names_the_host() {
    // `false` as the remote shell: it fails at once, as ssh does when it cannot connect.
    let o = Command::new(CLUMP)
        .args(["run", "--host", "localhost,192.0.2.1", "-n", "2", "true"])
        .env("CLUMP_RSH", "false")
        .env("CLUMP_NET_IP", "127.0.0.1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        stderr(&o).contains("rank 1 (on host 192.0.2.1) exited with status 1; ending the job"),
        "{}",
        stderr(&o)
    );
}
