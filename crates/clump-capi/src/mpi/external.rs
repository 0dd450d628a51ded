//! `MPI_Pack_external`, `MPI_Unpack_external` and `MPI_Pack_external_size` (and their
//! `_c` forms): packing in the portable `external32` representation, the one data
//! representation they name.

#![allow(clippy::too_many_arguments)] // MPI's own argument lists

use super::abi::MPI_ERR_ARG;
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{on, Failure};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

type Aint = isize;
type Count = i64;

/// `MPI_ERR_BUFFER`, `MPI_ERR_COUNT`, `MPI_ERR_TRUNCATE` (mpi.h).
const ERR_BUFFER: c_int = 1;
const ERR_COUNT: c_int = 2;
const ERR_TRUNCATE: c_int = 15;

/// Checks the data representation argument: only `"external32"` is defined for these.
fn external32(datarep: *const c_char) -> Result<(), Failure> {
    if datarep.is_null() {
        return Err((MPI_ERR_ARG, "NULL datarep".into()));
    }
    // SAFETY: a non-NULL string from C is NUL-terminated.
    let rep = unsafe { CStr::from_ptr(datarep) }.to_string_lossy();
    if rep != "external32" {
        return Err((
            MPI_ERR_ARG,
            format!("data representation {rep:?} (only \"external32\" packs)"),
        ));
    }
    Ok(())
}

/// A count or size argument as a non-negative `usize`.
fn amount<T: TryInto<usize> + Copy + std::fmt::Display>(
    n: T,
    what: &str,
) -> Result<usize, Failure> {
    n.try_into()
        .map_err(|_| (ERR_COUNT, format!("negative {what} {n}")))
}

/// The position argument: read, checked against a buffer of `size` bytes.
fn position<T: TryInto<usize> + Copy + std::fmt::Display>(
    pos: *const T,
    size: usize,
) -> Result<usize, Failure> {
    // SAFETY: a non-NULL position pointer from C points at its integer type.
    let p = unsafe { pos.as_ref() }
        .copied()
        .ok_or_else(|| (MPI_ERR_ARG, "NULL position".to_string()))?;
    p.try_into().ok().filter(|&p| p <= size).ok_or_else(|| {
        (
            MPI_ERR_ARG,
            format!("position {p} is outside the buffer of {size} bytes"),
        )
    })
}

fn store<T>(ptr: *mut T, v: T, what: &str) -> Result<(), Failure> {
    super::export::out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

/// The datatype `t` and the external32 bytes of `n` of its elements, checked to fit the
/// `size - at` bytes left of a buffer.
fn fitting(
    datarep: *const c_char,
    n: usize,
    t: Handle,
    size: usize,
    at: usize,
) -> Result<(clump_mpi::Datatype, usize), Failure> {
    external32(datarep)?;
    let dt = datatype(t)?;
    let len = dt.external32_size(n).map_err(err)?;
    if len > size - at {
        let why = format!("{len} external32 bytes, {} left of the buffer", size - at);
        return Err((ERR_TRUNCATE, why));
    }
    Ok((dt, len))
}

/// Packs `n` elements of `t` at `inbuf` into `outbuf` of `size` bytes from `at`; the new
/// position.
fn pack(
    datarep: *const c_char,
    inbuf: *const c_void,
    n: usize,
    t: Handle,
    outbuf: *mut c_void,
    size: usize,
    at: usize,
) -> Result<usize, Failure> {
    let (dt, len) = fitting(datarep, n, t, size, at)?;
    if len == 0 {
        return Ok(at);
    }
    if (inbuf.is_null() && !dt.absolute()) || outbuf.is_null() {
        return Err((ERR_BUFFER, "NULL buffer".into()));
    }
    let mut data = Vec::with_capacity(len);
    // SAFETY: the caller's contract (mpi.h) is that `inbuf` holds `n` elements of `t`.
    unsafe { dt.pack_external_raw(inbuf.cast(), n, &mut data) };
    // SAFETY: `outbuf` holds `size` bytes (the caller's contract) and `len` fit from `at`.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), outbuf.cast::<u8>().add(at), len) };
    Ok(at + len)
}

/// Unpacks `n` elements of `t` into `outbuf` from `inbuf` of `size` bytes at `at`; the
/// new position.
fn unpack(
    datarep: *const c_char,
    inbuf: *const c_void,
    size: usize,
    at: usize,
    outbuf: *mut c_void,
    n: usize,
    t: Handle,
) -> Result<usize, Failure> {
    let (dt, len) = fitting(datarep, n, t, size, at)?;
    if len == 0 {
        return Ok(at);
    }
    if inbuf.is_null() || (outbuf.is_null() && !dt.absolute()) {
        return Err((ERR_BUFFER, "NULL buffer".into()));
    }
    // SAFETY: `inbuf` holds `size` bytes (the caller's contract), `at + len <= size`.
    let data = unsafe { std::slice::from_raw_parts(inbuf.cast::<u8>().add(at), len) };
    // SAFETY: the caller's contract (mpi.h) is that `outbuf` holds `n` elements of `t`.
    let read = unsafe { dt.unpack_external_raw(data, outbuf.cast(), n) }.map_err(err)?;
    Ok(at + read)
}

fn size_of(datarep: *const c_char, n: usize, t: Handle) -> Result<usize, Failure> {
    external32(datarep)?;
    datatype(t)?.external32_size(n).map_err(err)
}

mpi_functions! {
    fn Pack_external(datarep: *const c_char, inbuf: *const c_void, n: c_int, t: Handle, outbuf: *mut c_void, size: Aint, pos: *mut Aint) -> c_int {
        on(COMM_WORLD, || {
            let size = amount(size, "outsize")?;
            let at = pack(datarep, inbuf, amount(n, "count")?, t, outbuf, size, position(pos, size)?)?;
            store(pos, at as Aint, "position")
        })
    }

    fn Pack_external_c(datarep: *const c_char, inbuf: *const c_void, n: Count, t: Handle, outbuf: *mut c_void, size: Count, pos: *mut Count) -> c_int {
        on(COMM_WORLD, || {
            let size = amount(size, "outsize")?;
            let at = pack(datarep, inbuf, amount(n, "count")?, t, outbuf, size, position(pos, size)?)?;
            store(pos, at as Count, "position")
        })
    }

    fn Unpack_external(datarep: *const c_char, inbuf: *const c_void, size: Aint, pos: *mut Aint, outbuf: *mut c_void, n: c_int, t: Handle) -> c_int {
        on(COMM_WORLD, || {
            let size = amount(size, "insize")?;
            let at = unpack(datarep, inbuf, size, position(pos, size)?, outbuf, amount(n, "count")?, t)?;
            store(pos, at as Aint, "position")
        })
    }

    fn Unpack_external_c(datarep: *const c_char, inbuf: *const c_void, size: Count, pos: *mut Count, outbuf: *mut c_void, n: Count, t: Handle) -> c_int {
        on(COMM_WORLD, || {
            let size = amount(size, "insize")?;
            let at = unpack(datarep, inbuf, size, position(pos, size)?, outbuf, amount(n, "count")?, t)?;
            store(pos, at as Count, "position")
        })
    }

    fn Pack_external_size(datarep: *const c_char, n: c_int, t: Handle, size: *mut Aint) -> c_int {
        on(COMM_WORLD, || {
            let len = size_of(datarep, amount(n, "count")?, t)?;
            store(size, len as Aint, "size")
        })
    }

    fn Pack_external_size_c(datarep: *const c_char, n: Count, t: Handle, size: *mut Count) -> c_int {
        on(COMM_WORLD, || {
            let len = size_of(datarep, amount(n, "count")?, t)?;
            store(size, len as Count, "size")
        })
    }
}
