//! The values of `include/mpi.h` this side needs, as the MPI standard ABI fixes them.

use std::os::raw::c_int;

pub const MPI_SUCCESS: c_int = 0;
pub const MPI_ERR_ARG: c_int = 13;
pub const MPI_ERR_INTERN: c_int = 17;
pub const MPI_ERR_NO_MEM: c_int = 39;
/// The highest error class the standard defines (`MPI_ERR_ERRHANDLER`).
pub const LAST_STANDARD_CLASS: c_int = 61;

pub const MPI_VERSION: c_int = 5;
pub const MPI_SUBVERSION: c_int = 0;
pub const MPI_MAX_ERROR_STRING: usize = 512;
pub const MPI_MAX_PROCESSOR_NAME: usize = 256;
pub const MPI_MAX_LIBRARY_VERSION_STRING: usize = 8192;

/// An MPI call's outcome: `Err` holds the error code returned to C.
pub type MpiResult = Result<(), c_int>;

pub const MPI_ERR_TYPE: c_int = 3;
pub const MPI_ERR_COMM: c_int = 5;
pub const MPI_ERR_REQUEST: c_int = 7;
pub const MPI_ERR_OP: c_int = 10;
pub const MPI_ERR_OTHER: c_int = 16;
pub const MPI_ERR_UNSUPPORTED_OPERATION: c_int = 58;
pub const MPI_THREAD_FUNNELED: c_int = 1;
