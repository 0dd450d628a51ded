//! The AM-II C interface from C: the tests in `tests/c/` and the examples in
//! `examples/c/`, compiled with `cc` against libclump and run through `clump run`.

mod support;

use std::path::Path;
use std::process::Command;
use support::{assert_ok, compile, install, run, tree, HOSTS};

#[test]
fn every_kind_with_0_to_16_arguments_and_every_size_limit() {
    let exe = compile("crates/clump-capi/tests/c/kinds.c", "kinds");
    for &hosts in HOSTS {
        for n in [2, 3] {
            assert_ok(&run(n, hosts, &exe, &[], &[]), "kinds ok", n as usize);
        }
    }
}

#[test]
fn each_kind_of_bad_argument_gets_its_error_code() {
    let exe = compile("crates/clump-capi/tests/c/errors.c", "errors");
    assert_ok(&run(1, 1, &exe, &[], &[]), "errors ok", 1);
}

#[test]
fn handler_0_receives_each_returned_message_status() {
    let exe = compile("crates/clump-capi/tests/c/returned.c", "returned");
    for &hosts in HOSTS {
        // Across hosts a request to a freed endpoint (its socket closed) comes back with
        // outcome unknown once the network timeout, shortened here, runs out: it left,
        // and nothing says whether it arrived.
        let (args, statuses): (&[&str], &[&str]) = if hosts > 1 {
            (
                &["net"],
                &[
                    "EBADTAG",
                    "EBADHANDLER",
                    "EBADSEGOFF",
                    "EOUTCOMEUNKNOWN",
                    "EOUTCOMEUNKNOWN (its process exited)",
                ],
            )
        } else {
            (
                &[],
                &[
                    "EBADTAG",
                    "EBADHANDLER",
                    "EBADSEGOFF",
                    "EBADENDPOINT",
                    "EREPLYREJECTED",
                    "EOUTCOMEUNKNOWN (its process exited)",
                ],
            )
        };
        let env = [("CLUMP_NET_TIMEOUT_MS", "1000")];
        let stdout = assert_ok(&run(2, hosts, &exe, args, &env), "returned ok", 3);
        for status in statuses {
            assert!(stdout.contains(status), "{status} missing:\n{stdout}");
        }
    }
}

#[test]
fn segments_in_malloced_static_and_stack_memory_take_longs_and_serve_gets_in_place() {
    let exe = compile(
        "crates/clump-capi/tests/c/program_segments.c",
        "program_segments",
    );
    for &hosts in HOSTS {
        let out = run(2, hosts, &exe, &[], &[]);
        assert_ok(&out, "program segments ok", 6);
        // A sparse 5 GiB segment, written and read past 4 GiB.
        let out = run(2, hosts, &exe, &["large"], &[]);
        assert_ok(&out, "program segments ok", 2);
    }
}

#[test]
fn a_refused_cross_memory_attach_goes_over_the_network_or_comes_back_and_says_why() {
    let exe = compile("crates/clump-capi/tests/c/cma_refused.c", "cma_refused");
    // On one host the launcher leaves the network off unless CLUMP_NET=1.
    for (args, env, outcome, says) in [
        (
            &[][..],
            &[("CLUMP_NET", "1")][..],
            "delivered",
            "go over the network",
        ),
        (
            &["returned"][..],
            &[][..],
            "returned",
            "come back as unreachable",
        ),
    ] {
        let out = run(2, 1, &exe, args, env);
        let stdout = assert_ok(&out, "cma refused ok", 2);
        assert_eq!(stdout.matches(outcome).count(), 2, "{stdout}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("refuses cross-memory attach") && stderr.contains(says),
            "stderr:\n{stderr}"
        );
    }
}

#[test]
fn a_segment_in_memory_the_program_cannot_write_is_refused_unchanged() {
    let exe = compile("crates/clump-capi/tests/c/bad_segments.c", "bad_segments");
    assert_ok(&run(1, 1, &exe, &[], &[]), "bad segments ok", 1);
}

#[test]
fn token_queries_translation_edits_segments_and_events() {
    let exe = compile("crates/clump-capi/tests/c/queries.c", "queries");
    for &hosts in HOSTS {
        let out = run(2, hosts, &exe, &[], &[("CLUMP_TEST_VAR", "hello")]);
        assert_ok(&out, "queries ok", 2);
    }
}

#[test]
fn spmd_exit_ends_the_whole_job_with_its_status() {
    let exe = compile("crates/clump-capi/tests/c/spmd_exit.c", "spmd_exit");
    let out = run(3, 1, &exe, &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "stderr:\n{stderr}");
    assert!(stderr.contains("clump_spmd_exit(3)"), "stderr:\n{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("passed a barrier"));
}

#[test]
fn ping_pong_prints_its_round_trip() {
    let exe = compile("examples/c/pingpong.c", "pingpong");
    for &hosts in HOSTS {
        let stdout = assert_ok(
            &run(2, hosts, &exe, &["500", "5"], &[]),
            "pingpong: rtt_us=",
            1,
        );
        let figure = |key: &str| -> f64 {
            stdout
                .split(key)
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.parse().ok())
                .expect("a round trip figure")
        };
        let (rtt, best) = (figure("rtt_us="), figure("min_us="));
        assert!(rtt > 0.0 && rtt.is_finite() && best <= rtt, "{stdout}");
        // The best batch, not the median: a loaded machine stretches most batches to a
        // scheduler's time slice per round trip (10.9 ms median at a load of 11, best
        // 7.6 us), while one batch with both ranks on a core shows what the path costs.
        assert!(best < 10_000.0, "{stdout}");
    }
}

#[test]
fn remote_read_write_reduction_and_get_put_examples() {
    for (name, n, needle) in [
        ("remote_rw", 4, "remote_rw ok"),
        ("reduce", 4, "reduce ok"),
        ("getput", 3, "getput ok"),
    ] {
        let exe = compile(&format!("examples/c/{name}.c"), name);
        for &hosts in HOSTS {
            let times = if name == "reduce" { 1 } else { n as usize };
            assert_ok(&run(n, hosts, &exe, &[], &[]), needle, times);
        }
    }
}

#[test]
fn bulk_transfer_checks_every_byte() {
    let exe = compile("examples/c/bulk.c", "bulk");
    for &hosts in HOSTS {
        assert_ok(&run(2, hosts, &exe, &[], &[]), "bulk ok", 1);
    }
}

/// `scripts/install` lays out a prefix that `pkg-config` and a static link both use.
#[test]
fn installed_prefix_works_with_pkg_config_and_static_linking() {
    let t = tree();
    let prefix = install("prefix");
    let flags = |package: &str| {
        let pc = Command::new("pkg-config")
            .args(["--cflags", "--libs", package])
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .output()
            .expect("pkg-config runs");
        assert!(pc.status.success(), "{pc:?}");
        String::from_utf8(pc.stdout).unwrap()
    };
    let src = t.repo.join("examples/c/reduce.c");
    let dynamic = t.out.join("reduce-pkgconfig");
    let statik = t.out.join("reduce-static");
    for (exe, package) in [(&dynamic, "clump"), (&statik, "clump-static")] {
        let mut args = vec![
            src.display().to_string(),
            "-o".into(),
            exe.display().to_string(),
        ];
        args.extend(flags(package).split_whitespace().map(str::to_owned));
        let out = Command::new("cc").args(args).output().expect("cc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let needs_libclump = |exe: &Path| {
        let out = Command::new("readelf")
            .arg("-d")
            .arg(exe)
            .output()
            .expect("readelf runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).contains("Shared library: [libclump.so]")
    };
    assert!(needs_libclump(&dynamic), "clump.pc links libclump.so");
    assert!(!needs_libclump(&statik), "clump-static.pc links libclump.a");
    for exe in [dynamic, statik] {
        let mut cmd = Command::new(prefix.join("bin/clump"));
        cmd.args(["run".as_ref(), "-n".as_ref(), "3".as_ref(), exe.as_os_str()]);
        assert_ok(&support::wait_with_timeout(cmd), "reduce ok", 1);
    }
}

#[test]
fn blocking_ping_pong_wakes_sleepers_over_shared_memory_and_udp() {
    let exe = compile(
        "crates/clump-capi/tests/c/blocking_pingpong.c",
        "blocking_pingpong",
    );
    // 2 ranks on 1 host: shared memory; on 2 hosts: UDP; 4 on 2: both, in a ring.
    for (n, hosts) in [(2, 1), (2, 2), (4, 2)] {
        let out = run(n, hosts, &exe, &["200"], &[("CLUMP_SPIN_US", "0")]);
        let stdout = assert_ok(&out, "blocking: rank", n as usize);
        for rtt in stdout.split("rtt_us=").skip(1) {
            let rtt: f64 = rtt.split_whitespace().next().unwrap().parse().unwrap();
            eprintln!("{n} ranks on {hosts} hosts: blocking round trip {rtt} us");
            // Not a performance bound: a sleeper that is never woken waits for its 100 ms
            // timer, half of it on average each way, so a round trip would average 100 ms
            // (within a few ms over 200 of them); 80 ms tells that apart with room for a
            // loaded machine's scheduling delays.
            assert!(rtt < 80_000.0, "{n} ranks on {hosts} hosts:\n{stdout}");
        }
    }
}

#[test]
fn every_rank_exiting_after_a_last_barrier_ends_the_job_with_all_its_output() {
    let exe = compile("crates/clump-capi/tests/c/exit_all.c", "exit_all");
    for &hosts in HOSTS {
        let out = run(4, hosts, &exe, &[], &[]);
        assert_ok(&out, ": final line", 4);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panic"), "stderr:\n{stderr}");
        // A normal end is no abort: the launcher has nothing to report.
        assert!(!stderr.contains("aborted"), "stderr:\n{stderr}");
    }
}

/// Rank 0 exits owing the credit of a request that ran (its handler did not reply): over
/// the network the close at exit sends it, without a panic, and the request never comes
/// back to rank 1's handler 0.
#[test]
fn exit_owing_an_ack_over_the_network_sends_it_and_returns_nothing() {
    let exe = compile("crates/clump-capi/tests/c/exit_owed.c", "exit_owed");
    for _ in 0..3 {
        let out = run(2, 2, &exe, &[], &[]);
        assert_ok(&out, ": exits", 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panic"), "stderr:\n{stderr}");
        assert!(!stderr.contains("handler 0"), "stderr:\n{stderr}");
    }
}

#[test]
fn amudp_program_builds_unchanged_and_runs_on_one_and_two_hosts() {
    let exe = compile("crates/clump-capi/tests/c/amudp_program.c", "amudp_program");
    for (n, hosts) in [(1, 1), (2, 1), (2, 2)] {
        let args: &[&str] = if hosts > 1 { &["net"] } else { &[] };
        let out = run(n, hosts, &exe, args, &[]);
        let stdout = assert_ok(&out, "amudp ok rank", n as usize);
        assert_eq!(
            stdout.matches("amudp exit 0").count(),
            n as usize,
            "{stdout}"
        );
        assert!(stdout.contains("requests sent"), "{stdout}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("aborted"),
            "SPMDExit(0) is no abort:\n{stderr}"
        );
    }
}

/// An AMUDP program (`#include <amudp.h>`, `<amudp_spmd.h>`, GASNet's `amx_` names) builds
/// with nothing but `clump config --cflags --libs`, from the source tree and from an
/// installed prefix, and runs.
#[test]
fn amudp_program_builds_with_only_clump_config_flags_in_the_tree_and_installed() {
    let t = tree();
    let prefix = install("prefix-amudp");
    for (clump, exe) in [
        (t.bin.join("clump"), t.out.join("amudp_tree")),
        (prefix.join("bin/clump"), t.out.join("amudp_installed")),
    ] {
        let config = Command::new(&clump)
            .args(["config", "--cflags", "--libs"])
            .output()
            .expect("clump config runs");
        assert!(config.status.success(), "{config:?}");
        let flags = String::from_utf8(config.stdout).unwrap();
        let out = Command::new("cc")
            .args(["-Wall", "-Werror"])
            .arg(t.repo.join("crates/clump-capi/tests/c/amudp_program.c"))
            .arg("-o")
            .arg(&exe)
            .args(flags.split_whitespace())
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "{} with {flags}:\n{}",
            clump.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut cmd = Command::new(&clump);
        cmd.args(["run".as_ref(), "-n".as_ref(), "2".as_ref(), exe.as_os_str()]);
        assert_ok(&support::wait_with_timeout(cmd), "amudp ok rank", 2);
    }
}

/// `AM_PAR`: 6 threads per process on 2 processes share one bundle and endpoint,
/// requests and replies from any thread, some polling and some sleeping in `AM_WaitSema`;
/// every handler runs once and every reply comes back; over shared memory, UDP and two
/// virtual hosts.
#[test]
fn threads_share_an_am_par_bundle_over_shared_memory_udp_and_two_hosts() {
    let exe = compile("crates/clump-capi/tests/c/par_threads.c", "par_threads");
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements {
        for _ in 0..clump_testkit::soak_runs() {
            let clump = tree().bin.join("clump");
            let out = clump_testkit::run(&clump, 2, placement, &exe, &["3000"], &[]);
            let stdout = assert_ok(&out, "par ok", 2);
            for line in stdout.lines().filter(|l| l.starts_with("par:")) {
                eprintln!("{placement:?} {line}");
            }
        }
    }
}

/// AM_PAR with one thread: an empty `AM_Poll` yields only when another thread waits for
/// the process lock, and otherwise spins as under `AM_SEQ`. Before, every empty poll
/// yielded (22,004 yields per 22,000 round trips, thirty times slower than `AM_SEQ`).
#[test]
fn one_thread_under_am_par_spins_before_it_yields_as_under_am_seq() {
    run_par_program("par_alone", &[&[], &["--transport", "udp"]]);
}

/// Compiles `tests/c/NAME.c` and runs it on 2 ranks of each placement (`soak_runs` times):
/// each rank prints "NAME ok", and its "NAME:" lines are shown.
fn run_par_program(name: &str, placements: &[&[&str]]) {
    let exe = compile(&format!("crates/clump-capi/tests/c/{name}.c"), name);
    let clump = tree().bin.join("clump");
    let prefix = format!("{name}:");
    for placement in placements.repeat(clump_testkit::soak_runs()) {
        let out = clump_testkit::run(&clump, 2, placement, &exe, &[], &[]);
        let stdout = assert_ok(&out, &format!("{name} ok"), 2);
        for line in stdout.lines().filter(|l| l.starts_with(&prefix)) {
            eprintln!("{placement:?} {line}");
        }
    }
}

/// AM_WaitSema under AM_PAR ends when a message arrived after the mask was set, whichever
/// thread's poll ran its handler: before, a sleeper waited for a message that still
/// waited in the queue, and slept on (in 1 ms naps) once another thread had taken it.
#[test]
fn a_waiting_thread_wakes_when_another_thread_runs_its_events_handler() {
    run_par_program("par_wait", &[&[], &["--transport", "udp"]]);
}

/// AM_PAR: a thread waiting inside `AM_Request` for credit lets the other threads of its
/// process run their calls: before, it slept and yielded holding the process lock, so a
/// thread pinging its own rank stalled until the peer came back (4 s).
#[test]
fn a_sender_waiting_for_credit_lets_other_threads_progress() {
    run_par_program(
        "par_credit",
        &[&[], &["--transport", "udp"], &["--hosts", "2"]],
    );
}
