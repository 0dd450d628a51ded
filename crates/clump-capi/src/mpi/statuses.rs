//! What a program may read and set in a status (`MPI_Status_set_elements(_x)`,
//! `MPI_Status_set_cancelled`, the MPI 4.1 getters and setters of its fields), the
//! `MPI_Count` form of `MPI_Get_elements`.

use super::abi::*;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{on, Failure};
use std::os::raw::c_int;

type Count = i64;

fn status_mut<'a>(s: *mut MpiStatus) -> Result<&'a mut MpiStatus, Failure> {
    // SAFETY: a non-NULL status pointer from C points at an MPI_Status, which the caller
    // lets this call use alone.
    unsafe { s.as_mut() }.ok_or_else(|| (MPI_ERR_ARG, "NULL status".to_string()))
}

/// Records `n` elements of `t` as received.
fn set_elements(s: *mut MpiStatus, t: Handle, n: Count) -> Result<(), Failure> {
    let n = u64::try_from(n).map_err(|_| (2, format!("negative count {n}")))?;
    let bytes = n
        .checked_mul(datatype(t)?.size() as u64)
        .ok_or_else(|| (2, "count too large".to_string()))?;
    let s = status_mut(s)?;
    s.internal[0] = bytes as u32 as c_int;
    s.internal[1] = (bytes >> 32) as c_int;
    Ok(())
}

fn int_out(ptr: *mut c_int, v: c_int) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, "NULL result".into()))
}

mpi_functions! {
    fn Status_set_elements(s: *mut MpiStatus, t: Handle, n: c_int) -> c_int {
        on(COMM_WORLD, || set_elements(s, t, n as Count))
    }

    fn Status_set_elements_x(s: *mut MpiStatus, t: Handle, n: Count) -> c_int {
        on(COMM_WORLD, || set_elements(s, t, n))
    }

    fn Status_set_cancelled(s: *mut MpiStatus, flag: c_int) -> c_int {
        on(COMM_WORLD, || {
            status_mut(s)?.internal[2] = (flag != 0) as c_int;
            Ok(())
        })
    }

    fn Status_set_source(s: *mut MpiStatus, v: c_int) -> c_int {
        on(COMM_WORLD, || {
            status_mut(s)?.source = v;
            Ok(())
        })
    }

    fn Status_set_tag(s: *mut MpiStatus, v: c_int) -> c_int {
        on(COMM_WORLD, || {
            status_mut(s)?.tag = v;
            Ok(())
        })
    }

    fn Status_set_error(s: *mut MpiStatus, v: c_int) -> c_int {
        on(COMM_WORLD, || {
            status_mut(s)?.error = v;
            Ok(())
        })
    }

    fn Status_get_source(s: *mut MpiStatus, v: *mut c_int) -> c_int {
        on(COMM_WORLD, || int_out(v, status_mut(s)?.source))
    }

    fn Status_get_tag(s: *mut MpiStatus, v: *mut c_int) -> c_int {
        on(COMM_WORLD, || int_out(v, status_mut(s)?.tag))
    }

    fn Status_get_error(s: *mut MpiStatus, v: *mut c_int) -> c_int {
        on(COMM_WORLD, || int_out(v, status_mut(s)?.error))
    }

    fn Get_elements_x(s: *const MpiStatus, t: Handle, n: *mut Count) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL status pointer from C points at an MPI_Status.
            let s = unsafe { s.as_ref() }.ok_or_else(|| (MPI_ERR_ARG, "NULL status".to_string()))?;
            let v = super::types::elements(s, &datatype(t)?);
            out(n, v.map_or(MPI_UNDEFINED as Count, |v| v as Count)).map_err(|e| (e, "NULL count".into()))
        })
    }
}
