//! Attribute caching from C ([`super::attrs`] keeps them): on communicators, by the MPI-2
//! calls and their MPI-1 names (which mean the same there), and on datatypes, with
//! `MPI_Type_dup`, which copies them. The setters and the datatype getter take the value
//! and where it goes in either language, so that Fortran's entry points call them too.

use super::abi::*;
use super::attrs;
use super::attrs::{Out, Value};
use super::comms::get_comm_attr;
use super::export::{mpi_functions, out};
use super::handles::*;
use super::type_contents::{record, Contents, DUP};
use super::wired::{on, Failure};
use std::os::raw::{c_int, c_void};

/// The key an in-out keyval argument holds.
fn keyval_in(k: *mut c_int) -> Result<c_int, Failure> {
    // SAFETY: a non-NULL keyval pointer from C points at an int.
    unsafe { k.as_ref() }
        .copied()
        .ok_or_else(|| (MPI_ERR_ARG, "NULL keyval".into()))
}

fn create(copy: usize, delete: usize, k: *mut c_int, extra: *mut c_void) -> c_int {
    create_with(copy, delete, k, extra as usize, attrs::Callbacks::C)
}

/// A new key whose callbacks have the calling convention `callbacks` (Fortran's too).
pub fn create_with(
    copy: usize,
    delete: usize,
    k: *mut c_int,
    extra: usize,
    callbacks: attrs::Callbacks,
) -> c_int {
    on(COMM_WORLD, || {
        let made = attrs::create_keyval(copy, delete, extra, callbacks);
        out(k, made).map_err(|e| (e, "NULL keyval".into()))
    })
}

fn free(k: *mut c_int) -> c_int {
    on(COMM_WORLD, || {
        attrs::free_keyval(keyval_in(k)?)?;
        out(k, MPI_KEYVAL_INVALID).map_err(|e| (e, "NULL keyval".into()))
    })
}

/// Sets key `k` on communicator `c`.
pub fn set_comm_attr(c: Handle, k: c_int, value: Value) -> c_int {
    on(c, || {
        comm(c)?;
        attrs::set(c, k, value)
    })
}

fn delete(c: Handle, k: c_int) -> c_int {
    on(c, || {
        comm(c)?;
        attrs::delete(c, k)
    })
}

/// Sets key `k` on datatype `t` (errors go where the datatype calls' go).
pub fn set_type_attr(t: Handle, k: c_int, value: Value) -> c_int {
    on(COMM_WORLD, || {
        datatype(t)?;
        attrs::set(t, k, value)
    })
}

/// Gets key `k` of datatype `t` into `to`.
pub fn get_type_attr(t: Handle, k: c_int, to: Out, flag: *mut c_int) -> c_int {
    on(COMM_WORLD, || {
        datatype(t)?;
        attrs::answer(attrs::get(t, k)?, to, flag)
    })
}

mpi_functions! {
    fn Type_create_keyval(copy: usize, delete: usize, k: *mut c_int, extra: *mut c_void) -> c_int {
        create(copy, delete, k, extra)
    }

    fn Type_free_keyval(k: *mut c_int) -> c_int {
        free(k)
    }

    fn Type_set_attr(t: Handle, k: c_int, value: *mut c_void) -> c_int {
        set_type_attr(t, k, Value::Address(value as usize))
    }

    fn Type_get_attr(t: Handle, k: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
        get_type_attr(t, k, Out::C(value), flag)
    }

    fn Type_delete_attr(t: Handle, k: c_int) -> c_int {
        on(COMM_WORLD, || {
            datatype(t)?;
            attrs::delete(t, k)
        })
    }

    fn Type_dup(t: Handle, newtype: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let dup = put_datatype(datatype(t)?);
            record(dup, Contents::new(DUP, vec![], vec![], &[t])?);
            attrs::copy_all(t, dup)?;
            out(newtype, dup).map_err(|e| (e, "NULL newtype".into()))
        })
    }

    fn Comm_create_keyval(copy: usize, delete: usize, k: *mut c_int, extra: *mut c_void) -> c_int {
        create(copy, delete, k, extra)
    }

    fn Keyval_create(copy: usize, delete: usize, k: *mut c_int, extra: *mut c_void) -> c_int {
        create(copy, delete, k, extra)
    }

    fn Comm_free_keyval(k: *mut c_int) -> c_int {
        free(k)
    }

    fn Keyval_free(k: *mut c_int) -> c_int {
        free(k)
    }

    fn Comm_set_attr(c: Handle, k: c_int, value: *mut c_void) -> c_int {
        set_comm_attr(c, k, Value::Address(value as usize))
    }

    fn Attr_put(c: Handle, k: c_int, value: *mut c_void) -> c_int {
        set_comm_attr(c, k, Value::Address(value as usize))
    }

    fn Attr_get(c: Handle, k: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
        get_comm_attr(c, k, Out::C(value), flag)
    }

    fn Comm_delete_attr(c: Handle, k: c_int) -> c_int {
        delete(c, k)
    }

    fn Attr_delete(c: Handle, k: c_int) -> c_int {
        delete(c, k)
    }
}
