//! Datatypes from C: contiguous user types in the handle registry, their extents, and how
//! many predefined elements a status holds (`MPI_Get_elements`).

use super::abi::*;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{count, on, Failure};
use std::os::raw::c_int;

/// `MPI_Aint`.
type Aint = isize;

fn arg<T>(ptr: *mut T, v: T, what: &str) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

mpi_functions! {
    fn Type_contiguous(n: c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let dt = clump_mpi::Datatype::contiguous(count(n)?, &datatype(old)?).map_err(err)?;
            if new.is_null() {
                return Err((MPI_ERR_ARG, "NULL newtype".into()));
            }
            arg(new, put_datatype(dt), "newtype")
        })
    }

    fn Type_commit(t: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL datatype pointer from C points at an MPI_Datatype.
            let h = unsafe { t.as_ref() }.ok_or((MPI_ERR_ARG, "NULL datatype".to_string()))?;
            datatype(*h).map(drop)
        })
    }

    fn Type_free(t: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: as in Type_commit.
            let h = unsafe { t.as_mut() }.ok_or((MPI_ERR_ARG, "NULL datatype".to_string()))?;
            free_datatype(*h)?;
            *h = DATATYPE_NULL;
            Ok(())
        })
    }

    fn Type_get_extent(t: Handle, lb: *mut Aint, extent: *mut Aint) -> c_int {
        on(COMM_WORLD, || {
            let dt = datatype(t)?;
            arg(lb, 0, "lb")?;
            arg(extent, dt.extent() as Aint, "extent")
        })
    }

    fn Get_elements(status: *const MpiStatus, t: Handle, n: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let elem = datatype(t)?.element().size() as u64;
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { status.as_ref() }.ok_or((MPI_ERR_ARG, "NULL status".to_string()))?;
            let b = status_bytes(s);
            arg(n, if b.is_multiple_of(elem) { (b / elem) as c_int } else { -32766 }, "count")
        })
    }
}
