//! `MPI_Error_class` and `MPI_Error_string`: clump's own error codes are the standard's
//! error classes themselves, so such a code's class is the code; the user's classes and
//! codes are in [`super::user_errors`].

use super::abi::{MPI_ERR_ARG, MPI_MAX_ERROR_STRING};
use super::class_texts::text;
use super::export::{call, mpi_functions, out, string_out};
use super::user_errors;
use std::os::raw::{c_char, c_int};

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
    use super::super::abi::LAST_STANDARD_CLASS;
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
