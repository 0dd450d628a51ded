//! Non-contiguous buffers of the mpi_f08 module. Its choice buffers are `TYPE(*),
//! DIMENSION(..)`, so an array section reaches it as it is, with strides, where mpif.h's
//! and the mpi module's assumed-size buffers get a contiguous copy the compiler makes
//! (MPI 4.1, 19.1.12). clump has MPI_SUBARRAYS_SUPPORTED = .FALSE., so the module does
//! what that compiler does for a blocking call: the elements gathered into a contiguous
//! copy before, scattered back after ([`clump_f08_gather`], [`clump_f08_scatter`]). A call
//! that keeps the buffer beyond its return (non-blocking, persistent, one-sided, an
//! attached buffer) cannot have a copy: the standard makes such a buffer invalid there,
//! and [`clump_f08_refuse`] fails the call with MPI_ERR_BUFFER through the error handler
//! of its communicator or window, as every other error.
//!
//! The module passes the section to these functions as a C descriptor (`CFI_cdesc_t`,
//! Fortran 2018's interoperable form of an assumed-rank array): base address, element
//! length, version, rank, attribute, type, then per dimension lower bound, extent and
//! byte stride. Every compiler that has the descriptor lays out the fields read here
//! alike (the rank at byte 20, the dimensions from byte 24).

use super::super::abi::{MPI_ERR_BUFFER, MPI_ERR_NO_MEM};
use super::super::errhandlers::handle_error;
use super::super::handles::{Handle, COMM_WORLD};
use super::super::rma::errhandler::raise_on;
use super::args::Fint;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// `CFI_dim_t`.
#[repr(C)]
struct Dim {
    lower_bound: isize,
    extent: isize,
    sm: isize,
}

/// `CFI_cdesc_t` up to its dimensions, which follow it.
#[repr(C)]
pub struct Desc {
    base_addr: *mut u8,
    elem_len: usize,
    version: c_int,
    rank: i8,
    attribute: i8,
    kind: i16,
}

/// Fortran's largest rank (`CFI_MAX_RANK`).
const MAX_RANK: usize = 15;

/// The section a descriptor describes: its first element, element length, and each
/// dimension's extent and byte stride (first dimension first, as Fortran's order is).
struct Section {
    base: *mut u8,
    elem: usize,
    dims: Vec<(usize, isize)>,
}

impl Section {
    fn read(d: *const Desc) -> Option<Section> {
        if d.is_null() {
            return None;
        }
        // SAFETY: the module passes its dummy argument's descriptor (a bind(C) interface
        // with an assumed-rank dummy), whose header is `Desc` and which has `rank`
        // dimensions after it; the rank is checked before they are read.
        let (head, dims) = unsafe {
            let head = &*d;
            let rank = usize::try_from(head.rank).ok().filter(|&r| r <= MAX_RANK)?;
            let first = d.add(1).cast::<Dim>();
            (head, std::slice::from_raw_parts(first, rank))
        };
        let dims = dims
            .iter()
            .map(|x| Some((usize::try_from(x.extent).ok()?, x.sm)))
            .collect::<Option<Vec<_>>>()?;
        Some(Section {
            base: head.base_addr,
            elem: head.elem_len,
            dims,
        })
    }

    fn len(&self) -> usize {
        self.dims.iter().map(|d| d.0).product()
    }

    /// Each element's address, in Fortran's array element order.
    fn elements(&self) -> impl Iterator<Item = *mut u8> + '_ {
        (0..self.len()).map(move |mut i| {
            let mut offset = 0isize;
            for &(extent, sm) in &self.dims {
                offset += (i % extent) as isize * sm;
                i /= extent;
            }
            self.base.wrapping_offset(offset)
        })
    }
}

/// A contiguous copy of the section `d` describes, for a blocking call; NULL if the
/// descriptor is unreadable or there is no memory for the copy.
#[no_mangle]
pub extern "C" fn clump_f08_gather(d: *const Desc) -> *mut c_void {
    let Some(s) = Section::read(d) else {
        return std::ptr::null_mut();
    };
    let Some(bytes) = s.len().checked_mul(s.elem) else {
        return std::ptr::null_mut();
    };
    let mut copy = Vec::new();
    if copy.try_reserve_exact(bytes.max(1)).is_err() {
        return std::ptr::null_mut();
    }
    for e in s.elements() {
        // SAFETY: each address is an element of the program's section (the descriptor's
        // extents and strides), `elem` bytes long.
        copy.extend_from_slice(unsafe { std::slice::from_raw_parts(e, s.elem) });
    }
    Box::into_raw(copy.into_boxed_slice()).cast()
}

/// Copies `copy` (from [`clump_f08_gather`] on the same descriptor) back into the section
/// and frees it.
#[no_mangle]
pub extern "C" fn clump_f08_scatter(d: *const Desc, copy: *mut c_void) {
    let Some(s) = Section::read(d) else { return };
    if copy.is_null() {
        return;
    }
    let bytes = s.len() * s.elem;
    // SAFETY: `copy` is the boxed slice clump_f08_gather made for this descriptor: the
    // same length (at least 1 byte), allocated as a Box<[u8]>.
    let copy = unsafe {
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            copy.cast::<u8>(),
            bytes.max(1),
        ))
    };
    for (e, from) in s.elements().zip(copy.chunks_exact(s.elem.max(1))) {
        // SAFETY: as in clump_f08_gather; the program's section is writable (the buffer
        // of a call that receives).
        unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), e, s.elem) };
    }
}

/// What an MPI call's error goes through (the module's `clump_on_comm`, `_win`, `_none`):
/// the handler of a communicator, of a window, or for a call that names neither,
/// MPI_COMM_WORLD's.
const ON_COMM: c_int = 0;
const ON_WIN: c_int = 1;

/// Fails `call` (a NUL-terminated name) for a buffer it cannot take: MPI_ERR_NO_MEM if
/// `no_memory` (the copy could not be made), else MPI_ERR_BUFFER (a non-contiguous buffer
/// the call would keep), through the handler of `handle`. The code, if the handler returns.
#[no_mangle]
pub extern "C" fn clump_f08_refuse(
    object: c_int,
    handle: Fint,
    call: *const c_char,
    no_memory: c_int,
) -> Fint {
    let name = if call.is_null() {
        "an MPI call".into()
    } else {
        // SAFETY: the module passes a NUL-terminated name.
        unsafe { CStr::from_ptr(call) }.to_string_lossy()
    };
    let failure = if no_memory != 0 {
        (
            MPI_ERR_NO_MEM,
            format!("{name}: no memory for a contiguous copy of the buffer"),
        )
    } else {
        (
            MPI_ERR_BUFFER,
            format!(
                "{name}: a non-contiguous buffer, which a call that keeps its buffer cannot \
                 take (MPI_SUBARRAYS_SUPPORTED is .false.)"
            ),
        )
    };
    let h = handle as Handle;
    match object {
        ON_COMM => handle_error(h, failure),
        ON_WIN => raise_on(h, failure),
        _ => handle_error(COMM_WORLD, failure),
    }
}
