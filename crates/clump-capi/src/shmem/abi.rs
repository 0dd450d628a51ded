//! The constants of `shmem.h` that calls receive or return (the header defines the same).

use std::os::raw::c_int;

pub const MAJOR_VERSION: c_int = 1;
pub const MINOR_VERSION: c_int = 5;
pub const VENDOR_STRING: &str = "clump";
/// `SHMEM_MAX_NAME_LEN`: the capacity of `shmem_info_get_name`'s buffer.
pub const MAX_NAME_LEN: usize = 256;

pub const THREAD_SINGLE: c_int = 0;
pub const THREAD_FUNNELED: c_int = 1;
pub const THREAD_SERIALIZED: c_int = 2;
pub const THREAD_MULTIPLE: c_int = 3;

pub const CMP_EQ: c_int = 1;
pub const CMP_NE: c_int = 2;
pub const CMP_GT: c_int = 3;
pub const CMP_GE: c_int = 4;
pub const CMP_LT: c_int = 5;
pub const CMP_LE: c_int = 6;

pub const SIGNAL_SET: c_int = 0;
pub const SIGNAL_ADD: c_int = 1;

/// `SHMEM_TEAM_NUM_CONTEXTS`: the bit of a team configuration mask for `num_contexts`.
pub const TEAM_NUM_CONTEXTS: std::os::raw::c_long = 1;

/// `SHMEM_CTX_PRIVATE`: the option bit of a context only its creating thread uses.
pub const CTX_PRIVATE: std::os::raw::c_long = 1;

/// The predefined handles (`SHMEM_CTX_DEFAULT`, `SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED`);
/// handles the program creates start at [`FIRST_HANDLE`]. 0 is `..._INVALID`.
pub const CTX_INVALID: usize = 0;
pub const TEAM_INVALID: usize = 0;
pub const CTX_DEFAULT: usize = 1;
pub const TEAM_WORLD: usize = 1;
pub const TEAM_SHARED: usize = 2;
pub const FIRST_HANDLE: usize = 16;

#[no_mangle]
pub static SHMEM_CTX_DEFAULT: usize = CTX_DEFAULT;
#[no_mangle]
pub static SHMEM_TEAM_WORLD: usize = TEAM_WORLD;
#[no_mangle]
pub static SHMEM_TEAM_SHARED: usize = TEAM_SHARED;
