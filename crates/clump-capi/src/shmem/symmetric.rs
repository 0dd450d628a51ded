//! Symmetric addresses: where a C address of this PE lies (the symmetric heap or the
//! program's data) and the accesses to the same object on another PE that every call is
//! built from: put, get and a read-modify-write of an aligned 64-bit word.

use super::runtime::{gas_err, Res, State};
use clump_gas::Rmw;
use std::ffi::c_void;

/// Which way an access goes: `dest` is the symmetric object for a put, `src` for a get.
#[derive(Clone, Copy)]
pub enum Dir {
    Put,
    Get,
}

/// Where a symmetric object lies: an offset in the heap or in the program's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Heap(usize),
    Static(usize),
}

impl State {
    /// Where the `len` bytes at `addr` lie, or why they are not symmetric.
    pub fn locate(&self, addr: *const c_void, len: usize) -> Res<Place> {
        let a = addr as usize;
        let heap = self.heap_base as usize;
        if a >= heap
            && a.checked_add(len)
                .is_some_and(|end| end <= heap + self.heap_len)
        {
            return Ok(Place::Heap(a - heap));
        }
        if let Some(off) = self.statics.layout.offset_of(a, len) {
            return Ok(Place::Static(off));
        }
        Err(format!(
            "{addr:p} ({len} bytes) is not a symmetric address: neither in the symmetric \
             heap nor a global or static variable of the program"
        ))
    }

    pub fn put(&self, dest: *const c_void, src: &[u8], pe: u32) -> Res<()> {
        if src.is_empty() {
            return Ok(());
        }
        let gas = self.gas.borrow();
        match self.locate(dest, src.len())? {
            Place::Heap(off) => gas.put_bulk(self.heap.at(pe, off), src).map_err(gas_err),
            Place::Static(off) => self.statics.put(&gas, pe, off, src),
        }
    }

    pub fn get(&self, dst: &mut [u8], src: *const c_void, pe: u32) -> Res<()> {
        if dst.is_empty() {
            return Ok(());
        }
        let gas = self.gas.borrow();
        match self.locate(src, dst.len())? {
            Place::Heap(off) => gas.read_bulk(self.heap.at(pe, off), dst).map_err(gas_err),
            Place::Static(off) => self.statics.get(&gas, pe, off, dst),
        }
    }

    /// Applies `op` to the aligned 64-bit word at `addr` on `pe`.
    pub fn rmw(&self, addr: *const c_void, pe: u32, op: Rmw) -> Res<u64> {
        if !(addr as usize).is_multiple_of(8) {
            return Err(format!("{addr:p} is not aligned for a 64-bit atomic"));
        }
        let gas = self.gas.borrow();
        let p = match self.locate(addr, 8)? {
            Place::Heap(off) => self.heap.at(pe, off).cast::<u64>(),
            Place::Static(off) => return self.statics.rmw(&gas, pe, off, op),
        };
        gas.rmw(p, op).map_err(gas_err)
    }
}
