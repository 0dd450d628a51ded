//! An endpoint's segment, mapped: the one place where segment bytes are read and written.
//! Every access checks its range against the mapping here; callers never hold a raw
//! offset into it. Peers may write into a segment at any time their messages allow:
//! ordering those accesses is the program's protocol, as with any shared memory.

use super::region::Region;
use crate::error::{Error, Result};

/// A mapping of an endpoint's segment, at one generation.
pub struct SegMapping {
    region: Region,
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
    /// The first `len` bytes of `region` (never more than it maps) as generation `gen`.
    pub fn new(region: Region, gen: u64, len: usize) -> SegMapping {
        let len = len.min(region.len());
        SegMapping { region, gen, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The base address, for programs that access the segment in place.
    pub fn as_ptr(&self) -> *mut u8 {
        self.region.as_ptr()
    }

    /// Whether `offset..offset+len` lies inside the segment.
    #[inline]
    pub fn fits(&self, offset: u64, len: u64) -> bool {
        offset
            .checked_add(len)
            .is_some_and(|end| end <= self.len as u64)
    }

    /// `len` bytes at `offset`, if they lie inside; the slice borrows the mapping.
    #[inline]
    pub fn bytes(&self, offset: u64, len: u64) -> Option<&[u8]> {
        if !self.fits(offset, len) {
            return None;
        }
        // SAFETY: the range lies inside the mapping (checked above), which `self` keeps
        // mapped while the slice lives; bytes have no invalid values.
        Some(unsafe {
            std::slice::from_raw_parts(self.as_ptr().add(offset as usize), len as usize)
        })
    }

    /// Copies the bytes at `offset` into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        check_range(offset, buf.len(), self.len)?;
        // SAFETY: the range lies inside the mapping (checked above); `buf` is a distinct
        // local slice.
        unsafe {
            std::ptr::copy_nonoverlapping(self.as_ptr().add(offset), buf.as_mut_ptr(), buf.len())
        };
        Ok(())
    }

    /// Copies `data` to `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        check_range(offset, data.len(), self.len)?;
        // SAFETY: the range lies inside the mapping (checked above); the destination is
        // shared memory that no Rust reference covers while we write.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.as_ptr().add(offset), data.len())
        };
        Ok(())
    }

    /// Copies `len` bytes at `from` of this segment to `to` of `dst` (a get); the two may
    /// be the same segment, and the ranges may overlap.
    pub fn copy_to(&self, from: usize, dst: &SegMapping, to: usize, len: usize) -> Result<()> {
        check_range(from, len, self.len)?;
        check_range(to, len, dst.len)?;
        // SAFETY: both ranges lie inside their mappings (checked above); `copy` allows
        // overlap (a get from this endpoint's own segment).
        unsafe { std::ptr::copy(self.as_ptr().add(from), dst.as_ptr().add(to), len) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_access_is_bounds_checked() {
        let seg = SegMapping::new(Region::create("clump-test-seg", 64).unwrap(), 0, 64);
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
