//! The MPI functions of libclump from C, compiled with `cc` against `mpi.h` and libclump.

#[allow(dead_code)] // the job runners are for the multi-process tests
mod support;

use std::process::Command;
use support::compile;

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
