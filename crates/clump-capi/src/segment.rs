//! Segments. clump's segment is shared memory its peers map; AM-II lets the program name
//! its own memory as the segment. The program's pages are therefore replaced by a mapping
//! of the shared segment, with their contents copied in, for as long as they are the
//! segment; then they turn private again, contents kept ([`UserSegment`]).

use crate::codes::{AmResult, BAD_ARG, RESOURCE};
use crate::guard::{self, out};
use crate::state;
use std::ffi::c_void;
use std::os::raw::c_int;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).unwrap_or(4096)
}

/// The program's pages `addr..addr+span` while they show the endpoint's shared segment.
pub struct UserSegment {
    addr: *mut u8,
    span: usize,
}

impl UserSegment {
    /// Makes the `len` bytes at page-aligned `addr` show `shared` (a fresh shared mapping
    /// of `len` bytes), keeping their contents.
    ///
    /// # Safety
    /// `addr..addr+len` must be memory of the program, readable and writable, that it
    /// does not unmap while it is the segment.
    unsafe fn adopt(addr: *mut u8, len: usize, shared: *mut u8) -> AmResult<UserSegment> {
        let span = len.div_ceil(page_size()) * page_size();
        // The whole last page is the program's too: keep what lies past `len` in it.
        let saved = std::slice::from_raw_parts(addr, span).to_vec();
        std::ptr::copy_nonoverlapping(saved.as_ptr(), shared, len);
        // A second mapping of the same shared pages, placed over the program's.
        let placed = libc::mremap(
            shared.cast(),
            0,
            span,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            addr.cast::<c_void>(),
        );
        if placed == libc::MAP_FAILED {
            return Err(RESOURCE);
        }
        std::ptr::copy_nonoverlapping(saved[len..].as_ptr(), addr.add(len), span - len);
        Ok(UserSegment { addr, span })
    }
}

impl Drop for UserSegment {
    /// Gives the program private pages again at the same address, with the same contents.
    fn drop(&mut self) {
        // SAFETY: `addr..addr+span` is the mapping `adopt` placed, still in place (the
        // program may not unmap its segment); it is copied out, replaced by private
        // anonymous memory of the same size at the same address, and copied back.
        unsafe {
            let saved = std::slice::from_raw_parts(self.addr, self.span).to_vec();
            let private = libc::mmap(
                self.addr.cast(),
                self.span,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            );
            if private != libc::MAP_FAILED {
                std::ptr::copy_nonoverlapping(saved.as_ptr(), self.addr, self.span);
            }
        }
    }
}

/// Gives `ep` a segment of `nbytes` (none if 0) at the program's `addr`, or where the
/// layer puts it if `addr` is NULL; returns where the program sees it.
fn place(
    ep: &am::Endpoint,
    addr: *mut u8,
    nbytes: usize,
) -> AmResult<(*mut u8, Option<UserSegment>)> {
    ep.set_segment(nbytes)?;
    let Some((shared, _)) = ep.segment_ptr() else {
        return Ok((std::ptr::null_mut(), None));
    };
    if addr.is_null() {
        return Ok((shared, None));
    }
    // SAFETY: AM-II's contract for AM_SetSeg: the program's memory, kept while it is the
    // segment (stated in amii.h).
    let user = unsafe { UserSegment::adopt(addr, nbytes, shared)? };
    Ok((addr, Some(user)))
}

#[no_mangle]
pub extern "C" fn AM_SetSeg(ea: *mut c_void, addr: *mut c_void, nbytes: usize) -> c_int {
    guard::call(|| {
        let addr = addr.cast::<u8>();
        if nbytes > am::MAX_LONG || !(addr as usize).is_multiple_of(page_size()) {
            return Err(BAD_ARG);
        }
        let s = state::endpoint(ea)?;
        let old = s.tables().user_seg.take();
        drop(old);
        let (base, user, result) = match place(&s.ep, addr, nbytes) {
            Ok((base, user)) => (base, user, Ok(())),
            Err(e) => {
                let _ = s.ep.set_segment(0);
                (std::ptr::null_mut(), None, Err(e))
            }
        };
        s.seg_base.set(base);
        s.tables().user_seg = user;
        result
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
