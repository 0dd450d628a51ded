//! `MPI_Error_class` and `MPI_Error_string`: clump's own error codes are the standard's
//! error classes themselves, so such a code's class is the code; the user's classes and
//! codes are in [`super::user_errors`].

use super::abi::{LAST_STANDARD_CLASS, MPI_ERR_ARG, MPI_MAX_ERROR_STRING};
use super::export::{call, mpi_functions, out, string_out};
use super::user_errors;
use std::os::raw::{c_char, c_int};

/// The text of each standard error class, indexed by its value.
const TEXTS: [&str; LAST_STANDARD_CLASS as usize + 1] = [
    "MPI_SUCCESS: no error",
    "MPI_ERR_BUFFER: invalid buffer pointer",
    "MPI_ERR_COUNT: invalid count argument",
    "MPI_ERR_TYPE: invalid datatype",
    "MPI_ERR_TAG: invalid tag",
    "MPI_ERR_COMM: invalid communicator",
    "MPI_ERR_RANK: invalid rank",
    "MPI_ERR_REQUEST: invalid request",
    "MPI_ERR_ROOT: invalid root",
    "MPI_ERR_GROUP: invalid group",
    "MPI_ERR_OP: invalid operation",
    "MPI_ERR_TOPOLOGY: invalid topology",
    "MPI_ERR_DIMS: invalid dimension argument",
    "MPI_ERR_ARG: invalid argument",
    "MPI_ERR_UNKNOWN: unknown error",
    "MPI_ERR_TRUNCATE: message truncated on receive",
    "MPI_ERR_OTHER: known error not in this list",
    "MPI_ERR_INTERN: internal error",
    "MPI_ERR_PENDING: pending request",
    "MPI_ERR_IN_STATUS: error code is in status",
    "MPI_ERR_ACCESS: permission denied",
    "MPI_ERR_AMODE: invalid file access mode",
    "MPI_ERR_ASSERT: invalid assert argument",
    "MPI_ERR_BAD_FILE: invalid file name",
    "MPI_ERR_BASE: invalid base address",
    "MPI_ERR_CONVERSION: data conversion failed",
    "MPI_ERR_DISP: invalid displacement",
    "MPI_ERR_DUP_DATAREP: data representation already defined",
    "MPI_ERR_FILE_EXISTS: file exists",
    "MPI_ERR_FILE_IN_USE: file in use",
    "MPI_ERR_FILE: invalid file handle",
    "MPI_ERR_INFO_KEY: info key too long",
    "MPI_ERR_INFO_NOKEY: info key not defined",
    "MPI_ERR_INFO_VALUE: info value too long",
    "MPI_ERR_INFO: invalid info object",
    "MPI_ERR_IO: I/O error",
    "MPI_ERR_KEYVAL: invalid attribute key",
    "MPI_ERR_LOCKTYPE: invalid lock type",
    "MPI_ERR_NAME: name not published",
    "MPI_ERR_NO_MEM: out of memory",
    "MPI_ERR_NOT_SAME: collective arguments differ between processes",
    "MPI_ERR_NO_SPACE: not enough space",
    "MPI_ERR_NO_SUCH_FILE: no such file",
    "MPI_ERR_PORT: invalid port name",
    "MPI_ERR_QUOTA: quota exceeded",
    "MPI_ERR_READ_ONLY: read-only file or file system",
    "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    "MPI_ERR_RMA_RANGE: target memory outside the window",
    "MPI_ERR_RMA_SHARED: memory cannot be shared",
    "MPI_ERR_RMA_SYNC: wrong synchronisation of RMA calls",
    "MPI_ERR_SERVICE: invalid service name",
    "MPI_ERR_SIZE: invalid size",
    "MPI_ERR_SPAWN: spawning processes failed",
    "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by clump",
    "MPI_ERR_WIN: invalid window",
    "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    "MPI_ERR_PROC_ABORTED: a peer process aborted",
    "MPI_ERR_VALUE_TOO_LARGE: value too large to store",
    "MPI_ERR_SESSION: invalid session",
    "MPI_ERR_ERRHANDLER: invalid error handler",
    "MPI_ERR_ABI: the ABI of the program and of the library differ",
];

/// The text of an error code, if it is one.
pub fn text(code: c_int) -> Option<&'static str> {
    usize::try_from(code)
        .ok()
        .and_then(|i| TEXTS.get(i))
        .copied()
}

mpi_functions! {
    fn Error_class(errorcode: c_int, errorclass: *mut c_int) -> c_int {
        call(|| out(errorclass, user_errors::class_of(errorcode).ok_or(MPI_ERR_ARG)?))
    }

    fn Error_string(errorcode: c_int, string: *mut c_char, resultlen: *mut c_int) -> c_int {
        call(|| {
            let text = match text(errorcode) {
                Some(t) => t.to_string(),
                None => user_errors::lookup(errorcode).ok_or(MPI_ERR_ARG)?.1,
            };
            string_out(&text, string, MPI_MAX_ERROR_STRING, resultlen)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn each_class_is_its_own_class_and_has_a_string_naming_it() {
        let mut buf = [0 as c_char; MPI_MAX_ERROR_STRING];
        for code in 0..=LAST_STANDARD_CLASS {
            let (mut class, mut len) = (-1, -1);
            assert_eq!(MPI_Error_class(code, &mut class), 0);
            assert_eq!(class, code);
            assert_eq!(PMPI_Error_string(code, buf.as_mut_ptr(), &mut len), 0);
            // SAFETY: Error_string wrote a NUL-terminated string into `buf`.
            let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
            assert_eq!(s.len(), len as usize);
            assert!(s.starts_with("MPI_"), "{s}");
        }
        assert!(text(15).unwrap().starts_with("MPI_ERR_TRUNCATE"));
        assert!(text(55)
            .unwrap()
            .starts_with("MPI_ERR_UNSUPPORTED_OPERATION"));
    }

    #[test]
    fn a_code_that_is_none_or_a_null_pointer_is_an_argument_error() {
        let mut class = 0;
        assert_eq!(MPI_Error_class(-1, &mut class), MPI_ERR_ARG);
        assert_eq!(
            MPI_Error_class(LAST_STANDARD_CLASS + 1, &mut class),
            MPI_ERR_ARG
        );
        assert_eq!(MPI_Error_class(0, std::ptr::null_mut()), MPI_ERR_ARG);
        let mut len = 0;
        assert_eq!(
            MPI_Error_string(0, std::ptr::null_mut(), &mut len),
            MPI_ERR_ARG
        );
    }
}
