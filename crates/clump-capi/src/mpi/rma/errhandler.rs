//! Error handlers of windows: the predefined ones and the program's own
//! (`MPI_Win_create_errhandler`), set on a window, read back, and called for its errors
//! (by any failing window call, or by `MPI_Win_call_errhandler`).

use super::super::abi::MPI_ERR_ERRHANDLER;
use super::super::export::{mpi_functions, out};
use super::super::handles::{fatal, Handle, ERRORS_ABORT, ERRORS_ARE_FATAL, ERRORS_RETURN};
use super::super::wired::{self, Failure};
use super::window::{self, on};
use std::cell::RefCell;
use std::os::raw::c_int;

/// The program's handlers are this plus their index (above every other handle kind).
const FIRST_USER: Handle = 0x5000_0000;

/// `MPI_Win_errhandler_function`: `void (MPI_Win *, int *, ...)`.
type UserFn = unsafe extern "C" fn(*mut Handle, *mut c_int, ...);

thread_local! {
    /// The functions of the program's handlers, by index. A handler lives as long as the
    /// process: `MPI_Errhandler_free` only clears the program's handle, and a window may
    /// still use it (the standard keeps it alive while it is set anywhere).
    static USER: RefCell<Vec<UserFn>> = const { RefCell::new(Vec::new()) };
}

fn user(h: Handle) -> Option<UserFn> {
    let i = h.checked_sub(FIRST_USER)?;
    USER.with_borrow(|u| u.get(i).copied())
}

/// Whether `h` may be a window's error handler.
fn valid(h: Handle) -> bool {
    [ERRORS_ARE_FATAL, ERRORS_ABORT, ERRORS_RETURN].contains(&h) || user(h).is_some()
}

/// Passes `failure` through `handler`, the handler of window `win`: ends the job when
/// fatal; otherwise runs the program's function, if any, and gives the code back.
pub fn raise(win: Handle, handler: Handle, failure: Failure) -> c_int {
    if handler == ERRORS_RETURN {
        return failure.0;
    }
    let Some(f) = user(handler) else {
        fatal(failure)
    };
    let (mut w, mut code) = (win, failure.0);
    // SAFETY: `f` is the program's MPI_Win_errhandler_function, called as mpi.h declares
    // it: the address of a window handle and of an error code, no variadic arguments.
    unsafe { f(&mut w, &mut code) };
    failure.0
}

mpi_functions! {
    fn Win_create_errhandler(f: Option<UserFn>, handler: *mut Handle) -> c_int {
        wired::on(super::super::handles::COMM_WORLD, || {
            let f = f.ok_or_else(|| (MPI_ERR_ERRHANDLER, "NULL error handler function".into()))?;
            if handler.is_null() {
                return Err((super::super::abi::MPI_ERR_ARG, "NULL errhandler".into()));
            }
            let h = USER.with_borrow_mut(|u| {
                u.push(f);
                FIRST_USER + u.len() - 1
            });
            out(handler, h).map_err(|e| (e, "NULL errhandler".into()))
        })
    }

    fn Win_set_errhandler(win: Handle, handler: Handle) -> c_int {
        on(win, || {
            if !valid(handler) {
                return Err((MPI_ERR_ERRHANDLER, format!("{handler:#x} is not a window's error handler")));
            }
            window::with(win, |w| {
                w.errhandler = handler;
                Ok(())
            })
        })
    }

    fn Win_get_errhandler(win: Handle, handler: *mut Handle) -> c_int {
        on(win, || {
            let h = window::with(win, |w| Ok(w.errhandler))?;
            out(handler, h).map_err(|e| (e, "NULL errhandler".into()))
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
