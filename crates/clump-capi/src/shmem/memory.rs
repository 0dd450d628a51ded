//! The symmetric heap: `shmem_malloc` and friends. Each is collective: every PE calls it
//! with the same sizes in the same order and gets the same offset, and a barrier keeps any
//! PE from using (or losing) a block before every PE has it.

use super::heap::MIN_ALIGN;
use super::runtime::{gas_err, run, Res, State};
use super::symmetric::Place;
use std::ffi::c_void;
use std::os::raw::c_long;

impl State {
    /// `shmem_barrier_all`: completes this PE's accesses, then waits for every PE.
    pub fn barrier_all(&self) -> Res<()> {
        self.quiet()?;
        self.gas.borrow_mut().barrier().map_err(gas_err)
    }

    /// A block of `size` bytes aligned to `align`; NULL for size 0 or when the heap is full.
    fn allocate(&self, size: usize, align: usize) -> Res<*mut c_void> {
        if size == 0 {
            return Ok(std::ptr::null_mut());
        }
        let off = self.alloc.borrow_mut().alloc(size, align);
        self.barrier_all()?;
        Ok(match off {
            Some(off) => self.heap_base.wrapping_add(off).cast(),
            None => std::ptr::null_mut(),
        })
    }

    /// The heap offset of a block `shmem_malloc` returned.
    fn block(&self, ptr: *mut c_void) -> Res<usize> {
        match self.locate(ptr, 1) {
            Ok(Place::Heap(off)) if self.alloc.borrow().size_of(off).is_some() => Ok(off),
            _ => Err(format!("{ptr:p} is not a block of the symmetric heap")),
        }
    }

    fn release(&self, ptr: *mut c_void) -> Res<()> {
        if ptr.is_null() {
            return self.barrier_all();
        }
        let off = self.block(ptr)?;
        self.barrier_all()?;
        self.alloc.borrow_mut().free(off);
        Ok(())
    }
}

#[no_mangle]
pub extern "C" fn shmem_malloc(size: usize) -> *mut c_void {
    run("shmem_malloc", |s| s.allocate(size, MIN_ALIGN))
}

#[no_mangle]
pub extern "C" fn shmem_malloc_with_hints(size: usize, _hints: c_long) -> *mut c_void {
    // Hints only promise how the block is used; every block serves every use here.
    run("shmem_malloc_with_hints", |s| s.allocate(size, MIN_ALIGN))
}

#[no_mangle]
pub extern "C" fn shmem_calloc(count: usize, size: usize) -> *mut c_void {
    run("shmem_calloc", |s| {
        let bytes = super::runtime::byte_len(count, size)?;
        let p = s.allocate(bytes, MIN_ALIGN)?;
        if !p.is_null() {
            // SAFETY: a fresh block of `bytes` bytes in this PE's heap.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
        }
        Ok(p)
    })
}

#[no_mangle]
pub extern "C" fn shmem_align(alignment: usize, size: usize) -> *mut c_void {
    run("shmem_align", |s| {
        if !alignment.is_power_of_two() {
            return Err(format!("alignment {alignment} is not a power of two"));
        }
        s.allocate(size, alignment)
    })
}

#[no_mangle]
pub extern "C" fn shmem_free(ptr: *mut c_void) {
    run("shmem_free", |s| s.release(ptr))
}

#[no_mangle]
pub extern "C" fn shmem_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    run("shmem_realloc", |s| {
        if ptr.is_null() {
            return s.allocate(size, MIN_ALIGN);
        }
        if size == 0 {
            s.release(ptr)?;
            return Ok(std::ptr::null_mut());
        }
        let old_len = s.alloc.borrow().size_of(s.block(ptr)?).unwrap_or(0);
        let new = s.allocate(size, MIN_ALIGN)?;
        if new.is_null() {
            return Ok(new); // the old block stays, as with realloc(3)
        }
        // SAFETY: two distinct blocks of this PE's heap, each at least this long.
        unsafe {
            std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), new.cast::<u8>(), old_len.min(size))
        };
        s.release(ptr)?;
        Ok(new)
    })
}
