//! The symmetric heap's allocator: first fit over a free list, with neighbours merged on
//! free. Pure bookkeeping of offsets; every PE makes the same calls in the same order, so
//! every PE hands out the same offsets.

use std::collections::BTreeMap;

/// Every block starts on this boundary, enough for any C type.
pub const MIN_ALIGN: usize = 16;

pub struct Heap {
    /// The address offset 0 stands for: alignment is of addresses, not of offsets.
    origin: usize,
    /// Free blocks: offset -> length.
    free: BTreeMap<usize, usize>,
    /// Blocks in use: offset handed out -> length.
    used: BTreeMap<usize, usize>,
}

impl Heap {
    pub fn new(origin: usize, len: usize) -> Heap {
        let len = len - len % MIN_ALIGN;
        Heap {
            origin,
            free: BTreeMap::from([(0, len)]),
            used: BTreeMap::new(),
        }
    }

    /// The offset of a fresh block of `size` bytes aligned to `align` (a power of two).
    pub fn alloc(&mut self, size: usize, align: usize) -> Option<usize> {
        let align = align.max(MIN_ALIGN);
        let size = size.max(1).checked_next_multiple_of(MIN_ALIGN)?;
        let (start, len, at) = self.free.iter().find_map(|(&start, &len)| {
            let at = (self
                .origin
                .checked_add(start)?
                .checked_next_multiple_of(align)?)
                - self.origin;
            (at.checked_add(size)? <= start + len).then_some((start, len, at))
        })?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        if start + len > at + size {
            self.free.insert(at + size, start + len - at - size);
        }
        self.used.insert(at, size);
        Some(at)
    }

    /// The length of the block at `offset`, if one is in use there.
    pub fn size_of(&self, offset: usize) -> Option<usize> {
        self.used.get(&offset).copied()
    }

    /// Returns the block at `offset` to the free list; false if none is in use there.
    pub fn free(&mut self, offset: usize) -> bool {
        let Some(mut len) = self.used.remove(&offset) else {
            return false;
        };
        let mut start = offset;
        if let Some(next) = self.free.remove(&(start + len)) {
            len += next;
        }
        if let Some((&prev, &prev_len)) = self.free.range(..start).next_back() {
            if prev + prev_len == start {
                self.free.remove(&prev);
                start = prev;
                len += prev_len;
            }
        }
        self.free.insert(start, len);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_aligns_splits_and_merges() {
        let mut h = Heap::new(0, 1024);
        let a = h.alloc(10, 1).unwrap();
        let b = h.alloc(100, 1).unwrap();
        assert_eq!((a, b), (0, 16));
        assert_eq!(h.size_of(b), Some(112));
        let c = h.alloc(8, 256).unwrap();
        assert_eq!(c, 256);
        // The gap before the aligned block stays usable.
        assert_eq!(h.alloc(16, 1), Some(128));
        assert!(h.free(b));
        assert!(!h.free(b), "a block is freed once");
        assert!(!h.free(3), "only offsets handed out can be freed");
        assert_eq!(h.alloc(112, 1), Some(16), "the freed block is reused");
        assert_eq!(h.alloc(2048, 1), None);
        for off in [0, 16, 128, 256] {
            assert!(h.free(off));
        }
        assert_eq!(h.alloc(1024, 1), Some(0), "everything merged back");
        assert_eq!(h.alloc(usize::MAX, 1), None);
        let mut shifted = Heap::new(4096 + 64, 8192);
        assert_eq!(
            shifted.alloc(8, 4096),
            Some(4096 - 64),
            "aligned as an address"
        );
    }
}
