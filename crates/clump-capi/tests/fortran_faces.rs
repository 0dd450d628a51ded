//! Every MPI function libclump implements in C has its Fortran face (`mpi_X_`, which
//! `fortran/interface.txt` generates with mpif.h's and both modules' procedures), unless
//! the exclusions below say why it has none. A function C implements is one libclump
//! exports as `MPI_X` that is not among `src/mpi/unsupported.rs`'s refusals.

#[allow(dead_code)] // not every helper serves this test
mod support;

use std::collections::BTreeSet;
use support::{exported_functions, tree};

/// C functions with no Fortran procedure, and why.
const EXCLUDED: &[(&str, &str)] = &[
    // The standard ABI defines these for C only: Fortran's handles are integers already.
    (
        "_toint",
        "the standard ABI's conversion of a C handle to an int",
    ),
    (
        "_fromint",
        "the standard ABI's conversion of an int to a C handle",
    ),
    // A prefix: the tool information interface has C bindings only (MPI 4.1 §15.3).
    ("T_", "the tool information interface is C only"),
    // MPI 5.0 gives these C bindings only: they serve the implementers of Fortran bindings.
    (
        "Abi_get_fortran_booleans",
        "for Fortran binding layers written in C",
    ),
    (
        "Abi_set_fortran_booleans",
        "for Fortran binding layers written in C",
    ),
    (
        "Abi_get_fortran_info",
        "for Fortran binding layers written in C",
    ),
    (
        "Abi_set_fortran_info",
        "for Fortran binding layers written in C",
    ),
    // mpi_f08 binds a large-count form as a second specific of the generic, told apart by
    // its INTEGER(KIND=MPI_COUNT_KIND) arguments; here MPI_COUNT_KIND is MPI_ADDRESS_KIND,
    // so these would be the generic's first specific again (ambiguous), which already
    // passes the large values.
    (
        "Type_get_extent_c",
        "MPI_COUNT_KIND equals MPI_ADDRESS_KIND: MPI_Type_get_extent serves",
    ),
    (
        "Type_get_true_extent_c",
        "MPI_COUNT_KIND equals MPI_ADDRESS_KIND: MPI_Type_get_true_extent serves",
    ),
    (
        "Type_create_resized_c",
        "MPI_COUNT_KIND equals MPI_ADDRESS_KIND: MPI_Type_create_resized serves",
    ),
];

/// An exclusion `_x` names every function ending in `_x`, `x_` every one starting so.
fn excluded(name: &str) -> bool {
    EXCLUDED.iter().any(|(e, _)| {
        name == *e
            || (e.starts_with('_') && name.ends_with(e))
            || (e.ends_with('_') && name.starts_with(e))
    })
}

/// The names `unsupported!` refuses (its block in src/mpi/unsupported.rs).
fn unsupported() -> BTreeSet<String> {
    let path = tree().repo.join("crates/clump-capi/src/mpi/unsupported.rs");
    let text = std::fs::read_to_string(&path).expect("unsupported.rs");
    let block = text
        .split_once("\nunsupported! {")
        .and_then(|(_, rest)| rest.split_once("\n}"))
        .expect("the unsupported! block")
        .0;
    block
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_mpi_function_c_implements_has_a_fortran_face() {
    let exported = exported_functions();
    let refused = unsupported();
    assert!(
        refused.contains("File_open"),
        "the unsupported! block was not read"
    );
    let implemented: Vec<&str> = exported
        .iter()
        .filter_map(|n| n.strip_prefix("MPI_"))
        .filter(|n| !refused.contains(*n))
        .collect();
    assert!(
        implemented.len() > 250,
        "only {} MPI functions",
        implemented.len()
    );
    let faceless: Vec<&str> = implemented
        .iter()
        .copied()
        .filter(|n| !excluded(n))
        .filter(|n| {
            let lower = n.to_lowercase();
            !(exported.contains(&format!("mpi_{lower}_"))
                && exported.contains(&format!("pmpi_{lower}_")))
        })
        .collect();
    assert!(
        faceless.is_empty(),
        "{} MPI functions have no Fortran face (a line in fortran/interface.txt) and no \
         exclusion in this test: {faceless:?}",
        faceless.len()
    );
}

#[test]
fn every_exclusion_names_a_function_c_implements() {
    let exported = exported_functions();
    for (name, why) in EXCLUDED {
        let found = if name.starts_with('_') {
            exported
                .iter()
                .any(|n| n.starts_with("MPI_") && n.ends_with(name))
        } else if name.ends_with('_') {
            exported
                .iter()
                .any(|n| n.starts_with(&format!("MPI_{name}")))
        } else {
            exported.contains(&format!("MPI_{name}"))
        };
        assert!(
            found,
            "MPI_{name} is excluded ({why}) but libclump exports no such function"
        );
    }
}
