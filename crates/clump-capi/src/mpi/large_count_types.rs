//! The large-count (`_c`) type constructors whose counts come in arrays: each narrows its
//! counts to the `int`s of its `int` form (`MPI_ERR_COUNT` if one does not fit, as for the
//! scalar `_c` forms) and calls it; byte displacements pass as they are (`MPI_Count` and
//! `MPI_Aint` are both 64 bits on the targets clump supports).

#![allow(clippy::too_many_arguments)] // MPI's own argument lists

use super::array_types::{PMPI_Type_create_darray, PMPI_Type_create_subarray};
use super::export::mpi_functions;
use super::handles::*;
use super::types::*;
use super::wired::{on, Failure};
use clump_mpi::ErrorClass;
use std::os::raw::c_int;

type Count = i64;

/// `n` counts of the C array `ptr`, each as an `int`.
fn narrowed(ptr: *const Count, n: Count) -> Result<Vec<c_int>, Failure> {
    let n = usize::try_from(n)
        .map_err(|_| (class_code(ErrorClass::Count), format!("negative count {n}")))?;
    if n > 0 && ptr.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL array".into()));
    }
    (0..n)
        .map(|i| {
            // SAFETY: a non-NULL array argument from C holds `n` entries.
            let v = unsafe { *ptr.add(i) };
            c_int::try_from(v).map_err(|_| {
                (
                    class_code(ErrorClass::Count),
                    format!("count {v} does not fit an int (clump's largest count)"),
                )
            })
        })
        .collect()
}

/// Runs `f` on the narrowed arrays, or reports why they could not be narrowed.
fn with_ints(arrays: &[(*const Count, Count)], f: impl FnOnce(&[Vec<c_int>]) -> c_int) -> c_int {
    match arrays
        .iter()
        .map(|&(p, n)| narrowed(p, n))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) => f(&v),
        Err(e) => on(COMM_WORLD, || Err(e)),
    }
}

/// A count as the one-entry array `with_ints` narrows.
fn one(n: &Count) -> (*const Count, Count) {
    (n, 1)
}

mpi_functions! {
    fn Type_indexed_c(n: Count, lens: *const Count, disps: *const Count, old: Handle, new: *mut Handle) -> c_int {
        with_ints(&[one(&n), (lens, n), (disps, n)], |v| PMPI_Type_indexed(v[0][0], v[1].as_ptr(), v[2].as_ptr(), old, new))
    }

    fn Type_create_hindexed_c(n: Count, lens: *const Count, disps: *const Count, old: Handle, new: *mut Handle) -> c_int {
        with_ints(&[one(&n), (lens, n)], |v| PMPI_Type_create_hindexed(v[0][0], v[1].as_ptr(), disps.cast(), old, new))
    }

    fn Type_create_indexed_block_c(n: Count, len: Count, disps: *const Count, old: Handle, new: *mut Handle) -> c_int {
        with_ints(&[one(&n), one(&len), (disps, n)], |v| PMPI_Type_create_indexed_block(v[0][0], v[1][0], v[2].as_ptr(), old, new))
    }

    fn Type_create_hindexed_block_c(n: Count, len: Count, disps: *const Count, old: Handle, new: *mut Handle) -> c_int {
        with_ints(&[one(&n), one(&len)], |v| PMPI_Type_create_hindexed_block(v[0][0], v[1][0], disps.cast(), old, new))
    }

    fn Type_create_struct_c(n: Count, lens: *const Count, disps: *const Count, types: *const Handle, new: *mut Handle) -> c_int {
        with_ints(&[one(&n), (lens, n)], |v| PMPI_Type_create_struct(v[0][0], v[1].as_ptr(), disps.cast(), types, new))
    }

    fn Type_create_subarray_c(nd: c_int, sizes: *const Count, subs: *const Count, starts: *const Count, o: c_int, old: Handle, new: *mut Handle) -> c_int {
        let n = Count::from(nd.max(0));
        with_ints(&[(sizes, n), (subs, n), (starts, n)], |v| {
            PMPI_Type_create_subarray(nd, v[0].as_ptr(), v[1].as_ptr(), v[2].as_ptr(), o, old, new)
        })
    }

    fn Type_create_darray_c(size: c_int, rank: c_int, nd: c_int, gsizes: *const Count, distribs: *const c_int,
                            dargs: *const c_int, psizes: *const c_int, o: c_int, old: Handle, new: *mut Handle) -> c_int {
        with_ints(&[(gsizes, Count::from(nd.max(0)))], |v| {
            PMPI_Type_create_darray(size, rank, nd, v[0].as_ptr(), distribs, dargs, psizes, o, old, new)
        })
    }
}
