//! C buffers as packed bytes: what clump-mpi's messages and collectives carry. A
//! contiguous type's data is copied as it is; any other goes through its type map.

use super::handles::{err, Handle, IN_PLACE};
use super::wired::{count, Failure};
use clump_mpi::Datatype;
use std::os::raw::{c_int, c_void};

/// `count` elements of `dt` at `buf`, packed.
pub fn pack(buf: *const c_void, count: usize, dt: &Datatype) -> Result<Vec<u8>, Failure> {
    let len = dt.bytes(count).map_err(err)?;
    if len == 0 {
        return Ok(Vec::new());
    }
    if buf.is_null() && !dt.absolute() {
        return Err((1, "NULL buffer".into()));
    }
    let mut out = Vec::with_capacity(len);
    // SAFETY: the caller's contract (mpi.h) is that `buf` holds `count` elements of `dt`.
    unsafe { dt.pack_raw(buf.cast(), count, &mut out) };
    Ok(out)
}

/// Writes packed `data` into the elements of `dt` at `buf` (as many as it fills).
pub fn unpack(data: &[u8], buf: *mut c_void, count: usize, dt: &Datatype) -> Result<(), Failure> {
    if data.is_empty() {
        return Ok(());
    }
    if buf.is_null() && !dt.absolute() {
        return Err((1, "NULL buffer".into()));
    }
    // SAFETY: the caller's contract (mpi.h) is that `buf` holds `count` elements of `dt`.
    unsafe { dt.unpack_raw(data, buf.cast(), count) };
    Ok(())
}

/// The address of element `index` of `dt` from `buf` (blocks of collectives).
pub fn element(buf: *const c_void, index: usize, dt: &Datatype) -> *const c_void {
    buf.wrapping_byte_offset(index as isize * dt.extent())
}

pub fn is_in_place(buf: *const c_void) -> bool {
    buf as usize == IN_PLACE
}

/// `n` C ints from an array argument, as counts (non-negative).
pub fn counts(ptr: *const c_int, n: usize) -> Result<Vec<usize>, Failure> {
    ints(ptr, n)?.into_iter().map(count).collect()
}

/// `n` C ints from an array argument.
pub fn ints(ptr: *const c_int, n: usize) -> Result<Vec<c_int>, Failure> {
    if n > 0 && ptr.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL array".into()));
    }
    // SAFETY: a non-NULL array argument from C holds `n` entries (the caller's contract).
    Ok((0..n).map(|i| unsafe { *ptr.add(i) }).collect())
}

/// Writes `values` into the C array `ptr` (which must hold that many).
pub fn ints_out(ptr: *mut c_int, values: &[c_int]) -> Result<(), Failure> {
    if !values.is_empty() && ptr.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL output array".into()));
    }
    for (i, &v) in values.iter().enumerate() {
        // SAFETY: the caller's contract is that the C array has an entry for each value.
        unsafe { *ptr.add(i) = v };
    }
    Ok(())
}

/// A name argument (`MPI_*_set_name`), cut to fit `MPI_MAX_OBJECT_NAME` with its NUL.
pub fn name_arg(name: *const std::os::raw::c_char) -> Result<String, Failure> {
    text_arg(name, MAX_OBJECT_NAME)
}

/// A string argument, cut to fit a buffer of `max` bytes with its NUL.
pub fn text_arg(s: *const std::os::raw::c_char, max: usize) -> Result<String, Failure> {
    if s.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL string".into()));
    }
    // SAFETY: a non-NULL string from C is NUL-terminated.
    let text = unsafe { std::ffi::CStr::from_ptr(s) }.to_string_lossy();
    Ok(text.chars().take(max - 1).collect())
}

/// `MPI_MAX_OBJECT_NAME` (mpi.h).
pub const MAX_OBJECT_NAME: usize = 128;

/// `n` handles from an array argument.
pub fn handles(ptr: *const Handle, n: usize) -> Result<Vec<Handle>, Failure> {
    if n > 0 && ptr.is_null() {
        return Err((super::abi::MPI_ERR_ARG, "NULL array".into()));
    }
    // SAFETY: as in `ints`.
    Ok((0..n).map(|i| unsafe { *ptr.add(i) }).collect())
}
