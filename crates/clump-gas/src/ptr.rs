//! Global pointers (a rank and a byte offset in its segment) and spread arrays.

use crate::error::{Error, Result};
use std::marker::PhantomData;

/// An element of a spread array on some rank. It remembers its allocation's bounds, so an
/// access outside them is an error rather than a write into a neighbour.
#[derive(Clone, Copy)]
pub struct GlobalPtr<T> {
    pub(crate) rank: u32,
    pub(crate) offset: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for GlobalPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GlobalPtr(rank {}, offset {})", self.rank, self.offset)
    }
}

impl<T> GlobalPtr<T> {
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The byte offset in the rank's segment.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The pointer `elems` elements further (checked when used, not here).
    #[allow(clippy::should_implement_trait)] // Split-C's pointer arithmetic, by its name
    pub fn add(self, elems: usize) -> Self {
        GlobalPtr {
            offset: self
                .offset
                .saturating_add(elems.saturating_mul(size_of::<T>())),
            ..self
        }
    }

    /// The same address seen as elements of another type (the allocation's bounds stay;
    /// alignment is checked where an access needs it).
    pub fn cast<U>(self) -> GlobalPtr<U> {
        GlobalPtr {
            rank: self.rank,
            offset: self.offset,
            start: self.start,
            end: self.end,
            _t: PhantomData,
        }
    }

    /// The byte range of `n` elements from here, if it lies inside the allocation.
    pub(crate) fn span(&self, n: usize) -> Result<(usize, usize)> {
        let len = n
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::BadSize(format!("{n} elements overflow")))?;
        match self.offset.checked_add(len) {
            Some(end) if self.offset >= self.start && end <= self.end => Ok((self.offset, len)),
            _ => Err(Error::OutOfBounds {
                offset: self.offset,
                len,
                start: self.start,
                end: self.end,
            }),
        }
    }
}

/// An array with `count_per_rank` elements on every rank, at the same offset everywhere.
#[derive(Clone, Copy)]
pub struct Spread<T> {
    pub(crate) base: usize,
    pub(crate) count: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Spread<T> {
    pub(crate) fn new(base: usize, count: usize) -> Spread<T> {
        Spread {
            base,
            count,
            _t: PhantomData,
        }
    }

    /// Element `index` on `rank` (an index past the end gives a pointer whose use fails).
    pub fn at(&self, rank: u32, index: usize) -> GlobalPtr<T> {
        GlobalPtr {
            rank,
            offset: self.base,
            start: self.base,
            end: self.base + self.count * size_of::<T>(),
            _t: PhantomData,
        }
        .add(index)
    }

    pub fn len_per_rank(&self) -> usize {
        self.count
    }

    /// The byte offset of the array in every rank's segment.
    pub fn offset(&self) -> usize {
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_stay_inside_their_allocation() {
        let a: Spread<u64> = Spread::new(64, 4);
        assert_eq!(a.at(1, 3).span(1).unwrap(), (88, 8));
        assert_eq!(a.at(0, 0).span(4).unwrap(), (64, 32));
        assert!(a.at(0, 4).span(1).is_err());
        assert!(a.at(0, 1).span(4).is_err());
        assert!(a.at(0, 0).span(usize::MAX).is_err());
        assert_eq!(a.at(2, 0).rank(), 2);
        let bytes = a.at(1, 1).cast::<u8>();
        assert_eq!(bytes.span(24).unwrap(), (72, 24));
        assert!(bytes.span(25).is_err());
    }
}
