//! Atomic read-modify-write on a 64-bit word of a segment: the bounds and alignment checks
//! in front of [`crate::rmw`], so that direct same-host accesses and message handlers on
//! the same word never tear.

use crate::error::{Error, Result};
use crate::rmw::{self, Rmw};

/// Applies `op` to the word at `offset` of the memory at `base` (`len` bytes, mapped for the
/// caller's lifetime); returns the previous value.
pub(crate) fn apply_at(base: *mut u8, len: usize, offset: usize, op: Rmw) -> Result<u64> {
    if offset.checked_add(8).is_none_or(|end| end > len) {
        return Err(Error::OutOfBounds {
            offset,
            len: 8,
            start: 0,
            end: len,
        });
    }
    // SAFETY: the word lies inside the mapping (checked above), which outlives the call,
    // and every access to it by this layer is atomic; `rmw::apply` checks the alignment.
    unsafe { rmw::apply(base as usize + offset, 8, op) }.ok_or(Error::Misaligned(offset))
}

/// [`apply_at`] on an endpoint's own segment.
pub(crate) fn apply(ep: &clump::Endpoint, offset: usize, op: Rmw) -> Result<u64> {
    let (base, len) = ep
        .segment_ptr()
        .ok_or_else(|| Error::BadSize("this rank has no segment".into()))?;
    apply_at(base, len, offset, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_checked_then_applied() {
        let mut words = [0u64; 2];
        let base = words.as_mut_ptr().cast::<u8>();
        assert_eq!(apply_at(base, 16, 8, Rmw::Add(7)).unwrap(), 0);
        assert_eq!(apply_at(base, 16, 8, Rmw::Load).unwrap(), 7);
        assert!(matches!(
            apply_at(base, 16, 4, Rmw::Load),
            Err(Error::Misaligned(4))
        ));
        assert!(matches!(
            apply_at(base, 16, 16, Rmw::Load),
            Err(Error::OutOfBounds { .. })
        ));
    }
}
