//! Shared memory regions (public as `clump::SharedRegion`): anonymous memory files (`memfd`) that other processes of the
//! host map through `/proc/<pid>/fd/<fd>`.
//!
//! A memfd has no name in `/dev/shm`, so there is nothing to unlink and nothing a killed
//! job can leave behind: the memory lives exactly as long as its owner's descriptor or
//! some process's mapping. This is the strongest form of "unlink once everyone has mapped".

use memmap2::{MmapOptions, MmapRaw};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

/// A mapped region, owned (created here) or opened from another process.
pub struct Region {
    map: MmapRaw,
    /// Kept open by the owner only: its number is how peers find the region.
    file: Option<File>,
}

impl Region {
    /// Creates a zero-filled region of `len` bytes.
    pub fn create(label: &str, len: usize) -> io::Result<Region> {
        let cname = std::ffi::CString::new(label).map_err(io::Error::other)?;
        // SAFETY: memfd_create reads a NUL-terminated string that outlives the call.
        let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd was just returned by memfd_create and is owned by nobody else.
        let file = unsafe { File::from_raw_fd(fd) };
        file.set_len(len as u64)?;
        let map = MmapOptions::new().len(len).map_raw(&file)?;
        Ok(Region {
            map,
            file: Some(file),
        })
    }

    /// Maps the region that process `pid` holds open as descriptor `fd`, which must be
    /// at least `min_len` bytes long.
    pub fn open(pid: u32, fd: u32, min_len: usize) -> io::Result<Region> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/{pid}/fd/{fd}"))?;
        let len = file.metadata()?.len() as usize;
        if len < min_len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("shared region of process {pid} is {len} bytes, expected {min_len}"),
            ));
        }
        let map = MmapOptions::new().len(len).map_raw(&file)?;
        Ok(Region { map, file: None })
    }

    /// The descriptor number peers open, for an owned region.
    pub fn fd(&self) -> Option<u32> {
        self.file.as_ref().map(|f| f.as_raw_fd() as u32)
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// The 64-bit word at byte `offset` as an atomic, for protocols built directly on a
    /// region (the benchmarks' bare ping-pong baseline). `None` if out of range or misaligned.
    pub fn atomic_u64(&self, offset: usize) -> Option<&std::sync::atomic::AtomicU64> {
        if !offset.is_multiple_of(8) || offset.checked_add(8)? > self.len() {
            return None;
        }
        // SAFETY: in range and 8-byte aligned (mmap is page-aligned); AtomicU64 has the
        // layout of u64 and every bit pattern is valid; the reference lives no longer than
        // the mapping (it borrows self).
        Some(unsafe { &*(self.as_ptr().add(offset) as *const std::sync::atomic::AtomicU64) })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_second_mapping_sees_the_owners_bytes() {
        let owner = Region::create("clump-test", 4096).unwrap();
        // SAFETY: the region is 4096 bytes and only this test touches it.
        unsafe { owner.as_ptr().write(42) };
        let peer = Region::open(std::process::id(), owner.fd().unwrap(), 4096).unwrap();
        // SAFETY: as above; both mappings show the same page.
        assert_eq!(unsafe { peer.as_ptr().read() }, 42);
        assert!(Region::open(std::process::id(), owner.fd().unwrap(), 8192).is_err());
        owner
            .atomic_u64(8)
            .unwrap()
            .store(7, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            peer.atomic_u64(8)
                .unwrap()
                .load(std::sync::atomic::Ordering::Relaxed),
            7
        );
        assert!(peer.atomic_u64(4).is_none() && peer.atomic_u64(4096).is_none());
    }
}
