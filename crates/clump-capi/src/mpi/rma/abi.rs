//! The values of `include/mpi.h` that one-sided communication needs (MPI standard ABI).

use std::os::raw::c_int;

pub const MPI_ERR_RANK: c_int = 6;
pub const MPI_ERR_ASSERT: c_int = 22;
pub const MPI_ERR_DISP: c_int = 26;
pub const MPI_ERR_LOCKTYPE: c_int = 37;
pub const MPI_ERR_RMA_ATTACH: c_int = 46;
pub const MPI_ERR_RMA_RANGE: c_int = 48;
pub const MPI_ERR_RMA_SHARED: c_int = 49;
pub const MPI_ERR_RMA_SYNC: c_int = 50;
pub const MPI_ERR_SIZE: c_int = 52;
pub const MPI_ERR_WIN: c_int = 56;
pub const MPI_ERR_RMA_FLAVOR: c_int = 57;

pub const MPI_MODE_NOCHECK: c_int = 1024;
pub const MPI_MODE_NOPRECEDE: c_int = 2048;
pub const MPI_MODE_NOPUT: c_int = 4096;
pub const MPI_MODE_NOSTORE: c_int = 8192;
pub const MPI_MODE_NOSUCCEED: c_int = 16384;

pub const MPI_LOCK_EXCLUSIVE: c_int = 301;
pub const MPI_LOCK_SHARED: c_int = 302;
pub const MPI_WIN_FLAVOR_CREATE: c_int = 311;
pub const MPI_WIN_FLAVOR_ALLOCATE: c_int = 312;
pub const MPI_WIN_FLAVOR_DYNAMIC: c_int = 313;
pub const MPI_WIN_FLAVOR_SHARED: c_int = 314;
pub const MPI_WIN_UNIFIED: c_int = 321;

pub const MPI_WIN_BASE: c_int = 601;
pub const MPI_WIN_DISP_UNIT: c_int = 602;
pub const MPI_WIN_SIZE: c_int = 603;
pub const MPI_WIN_CREATE_FLAVOR: c_int = 604;
pub const MPI_WIN_MODEL: c_int = 605;

/// `MPI_WIN_NULL`.
pub const WIN_NULL: usize = 0x110;
