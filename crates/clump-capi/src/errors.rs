//! Error text for C: the name and meaning of every `AM_ERR_*` code and of every status
//! handler 0 receives, and why `clump_spmd_startup` failed (the variable and its problem,
//! not just a number).

use crate::codes::{
    AM_ERR_BAD_ARG, AM_ERR_IN_REPLY_HANDLER, AM_ERR_IN_USE, AM_ERR_NOT_INIT, AM_ERR_NOT_SENT,
    AM_ERR_RESOURCE, AM_OK, EBADARGS, EBADENDPOINT, EBADHANDLER, EBADLENGTH, EBADSEGOFF, EBADTAG,
    EOUTCOMEUNKNOWN, EREPLYREJECTED, EUNREACHABLE,
};
use std::ffi::{c_char, CStr, CString};
use std::os::raw::c_int;
use std::sync::{Mutex, PoisonError};

/// (name, meaning) of a return code; static, so C may keep the pointers.
fn text(code: c_int) -> (&'static CStr, &'static CStr) {
    match code {
        AM_OK => (c"AM_OK", c"completed successfully"),
        AM_ERR_NOT_INIT => (c"AM_ERR_NOT_INIT", c"AM_Init has not been called"),
        AM_ERR_BAD_ARG => (c"AM_ERR_BAD_ARG", c"an argument is invalid"),
        AM_ERR_RESOURCE => (c"AM_ERR_RESOURCE", c"a resource is missing or exhausted"),
        AM_ERR_NOT_SENT => (c"AM_ERR_NOT_SENT", c"the message could not be sent"),
        AM_ERR_IN_USE => (c"AM_ERR_IN_USE", c"the resource is in use"),
        AM_ERR_IN_REPLY_HANDLER => (
            c"AM_ERR_IN_REPLY_HANDLER",
            c"a reply handler may not send requests (AM-II: a reply handler sends nothing)",
        ),
        _ => (c"AM_ERR_UNKNOWN", c"not a return code of clump"),
    }
}

#[no_mangle]
pub extern "C" fn clump_error_name(code: c_int) -> *const c_char {
    text(code).0.as_ptr()
}

#[no_mangle]
pub extern "C" fn clump_error_desc(code: c_int) -> *const c_char {
    text(code).1.as_ptr()
}

/// (name, meaning) of a status handler 0 receives (the values of `amii.h`; AM-II's
/// EBADENTRY and ECONGESTION are never given by clump, but named).
fn status_text(status: c_int) -> (&'static CStr, &'static CStr) {
    match status {
        EBADARGS => (c"EBADARGS", c"the message was malformed"),
        2 => (c"EBADENTRY", c"translation table entry not bound"),
        EBADTAG => (c"EBADTAG", c"tag does not match the destination endpoint"),
        EBADHANDLER => (c"EBADHANDLER", c"no such handler at the destination"),
        EBADSEGOFF => (
            c"EBADSEGOFF",
            c"offset and length fall outside the destination segment",
        ),
        EBADLENGTH => (c"EBADLENGTH", c"payload longer than the limit"),
        EBADENDPOINT => (c"EBADENDPOINT", c"destination endpoint was freed"),
        8 => (c"ECONGESTION", c"congestion at the destination"),
        EUNREACHABLE => (
            c"EUNREACHABLE",
            c"destination unreachable (or its process gone): the message never left",
        ),
        EREPLYREJECTED => (c"EREPLYREJECTED", c"reply rejected by the requester"),
        EOUTCOMEUNKNOWN => (
            c"EOUTCOMEUNKNOWN",
            c"destination stopped answering, or its process exited, after the message was sent: it may have run",
        ),
        _ => (c"E_UNKNOWN", c"not a status of clump"),
    }
}

#[no_mangle]
pub extern "C" fn clump_status_name(status: c_int) -> *const c_char {
    status_text(status).0.as_ptr()
}

#[no_mangle]
pub extern "C" fn clump_status_desc(status: c_int) -> *const c_char {
    status_text(status).1.as_ptr()
}

/// Why the process's last `clump_spmd_startup` failed (whichever thread called it).
static STARTUP_ERROR: Mutex<Option<CString>> = Mutex::new(None);

/// Remembers why start-up failed and says it on stderr, so that a program that only
/// checks the code (or not even that) still shows the cause.
pub fn startup_failed(why: &str) {
    let line = format!("clump_spmd_startup: {why}");
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    let text = CString::new(line.replace('\0', " ")).unwrap_or_default();
    *STARTUP_ERROR.lock().unwrap_or_else(PoisonError::into_inner) = Some(text);
}

#[no_mangle]
pub extern "C" fn clump_spmd_error() -> *const c_char {
    // The text's bytes stay where they are until the next failed start-up replaces them.
    let error = STARTUP_ERROR.lock().unwrap_or_else(PoisonError::into_inner);
    error.as_ref().map_or(std::ptr::null(), |t| t.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_name_and_a_meaning() {
        for code in 0..=5 {
            assert!(text(code).0.to_str().unwrap().starts_with("AM_"));
            assert!(!text(code).1.is_empty());
        }
        assert_eq!(text(AM_ERR_BAD_ARG).0, c"AM_ERR_BAD_ARG");
        assert_eq!(text(99).0, c"AM_ERR_UNKNOWN");
    }

    #[test]
    fn the_startup_error_is_kept_for_the_process() {
        assert!(clump_spmd_error().is_null());
        startup_failed("CLUMP_CREDITS=\"0\" is invalid");
        // SAFETY: non-null, NUL-terminated, owned by the process's cell until replaced.
        let text = unsafe { CStr::from_ptr(clump_spmd_error()) };
        assert_eq!(
            text.to_str().unwrap(),
            "clump_spmd_startup: CLUMP_CREDITS=\"0\" is invalid"
        );
    }
}
