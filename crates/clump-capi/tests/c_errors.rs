//! Error text for C programs: README's C example (`examples/c/hello.c`) runs, checks
//! every call, and a bad `CLUMP_*` value stops it at start-up with the variable named
//! instead of a hang; examples run with too few ranks say so.

#[allow(dead_code)] // not every helper serves these tests
mod support;

use support::{assert_ok, compile, run, tree, HOSTS};

#[test]
fn readme_c_example_is_hello_c_and_runs() {
    let t = tree();
    let readme = std::fs::read_to_string(t.repo.join("README.md")).unwrap();
    let file = std::fs::read_to_string(t.repo.join("examples/c/hello.c")).unwrap();
    assert!(
        readme.contains(&format!("```c\n{file}```\n")),
        "README.md's C example and examples/c/hello.c differ"
    );
    let exe = compile("examples/c/hello.c", "hello");
    for &hosts in HOSTS {
        assert_ok(&run(3, hosts, &exe, &[], &[]), "got 42", 3);
    }
}

/// README's C example with more ranks than cores: its `AM_Poll` loop must leave the
/// core to the others.
#[test]
fn readme_c_example_runs_with_many_ranks() {
    hello_ranks(64);
}

/// The same with 1024 ranks: `CLUMP_SCALE_TESTS=1` (seconds on 2 cores).
#[test]
fn readme_c_example_runs_with_1024_ranks() {
    if std::env::var_os("CLUMP_SCALE_TESTS").is_none() {
        clump_testkit::skip("set CLUMP_SCALE_TESTS=1 to run 1024 ranks");
        return;
    }
    hello_ranks(1024);
}

fn hello_ranks(n: u32) {
    let exe = compile("examples/c/hello.c", "hello");
    let out = run(n, 1, &exe, &[], &[]);
    let stdout = assert_ok(&out, "got 42", n as usize);
    for r in 0..n {
        assert!(
            stdout.contains(&format!("rank {r} got 42\n")),
            "rank {r} missing"
        );
    }
}

#[test]
fn a_bad_setting_names_the_variable_and_ends_the_job() {
    let exe = compile("examples/c/hello.c", "hello");
    let out = run(2, 1, &exe, &[], &[("CLUMP_CREDITS", "0")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("clump_spmd_startup: bad argument: environment variable CLUMP_CREDITS=\"0\" is invalid: must be between 1 and 64"),
        "{err}"
    );
}

#[test]
fn a_failed_call_is_reported_by_name() {
    let exe = compile("crates/clump-capi/tests/c/error_text.c", "error_text");
    let out = run(1, 1, &exe, &[], &[]);
    assert_ok(&out, "error_text ok", 1);
}

#[test]
fn examples_run_with_too_few_ranks_say_so() {
    for name in ["pingpong", "bulk"] {
        let exe = compile(&format!("examples/c/{name}.c"), name);
        let out = run(1, 1, &exe, &[], &[]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{name}.c needs -n 2 or more (this job has 1)")),
            "{err}"
        );
    }
}

#[test]
fn a_missing_launcher_or_process_manager_is_named_not_a_bare_code() {
    let exe = compile("examples/c/hello.c", "hello");
    for (var, value, cause) in [
        ("CLUMP_BOOT", "pmi2", "PMI-2: PMI_FD is not set"),
        ("CLUMP_BOOT", "clump", "CLUMP_BOOT_SOCKET is unset"),
        // Without a PMIx server: libpmix is missing, or PMIx_Init says unreachable.
        ("CLUMP_BOOT", "pmix", "PMIx: "),
        (
            "CLUMP_SIZE",
            "2",
            "no launcher or process manager started this process",
        ),
    ] {
        let out = std::process::Command::new(&exe)
            .env(var, value)
            .env_remove("CLUMP_BOOT_SOCKET")
            .env_remove("PMI_FD")
            .env_remove("PMIX_NAMESPACE")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{var}={value}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("clump_spmd_startup:") && err.contains(cause),
            "{var}={value}: {err}"
        );
    }
}
