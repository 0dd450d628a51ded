//! The names from before OpenSHMEM 1.2 that 1.5 still lists as deprecated, which older
//! programs and configure scripts (OSU's looks for `start_pes`, `shmalloc`) use: each is
//! the current call under its old name. The cache-management calls were for machines
//! whose caches were not coherent; here they have nothing to do. Also the profiling
//! interface's `shmem_pcontrol`, which has nothing to do either.

use super::memory::{shmem_align, shmem_free, shmem_malloc, shmem_realloc};
use super::setup::{shmem_init, shmem_my_pe, shmem_n_pes};
use std::ffi::c_void;
use std::os::raw::c_int;

/// `start_pes(npes)`: the argument was ignored already in OpenSHMEM 1.0.
#[no_mangle]
pub extern "C" fn start_pes(_npes: c_int) {
    shmem_init()
}

#[no_mangle]
pub extern "C" fn _my_pe() -> c_int {
    shmem_my_pe()
}

#[no_mangle]
pub extern "C" fn _num_pes() -> c_int {
    shmem_n_pes()
}

#[no_mangle]
pub extern "C" fn shmalloc(size: usize) -> *mut c_void {
    shmem_malloc(size)
}

#[no_mangle]
pub extern "C" fn shfree(ptr: *mut c_void) {
    shmem_free(ptr)
}

#[no_mangle]
pub extern "C" fn shrealloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    shmem_realloc(ptr, size)
}

#[no_mangle]
pub extern "C" fn shmemalign(alignment: usize, size: usize) -> *mut c_void {
    shmem_align(alignment, size)
}

#[pshmem::twin]
pub extern "C" fn shmem_set_cache_inv() {}

#[pshmem::twin]
pub extern "C" fn shmem_clear_cache_inv() {}

#[pshmem::twin]
pub extern "C" fn shmem_udcflush() {}

#[pshmem::twin]
pub extern "C" fn shmem_set_cache_line_inv(_dest: *mut c_void) {}

#[pshmem::twin]
pub extern "C" fn shmem_clear_cache_line_inv(_dest: *mut c_void) {}

#[pshmem::twin]
pub extern "C" fn shmem_udcflush_line(_dest: *mut c_void) {}

/// `shmem_pcontrol(level, ...)`, the profiling interface's control call: without a
/// profiling library in front of libclump there is nothing to control. The C declaration
/// is variadic; on the Linux ABIs clump runs on (x86-64 System V, AArch64) the first
/// integer argument arrives as for a plain function and the further ones are not read.
#[pshmem::twin]
pub extern "C" fn shmem_pcontrol(_level: c_int) {}
