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
        self.gas.borrow().barrier().map_err(gas_err)
    }

    /// A block of `size` bytes aligned to `align`; NULL for size 0 or when the heap is full.
    fn allocate(&self, size: usize, align: usize) -> Res<*mut c_void> {
        self.allocate_filled(size, align, false)
    }

    /// [`State::allocate`], the block zeroed when `zero`. The zeroing comes before the
    /// barrier: once any PE returns, every PE may put into the block, and a put must not
    /// be wiped by a slower PE still clearing its copy.
    fn allocate_filled(&self, size: usize, align: usize, zero: bool) -> Res<*mut c_void> {
        if size == 0 {
            return Ok(std::ptr::null_mut());
        }
        let off = self.alloc.borrow_mut().alloc(size, align);
        let block = match off {
            Some(off) => self.heap_base.wrapping_add(off).cast::<c_void>(),
            None => std::ptr::null_mut(),
        };
        if zero && !block.is_null() {
            // SAFETY: a fresh block of `size` bytes in this PE's heap, which no other PE
            // can address before the barrier below.
            unsafe { std::ptr::write_bytes(block.cast::<u8>(), 0, size) };
        }
        self.barrier_all()?;
        Ok(block)
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

#[pshmem::twin]
pub extern "C" fn shmem_malloc(size: usize) -> *mut c_void {
    run("shmem_malloc", |s| s.allocate(size, MIN_ALIGN))
}

#[pshmem::twin]
pub extern "C" fn shmem_malloc_with_hints(size: usize, _hints: c_long) -> *mut c_void {
    // Hints only promise how the block is used; every block serves every use here.
    run("shmem_malloc_with_hints", |s| s.allocate(size, MIN_ALIGN))
}

#[pshmem::twin]
pub extern "C" fn shmem_calloc(count: usize, size: usize) -> *mut c_void {
    run("shmem_calloc", |s| {
        let bytes = super::runtime::byte_len(count, size)?;
        s.allocate_filled(bytes, MIN_ALIGN, true)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_align(alignment: usize, size: usize) -> *mut c_void {
    run("shmem_align", |s| {
        if !alignment.is_power_of_two() {
            return Err(format!("alignment {alignment} is not a power of two"));
        }
        s.allocate(size, alignment)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_free(ptr: *mut c_void) {
    run("shmem_free", |s| s.release(ptr))
}

#[pshmem::twin]
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
        // The release's barrier follows the copy, so no PE puts into the new block
        // before every PE has copied into it.
        s.release(ptr)?;
        Ok(new)
    })
}
