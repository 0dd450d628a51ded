//! MPI from Fortran as a user writes it: self-checking programs in fixed form with
//! mpif.h, free form with `use mpi`, and with `use mpi_f08`, built by `clump mpifort`
//! and run through `clump mpiexec` on 1, 2 and 4 processes over shared memory, UDP and
//! 2 virtual hosts. Skipped where there is no gfortran.

#[allow(dead_code)] // the job runners beyond these
mod support;

use std::path::PathBuf;
use std::process::Command;
use support::tree;

/// `clump mpifort -O2 SRC -o EXE` (warnings allowed: mpif.h programs pass one external
/// procedure buffers of many types, which gfortran warns about), the modules cached in
/// the tests' own folder, run there so that a program's own module files land there too;
/// `None` without gfortran.
fn mpifort(src: &str, name: &str) -> Option<PathBuf> {
    if Command::new("gfortran").arg("--version").output().is_err() {
        clump_testkit::skip("no gfortran");
        return None;
    }
    let t = tree();
    let exe = t.out.join(name);
    let out = Command::new(t.bin.join("clump"))
        .args(["mpifort", "-O2"])
        .arg(t.repo.join(src))
        .arg("-o")
        .arg(&exe)
        .env("XDG_CACHE_HOME", t.out.join("fortran-cache"))
        .current_dir(&t.out)
        .output()
        .expect("clump mpifort runs");
    assert!(
        out.status.success(),
        "clump mpifort {src}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// Runs `exe` through `clump mpiexec` everywhere ([`support::runs_everywhere`]).
fn runs_everywhere(exe: &std::path::Path, name: &str) {
    support::runs_everywhere("mpiexec", exe, name);
}

#[test]
fn fixed_form_with_mpif_h_runs_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/fixed.f", "fortran_fixed") {
        runs_everywhere(&exe, "fixed");
    }
}

#[test]
fn free_form_with_use_mpi_runs_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/free.f90", "fortran_free") {
        runs_everywhere(&exe, "free");
    }
}

#[test]
fn use_mpi_f08_runs_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/f08.f90", "fortran_f08") {
        runs_everywhere(&exe, "f08");
    }
}

#[test]
fn the_later_procedures_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/faces.f90", "fortran_faces") {
        runs_everywhere(&exe, "faces");
    }
}

#[test]
fn mpi_f08_array_sections_and_a_profiling_tool_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/sections.f90",
        "fortran_sections",
    ) {
        runs_everywhere(&exe, "sections");
    }
}

#[test]
fn sixteen_byte_kinds_reduce_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/kinds.f90", "fortran_kinds") {
        runs_everywhere(&exe, "kinds");
    }
}

#[test]
fn mpi_f08_large_count_forms_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/large_count.f90",
        "fortran_large_count",
    ) {
        runs_everywhere(&exe, "large_count");
    }
}

#[test]
fn generalized_requests_with_fortran_callbacks_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/grequest.f90",
        "fortran_grequest",
    ) {
        runs_everywhere(&exe, "grequest");
    }
}

#[test]
fn sessions_from_mpi_f08_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/sessions.f90",
        "fortran_sessions",
    ) {
        runs_everywhere(&exe, "sessions");
    }
}

#[test]
fn mpi_sizeof_and_sessions_through_mpif_h_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/sizeof.f", "fortran_sizeof") {
        runs_everywhere(&exe, "sizeof");
    }
}

#[test]
fn status_conversions_in_the_mpi_module_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/conversions.f90",
        "fortran_conversions",
    ) {
        runs_everywhere(&exe, "conversions");
    }
}

#[test]
fn c_pointer_allocations_and_profiling_functions_of_use_mpi_run_over_shared_memory_udp_and_two_hosts(
) {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/cptr.f90", "fortran_cptr") {
        runs_everywhere(&exe, "cptr");
    }
}

#[test]
fn info_values_not_returned_leave_the_character_alone_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("crates/clump-capi/tests/fortran/info.f", "fortran_info") {
        runs_everywhere(&exe, "info");
    }
}

#[test]
fn mpi_f08_large_count_forms_with_count_arrays_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/count_arrays.f90",
        "fortran_count_arrays",
    ) {
        runs_everywhere(&exe, "count_arrays");
    }
}

#[test]
fn mpi_f08_c_pointer_allocations_run_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort(
        "crates/clump-capi/tests/fortran/cptr_f08.f90",
        "fortran_cptr_f08",
    ) {
        runs_everywhere(&exe, "cptr_f08");
    }
}

#[test]
fn readme_example_runs_over_shared_memory_udp_and_two_hosts() {
    if let Some(exe) = mpifort("examples/fortran/ring.f90", "fortran_ring") {
        runs_everywhere(&exe, "ring");
    }
}
