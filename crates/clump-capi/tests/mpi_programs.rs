//! The MPI functions of libclump from C, compiled against `mpi.h` and libclump (with `cc`,
//! or with `clump mpicc` and run through `clump run` as a user would).

#[allow(dead_code)] // the job runners are for the multi-process tests
mod support;

use std::path::PathBuf;
use std::process::Command;
use support::{assert_ok, compile, tree, wait_with_timeout};

#[test]
fn local_functions_answer_from_c_by_both_names() {
    let exe = compile("crates/clump-capi/tests/mpi_abi/local.c", "mpi_local");
    let out = Command::new(&exe).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("local ok"),
        "{stdout}"
    );
}

/// Builds an MPI program the way a user does: `clump mpicc SRC -o EXE`.
fn mpicc(src: &str, name: &str) -> PathBuf {
    support::compile_with("mpicc", src, name)
}

/// Runs `exe` through `clump run` everywhere ([`support::runs_everywhere`]).
fn runs_everywhere(exe: &std::path::Path, name: &str) {
    support::runs_everywhere("run", exe, name);
}

#[test]
fn basic_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/basic.c", "mpi_basic"),
        "basic",
    );
}

/// `MPI_THREAD_MULTIPLE`: 6 threads per process on 2 processes, each thread around the
/// ring on its own tag (and through `MPI_ANY_SOURCE`), then collectives on a duplicate of
/// `MPI_COMM_WORLD` per thread; over shared memory, UDP and two virtual hosts.
#[test]
fn threads_share_mpi_over_shared_memory_udp_and_two_hosts() {
    let exe = mpicc("crates/clump-capi/tests/mpi/threads.c", "mpi_threads");
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements.repeat(clump_testkit::soak_runs()) {
        let mut cmd = Command::new(support::tree().bin.join("clump"));
        cmd.args(["run", "-n", "2"])
            .args(placement)
            .arg("--")
            .arg(&exe);
        let out = wait_with_timeout(cmd);
        assert_ok(&out, "threads ok", 2);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if let Some(rate) = stdout.lines().find(|l| l.starts_with("threads:")) {
            println!("{placement:?} {rate}");
        }
    }
}

#[test]
fn p2p_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/p2p.c", "mpi_p2p"),
        "p2p",
    );
}

#[test]
fn cancelled_sends_and_receives_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/cancel.c", "mpi_cancel"),
        "cancel",
    );
}

/// MPICH's pssend: a synchronous send whose receiver matched it from the unexpected store
/// and went on to `MPI_Finalize` completes (it hung over UDP).
#[test]
fn synchronous_sends_complete_while_their_receiver_finalizes_everywhere() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/ssend_matched.c",
            "mpi_ssend_matched",
        ),
        "ssend_matched",
    );
}

/// MPICH's sendrecv3: sends past a destination's credits (eager, persistent, buffered,
/// synchronous, rendezvous and a broadcast's) start at once while the receiver sleeps, and
/// arrive in order with a blocking send behind them (100 Isends blocked for the sleep).
#[test]
fn sends_past_the_credits_never_block_and_keep_their_order_everywhere() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/isend_no_credit.c",
            "mpi_isend_no_credit",
        ),
        "isend_no_credit",
    );
}

#[test]
fn buffered_sends_use_the_communicators_the_sessions_or_the_process_buffer_everywhere() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/bsend_buffers.c",
            "mpi_bsend_buffers",
        ),
        "bsend_buffers",
    );
}

#[test]
fn nonblocking_buffer_flushes_complete_once_the_buffered_sends_have_left_everywhere() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/bsend_iflush.c",
            "mpi_bsend_iflush",
        ),
        "bsend_iflush",
    );
}

#[test]
fn generalized_requests_and_request_statuses_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/grequest.c", "mpi_grequest"),
        "grequest",
    );
}

#[test]
fn alltoallv_exchanges_in_the_programs_buffers_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/alltoallv_memory.c",
            "mpi_alltoallv_memory",
        ),
        "alltoallv_memory",
    );
}

#[test]
fn large_count_forms_with_count_arrays_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/large_count_arrays.c",
            "mpi_large_count_arrays",
        ),
        "large_count_arrays",
    );
}

#[test]
fn large_count_forms_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/large_count.c",
            "mpi_large_count",
        ),
        "large_count",
    );
}

#[test]
fn collectives_run_over_shared_memory_udp_and_two_hosts() {
    let exe = mpicc(
        "crates/clump-capi/tests/mpi/collectives.c",
        "mpi_collectives",
    );
    runs_everywhere(&exe, "collectives");
}

#[test]
fn nonblocking_and_persistent_collectives_run_over_shared_memory_udp_and_two_hosts() {
    let exe = mpicc("crates/clump-capi/tests/mpi/nbcoll.c", "mpi_nbcoll");
    runs_everywhere(&exe, "nbcoll");
}

#[test]
fn intercommunicator_collectives_run_over_shared_memory_udp_and_two_hosts() {
    let exe = mpicc("crates/clump-capi/tests/mpi/intercoll.c", "mpi_intercoll");
    runs_everywhere(&exe, "intercoll");
}

#[test]
fn comms_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/comms.c", "mpi_comms"),
        "comms",
    );
}

#[test]
fn rma_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma.c", "mpi_rma"),
        "rma",
    );
}

#[test]
fn rma_target_datatypes_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_types.c", "mpi_rma_types"),
        "rma_types",
    );
}

#[test]
fn rma_window_info_attributes_and_errhandlers_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_win.c", "mpi_rma_win"),
        "rma_win",
    );
}

#[test]
fn rma_accumulates_are_atomic_per_element_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/rma_atomics.c",
            "mpi_rma_atomics",
        ),
        "rma_atomics",
    );
}

#[test]
fn rma_accumulates_of_pairs_with_holes_stay_whole_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_pairs.c", "mpi_rma_pairs"),
        "rma_pairs",
    );
}

/// `MPI_Win_allocate_shared` gives one contiguous block over a host's processes: made
/// over all 4 on one host, over each host's 2 on two hosts; over UDP either made or
/// `MPI_ERR_RMA_SHARED`.
#[test]
fn shared_windows_are_one_contiguous_block_per_host() {
    let exe = mpicc("crates/clump-capi/tests/mpi/rma_shared.c", "mpi_rma_shared");
    runs_everywhere(&exe, "rma_shared");
    for (placement, made) in [
        (&[][..], "shared over 4"),
        (&["--hosts", "2"][..], "shared over 2"),
    ] {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["run", "-n", "4"])
            .args(placement)
            .arg("--")
            .arg(&exe);
        let stdout = assert_ok(&wait_with_timeout(cmd), "rma_shared ok", 4);
        let hosts = if placement.is_empty() { 1 } else { 2 };
        assert_eq!(
            stdout.matches(made).count(),
            hosts,
            "{placement:?}\n{stdout}"
        );
    }
}

/// Puts and gets to same-host program memory (`MPI_Win_create`, attached regions of a
/// dynamic window) complete while the target
/// computes outside MPI (cross-memory attach, no message); on one host only, since a
/// message to a target that never polls would wait for good.
#[test]
fn puts_and_gets_to_same_host_program_memory_need_no_target_progress() {
    let exe = mpicc("crates/clump-capi/tests/mpi/rma_attach.c", "mpi_rma_attach");
    for n in ["2", "4"] {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["run", "-n", n, "--"]).arg(&exe);
        assert_ok(&wait_with_timeout(cmd), "rma_attach ok", n.parse().unwrap());
    }
}

/// The one-sided calls' large-count forms, and a count beyond an int an `MPI_ERR_COUNT`
/// through the window's handler.
#[test]
fn rma_large_count_forms_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/rma_large_count.c",
            "mpi_rma_large_count",
        ),
        "rma_large_count",
    );
}

/// A process looping on one-sided calls to its own window (which need no message) still
/// serves the accumulates others send it, as MPICH's linked_list_bench tests need.
#[test]
fn rma_calls_to_ones_own_window_serve_the_others_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/rma_progress.c",
            "mpi_rma_progress",
        ),
        "rma_progress",
    );
}

/// A flush serves at once a request that already waits from a process of this host,
/// rather than on one call in 16 (the shared-memory queue is looked at on every call).
#[test]
fn rma_flushes_serve_a_waiting_same_host_request_at_once_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_serve.c", "mpi_rma_serve"),
        "rma_serve",
    );
}

/// Post and start under `MPI_MODE_NOCHECK` exchange nothing: a post returns while its
/// origin sleeps outside MPI.
#[test]
fn rma_post_and_start_under_nocheck_wait_for_nobody_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/rma_nocheck.c",
            "mpi_rma_nocheck",
        ),
        "rma_nocheck",
    );
}

/// Puts and accumulates to another host do not wait for their answer: many of them land
/// whole by one completion of each kind, in order, and return while their target sleeps
/// outside MPI; an error among them comes by the flush.
#[test]
fn rma_posted_puts_and_accumulates_complete_by_their_epoch_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_posted.c", "mpi_rma_posted"),
        "rma_posted",
    );
}

/// General active target as a ping-pong between two processes with a core each: at most
/// 50 ms a round on average, even on a loaded machine (a wait that yielded at once took a
/// time slice of the other load per handoff: 190 ms a round at load 24).
#[test]
fn rma_pscw_ping_pong_keeps_its_core_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/rma_pscw_pingpong.c",
            "mpi_rma_pscw_pingpong",
        ),
        "rma_pscw_pingpong",
    );
}

/// `MPI_Win_allocate` windows larger than the global address space segment (OSU's
/// one-sided bandwidth at 1 MiB makes 64 MiB ones) work beside segment windows, as do
/// `MPI_Win_create` windows over as much `MPI_Alloc_mem`; more than the host has is
/// `MPI_ERR_NO_MEM`.
#[test]
fn rma_windows_larger_than_the_segment_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_big.c", "mpi_rma_big"),
        "rma_big",
    );
}

#[test]
fn rma_edges_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/rma_edges.c", "mpi_rma_edges"),
        "rma_edges",
    );
}

/// MPI_ERRORS_ARE_FATAL ends the whole job, with the error's text, even with ranks blocked
/// in a receive nothing will match.
#[test]
fn a_fatal_error_ends_the_job_with_its_message() {
    let exe = mpicc("crates/clump-capi/tests/mpi/fatal.c", "mpi_fatal");
    for n in [1, 2, 4] {
        let mut cmd = Command::new(tree().bin.join("clump"));
        cmd.args(["run", "-n", &n.to_string(), "--"]).arg(&exe);
        let out = wait_with_timeout(cmd);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stdout}\n{stderr}");
        assert!(stderr.contains("invalid rank"), "{stderr}");
        assert!(
            !stdout.contains("returned") && !stdout.contains("received"),
            "{stdout}"
        );
    }
}

/// A program that returns from main without MPI_Finalize, owing credits over UDP, ends
/// without a panic (the close at exit sends what it owes); the launcher reports the rank
/// that left without MPI_Finalize and fails the job, as Open MPI's mpirun does (a job
/// whose every rank skips it is no exception there either).
#[test]
fn ending_without_finalize_over_udp_exits_cleanly() {
    let exe = mpicc(
        "crates/clump-capi/tests/mpi/no_finalize.c",
        "mpi_no_finalize",
    );
    for placement in [&["--transport", "udp"][..], &["--hosts", "2"]] {
        for _ in 0..3 {
            let mut cmd = Command::new(tree().bin.join("clump"));
            cmd.args(["run", "-n", "2"])
                .args(placement)
                .arg("--")
                .arg(&exe);
            let out = wait_with_timeout(cmd);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let context = format!("{placement:?}:\n{stdout}\n{stderr}");
            assert_eq!(out.status.code(), Some(1), "{context}");
            assert!(
                stderr.contains("exited without calling MPI_Finalize"),
                "{context}"
            );
            // The first rank out printed; the other may be ended before it does.
            assert!(stdout.contains("no_finalize ok"), "{context}");
            assert!(!stderr.contains("panic"), "{context}");
        }
    }
}

/// The last rank returns from main without MPI_Finalize while the others wait in
/// MPI_Recv for it: the job ends at once with a message naming that rank and status 1
/// (it hung until killed), over shared memory, UDP and two virtual hosts.
#[test]
fn a_rank_ending_without_finalize_ends_the_job_naming_it() {
    let exe = mpicc(
        "crates/clump-capi/tests/mpi/no_finalize_wait.c",
        "mpi_no_finalize_wait",
    );
    for (mut cmd, n) in support::everywhere("run", &exe) {
        // The launcher's own limit, so that a job that hangs fails quickly.
        cmd.env("MPIEXEC_TIMEOUT", "30");
        let run = format!("{:?}", cmd.get_args().collect::<Vec<_>>());
        let out = wait_with_timeout(cmd);
        let ended = now_ms();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let context = format!("{run}:\n{stdout}\n{stderr}");
        assert_eq!(out.status.code(), Some(1), "{context}");
        let named = format!("rank {} (pid ", n - 1);
        assert!(
            stderr.contains(&named) && stderr.contains("exited without calling MPI_Finalize"),
            "{context}"
        );
        assert!(!stdout.contains("received"), "{context}");
        let left: u128 = stdout
            .lines()
            .find_map(|l| l.strip_prefix("leaving at "))
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| panic!("no leaving time: {context}"));
        let took = ended.saturating_sub(left);
        println!("{run}: the job ended {took} ms after the rank left");
        // Within a second on an idle machine; the bound leaves room for a loaded one.
        assert!(took < 5000, "{took} ms: {context}");
    }
}

/// Milliseconds since the epoch, the clock the test programs print.
fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after the epoch")
        .as_millis()
}

/// The tool information interface with no variables: init and finalize nest and work
/// outside MPI_Init ... MPI_Finalize, counts are 0, indices, names and handles are refused
/// with the standard's classes (MPI_T_init_thread returned MPI_ERR_UNSUPPORTED_OPERATION).
#[test]
fn the_tool_interface_answers_with_no_variables_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/tools.c", "mpi_tools"),
        "tools",
    );
}

#[test]
fn amii_spmd_then_mpi_share_one_job_and_amii_outlives_mpi() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/spmd_mixed.c", "mpi_spmd_mixed"),
        "spmd_mixed",
    );
}

#[test]
fn intercommunicators_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/intercomm.c", "mpi_intercomm"),
        "intercomm",
    );
}

#[test]
fn topologies_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/topology.c", "mpi_topology"),
        "topology",
    );
}

#[test]
fn graph_topologies_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/graphs.c", "mpi_graphs"),
        "graphs",
    );
}

#[test]
fn neighbourhood_collectives_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/neighbor.c", "mpi_neighbor"),
        "neighbor",
    );
}

#[test]
fn error_classes_and_handlers_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/errhandlers.c",
            "mpi_errhandlers",
        ),
        "errhandlers",
    );
}

#[test]
fn long_double_types_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/longdouble.c", "mpi_longdouble"),
        "longdouble",
    );
}

#[test]
fn matched_probes_statuses_and_type_queries_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/matched.c", "mpi_matched"),
        "matched",
    );
}

#[test]
fn isendrecv_and_mpi_bottom_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/isendrecv.c", "mpi_isendrecv"),
        "isendrecv",
    );
}

#[test]
fn external32_packing_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/external32.c", "mpi_external32"),
        "external32",
    );
}

#[test]
fn type_contents_and_partial_elements_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/type_contents.c",
            "mpi_type_contents",
        ),
        "type_contents",
    );
}

#[test]
fn array_datatypes_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/arrays.c", "mpi_arrays"),
        "arrays",
    );
}

#[test]
fn split_type_and_ignored_arguments_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/split_type.c", "mpi_split_type"),
        "split_type",
    );
}

#[test]
fn group_collective_communicators_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/comm_group.c", "mpi_comm_group"),
        "comm_group",
    );
}

#[test]
fn attributes_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/attrs.c", "mpi_attrs"),
        "attrs",
    );
}

#[test]
fn partitioned_communication_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc(
            "crates/clump-capi/tests/mpi/partitioned.c",
            "mpi_partitioned",
        ),
        "partitioned",
    );
}

#[test]
fn sessions_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/sessions.c", "mpi_sessions"),
        "sessions",
    );
}

#[test]
fn nonblocking_and_persistent_neighbourhood_collectives_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere(
        &mpicc("crates/clump-capi/tests/mpi/nbneighbor.c", "mpi_nbneighbor"),
        "nbneighbor",
    );
}
