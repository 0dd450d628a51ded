//! The Fortran variables that stand for C's MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE,
//! MPI_STATUSES_IGNORE, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. Fortran has no null pointer to pass, so mpif.h and the
//! modules place each in a COMMON block of its own (`/mpi_fortran_bottom/`, ...): one
//! address per program, which the library defines (at least the size Fortran declares)
//! and recognises. A program linked with libclump.so has one copy, its own or the
//! library's: the dynamic linker binds the library's references to the executable's
//! when it has one, since these exported symbols are reached through the GOT.

#![allow(non_upper_case_globals)]

use std::os::raw::c_void;
use std::sync::atomic::AtomicI32;

/// `MPI_STATUS_SIZE`.
const STATUS: usize = 8;

#[no_mangle]
pub static mpi_fortran_bottom_: AtomicI32 = AtomicI32::new(0);
#[no_mangle]
pub static mpi_fortran_in_place_: AtomicI32 = AtomicI32::new(0);
#[no_mangle]
pub static mpi_fortran_status_ignore_: [AtomicI32; STATUS] = [const { AtomicI32::new(0) }; STATUS];
#[no_mangle]
pub static mpi_fortran_statuses_ignore_: [AtomicI32; STATUS] =
    [const { AtomicI32::new(0) }; STATUS];

#[no_mangle]
pub static mpi_fortran_unweighted_: AtomicI32 = AtomicI32::new(0);
#[no_mangle]
pub static mpi_fortran_weights_empty_: AtomicI32 = AtomicI32::new(0);

fn is<T>(p: *const T, var: *const impl Sized) -> bool {
    p.cast::<c_void>() == var.cast::<c_void>()
}

pub fn is_bottom(p: *const c_void) -> bool {
    is(p, &mpi_fortran_bottom_)
}

pub fn is_in_place(p: *const c_void) -> bool {
    is(p, &mpi_fortran_in_place_)
}

pub fn is_status_ignore<T>(p: *const T) -> bool {
    is(p, &mpi_fortran_status_ignore_)
}

pub fn is_statuses_ignore<T>(p: *const T) -> bool {
    is(p, &mpi_fortran_statuses_ignore_)
}

pub fn is_unweighted<T>(p: *const T) -> bool {
    is(p, &mpi_fortran_unweighted_)
}

pub fn is_weights_empty<T>(p: *const T) -> bool {
    is(p, &mpi_fortran_weights_empty_)
}
