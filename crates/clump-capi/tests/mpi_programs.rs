//! The MPI functions of libclump from C, compiled with `cc` against `mpi.h` and libclump.

#[allow(dead_code)] // the job runners are for the multi-process tests
mod support;

use std::process::Command;
use support::{assert_ok, compile, run, HOSTS};

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

#[test]
fn wired_subset_runs_on_1_2_and_4_processes_over_shm_and_udp() {
    let exe = compile("crates/clump-capi/tests/mpi/basic.c", "mpi_basic");
    for &hosts in HOSTS {
        for n in [1, 2, 4] {
            if n >= hosts {
                let out = run(n, hosts, &exe, &[], &[]);
                assert_ok(&out, "basic ok", n as usize);
            }
        }
    }
}

#[test]
fn programs_using_unimplemented_functions_still_link() {
    for name in ["p2p", "collectives", "comms", "fatal"] {
        compile(
            &format!("crates/clump-capi/tests/mpi/{name}.c"),
            &format!("mpi_link_{name}"),
        );
    }
}
