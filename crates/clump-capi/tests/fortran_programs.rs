//! MPI from Fortran as a user writes it: self-checking programs in fixed form with
//! mpif.h, free form with `use mpi`, and with `use mpi_f08`, built by `clump mpifort`
//! and run through `clump mpiexec` on 1, 2 and 4 processes over shared memory, UDP and
//! 2 virtual hosts. Skipped where there is no gfortran.

#[allow(dead_code)] // the job runners beyond these
mod support;

use std::path::PathBuf;
use std::process::Command;
use support::tree;

/// `clump mpifort -O2 SRC... -o EXE` (warnings allowed: mpif.h programs pass one external
/// procedure buffers of many types, which gfortran warns about; a C source among them
/// is compiled by gfortran too), the modules cached in the tests' own folder, run there
/// so that a program's own module files land there too; `None` without gfortran.
fn mpifort(srcs: &[&str], name: &str) -> Option<PathBuf> {
    if Command::new("gfortran").arg("--version").output().is_err() {
        clump_testkit::skip("no gfortran");
        return None;
    }
    let t = tree();
    let exe = t.out.join(name);
    let out = Command::new(t.bin.join("clump"))
        .args(["mpifort", "-O2"])
        .args(srcs.iter().map(|src| t.repo.join(src)))
        .arg("-o")
        .arg(&exe)
        .env("XDG_CACHE_HOME", t.out.join("fortran-cache"))
        .current_dir(&t.out)
        .output()
        .expect("clump mpifort runs");
    assert!(
        out.status.success(),
        "clump mpifort {srcs:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// Builds the program at `src` (relative to the repository) with [`mpifort`] and runs it
/// through `clump mpiexec` everywhere ([`support::runs_everywhere`]); each rank must print
/// "{stem} ok", its file's name without the extension.
fn runs_everywhere(src: &str) {
    runs_everywhere_with(src, &[]);
}

/// [`runs_everywhere`] for a program with more sources (C beside Fortran).
fn runs_everywhere_with(src: &str, more: &[&str]) {
    let stem = std::path::Path::new(src)
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a program file name");
    let srcs: Vec<&str> = std::iter::once(src).chain(more.iter().copied()).collect();
    if let Some(exe) = mpifort(&srcs, &format!("fortran_{stem}")) {
        support::runs_everywhere("mpiexec", &exe, stem);
    }
}

#[test]
fn fixed_form_with_mpif_h_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/fixed.f");
}

#[test]
fn free_form_with_use_mpi_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/free.f90");
}

#[test]
fn use_mpi_f08_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/f08.f90");
}

#[test]
fn the_later_procedures_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/faces.f90");
}

#[test]
fn mpi_f08_array_sections_and_a_profiling_tool_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/sections.f90");
}

#[test]
fn sixteen_byte_kinds_reduce_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/kinds.f90");
}

#[test]
fn mpi_f08_large_count_forms_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/large_count.f90");
}

#[test]
fn generalized_requests_with_fortran_callbacks_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/grequest.f90");
}

#[test]
fn sessions_from_mpi_f08_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/sessions.f90");
}

#[test]
fn mpi_sizeof_and_sessions_through_mpif_h_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/sizeof.f");
}

#[test]
fn status_conversions_in_the_mpi_module_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/conversions.f90");
}

#[test]
fn c_pointer_allocations_and_profiling_functions_of_use_mpi_run_over_shared_memory_udp_and_two_hosts(
) {
    runs_everywhere("crates/clump-capi/tests/fortran/cptr.f90");
}

#[test]
fn info_values_not_returned_leave_the_character_alone_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/info.f");
}

#[test]
fn mpi_f08_large_count_forms_with_count_arrays_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/count_arrays.f90");
}

#[test]
fn mpi_f08_c_pointer_allocations_run_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("crates/clump-capi/tests/fortran/cptr_f08.f90");
}

#[test]
fn readme_example_runs_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere("examples/fortran/ring.f90");
}

#[test]
fn attributes_set_in_one_language_read_in_the_other_over_shared_memory_udp_and_two_hosts() {
    runs_everywhere_with(
        "crates/clump-capi/tests/fortran/attr_lang.f90",
        &["crates/clump-capi/tests/fortran/attr_lang.c"],
    );
}

#[test]
fn mpi_f08_struct_contents_and_op_create_large_count_forms_run_over_shared_memory_udp_and_two_hosts(
) {
    runs_everywhere("crates/clump-capi/tests/fortran/struct_c.f90");
}
