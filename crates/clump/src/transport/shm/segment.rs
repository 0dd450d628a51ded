//! An endpoint's segment as one process sees it, and the one place where segment bytes
//! are read and written. The bytes are a shared region every process of the host maps,
//! memory of the program itself (`AM_SetSeg` on memory it owns), or a peer's program
//! memory, reached with one copy by cross-memory attach ([`super::cma`]). Every access
//! checks its range against the segment here; callers never hold a raw offset into it.
//! Peers may write into a segment at any time their messages allow: ordering those
//! accesses is the program's protocol, as with any shared memory.

use super::cma;
use super::region::Region;
use crate::error::{Error, Result, ReturnReason};
use std::io;

/// Where a segment's bytes are, seen from this process.
pub enum SegMemory {
    /// A shared region (memfd) mapped here.
    Shared(Region),
    /// Memory of this process that its program named as the segment.
    Program(*mut u8),
    /// Program memory of process `pid` at `addr`, not mappable here.
    Attached { pid: u32, addr: u64 },
}

/// A segment at one generation of its owner's header.
pub struct SegMapping {
    mem: SegMemory,
    pub gen: u64,
    len: usize,
}

// SAFETY: the segment is plain bytes that every access below copies in or out through
// checked ranges; ordering concurrent accesses is the program's, as with any shared memory.
unsafe impl Send for SegMapping {}
// SAFETY: as for `Send`: no method hands out a reference that another thread's copy
// could invalidate beyond what the program's own protocol orders.
unsafe impl Sync for SegMapping {}

/// Checks that `offset..offset+len` lies within `limit` bytes.
pub fn check_range(offset: usize, len: usize, limit: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= limit => Ok(()),
        _ => Err(Error::BadArg(format!(
            "range {offset}+{len} exceeds the segment's {limit} bytes"
        ))),
    }
}

impl SegMapping {
    /// `len` bytes of `mem` as generation `gen` (a shared region's mapping is never
    /// taken to be longer than it is).
    pub fn new(mem: SegMemory, gen: u64, len: usize) -> SegMapping {
        let len = match &mem {
            SegMemory::Shared(region) => len.min(region.len()),
            _ => len,
        };
        SegMapping { mem, gen, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn memory(&self) -> &SegMemory {
        &self.mem
    }

    /// The base address in this process, if the bytes are addressable here.
    pub fn local_ptr(&self) -> Option<*mut u8> {
        match &self.mem {
            SegMemory::Shared(region) => Some(region.as_ptr()),
            SegMemory::Program(ptr) => Some(*ptr),
            SegMemory::Attached { .. } => None,
        }
    }

    /// Whether `offset..offset+len` lies inside the segment.
    #[inline]
    pub fn fits(&self, offset: u64, len: u64) -> bool {
        offset
            .checked_add(len)
            .is_some_and(|end| end <= self.len as u64)
    }

    fn check(&self, offset: usize, len: usize) -> io::Result<()> {
        if self.fits(offset as u64, len as u64) {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::EFAULT))
        }
    }

    /// `len` bytes at `offset`, if they lie inside and are addressable here; the slice
    /// borrows the mapping.
    #[inline]
    pub fn bytes(&self, offset: u64, len: u64) -> Option<&[u8]> {
        if !self.fits(offset, len) {
            return None;
        }
        let base = self.local_ptr()?;
        // SAFETY: the range lies inside the segment (checked above), addressable here and
        // kept alive by `self` while the slice lives; bytes have no invalid values.
        Some(unsafe { std::slice::from_raw_parts(base.add(offset as usize), len as usize) })
    }

    /// Copies the bytes at `offset` into `buf` (one copy, whichever memory it is).
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> io::Result<()> {
        self.check(offset, buf.len())?;
        match (&self.mem, self.local_ptr()) {
            (SegMemory::Attached { pid, addr }, _) => cma::read(*pid, addr + offset as u64, buf),
            (_, Some(base)) => {
                // SAFETY: the range lies inside the segment (checked above), addressable
                // here and kept alive by this handle; `buf` is a distinct local slice.
                unsafe {
                    std::ptr::copy_nonoverlapping(base.add(offset), buf.as_mut_ptr(), buf.len())
                };
                Ok(())
            }
            (_, None) => Err(io::Error::from_raw_os_error(libc::EFAULT)),
        }
    }

    /// Copies `data` to `offset` (one copy, whichever memory it is).
    pub fn write(&self, offset: usize, data: &[u8]) -> io::Result<()> {
        self.check(offset, data.len())?;
        match (&self.mem, self.local_ptr()) {
            (SegMemory::Attached { pid, addr }, _) => cma::write(*pid, addr + offset as u64, data),
            (_, Some(base)) => {
                // SAFETY: the range lies inside the segment (checked above), addressable
                // here and kept alive by this handle; `data` is a distinct slice.
                unsafe {
                    std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(offset), data.len())
                };
                Ok(())
            }
            (_, None) => Err(io::Error::from_raw_os_error(libc::EFAULT)),
        }
    }

    /// Copies `len` bytes at `offset` of this segment to `dst_offset` of `dst`, a segment
    /// of this process (a get); the two may be the same memory.
    pub fn copy_to(
        &self,
        offset: usize,
        dst: &SegMapping,
        dst_offset: usize,
        len: usize,
    ) -> io::Result<()> {
        self.check(offset, len)?;
        dst.check(dst_offset, len)?;
        let Some(to) = dst.local_ptr() else {
            return Err(io::Error::from_raw_os_error(libc::EFAULT));
        };
        match (&self.mem, self.local_ptr()) {
            // SAFETY: `to + dst_offset .. + len` lies inside `dst` (checked above),
            // addressable here and kept alive by the borrowed handle; no Rust reference
            // covers segment memory.
            (SegMemory::Attached { pid, addr }, _) => unsafe {
                cma::copy(cma::Way::Read, *pid, addr + offset as u64, to.add(dst_offset), len)
            },
            (_, Some(from)) => {
                // SAFETY: both ranges lie inside their segments (checked above), which
                // the handles keep alive; `copy` allows overlap (a get from this
                // endpoint's own segment).
                unsafe { std::ptr::copy(from.add(offset), to.add(dst_offset), len) };
                Ok(())
            }
            (_, None) => Err(io::Error::from_raw_os_error(libc::EFAULT)),
        }
    }
}

impl SegMapping {
    /// [`SegMapping::read`] for a program's own call: a range outside the segment is an
    /// error of its arguments.
    pub fn read_checked(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        check_range(offset, buf.len(), self.len)?;
        self.read(offset, buf)
            .map_err(|e| Error::io("cannot read the segment", e))
    }

    /// [`SegMapping::write`] for a program's own call, as [`SegMapping::read_checked`].
    pub fn write_checked(&self, offset: usize, data: &[u8]) -> Result<()> {
        check_range(offset, data.len(), self.len)?;
        self.write(offset, data)
            .map_err(|e| Error::io("cannot write the segment", e))
    }
}

/// Why a message whose segment copy failed with `e` comes back: it never left, whether
/// the peer's process is gone (`ESRCH`) or refuses the copy.
pub fn return_reason(e: &io::Error) -> ReturnReason {
    if e.raw_os_error() == Some(libc::ESRCH) || cma::refused(e) {
        ReturnReason::Unreachable
    } else {
        ReturnReason::BadSegmentOffset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_access_is_bounds_checked() {
        let region = Region::create("clump-test-seg", 64).unwrap();
        let seg = SegMapping::new(SegMemory::Shared(region), 0, 64);
        seg.write(60, &[1, 2, 3, 4]).unwrap();
        assert!(seg.write(61, &[0; 4]).is_err(), "a write past the end is refused");
        assert!(seg.write(usize::MAX, &[0]).is_err(), "an overflowing offset is refused");
        assert_eq!(seg.bytes(60, 4), Some(&[1, 2, 3, 4][..]));
        assert!(seg.bytes(61, 4).is_none() && seg.bytes(u64::MAX, 2).is_none());
        let mut buf = [0; 2];
        seg.read(62, &mut buf).unwrap();
        assert_eq!(buf, [3, 4]);
        assert!(seg.read(63, &mut buf).is_err());
        seg.copy_to(60, &seg, 0, 4).unwrap();
        assert_eq!(seg.bytes(0, 4), Some(&[1, 2, 3, 4][..]));
        assert!(seg.copy_to(0, &seg, 62, 4).is_err());
    }
}
