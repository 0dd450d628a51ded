//! The datatype queries beyond size and extent: true bounds (`MPI_Type_get_true_extent`),
//! the `MPI_Count` forms (`_x`), and `MPI_Type_match_size`.

use super::abi::MPI_ERR_ARG;
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{on, Failure};
use std::os::raw::c_int;

/// `MPI_Aint` and `MPI_Count`.
type Aint = isize;
type Count = i64;

/// `MPI_TYPECLASS_INTEGER`, `_REAL`, `_COMPLEX` (mpi.h).
const TYPECLASS_INTEGER: c_int = 192;
const TYPECLASS_REAL: c_int = 193;
const TYPECLASS_COMPLEX: c_int = 194;

fn arg<T>(ptr: *mut T, v: T, what: &str) -> Result<(), Failure> {
    super::export::out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// The predefined type of `class` whose elements are `size` bytes: Fortran's sized types
/// (the 16-byte real is Fortran's REAL(KIND=16), binary128, not C's x87 long double).
fn matching(class: c_int, size: c_int) -> Option<Handle> {
    Some(match (class, size) {
        (TYPECLASS_INTEGER, 1) => 0x2c1,
        (TYPECLASS_INTEGER, 2) => 0x2c9,
        (TYPECLASS_INTEGER, 4) => 0x2d1,
        (TYPECLASS_INTEGER, 8) => 0x2d9,
        (TYPECLASS_INTEGER, 16) => 0x2e1,
        (TYPECLASS_REAL, 4) => 0x2d2,
        (TYPECLASS_REAL, 8) => 0x2da,
        (TYPECLASS_REAL, 16) => 0x2e2,
        (TYPECLASS_COMPLEX, 8) => 0x2db,
        (TYPECLASS_COMPLEX, 16) => 0x2e3,
        (TYPECLASS_COMPLEX, 32) => 0x2eb,
        _ => return None,
    })
}

/// The predefined value-index pair type of `value` and `index` (MPI 4.1 §6.9.4), if any.
fn value_index(value: Handle, index: Handle) -> Handle {
    match (value, index) {
        (0x210, 0x209) => 0x228, // MPI_FLOAT, MPI_INT: MPI_FLOAT_INT
        (0x214, 0x209) => 0x229, // MPI_DOUBLE_INT
        (0x20a, 0x209) => 0x22a, // MPI_LONG_INT
        (0x209, 0x209) => 0x22b, // MPI_2INT
        (0x208, 0x209) => 0x22c, // MPI_SHORT_INT
        (0x220, 0x209) => 0x22d, // MPI_LONG_DOUBLE_INT
        (0x21a, 0x21a) => 0x230, // MPI_2REAL
        (0x21c, 0x21c) => 0x231, // MPI_2DOUBLE_PRECISION
        (0x219, 0x219) => 0x232, // MPI_2INTEGER
        _ => DATATYPE_NULL,
    }
}

mpi_functions! {
    fn Type_get_value_index(value: Handle, index: Handle, pair: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            datatype(value)?;
            datatype(index)?;
            arg(pair, value_index(value, index), "pair_type")
        })
    }

    fn Type_get_true_extent(t: Handle, lb: *mut Aint, extent: *mut Aint) -> c_int {
        on(COMM_WORLD, || {
            let (l, e) = datatype(t)?.true_bounds();
            arg(lb, l, "true_lb")?;
            arg(extent, e, "true_extent")
        })
    }

    fn Type_get_true_extent_x(t: Handle, lb: *mut Count, extent: *mut Count) -> c_int {
        on(COMM_WORLD, || {
            let (l, e) = datatype(t)?.true_bounds();
            arg(lb, l as Count, "true_lb")?;
            arg(extent, e as Count, "true_extent")
        })
    }

    fn Type_get_extent_x(t: Handle, lb: *mut Count, extent: *mut Count) -> c_int {
        on(COMM_WORLD, || {
            let dt = datatype(t)?;
            arg(lb, dt.lb() as Count, "lb")?;
            arg(extent, dt.extent() as Count, "extent")
        })
    }

    fn Type_size_x(t: Handle, size: *mut Count) -> c_int {
        on(COMM_WORLD, || arg(size, datatype(t)?.size() as Count, "size"))
    }

    fn Type_match_size(class: c_int, size: c_int, t: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let h = matching(class, size)
                .ok_or_else(|| (MPI_ERR_ARG, format!("no type of class {class} has {size} bytes")))?;
            arg(t, h, "datatype")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_matched_type_has_the_size_asked_for() {
        for (class, sizes) in [
            (TYPECLASS_INTEGER, &[1, 2, 4, 8][..]),
            (TYPECLASS_REAL, &[4, 8, 16]),
            (TYPECLASS_COMPLEX, &[8, 16, 32]),
        ] {
            for &s in sizes {
                let h = matching(class, s).unwrap();
                assert_eq!(datatype(h).unwrap().size(), s as usize, "{class} {s}");
            }
        }
        assert_eq!(matching(TYPECLASS_REAL, 2), None);
    }
}
