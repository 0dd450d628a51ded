//! Objects of the C face whose handle is their slot: `BASE | generation << BITS | index`,
//! so that finding one on every call (a request, the communicator of a send or receive)
//! is an index and a compare, not a hash; and a handle whose object was freed names
//! nothing, even once its slot is reused (until the generation wraps).
//!
//! Each kind has its own `BASE`, a power of two above its generations and indices and at
//! most 2^30: a handle is a positive C `int` (the ABI's `MPI_*_toint` and Fortran's
//! INTEGER handles need that), far above every predefined handle and the registry's
//! counted ones (from 0x10000), and the kinds never share a value. A kind holds at most
//! 2^BITS objects at once, in 255 generations. Requests and communicators use it;
//! windows, whose ids other processes keep, have a table of their own (`rma/window_table.rs`).

use clump_mpi::Requests;

pub type Handle = usize;

/// Generations run 1..=255: eight bits above the index.
const LAST_GENERATION: u32 = 255;

pub struct HandleTable<T, const BASE: Handle, const BITS: u32> {
    slab: Requests<T, LAST_GENERATION>,
}

impl<T, const BASE: Handle, const BITS: u32> Default for HandleTable<T, BASE, BITS> {
    fn default() -> Self {
        const {
            assert!(BASE.is_power_of_two() && BASE >= 1 << (BITS + 8) && BASE <= 1 << 30);
        }
        HandleTable {
            slab: Requests::default(),
        }
    }
}

impl<T, const BASE: Handle, const BITS: u32> HandleTable<T, BASE, BITS> {
    const INDEX_MASK: Handle = (1 << BITS) - 1;
    /// Most objects the table holds at once.
    pub const CAPACITY: usize = 1 << BITS;

    /// Stores `value` under a new handle; `None` once [`HandleTable::CAPACITY`] are stored.
    #[inline(always)]
    pub fn insert(&mut self, value: T) -> Option<Handle> {
        if self.slab.next_index() > Self::INDEX_MASK {
            return None;
        }
        let id = self.slab.insert(value);
        Some(BASE | ((id >> 32) as Handle) << BITS | (id as u32 as Handle))
    }

    /// The slab id of handle `h`, if `h` is shaped as a handle of this table at all.
    #[inline(always)]
    fn id(h: Handle) -> Option<u64> {
        if h & !(Self::INDEX_MASK | 0xff << BITS) != BASE {
            return None;
        }
        let generation = (h >> BITS) & 0xff;
        Some((generation as u64) << 32 | (h & Self::INDEX_MASK) as u64)
    }

    #[inline(always)]
    pub fn get(&self, h: Handle) -> Option<&T> {
        self.slab.get(Self::id(h)?)
    }

    #[inline(always)]
    pub fn get_mut(&mut self, h: Handle) -> Option<&mut T> {
        self.slab.get_mut(Self::id(h)?)
    }

    pub fn remove(&mut self, h: Handle) -> Option<T> {
        self.slab.remove(Self::id(h)?)
    }

    /// Removes the object of `h` if `take` says so of it, in one lookup.
    #[inline(always)]
    pub fn remove_if(&mut self, h: Handle, take: impl FnOnce(&T) -> bool) -> Option<T> {
        self.slab.remove_if(Self::id(h)?, take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::raw::c_int;

    type Big = HandleTable<&'static str, { 1 << 30 }, 22>;
    type Small = HandleTable<&'static str, { 1 << 29 }, 20>;

    #[test]
    fn handles_are_positive_ints_of_their_own_kind_and_name_nothing_once_removed() {
        let (mut a, mut b) = (Big::default(), Small::default());
        let (ha, hb) = (a.insert("a").unwrap(), b.insert("b").unwrap());
        for h in [ha, hb] {
            assert!(h >= 0x10000 && h <= c_int::MAX as Handle, "{h:#x}");
        }
        assert_ne!(ha, hb, "kinds never share a value");
        assert_eq!((a.get(ha), b.get(hb)), (Some(&"a"), Some(&"b")));
        assert_eq!(
            (a.get(hb), b.get(ha)),
            (None, None),
            "another kind's handle"
        );
        for h in [0, 0x101, 0x10005, usize::MAX] {
            assert_eq!((a.get(h), b.get(h)), (None, None), "{h:#x}");
        }
        assert_eq!(a.remove(ha), Some("a"));
        assert_eq!(a.get(ha), None);
        let again = a.insert("c").unwrap();
        assert_ne!(again, ha, "the reused slot has a new generation");
        assert_eq!(a.get(ha), None);
        *a.get_mut(again).unwrap() = "d";
        assert_eq!(a.remove(again), Some("d"));
        assert_eq!(a.remove(again), None);
    }

    #[test]
    fn the_largest_index_and_generation_decode_back_and_kinds_do_not_overlap() {
        let top = |base: Handle, bits: u32| base | 255 << bits | ((1 << bits) - 1);
        assert_eq!(Big::id(top(1 << 30, 22)), Some(255 << 32 | ((1 << 22) - 1)));
        assert_eq!(
            Small::id(top(1 << 29, 20)),
            Some(255 << 32 | ((1 << 20) - 1))
        );
        assert!(
            top(1 << 29, 20) < 1 << 30,
            "the small kind ends below the big one"
        );
        assert!(top(1 << 30, 22) <= c_int::MAX as Handle);
        assert_eq!(Big::id(1 << 30 | 1 << 31), None);
    }
}
