//! Symmetric addresses: where a C address of this PE lies (the symmetric heap or the
//! program's data) and the accesses to the same object on another PE that every call is
//! built from: put, get and a read-modify-write of an aligned 64-bit word.

use super::runtime::{gas_err, Res, State};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a symmetric object lies: an offset in the heap or in the program's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Heap(usize),
    Static(usize),
}

/// An atomic read-modify-write of a 64-bit word; each returns the value it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    Load,
    Swap(u64),
    CompareSwap { expect: u64, new: u64 },
    Add(u64),
    And(u64),
    Or(u64),
    Xor(u64),
}

impl Rmw {
    pub fn apply(self, word: &AtomicU64) -> u64 {
        let o = Ordering::AcqRel;
        match self {
            Rmw::Load => word.load(Ordering::Acquire),
            Rmw::Swap(v) => word.swap(v, o),
            Rmw::CompareSwap { expect, new } => {
                match word.compare_exchange(expect, new, o, Ordering::Acquire) {
                    Ok(v) | Err(v) => v,
                }
            }
            Rmw::Add(v) => word.fetch_add(v, o),
            Rmw::And(v) => word.fetch_and(v, o),
            Rmw::Or(v) => word.fetch_or(v, o),
            Rmw::Xor(v) => word.fetch_xor(v, o),
        }
    }

    /// Code, operand, second operand: 17 bytes.
    pub fn encode(self) -> Vec<u8> {
        let (code, a, b) = match self {
            Rmw::Load => (0u8, 0, 0),
            Rmw::Swap(v) => (1, v, 0),
            Rmw::CompareSwap { expect, new } => (2, expect, new),
            Rmw::Add(v) => (3, v, 0),
            Rmw::And(v) => (4, v, 0),
            Rmw::Or(v) => (5, v, 0),
            Rmw::Xor(v) => (6, v, 0),
        };
        let mut out = vec![code];
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Rmw> {
        let (&code, rest) = bytes.split_first()?;
        let a = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let b = u64::from_le_bytes(rest.get(8..16)?.try_into().ok()?);
        Some(match code {
            0 => Rmw::Load,
            1 => Rmw::Swap(a),
            2 => Rmw::CompareSwap { expect: a, new: b },
            3 => Rmw::Add(a),
            4 => Rmw::And(a),
            5 => Rmw::Or(a),
            6 => Rmw::Xor(a),
            _ => return None,
        })
    }
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
        match op {
            Rmw::Load => gas.atomic_load(p),
            Rmw::Swap(v) => gas.swap(p, v),
            Rmw::CompareSwap { expect, new } => gas.compare_swap(p, expect, new),
            Rmw::Add(v) => gas.fetch_add(p, v),
            Rmw::And(v) => gas.fetch_and(p, v),
            Rmw::Or(v) => gas.fetch_or(p, v),
            Rmw::Xor(v) => gas.fetch_xor(p, v),
        }
        .map_err(gas_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_apply() {
        let ops = [
            Rmw::Load,
            Rmw::Swap(3),
            Rmw::CompareSwap { expect: 4, new: 5 },
            Rmw::Add(6),
            Rmw::And(7),
            Rmw::Or(8),
            Rmw::Xor(9),
        ];
        for op in ops {
            assert_eq!(Rmw::decode(&op.encode()), Some(op));
        }
        assert_eq!(Rmw::decode(&[9; 17]), None);
        assert_eq!(Rmw::decode(&[1, 2]), None);
        let w = AtomicU64::new(4);
        assert_eq!(Rmw::CompareSwap { expect: 4, new: 12 }.apply(&w), 4);
        assert_eq!(Rmw::And(10).apply(&w), 12);
        assert_eq!(Rmw::Load.apply(&w), 8);
    }
}
