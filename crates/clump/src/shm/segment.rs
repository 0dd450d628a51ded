//! An endpoint's segment as one process sees it: a shared region every process of the
//! host maps, memory of the program itself (`AM_SetSeg` on memory it owns), or a peer's
//! program memory, reached with one copy by cross-memory attach ([`super::cma`]).

use super::cma;
use super::region::Region;
use crate::error::ReturnReason;
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
    pub mem: SegMemory,
    pub gen: u64,
    pub len: usize,
}

// SAFETY: the segment is plain bytes; concurrent access is the program's to order, as with
// any shared memory the program reads and writes through clump's copy functions.
unsafe impl Send for SegMapping {}
unsafe impl Sync for SegMapping {}

impl SegMapping {
    /// The base address in this process, if the bytes are addressable here.
    pub fn local_ptr(&self) -> Option<*mut u8> {
        match &self.mem {
            SegMemory::Shared(region) => Some(region.as_ptr()),
            SegMemory::Program(ptr) => Some(*ptr),
            SegMemory::Attached { .. } => None,
        }
    }

    fn check(&self, offset: usize, len: usize) -> io::Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(io::Error::from_raw_os_error(libc::EFAULT)),
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
            (_, None) => unreachable!("only attached memory has no local address"),
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
        // SAFETY (both arms): `to + dst_offset .. + len` lies inside `dst`, addressable
        // here and kept alive by the borrowed handle; no Rust reference covers segment
        // memory.
        match (&self.mem, self.local_ptr()) {
            (SegMemory::Attached { pid, addr }, _) => unsafe {
                cma::read_into(*pid, addr + offset as u64, to.add(dst_offset), len)
            },
            (_, Some(from)) => {
                // `copy` allows overlap: a get from this endpoint's own segment.
                unsafe { std::ptr::copy(from.add(offset), to.add(dst_offset), len) };
                Ok(())
            }
            (_, None) => unreachable!("only attached memory has no local address"),
        }
    }
}

/// Why a message whose segment copy failed with `e` comes back.
pub fn return_reason(e: &io::Error) -> ReturnReason {
    match e.raw_os_error() {
        Some(libc::ESRCH) => ReturnReason::PeerGone,
        _ if cma::refused(e) => ReturnReason::Unreachable,
        _ => ReturnReason::BadSegmentOffset,
    }
}
