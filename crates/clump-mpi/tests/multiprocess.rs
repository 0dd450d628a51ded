//! The MPI checks through the real launcher: 1 to 4 processes over shared memory, over
//! UDP, and on 2 virtual hosts; and with thresholds moved so other sizes cross them.

fn run(n: u32, placement: &[&str], env: &[(&str, &str)]) {
    let program = env!("CARGO_BIN_EXE_clump-test-mpi");
    clump_testkit::run_job(n, placement, program, env, "mpi-check ok");
}

/// On one host the shared-memory collectives check that every rank passes the same count
/// before anything else (the message algorithms cannot all tell).
const COUNT_MISMATCH: (&str, &str) = ("CLUMP_TEST_COUNT_MISMATCH", "1");

#[test]
fn shared_memory_1_to_4() {
    for n in [1, 2, 3, 4] {
        run(n, &[], &[COUNT_MISMATCH]);
    }
}

#[test]
fn udp() {
    run(2, &["--transport", "udp"], &[]);
}

#[test]
fn two_hosts() {
    run(4, &["--hosts", "2"], &[]);
    // Uneven hosts and a size that is no power of two (the collectives' odd paths).
    run(3, &["--hosts", "2"], &[]);
}

#[test]
fn moved_thresholds() {
    run(
        2,
        &[],
        &[
            ("CLUMP_MPI_EAGER_SHM", "0"),
            ("CLUMP_MPI_EAGER_NET", "65536"),
        ],
    );
    run(2, &[], &[("CLUMP_MPI_EAGER_SHM", "65536")]);
    // No eager sends at all: even 8 bytes wait for their receive.
    run(
        2,
        &[],
        &[("CLUMP_MPI_EAGER_SHM", "0"), ("CLUMP_MPI_EAGER_NET", "0")],
    );
    // Rendezvous over shared memory by cross-memory attach (the default; from 64 KiB with
    // a core each, the sender writing half), and in medium chunks instead.
    run(2, &[], &[("CLUMP_MPI_SINGLE_COPY", "1")]);
    run(2, &[], &[("CLUMP_MPI_SINGLE_COPY", "0")]);
    // The kernel refusing cross-memory attach (a seccomp filter in each process): every
    // single-copy read and write falls back to chunks, the data still checked.
    run(2, &[], &[("CLUMP_TEST_REFUSE_CMA", "1")]);
    // Collectives on one host by messages instead of the shared-memory slots, on a number
    // of processes that is no power of two (recursive doubling's odd path).
    run(3, &[], &[("CLUMP_MPI_SHM_COLL", "0")]);
    // Slots of 100 bytes: large reductions read the members' buffers, and those that fit
    // take one step or a few parts cut on whole elements.
    run(3, &[], &[("CLUMP_MPI_SHM_COLL", "100"), COUNT_MISMATCH]);
}
