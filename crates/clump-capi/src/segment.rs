//! Segments. AM-II lets the program name any memory it owns as its endpoint's segment:
//! clump uses that memory in place (peers of this host reach it by cross-memory attach,
//! peers of other hosts through the network), after checking that it is readable and
//! writable memory of the program. With a NULL address the layer allocates a shared
//! segment that peers of this host map.

use crate::guard::{self, out};
use crate::state;
use std::ffi::c_void;
use std::os::raw::c_int;

/// Gives `ep` a segment of `nbytes` (none if 0) at the program's `addr`, or where the
/// layer puts it if `addr` is NULL; returns where the program sees it.
fn place(ep: &am::Endpoint, addr: *mut u8, nbytes: usize) -> am::Result<*mut u8> {
    if addr.is_null() || nbytes == 0 {
        ep.set_segment(nbytes)?;
        return Ok(ep.segment_ptr().map_or(std::ptr::null_mut(), |(p, _)| p));
    }
    // SAFETY: AM-II's contract for AM_SetSeg: the program's memory, kept while it is the
    // segment (stated in amii.h); set_program_segment checks that it is mapped readable
    // and writable before using it.
    unsafe { ep.set_program_segment(addr, nbytes)? };
    Ok(addr)
}

#[no_mangle]
pub extern "C" fn AM_SetSeg(ea: *mut c_void, addr: *mut c_void, nbytes: usize) -> c_int {
    guard::call(|| {
        let s = state::endpoint(ea)?;
        let base = place(&s.ep, addr.cast(), nbytes)?;
        s.seg_base.set(base);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_GetSeg(ea: *mut c_void, addr: *mut *mut c_void, nbytes: *mut usize) -> c_int {
    guard::call(|| {
        let s = state::endpoint(ea)?;
        out(addr, s.seg_base.get().cast())?;
        out(nbytes, s.ep.segment_len())
    })
}
