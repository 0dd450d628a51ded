//! A rank's own part of a spread array, read and written in place.

use bytemuck::Pod;
use std::marker::PhantomData;

/// This rank's elements of a spread array. Holds the endpoint, so the segment stays mapped
/// as long as the view lives. Peers may write these elements at any time their accesses
/// allow; ordering them (barriers, syncs) is the program's protocol, as in Split-C.
pub struct LocalView<T> {
    ep: clump::Endpoint,
    base: usize,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> LocalView<T> {
    pub(crate) fn new(ep: clump::Endpoint, base: usize, len: usize) -> LocalView<T> {
        LocalView {
            ep,
            base,
            len,
            _t: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`; panics past the end, like slice indexing.
    pub fn get(&self, i: usize) -> T {
        self.as_slice()[i]
    }

    /// Sets element `i`; panics past the end, like slice indexing.
    pub fn set(&mut self, i: usize, v: T) {
        self.as_mut_slice()[i] = v;
    }

    pub fn as_slice(&self) -> &[T] {
        let (ptr, len) = self.raw();
        // SAFETY: the allocation lies inside the segment (alloc checked it), starts aligned
        // for T (alloc aligned it on a page-aligned mapping), and stays mapped while `self.ep`
        // lives; T is Pod, so any bytes a peer wrote are a valid T.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        let (ptr, len) = self.raw();
        // SAFETY: as in `as_slice`; `&mut self` keeps this view's own references exclusive.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }

    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    fn raw(&self) -> (*mut T, usize) {
        let (base, seg_len) = self
            .ep
            .segment_ptr()
            .expect("a Gas endpoint always has its segment");
        assert!(self.base + self.len * size_of::<T>() <= seg_len);
        // SAFETY: `self.base` is inside the segment (asserted above).
        (unsafe { base.add(self.base) }.cast::<T>(), self.len)
    }
}
