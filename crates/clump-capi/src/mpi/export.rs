//! How an MPI function reaches C: `mpi_functions!` defines `PMPI_<name>` with the body
//! and `MPI_<name>` calling it, both exported, so a profiling tool that defines
//! `MPI_<name>` itself still reaches clump through `PMPI_<name>`. Each `PMPI_<name>`
//! runs inside the process lock when threads share MPI (`clump::serial`; a relaxed load
//! otherwise). [`call`] is the boundary: the body's error code, or `MPI_ERR_INTERN` if it
//! panicked.

use super::abi::{MpiResult, MPI_ERR_INTERN, MPI_SUCCESS};
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Defines and exports each `fn Name(args) -> ret { body }` as `PMPI_Name` and `MPI_Name`.
macro_rules! mpi_functions {
    ($(fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block)*) => {
        paste::paste! {
            $(
                #[no_mangle]
                pub extern "C" fn [<PMPI_ $name>]($($arg: $ty),*) -> $ret {
                    // Inside the process lock when MPI is shared by threads.
                    let _entered = am::serial::enter();
                    $body
                }

                #[no_mangle]
                pub extern "C" fn [<MPI_ $name>]($($arg: $ty),*) -> $ret {
                    [<PMPI_ $name>]($($arg),*)
                }
            )*
        }
    };
}
pub(crate) use mpi_functions;

/// Runs an exported call's body; a panic becomes `MPI_ERR_INTERN`, never an unwind into C.
#[inline(always)]
pub fn call(body: impl FnOnce() -> MpiResult) -> c_int {
    // AssertUnwindSafe: after a panic the caller only gets an error code.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => MPI_SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => MPI_ERR_INTERN,
    }
}

/// Writes `v` through an out-pointer from C, or fails with `MPI_ERR_ARG` if it is NULL.
pub fn out<T>(ptr: *mut T, v: T) -> MpiResult {
    crate::guard::out(ptr, v).map_err(|_| super::abi::MPI_ERR_ARG)
}

/// Copies `text` into the C buffer `buf` of `capacity` bytes (NUL-terminated, cut to
/// fit) and stores its length in `len`, as the MPI string queries do.
pub fn string_out(
    text: &str,
    buf: *mut std::os::raw::c_char,
    capacity: usize,
    len: *mut c_int,
) -> MpiResult {
    if buf.is_null() || len.is_null() {
        return Err(super::abi::MPI_ERR_ARG);
    }
    let bytes = &text.as_bytes()[..text.len().min(capacity - 1)];
    // SAFETY: the caller's contract (mpi.h) is that `buf` holds `capacity` bytes (the
    // MPI_MAX_* constant of this query); at most `capacity - 1` plus the NUL are written.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), bytes.len());
        *buf.add(bytes.len()) = 0;
    }
    out(len, bytes.len() as c_int)
}
