//! Error handlers of windows: the predefined ones and the program's own (made by
//! `MPI_Win_create_errhandler`, kept with every kind's in [`errhandlers`]), set on a
//! window, read back, and called for its errors (by any failing window call, or by
//! `MPI_Win_call_errhandler`).

use super::super::abi::MPI_ERR_ERRHANDLER;
use super::super::errhandlers::{self, Kind};
use super::super::export::{mpi_functions, out};
use super::super::handles::Handle;
use super::super::wired::Failure;
use super::window::{self, on, raise};
use std::os::raw::c_int;

/// Fails a call on window `win` with `failure`, through the window's handler.
pub fn raise_on(win: Handle, failure: Failure) -> c_int {
    on(win, || Err(failure))
}

mpi_functions! {
    fn Win_set_errhandler(win: Handle, handler: Handle) -> c_int {
        on(win, || {
            if !errhandlers::fits(handler, Kind::Win) {
                return Err((MPI_ERR_ERRHANDLER, format!("{handler:#x} is not a window's error handler")));
            }
            let old = window::with(win, |w| Ok(std::mem::replace(&mut w.errhandler, handler)))?;
            errhandlers::hold(handler);
            errhandlers::release(old);
            Ok(())
        })
    }

    fn Win_get_errhandler(win: Handle, handler: *mut Handle) -> c_int {
        on(win, || {
            let h = window::with(win, |w| Ok(w.errhandler))?;
            out(handler, h).map_err(|e| (e, "NULL errhandler".into()))?;
            // The program's new handle is a reference it frees.
            errhandlers::hold(h);
            Ok(())
        })
    }

    fn Win_call_errhandler(win: Handle, code: c_int) -> c_int {
        super::super::export::call(|| {
            let handler = window::with(win, |w| Ok(w.errhandler))
                .map_err(|e| window::handle_error(win, e))?;
            raise(win, handler, (code, format!("error {code} raised by MPI_Win_call_errhandler")));
            Ok(())
        })
    }
}
