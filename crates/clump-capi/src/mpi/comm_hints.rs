//! Info hints on communicators. clump uses none: the calls check the info object and
//! report that no hint is in use, which the standard allows (hints may be ignored).

use super::export::{mpi_functions, out};
use super::handles::*;
use super::info::{check_hints, no_hints};
use super::wired::on;
use std::os::raw::c_int;

mpi_functions! {
    fn Comm_dup_with_info(c: Handle, info: Handle, newcomm: *mut Handle) -> c_int {
        on(c, || {
            check_hints(info)?;
            super::comms::dup_out(c, newcomm)
        })
    }

    fn Comm_idup_with_info(c: Handle, info: Handle, newcomm: *mut Handle, req: *mut Handle) -> c_int {
        on(c, || {
            check_hints(info)?;
            super::comms::idup_out(c, newcomm, req)
        })
    }

    fn Comm_set_info(c: Handle, info: Handle) -> c_int {
        on(c, || {
            comm(c)?;
            check_hints(info)
        })
    }

    fn Comm_get_info(c: Handle, info: *mut Handle) -> c_int {
        on(c, || {
            comm(c)?;
            out(info, no_hints()?).map_err(|e| (e, "NULL info".into()))
        })
    }
}
