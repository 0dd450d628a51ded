//! The open sessions (MPI 4.0) and what each made: the table the session functions
//! (`sessions.rs`) keep and the layers that ask which session a communicator belongs to
//! (a buffered send uses its session's buffer) read.

use super::abi::*;
use super::errhandlers::invoke;
use super::export::call;
use super::handles::*;
use super::wired::Failure;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Mutex;

/// An open session: its error handler, the thread level it provides, and the groups and
/// communicators made of its process sets (a buffered send in one uses its buffer).
pub(super) struct Session {
    pub errhandler: Handle,
    pub thread_level: &'static str,
    pub members: Vec<Handle>,
}

static SESSIONS: Mutex<Option<HashMap<Handle, Session>>> = Mutex::new(None);

pub(super) fn with<T>(f: impl FnOnce(&mut HashMap<Handle, Session>) -> T) -> T {
    let mut guard = SESSIONS.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

/// The error handler of session `s` (fatal for one that is not open).
pub(super) fn handler_of(s: Handle) -> Handle {
    with(|m| m.get(&s).map(|e| e.errhandler)).unwrap_or(ERRORS_ARE_FATAL)
}

/// Runs `body` on session `s`; its error goes through the session's handler.
pub fn on_session(s: Handle, body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    call(|| {
        body().map_err(|(code, message)| {
            let h = handler_of(s);
            if h == ERRORS_RETURN || invoke(h, s, code) {
                return code;
            }
            fatal((code, message))
        })
    })
}

pub fn known(s: Handle) -> Result<(), Failure> {
    match with(|m| m.contains_key(&s)) {
        true => Ok(()),
        false => Err((MPI_ERR_SESSION, format!("{s:#x} is not an open session"))),
    }
}

/// The session group or communicator `h` was made in, if it was made of a session's.
pub fn session_of(h: Handle) -> Option<Handle> {
    with(|m| {
        m.iter()
            .find(|(_, e)| e.members.contains(&h))
            .map(|(s, _)| *s)
    })
}

/// Records `h` as made in the session of `from` (if any).
pub(super) fn inherit(from: Handle, h: Handle) {
    if let Some(s) = session_of(from) {
        with(|m| m.get_mut(&s).map(|e| e.members.push(h)));
    }
}
