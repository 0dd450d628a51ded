//! The values of `include/mpi.h` this side needs, as the MPI standard ABI (MPI 5.0, ABI
//! 1.0) fixes them.

use std::os::raw::c_int;

pub const MPI_SUCCESS: c_int = 0;
pub const MPI_ERR_BUFFER: c_int = 1;
pub const MPI_ERR_TYPE: c_int = 3;
pub const MPI_ERR_COMM: c_int = 5;
pub const MPI_ERR_REQUEST: c_int = 7;
pub const MPI_ERR_GROUP: c_int = 9;
pub const MPI_ERR_OP: c_int = 10;
pub const MPI_ERR_ARG: c_int = 13;
pub const MPI_ERR_OTHER: c_int = 16;
pub const MPI_ERR_INTERN: c_int = 17;
pub const MPI_ERR_INFO_KEY: c_int = 31;
pub const MPI_ERR_INFO_NOKEY: c_int = 32;
pub const MPI_ERR_INFO_VALUE: c_int = 33;
pub const MPI_ERR_INFO: c_int = 34;
pub const MPI_ERR_KEYVAL: c_int = 36;
pub const MPI_ERR_LASTCODE: c_int = 16383;
pub const MPI_KEYVAL_INVALID: c_int = 0;
pub const MPI_ERR_NO_MEM: c_int = 39;
pub const MPI_ERR_UNSUPPORTED_OPERATION: c_int = 55;
pub const MPI_ERR_SESSION: c_int = 60;
pub const MPI_ERR_ERRHANDLER: c_int = 61;
/// The highest error class the standard defines (`MPI_ERR_ABI`).
pub const LAST_STANDARD_CLASS: c_int = 62;

pub const MPI_VERSION: c_int = 5;
pub const MPI_SUBVERSION: c_int = 0;
pub const MPI_ABI_VERSION: c_int = 1;
pub const MPI_ABI_SUBVERSION: c_int = 0;
pub const MPI_MAX_ERROR_STRING: usize = 512;
pub const MPI_MAX_PROCESSOR_NAME: usize = 256;
pub const MPI_MAX_LIBRARY_VERSION_STRING: usize = 8192;
pub const MPI_MAX_INFO_KEY: usize = 256;
pub const MPI_MAX_INFO_VAL: usize = 1024;

pub const MPI_THREAD_SINGLE: c_int = 0;
pub const MPI_THREAD_FUNNELED: c_int = 1024;
pub const MPI_THREAD_SERIALIZED: c_int = 2048;
pub const MPI_THREAD_MULTIPLE: c_int = 4096;

pub const MPI_UNDEFINED: c_int = -32766;

/// `MPI_IDENT`, `MPI_CONGRUENT`, `MPI_SIMILAR`, `MPI_UNEQUAL`.
pub const MPI_IDENT: c_int = 201;
pub const MPI_CONGRUENT: c_int = 202;
pub const MPI_SIMILAR: c_int = 203;
pub const MPI_UNEQUAL: c_int = 204;

/// The predefined attribute keys of communicators.
pub const MPI_TAG_UB: c_int = 501;
pub const MPI_IO: c_int = 502;
pub const MPI_HOST: c_int = 503;
pub const MPI_WTIME_IS_GLOBAL: c_int = 504;
pub const MPI_APPNUM: c_int = 505;
pub const MPI_LASTUSEDCODE: c_int = 506;
pub const MPI_UNIVERSE_SIZE: c_int = 507;

/// `MPI_Aint`: the platform's pointer-sized signed integer.
pub type MpiAint = isize;

/// An MPI call's outcome: `Err` holds the error code returned to C.
pub type MpiResult = Result<(), c_int>;
