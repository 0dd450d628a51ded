//! Every function of `mpi.h` that clump does not implement yet still exists, so programs
//! that merely link it build; a call fails with `MPI_ERR_UNSUPPORTED_OPERATION` through
//! the error handler of `MPI_COMM_WORLD` (fatal by default, with the function's name).
//!
//! They are defined without parameters: under the C calling convention the caller places
//! and removes the arguments, so a callee that reads none is sound for any argument list.

use super::abi::MPI_ERR_UNSUPPORTED_OPERATION;
use super::export::{call, mpi_functions};
use super::handles::{handle_error, COMM_WORLD};
use std::os::raw::c_int;

fn refuse(name: &str) -> c_int {
    call(|| {
        let why = format!("MPI_{name} is not supported by clump");
        Err(handle_error(
            COMM_WORLD,
            (MPI_ERR_UNSUPPORTED_OPERATION, why),
        ))
    })
}

/// Defines each named function as one that refuses.
macro_rules! unsupported {
    ($($name:ident)*) => {
        mpi_functions! {
            $(fn $name() -> c_int { refuse(stringify!($name)) })*
        }
    };
}

unsupported! {
    Comm_spawn File_close File_open Win_create Win_free
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::handles::{set_errhandler, ERRORS_RETURN};

    #[test]
    fn an_unsupported_call_returns_its_class_under_errors_return() {
        set_errhandler(COMM_WORLD, ERRORS_RETURN);
        assert_eq!(MPI_Comm_spawn(), MPI_ERR_UNSUPPORTED_OPERATION);
        assert_eq!(PMPI_Win_free(), MPI_ERR_UNSUPPORTED_OPERATION);
    }
}
