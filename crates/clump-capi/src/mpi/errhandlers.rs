//! The program's error handlers (made by `MPI_Comm_create_errhandler` and
//! `MPI_Win_create_errhandler`, in [`super::errhandler_calls`]) and the path every
//! communicator error takes through its handler. A handler is a C function called with the
//! object and the error code; a freed handler stays callable through the objects that still
//! hold it, as MPI requires, so each entry counts its references: the program's handles
//! (the one made, and each one a get call gave) and the objects it is set on. Windows give
//! theirs back when they are freed or set another; communicators keep theirs for the job.

use super::handles::*;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Mutex;

/// `MPI_Comm_errhandler_function` and its window, file and session twins: the object's
/// handle and the error code by address, then nothing the standard defines.
pub type ErrFn = unsafe extern "C" fn(*mut Handle, *mut c_int, ...);

/// What a user handler was made for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Comm,
    Win,
    Session,
}

/// A user handler: what it was made for, its function, and its references.
struct Entry {
    kind: Kind,
    f: ErrFn,
    refs: u32,
}

static HANDLERS: Mutex<Option<HashMap<Handle, Entry>>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut HashMap<Handle, Entry>) -> T) -> T {
    let mut guard = HANDLERS.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

/// Whether `h` may be set on an object of `kind`: a predefined handler or one made for it.
pub fn fits(h: Handle, kind: Kind) -> bool {
    predefined(h) || with(|m| m.get(&h).map(|e| e.kind)) == Some(kind)
}

/// One more reference to `h` (nothing for a predefined handler).
pub fn hold(h: Handle) {
    with(|m| m.get_mut(&h).map(|e| e.refs += 1));
}

/// One reference to `h` fewer: the entry goes with the last. False if `h` is no user
/// handler.
pub fn release(h: Handle) -> bool {
    with(|m| {
        let Some(e) = m.get_mut(&h) else {
            return false;
        };
        e.refs -= 1;
        if e.refs == 0 {
            m.remove(&h);
        }
        true
    })
}

/// Whether `h` is one of the predefined handlers.
pub fn predefined(h: Handle) -> bool {
    [ERRORS_ARE_FATAL, ERRORS_RETURN, ERRORS_ABORT].contains(&h)
}

/// Calls user handler `h` on `object` with `code`; false if `h` is no user handler.
pub fn invoke(h: Handle, object: Handle, code: c_int) -> bool {
    let Some(f) = with(|m| m.get(&h).map(|e| e.f)) else {
        return false;
    };
    let (mut obj, mut code) = (object, code);
    // SAFETY: `f` came from MPI_*_create_errhandler, whose contract is a function of this
    // signature; both arguments point at live locals for the call.
    unsafe { f(&mut obj, &mut code) };
    true
}

/// Stores `f` as a new handler for objects of `kind`, with the program's one reference;
/// returns its handle.
pub fn add(f: ErrFn, kind: Kind) -> Handle {
    let made = fresh_handle();
    with(|m| m.insert(made, Entry { kind, f, refs: 1 }));
    made
}

/// Passes an error through `comm`'s handler: returns its code (after calling a user
/// handler), or ends the job.
pub fn handle_error(comm: Handle, (code, message): (c_int, String)) -> c_int {
    let h = errhandler(comm);
    if h == ERRORS_RETURN || invoke(h, comm, code) {
        return code;
    }
    fatal((code, message))
}
