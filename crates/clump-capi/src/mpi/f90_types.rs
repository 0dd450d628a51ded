//! `MPI_Type_create_f90_integer`, `_real` and `_complex` (MPI 4.1 §19.1.9): the datatype
//! of the Fortran kind `SELECTED_INT_KIND(r)` / `SELECTED_REAL_KIND(p, r)` picks under
//! gfortran. Each is made once per argument set, a copy of the sized predefined type
//! whose contents are its combiner and arguments; like a predefined type it cannot be
//! freed.

use super::abi::MPI_ERR_ARG;
use super::export::mpi_functions;
use super::handles::*;
use super::type_contents::{record, Contents};
use super::wired::{on, Failure};
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::c_int;

/// `MPI_COMBINER_F90_*` and `MPI_UNDEFINED` (mpi.h).
const F90_REAL: c_int = 113;
const F90_COMPLEX: c_int = 114;
const F90_INTEGER: c_int = 115;
const UNDEFINED: c_int = -32766;

am::process_local! {
    /// The types made so far, by combiner and arguments.
    static MADE: RefCell<HashMap<(c_int, c_int, c_int), Handle>> = RefCell::new(HashMap::new());
}

/// Whether `h` is one of these types (which cannot be freed).
pub fn is_f90(h: Handle) -> bool {
    MADE.with_borrow(|m| m.values().any(|&v| v == h))
}

/// The sized integer type of decimal exponent range `r`.
fn integer(r: c_int) -> Option<Handle> {
    Some(match r {
        ..=2 => 0x2c1,    // MPI_INTEGER1
        3..=4 => 0x2c9,   // MPI_INTEGER2
        5..=9 => 0x2d1,   // MPI_INTEGER4
        10..=18 => 0x2d9, // MPI_INTEGER8
        19..=38 => 0x2e1, // MPI_INTEGER16
        _ => return None,
    })
}

/// Which of the real kinds (4, 8, 16 bytes) holds precision `p` and range `r` (either
/// may be `MPI_UNDEFINED`, not both).
fn real_kind(p: c_int, r: c_int) -> Option<usize> {
    if p == UNDEFINED && r == UNDEFINED {
        return None;
    }
    let fits = |(pmax, rmax): (c_int, c_int)| {
        (p == UNDEFINED || p <= pmax) && (r == UNDEFINED || r <= rmax)
    };
    [(6, 37), (15, 307), (33, 4931)].into_iter().position(fits)
}

/// The type for `combiner` and its arguments: made on first use from `base`.
fn made(combiner: c_int, p: c_int, r: c_int, base: Option<Handle>) -> Result<Handle, Failure> {
    let base = base.ok_or_else(|| {
        (
            MPI_ERR_ARG,
            format!("no Fortran kind has precision {p} and range {r}"),
        )
    })?;
    if let Some(h) = MADE.with_borrow(|m| m.get(&(combiner, p, r)).copied()) {
        return Ok(h);
    }
    let h = put_datatype(datatype(base)?);
    let ints = if combiner == F90_INTEGER {
        vec![r]
    } else {
        vec![p, r]
    };
    record(h, Contents::new(combiner, ints, vec![], &[])?);
    MADE.with_borrow_mut(|m| m.insert((combiner, p, r), h));
    Ok(h)
}

fn store(t: *mut Handle, h: Handle) -> Result<(), Failure> {
    super::export::out(t, h).map_err(|e| (e, "NULL newtype".into()))
}

mpi_functions! {
    fn Type_create_f90_integer(r: c_int, t: *mut Handle) -> c_int {
        on(COMM_WORLD, || store(t, made(F90_INTEGER, UNDEFINED, r, integer(r))?))
    }

    fn Type_create_f90_real(p: c_int, r: c_int, t: *mut Handle) -> c_int {
        // MPI_REAL4, MPI_REAL8, MPI_REAL16.
        let base = real_kind(p, r).map(|k| [0x2d2, 0x2da, 0x2e2][k]);
        on(COMM_WORLD, || store(t, made(F90_REAL, p, r, base)?))
    }

    fn Type_create_f90_complex(p: c_int, r: c_int, t: *mut Handle) -> c_int {
        // MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32.
        let base = real_kind(p, r).map(|k| [0x2db, 0x2e3, 0x2eb][k]);
        on(COMM_WORLD, || store(t, made(F90_COMPLEX, p, r, base)?))
    }
}
