//! The OpenSHMEM functions of libclump from C: self-checking programs in `tests/shmem/`,
//! built with `clump oshcc` and run with `clump oshrun` as a user would, on 1, 2 and 4 PEs
//! over shared memory, UDP and two virtual hosts.

#[allow(dead_code)] // not every helper serves these tests
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{assert_ok, compile_with, tree, wait_with_timeout};

/// Runs `exe` on 1, 2 and 4 PEs on one host, over UDP and on two hosts; each PE must
/// print `needle` once.
fn everywhere(exe: &Path, needle: &str) {
    everywhere_with(exe, &[], needle)
}

/// [`everywhere`], with `args` for the program.
fn everywhere_with(exe: &Path, args: &[&str], needle: &str) {
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements {
        for n in [1usize, 2, 4] {
            if n == 1 && !placement.is_empty() {
                continue; // one PE has no peer to reach over the network
            }
            let mut cmd = Command::new(tree().bin.join("clump"));
            cmd.args(["oshrun", "-n", &n.to_string()])
                .args(placement)
                .arg(exe)
                .args(args);
            assert_ok(&wait_with_timeout(cmd), needle, n);
        }
    }
}

/// `clump oshcc tests/shmem/NAME.c -o EXE`.
fn oshcc(name: &str, exe: &str) -> PathBuf {
    compile_with(
        "oshcc",
        &format!("crates/clump-capi/tests/shmem/{name}.c"),
        exe,
    )
}

#[test]
fn heap_globals_and_every_put_and_get_form() {
    let exe = oshcc("rma", "shmem_rma");
    everywhere(&exe, "rma ok");
}

#[test]
fn atomics_locks_signals_and_waits() {
    let exe = oshcc("atomics", "shmem_atomics");
    everywhere(&exe, "atomics ok");
}

#[test]
fn team_and_active_set_collectives() {
    let exe = oshcc("collectives", "shmem_collectives");
    everywhere(&exe, "collectives ok");
}

#[test]
fn long_double_and_complex_exactly() {
    let exe = oshcc("extended", "shmem_extended");
    everywhere(&exe, "extended ok");
}

#[test]
fn c11_generic_names_with_and_without_a_context() {
    let exe = oshcc("generic", "shmem_generic");
    everywhere(&exe, "generic ok");
}

#[test]
fn bad_use_ends_the_job_with_a_clear_message() {
    let exe = oshcc("bad_use", "shmem_bad_use");
    let cases = [
        ("addr", "is not a symmetric address"),
        ("pe", "PE 2 is out of range (the job has 2 PEs)"),
        (
            "team_pe",
            "shmem_ctx_long_p: PE 1 is out of range (its team has 1 PE)",
        ),
        ("free", "is not a block of the symmetric heap"),
        ("init", "called before shmem_init"),
        (
            "thread",
            "shmem_my_pe: called from a thread other than the one that called shmem_init",
        ),
    ];
    for (what, message) in cases {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["run", "-n", "2", "--"]).arg(&exe).arg(what);
        let out = wait_with_timeout(cmd);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.status.success(),
            "{what}: the job succeeded:\n{stdout}"
        );
        assert!(!stdout.contains("not noticed"), "{what}:\n{stdout}");
        assert!(
            stderr.contains(message),
            "{what}: no '{message}' in:\n{stderr}"
        );
    }
}

#[test]
fn mpi_and_shmem_in_one_process_with_one_library() {
    let exe = oshcc("mixed", "shmem_mixed");
    let ldd = Command::new("ldd").arg(&exe).output().expect("ldd runs");
    let libs = String::from_utf8_lossy(&ldd.stdout);
    let loaded = libs.lines().filter(|l| l.contains("libclump")).count();
    assert_eq!(loaded, 1, "{libs}");
    everywhere(&exe, "mixed ok");
}

#[test]
fn shmem_then_mpi_share_one_job_and_shmem_outlives_mpi() {
    let exe = oshcc("mixed", "shmem_mixed_shmem_first");
    everywhere_with(&exe, &["shmem-first"], "mixed ok");
}

/// `clump bench shmem --quick --json` (it builds its program with `clump oshcc`, so it
/// lives beside these tests, which have libclump built): one object, `benchmark`, `quick`
/// and `run` beside every figure over both transports, each a positive number beside its
/// AM reference with OpenSHMEM's speedup over it (above 1: OpenSHMEM faster, for times and
/// rates alike). Only shape and sanity: the figures themselves are the benchmark's report,
/// not a timed test.
#[test]
fn bench_shmem_reports_every_figure_beside_its_am_reference() {
    let plots = tree().out.join("bench-shmem-plots");
    let _ = std::fs::remove_dir_all(&plots);
    let out = Command::new(tree().bin.join("clump"))
        .args(["bench", "shmem", "--quick", "--json", "--plot"])
        .arg(&plots)
        .output()
        .expect("clump bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(
        (doc["benchmark"].as_str(), doc["quick"].as_bool()),
        (Some("shmem"), Some(true))
    );
    assert!(doc["run"]["cores"].as_u64().unwrap() >= 1, "{doc}");
    let rows = doc["figures"].as_array().unwrap();
    assert_eq!(rows.len(), 12, "{stdout}");
    for r in rows {
        let (shmem, am, speedup) = (
            r["shmem"].as_f64().unwrap(),
            r["am"].as_f64().unwrap(),
            r["speedup"].as_f64().unwrap(),
        );
        assert!(shmem > 0.0 && am > 0.0 && shmem.is_finite(), "{r}");
        let time = r["unit"].as_str().unwrap().starts_with("us");
        let expected = if time { am / shmem } else { shmem / am };
        assert!((speedup - expected).abs() <= 1e-9 * speedup.abs(), "{r}");
    }
    for t in ["shm", "udp"] {
        assert_eq!(rows.iter().filter(|r| r["transport"] == t).count(), 6);
    }
    // The curves: every figure at every size over both transports, from 8 B (64 B for the
    // collectives) up to 1 MiB itself, or 8 KiB for fence against quiet; and a chart of each.
    let curves = doc["curves"].as_array().unwrap();
    let benches = [
        ("put_lat", 8, 1 << 20),
        ("get_lat", 8, 1 << 20),
        ("put_bw", 8, 1 << 20),
        ("get_bw", 8, 1 << 20),
        ("put+fence", 8, 8 << 10),
        ("put+quiet", 8, 8 << 10),
        ("reduce", 64, 1 << 20),
        ("fcollect", 64, 1 << 20),
        ("broadcast", 64, 1 << 20),
        ("alltoall", 64, 1 << 20),
    ];
    for (bench, min, max) in benches {
        for t in ["shm", "udp"] {
            let sizes: Vec<u64> = curves
                .iter()
                .filter(|c| c["bench"] == bench && c["transport"] == t)
                .map(|c| {
                    let v = c["value"].as_f64().unwrap();
                    assert!(v > 0.0 && v.is_finite(), "{c}");
                    c["bytes"].as_u64().unwrap()
                })
                .collect();
            assert!(sizes.len() >= 3, "{bench} over {t}: {sizes:?}");
            assert_eq!(sizes[0], min, "{bench} over {t}");
            assert_eq!(sizes.last(), Some(&max), "{bench} over {t}");
            assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{bench} over {t}");
        }
    }
    for chart in [
        "latency",
        "bandwidth",
        "fence",
        "reduce",
        "fcollect",
        "broadcast",
        "alltoall",
    ] {
        let png = plots.join(format!("shmem-{chart}.png"));
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert!(bytes.starts_with(b"\x89PNG"), "{}", png.display());
    }
}

/// Puts into a new `shmem_calloc` block right after the call returns are never wiped by a
/// slower PE's zeroing, on 2 and 4 PEs and every placement.
#[test]
fn calloc_zeroes_before_any_pe_can_put() {
    let exe = oshcc("calloc", "shmem_calloc");
    everywhere(&exe, "calloc ok");
}

/// A PE spinning on local calls (an atomic fetch of its own static flag, `shmem_test_lock`
/// of a static lock) still serves the others' operations on its static variables, and
/// `_any` tests and waits return every satisfied index in turn.
#[test]
fn static_variables_progress_and_any_calls_are_fair() {
    let exe = oshcc("progress", "shmem_progress");
    everywhere(&exe, "progress ok");
}

/// `SHMEM_TEAM_INVALID` and `SHMEM_CTX_INVALID` give the specification's no-op or nonzero
/// return, strided splits take negative strides, and a team's configuration is kept.
#[test]
fn teams_and_contexts_at_their_edges() {
    let exe = oshcc("team_edges", "shmem_team_edges");
    everywhere(&exe, "team edges ok");
}

/// A context of a team numbers PEs in its team: accesses through one of the odd PEs'
/// team reach the member they name, never the world PE of that number; `shmem_team_ptr`
/// and the other team-relative calls give NULL or -1 past a team's edges.
#[test]
fn contexts_of_a_team_number_pes_in_the_team() {
    let exe = oshcc("team_ctx", "shmem_team_ctx");
    everywhere(&exe, "team ctx ok");
}

/// `shmem_sync` in both forms, C11 bitwise reductions on the signed sized types, the
/// deprecated short waits and pre-1.2 names, `shmem_pcontrol` and `shmem_team_ptr`
/// build and do what they say.
#[test]
fn the_rest_of_the_interface_builds_and_works() {
    let exe = oshcc("interface", "shmem_interface");
    everywhere(&exe, "interface ok");
}

/// The deprecated names 1.5 still specifies that the check against its list found missing:
/// the C11 names of the old atomics, the untyped waits of a long, the `_SHMEM_` constants.
#[test]
fn deprecated_atomics_waits_and_constants() {
    let exe = oshcc("deprecated", "shmem_deprecated");
    everywhere(&exe, "deprecated ok");
}

/// A fence orders each PE's puts to another (heap data, then a flag on the heap or in a
/// static variable) without waiting for their completion.
#[test]
fn fence_orders_puts_to_each_pe() {
    let exe = oshcc("fence", "shmem_fence");
    everywhere(&exe, "fence ok");
}

/// Asking for `SHMEM_THREAD_MULTIPLE` gives it, and the `shmem_global_exit` that follows
/// ends the job with its status and no panic, on one host and two.
#[test]
fn thread_multiple_is_granted_and_global_exit_ends_cleanly() {
    let exe = oshcc("thread_exit", "shmem_thread_exit");
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["oshrun", "-n", "4"]).args(placement).arg(&exe);
        let out = wait_with_timeout(cmd);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "{placement:?}\n{stdout}\n{stderr}"
        );
        assert_eq!(
            stdout.matches("granted").count(),
            4,
            "{placement:?}\n{stdout}"
        );
        assert!(!stderr.contains("panicked"), "{placement:?}\n{stderr}");
    }
}

/// `SHMEM_THREAD_MULTIPLE`: 6 threads per PE on 2 PEs put, get, add atomically (on the
/// heap and on a global) and quiet at once, every word checked; over shared memory, UDP
/// and two virtual hosts.
#[test]
fn threads_share_a_pe_over_shared_memory_udp_and_two_hosts() {
    run_threads_program("threads");
}

/// Runs the multithreaded program `tests/shmem/NAME.c` on 2 PEs over shared memory, UDP
/// and two virtual hosts (each `soak_runs` times): each PE prints "NAME ok", and its
/// "NAME:" line is shown.
fn run_threads_program(name: &str) {
    let exe = oshcc(name, &format!("shmem_{name}"));
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    let runs = placements.repeat(clump_testkit::soak_runs());
    for placement in runs {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["oshrun", "-n", "2"]).args(placement).arg(&exe);
        let out = wait_with_timeout(cmd);
        assert_ok(&out, &format!("{name} ok"), 2);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let prefix = format!("{name}:");
        if let Some(rate) = stdout.lines().find(|l| l.starts_with(&prefix)) {
            println!("{placement:?} {rate}");
        }
    }
}

/// `SHMEM_CTX_PRIVATE` under `SHMEM_THREAD_MULTIPLE`: 4 threads per PE on 2 PEs, each with
/// a private context (its direct accesses skip the process lock), put, get and quiet at
/// once, on the heap and on a global, every word checked; over shared memory, UDP and two
/// virtual hosts.
#[test]
fn threads_each_with_a_private_context_over_shared_memory_udp_and_two_hosts() {
    run_threads_program("private_ctx");
}

/// A tool that defines `shmem_putmem`, `shmem_int_put` and `shmem_barrier_all` itself and
/// forwards to their `pshmem_` names (the profiling interface) sees exactly the program's
/// calls, and the data moves.
#[test]
fn a_profiling_tool_wraps_calls_through_pshmem() {
    let exe = oshcc("profiling", "shmem_profiling");
    for placement in [&[][..], &["--transport", "udp"]] {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["oshrun", "-n", "2"]).args(placement).arg(&exe);
        assert_ok(&wait_with_timeout(cmd), "profiling ok", 2);
    }
}

/// With `CLUMP_SHMEM_BIND=core`, `shmem_init` binds each PE to a core of its own when the
/// machine has a core for each of the job's processes on it (counted together over UDP
/// and virtual hosts, which share the machine); it leaves placement alone with more PEs
/// than cores, by default, with `CLUMP_SHMEM_BIND=none`, or under `SHMEM_THREAD_MULTIPLE`.
#[test]
fn each_pe_gets_a_core_of_its_own_when_the_machine_has_enough() {
    let exe = oshcc("binding", "shmem_binding");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements {
        for n in [1usize, 2, 4] {
            if n == 1 && !placement.is_empty() {
                continue;
            }
            let own = if n <= cores { "bound" } else { "free" };
            let cases: [(Option<&str>, &[&str]); 4] = [
                (Some("core"), &[own]),
                (None, &["free"]),
                (Some("none"), &["free"]),
                (Some("core"), &["free", "thread"]),
            ];
            for (bind, args) in cases {
                let mut cmd = Command::new(tree().bin.join("clump"));
                cmd.args(["oshrun", "-n", &n.to_string()])
                    .args(placement)
                    .arg(&exe)
                    .args(args)
                    .env_remove("CLUMP_SHMEM_BIND");
                if let Some(bind) = bind {
                    cmd.env("CLUMP_SHMEM_BIND", bind);
                }
                assert_ok(&wait_with_timeout(cmd), "binding ok", n);
            }
        }
    }
}

/// With every PE of a host on one CPU (a loaded machine's placement of an unbound job),
/// collective waits and waits on stores let the CPU go soon instead of spinning a budget
/// meant for a core of their own.
#[test]
fn waits_let_a_shared_cpu_go_to_the_pe_they_wait_for() {
    let exe = oshcc("shared_cpu", "shmem_shared_cpu");
    everywhere(&exe, "shared cpu ok");
}
