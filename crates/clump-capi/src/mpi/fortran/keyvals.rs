//! Attribute keys from Fortran: `MPI_Comm_create_keyval`, `MPI_Type_create_keyval` and
//! `MPI_Win_create_keyval` (state and values INTEGER(KIND=MPI_ADDRESS_KIND)), MPI-1's
//! `MPI_Keyval_create` (default INTEGERs), whose callbacks [`super::super::attrs`] calls
//! as Fortran procedures; and the predefined callbacks (`MPI_COMM_DUP_FN` ...), which in
//! Fortran are procedures a program names, so the library defines them.

use super::super::abi::MpiAint as Aint;
use super::super::attrs::Callbacks;
use super::super::comm_attrs::create_with;
use super::args::{put, val, Fint};
use std::os::raw::c_int;

pub fn create(copy: usize, delete: usize, k: *mut c_int, extra: Aint) -> c_int {
    create_with(copy, delete, k, extra as usize, Callbacks::Fortran)
}

pub fn create_mpi1(copy: usize, delete: usize, k: *mut c_int, extra: c_int) -> c_int {
    create_with(
        copy,
        delete,
        k,
        extra as isize as usize,
        Callbacks::FortranInt,
    )
}

/// A copy callback: `flag` says whether the new object gets `out`; no error.
fn copied<I>(out: *mut I, value: Option<I>, flag: *mut Fint, ierror: *mut Fint) {
    put(flag, value.is_some() as Fint);
    if let Some(v) = value {
        put(out, v);
    }
    put(ierror, 0);
}

/// Defines the predefined copy callbacks of one integer type: the null one (no copy)
/// and the duplicating one (the same value).
macro_rules! copy_callbacks {
    ($int:ty, $null:ident, $dup:ident) => {
        #[no_mangle]
        pub extern "C" fn $null(
            _: *const Fint,
            _: *const Fint,
            _: *const $int,
            _: *const $int,
            out: *mut $int,
            flag: *mut Fint,
            ierror: *mut Fint,
        ) {
            copied(out, None, flag, ierror);
        }

        #[no_mangle]
        pub extern "C" fn $dup(
            _: *const Fint,
            _: *const Fint,
            _: *const $int,
            value: *const $int,
            out: *mut $int,
            flag: *mut Fint,
            ierror: *mut Fint,
        ) {
            copied(out, val(value).ok(), flag, ierror);
        }
    };
}

copy_callbacks!(Aint, mpi_comm_null_copy_fn_, mpi_comm_dup_fn_);
copy_callbacks!(Aint, mpi_type_null_copy_fn_, mpi_type_dup_fn_);
copy_callbacks!(Aint, mpi_win_null_copy_fn_, mpi_win_dup_fn_);
copy_callbacks!(Fint, mpi_null_copy_fn_, mpi_dup_fn_);

/// Defines a predefined delete callback: nothing to do, no error.
macro_rules! delete_callback {
    ($int:ty, $name:ident) => {
        #[no_mangle]
        pub extern "C" fn $name(
            _: *const Fint,
            _: *const Fint,
            _: *const $int,
            _: *const $int,
            ierror: *mut Fint,
        ) {
            put(ierror, 0);
        }
    };
}

delete_callback!(Aint, mpi_comm_null_delete_fn_);
delete_callback!(Aint, mpi_type_null_delete_fn_);
delete_callback!(Aint, mpi_win_null_delete_fn_);
delete_callback!(Fint, mpi_null_delete_fn_);
