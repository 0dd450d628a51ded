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

#[test]
fn wired_subset_runs_over_shared_memory_udp_and_two_hosts() {
    let exe = mpicc("crates/clump-capi/tests/mpi/basic.c", "mpi_basic");
    let placements: [&[&str]; 3] = [&[], &["--transport", "udp"], &["--hosts", "2"]];
    for placement in placements {
        for n in [1, 2, 4] {
            if n == 1 && !placement.is_empty() {
                continue; // one process has no peer to reach over the network
            }
            let mut cmd = Command::new(tree().bin.join("clump"));
            cmd.args(["run", "-n", &n.to_string()])
                .args(placement)
                .arg("--")
                .arg(&exe);
            assert_ok(&wait_with_timeout(cmd), "basic ok", n);
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
