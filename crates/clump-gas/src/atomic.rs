//! Atomic read-modify-write on a 64-bit word of a segment, with real atomic instructions so
//! that direct same-host accesses and message handlers on the same word never tear.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Copy, Debug)]
pub(crate) enum AtomicOp {
    FetchAdd(u64),
    CompareSwap { expect: u64, new: u64 },
    Load,
    Swap(u64),
    FetchAnd(u64),
    FetchOr(u64),
    FetchXor(u64),
}

impl AtomicOp {
    /// (code, operand, second operand) as a message carries them.
    pub fn encode(self) -> (u32, u64, u64) {
        match self {
            AtomicOp::FetchAdd(v) => (0, v, 0),
            AtomicOp::CompareSwap { expect, new } => (1, new, expect),
            AtomicOp::Load => (3, 0, 0),
            AtomicOp::Swap(v) => (4, v, 0),
            AtomicOp::FetchAnd(v) => (5, v, 0),
            AtomicOp::FetchOr(v) => (6, v, 0),
            AtomicOp::FetchXor(v) => (7, v, 0),
        }
    }

    pub fn decode(code: u32, a: u64, b: u64) -> Option<AtomicOp> {
        match code {
            0 => Some(AtomicOp::FetchAdd(a)),
            1 => Some(AtomicOp::CompareSwap { expect: b, new: a }),
            3 => Some(AtomicOp::Load),
            4 => Some(AtomicOp::Swap(a)),
            5 => Some(AtomicOp::FetchAnd(a)),
            6 => Some(AtomicOp::FetchOr(a)),
            7 => Some(AtomicOp::FetchXor(a)),
            _ => None,
        }
    }
}

/// Applies `op` to the word at `offset` of the memory at `base` (`len` bytes, mapped for the
/// caller's lifetime); returns the previous value.
pub(crate) fn apply_at(base: *mut u8, len: usize, offset: usize, op: AtomicOp) -> Result<u64> {
    if offset.checked_add(8).is_none_or(|end| end > len) {
        return Err(Error::OutOfBounds {
            offset,
            len: 8,
            start: 0,
            end: len,
        });
    }
    // Segments are page-aligned, so the address is aligned when the offset is.
    if !offset.is_multiple_of(8) || !(base as usize + offset).is_multiple_of(8) {
        return Err(Error::Misaligned(offset));
    }
    // SAFETY: the word lies inside the mapping (checked above), is 8-byte aligned (checked
    // above), and every access to it by this layer is atomic; the mapping outlives the call.
    let word = unsafe { AtomicU64::from_ptr(base.add(offset).cast::<u64>()) };
    Ok(match op {
        AtomicOp::FetchAdd(v) => word.fetch_add(v, Ordering::AcqRel),
        AtomicOp::CompareSwap { expect, new } => {
            match word.compare_exchange(expect, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(v) | Err(v) => v,
            }
        }
        AtomicOp::Load => word.load(Ordering::Acquire),
        AtomicOp::Swap(v) => word.swap(v, Ordering::AcqRel),
        AtomicOp::FetchAnd(v) => word.fetch_and(v, Ordering::AcqRel),
        AtomicOp::FetchOr(v) => word.fetch_or(v, Ordering::AcqRel),
        AtomicOp::FetchXor(v) => word.fetch_xor(v, Ordering::AcqRel),
    })
}

/// [`apply_at`] on an endpoint's own segment.
pub(crate) fn apply(ep: &clump::Endpoint, offset: usize, op: AtomicOp) -> Result<u64> {
    let (base, len) = ep
        .segment_ptr()
        .ok_or_else(|| Error::BadSize("this rank has no segment".into()))?;
    apply_at(base, len, offset, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_apply() {
        for op in [
            AtomicOp::FetchAdd(5),
            AtomicOp::CompareSwap { expect: 1, new: 2 },
            AtomicOp::Load,
            AtomicOp::Swap(3),
            AtomicOp::FetchAnd(4),
            AtomicOp::FetchOr(5),
            AtomicOp::FetchXor(6),
        ] {
            let (c, a, b) = op.encode();
            assert_eq!(
                format!("{:?}", AtomicOp::decode(c, a, b).unwrap()),
                format!("{op:?}")
            );
        }
        assert!(AtomicOp::decode(9, 0, 0).is_none());
        let mut words = [0u64; 2];
        let base = words.as_mut_ptr().cast::<u8>();
        assert_eq!(apply_at(base, 16, 8, AtomicOp::FetchAdd(7)).unwrap(), 0);
        assert_eq!(
            apply_at(base, 16, 8, AtomicOp::CompareSwap { expect: 7, new: 9 }).unwrap(),
            7
        );
        assert_eq!(apply_at(base, 16, 8, AtomicOp::Load).unwrap(), 9);
        assert_eq!(apply_at(base, 16, 8, AtomicOp::Swap(0b1100)).unwrap(), 9);
        assert_eq!(
            apply_at(base, 16, 8, AtomicOp::FetchAnd(0b0110)).unwrap(),
            0b1100
        );
        assert_eq!(
            apply_at(base, 16, 8, AtomicOp::FetchOr(0b0001)).unwrap(),
            0b0100
        );
        assert_eq!(
            apply_at(base, 16, 8, AtomicOp::FetchXor(0b0111)).unwrap(),
            0b0101
        );
        assert_eq!(apply_at(base, 16, 8, AtomicOp::Load).unwrap(), 0b0010);
        assert!(matches!(
            apply_at(base, 16, 4, AtomicOp::Load),
            Err(Error::Misaligned(4))
        ));
        assert!(apply_at(base, 16, 16, AtomicOp::Load).is_err());
    }
}
