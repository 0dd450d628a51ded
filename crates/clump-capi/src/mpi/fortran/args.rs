//! What the generated Fortran entry points ([`super`]) do with their arguments: Fortran
//! passes each by reference, so every value is read through a pointer; handles are the
//! standard ABI's ints; a status is eight ints laid out as C's `MPI_Status`; CHARACTER
//! arguments come with their lengths and no NUL; MPI_BOTTOM, MPI_IN_PLACE and the
//! ignored statuses and the weights' sentinels are Fortran variables
//! ([`super::sentinels`]) recognised by address.

use super::super::abi::{MPI_ERR_ARG, MPI_ERR_NO_MEM, MPI_UNDEFINED};
use super::super::handles::{comm, Handle, MpiStatus, IN_PLACE};
use super::super::{coll_args, neighbor};
use super::sentinels::{
    is_bottom, is_in_place, is_status_ignore, is_statuses_ignore, is_unweighted, is_weights_empty,
};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};

/// Fortran's default INTEGER (`MPI_Fint`).
pub type Fint = c_int;

/// The value a Fortran argument refers to; `MPI_ERR_ARG` for a NULL reference (a
/// missing argument: Fortran passes NULL for an absent OPTIONAL one).
pub fn val<T: Copy>(p: *const T) -> Result<T, c_int> {
    if p.is_null() {
        return Err(MPI_ERR_ARG);
    }
    // SAFETY: non-NULL, and Fortran passes the address of a variable of the argument's
    // declared type (mpif.h and the modules declare it as the table says); unaligned
    // reads, so a sequence-associated element anywhere is fine.
    Ok(unsafe { p.read_unaligned() })
}

/// Writes `v` where a Fortran argument refers (nothing for NULL: the call has failed
/// with `MPI_ERR_ARG` already, or C did).
pub fn put<T>(p: *mut T, v: T) {
    let _ = crate::guard::out(p, v);
}

/// A buffer address for C: Fortran's MPI_BOTTOM is C's (address 0), its MPI_IN_PLACE C's.
pub fn choice(p: *mut c_void) -> *mut c_void {
    if is_bottom(p) {
        std::ptr::null_mut()
    } else if is_in_place(p) {
        IN_PLACE as *mut c_void
    } else {
        p
    }
}

/// A status for C: the same eight ints, or NULL (C's MPI_STATUS_IGNORE) for Fortran's.
pub fn status(p: *mut Fint) -> *mut MpiStatus {
    if is_status_ignore(p) || is_statuses_ignore(p) {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// An array of statuses for C, or NULL (C's MPI_STATUSES_IGNORE) for Fortran's.
pub fn statuses(p: *mut Fint) -> *mut MpiStatus {
    status(p)
}

/// Graph edge weights for C: the array, or C's MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY (the
/// ABI's values 10 and 11) for Fortran's.
pub fn weights(p: *mut Fint) -> *mut c_int {
    if is_unweighted(p) {
        10 as *mut c_int
    } else if is_weights_empty(p) {
        11 as *mut c_int
    } else {
        p
    }
}

/// Whose blocks an array of handles has, one each.
pub enum Peers {
    /// Every rank of the communicator (of the remote group for an intercommunicator).
    Ranks,
    /// The neighbours the topology receives from.
    Sources,
    /// The neighbours it sends to.
    Destinations,
}

/// How many handles a per-peer array of communicator `c` holds; 0 when `c` is none (the
/// call then fails on the communicator, through its error handler).
pub fn peers(c: Fint, which: Peers) -> Fint {
    let h = c as Handle;
    let n = match which {
        Peers::Ranks => comm(h).map(|comm| coll_args::peers(&comm)).unwrap_or(0),
        Peers::Sources => neighbor::degrees(h).map_or(0, |d| d.0),
        Peers::Destinations => neighbor::degrees(h).map_or(0, |d| d.1),
    };
    Fint::try_from(n).unwrap_or(0)
}

/// `n` handles of a Fortran array as C's (a negative `n` is none: C refuses the count).
pub fn handles(
    p: *const Fint,
    n: impl TryInto<usize>,
    from: extern "C" fn(c_int) -> Handle,
) -> Result<Vec<Handle>, c_int> {
    let n = n.try_into().unwrap_or(0);
    if n > 0 && p.is_null() {
        return Err(MPI_ERR_ARG);
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| MPI_ERR_NO_MEM)?;
    // SAFETY: a non-NULL Fortran array of handles has the `n` elements its count says.
    v.extend((0..n).map(|i| from(unsafe { p.add(i).read_unaligned() })));
    Ok(v)
}

/// Writes C's handles back into the Fortran array they came from.
pub fn handles_back(p: *mut Fint, v: &[Handle], to: extern "C" fn(Handle) -> c_int) {
    for (i, &h) in v.iter().enumerate() {
        // SAFETY: `v` was read from these `v.len()` elements ([`handles`]).
        unsafe { p.add(i).write_unaligned(to(h)) };
    }
}

/// A CHARACTER argument as C's string: trailing blanks cut, as Fortran pads.
pub fn string_in(p: *const c_char, len: usize) -> Result<CString, c_int> {
    blanks_cut(p, len, false)
}

/// An info key or value: leading blanks cut too, as MPI_INFO_SET's Fortran binding says.
pub fn key_in(p: *const c_char, len: usize) -> Result<CString, c_int> {
    blanks_cut(p, len, true)
}

/// A CHARACTER as a C string without its trailing blanks and, if `leading`, its leading.
fn blanks_cut(p: *const c_char, len: usize, leading: bool) -> Result<CString, c_int> {
    if p.is_null() {
        return Err(MPI_ERR_ARG);
    }
    // SAFETY: Fortran passes a CHARACTER's address and, hidden, its length.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    let end = bytes.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    let start = if leading {
        bytes[..end].iter().position(|&b| b != b' ').unwrap_or(end)
    } else {
        0
    };
    CString::new(&bytes[start..end]).map_err(|_| MPI_ERR_ARG)
}

/// A byte no C string begins with: it marks a buffer the call left alone.
const UNWRITTEN: u8 = 0xff;

/// Room for any string a C query writes (the longest, MPI_MAX_LIBRARY_VERSION_STRING,
/// with its NUL), marked unwritten.
pub fn string_buffer() -> Vec<u8> {
    let mut buf = vec![0; super::super::abi::MPI_MAX_LIBRARY_VERSION_STRING + 1];
    buf[0] = UNWRITTEN;
    buf
}

/// Copies the C string in `buf` into a CHARACTER of `len`, cut to fit, blank-padded;
/// nothing where C wrote none (a key not found, a length of 0 asked), so the program's
/// CHARACTER keeps its value as the standard says.
pub fn string_back(p: *mut c_char, len: usize, buf: &[u8]) {
    if p.is_null() || buf.first() == Some(&UNWRITTEN) {
        return;
    }
    let text = buf.split(|&b| b == 0).next().unwrap_or_default();
    let n = text.len().min(len);
    // SAFETY: Fortran passes a CHARACTER's address and, hidden, its length `len`.
    let dst = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
    dst[..n].copy_from_slice(&text[..n]);
    dst[n..].fill(b' ');
}

/// A successful call's index, 1-based for Fortran (MPI_UNDEFINED stays).
pub fn index_back(rc: c_int, p: *mut Fint) {
    if rc == 0 {
        if let Ok(i) = val(p) {
            if i != MPI_UNDEFINED && i >= 0 {
                put(p, i + 1);
            }
        }
    }
}

/// A successful call's `*count` indices, 1-based for Fortran.
pub fn indices_back(rc: c_int, p: *mut Fint, count: *mut Fint) {
    let Ok(n) = val(count) else { return };
    if rc != 0 || n == MPI_UNDEFINED || p.is_null() {
        return;
    }
    for i in 0..usize::try_from(n).unwrap_or(0) {
        // SAFETY: C wrote `n` indices into the Fortran array.
        unsafe { p.add(i).write_unaligned(p.add(i).read_unaligned() + 1) };
    }
}

/// Stores a call's outcome in `ierror`.
pub fn finish(ierror: *mut Fint, r: Result<c_int, c_int>) {
    put(ierror, r.unwrap_or_else(|e| e));
}
