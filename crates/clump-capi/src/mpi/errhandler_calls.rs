//! The MPI calls on error handlers: making one for communicators or windows, setting and
//! reading a communicator's, and calling it.

use super::abi::{MPI_ERR_ARG, MPI_ERR_ERRHANDLER};
use super::errhandlers::{add, fits, hold, invoke, ErrFn, Kind};
use super::export::{call, mpi_functions, out};
use super::handles::*;
use super::wired::on;
use std::os::raw::c_int;

fn create(f: Option<ErrFn>, kind: Kind, h: *mut Handle) -> c_int {
    call(|| {
        let f = f.ok_or(MPI_ERR_ARG)?;
        out(h, add(f, kind))
    })
}

mpi_functions! {
    fn Comm_create_errhandler(f: Option<ErrFn>, h: *mut Handle) -> c_int {
        create(f, Kind::Comm, h)
    }

    fn Win_create_errhandler(f: Option<ErrFn>, h: *mut Handle) -> c_int {
        create(f, Kind::Win, h)
    }

    fn Comm_call_errhandler(c: Handle, code: c_int) -> c_int {
        on(c, || {
            comm(c)?;
            let h = errhandler(c);
            if !invoke(h, c, code) && h != ERRORS_RETURN {
                fatal((code, "raised by MPI_Comm_call_errhandler".into()));
            }
            Ok(())
        })
    }

    fn Comm_set_errhandler(c: Handle, h: Handle) -> c_int {
        on(c, || {
            comm(c)?;
            if !fits(h, Kind::Comm) {
                return Err((MPI_ERR_ERRHANDLER, format!("{h:#x} is no communicator error handler")));
            }
            // Communicators keep the handlers set on them for the job.
            hold(h);
            set_errhandler(c, h);
            Ok(())
        })
    }

    fn Comm_get_errhandler(c: Handle, h: *mut Handle) -> c_int {
        on(c, || {
            comm(c)?;
            let handler = errhandler(c);
            out(h, handler).map_err(|e| (e, "NULL errhandler".into()))?;
            // The program's new handle is a reference it frees.
            hold(handler);
            Ok(())
        })
    }
}
