//! One part of an endpoint's state, with one owner, reached only through [`Part::with`].
//!
//! The closure `with` runs gets the part as `&mut` and must be `Send`. No part is `Sync`
//! (and neither is the endpoint, nor its handlers, which sit behind `Rc`), so a `Send`
//! closure can capture no reference to any part, to the endpoint, to its bundle or to a
//! handler: inside it nothing can run a handler, poll, wait, or reach this part again.
//! That the borrow is never held across a handler, and never taken twice, is therefore
//! a fact the compiler checks, not a convention; and there is no guard to keep, so no
//! borrow outlives the closure. What a closure needs of another part, the caller reads
//! first and passes in by value.
//!
//! The same shape is what a concurrent endpoint (issue 31) needs: a part reached only
//! through `with` can become a lock (or a per-thread part) behind the same call, while a
//! single-threaded endpoint keeps the `RefCell`: no lock and no atomic on its hot path.
//! The cell stays although its exclusivity is now a compile-time fact: the endpoint is
//! shared (`Rc`) by its bundle, its handles and the tokens of its handlers, so no `&mut`
//! path to it exists, and an `UnsafeCell` would put `unsafe` where DESIGN.md allows none
//! for the price of one flag compare per access.

use std::cell::RefCell;

#[derive(Default)]
pub(crate) struct Part<T>(RefCell<T>);

impl<T> Part<T> {
    pub fn new(value: T) -> Part<T> {
        Part(RefCell::new(value))
    }

    /// Runs `f` on the part. Never fails: `f` cannot reach this part (see the module
    /// documentation), so the borrow is always free.
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R + Send) -> R {
        f(&mut self.0.borrow_mut())
    }

    /// Runs `f` on this part and two others at once, for the one step that needs them
    /// together: the network's receive, which lands fragments in the segment (as the
    /// flow allows) while the port decodes them. Parts of different types are different
    /// cells, so no borrow here finds another taken.
    #[inline(always)]
    pub fn with_others<U, V, R>(
        &self,
        u: &Part<U>,
        v: &Part<V>,
        f: impl FnOnce(&mut T, &mut U, &mut V) -> R + Send,
    ) -> R {
        f(&mut self.0.borrow_mut(), &mut u.0.borrow_mut(), &mut v.0.borrow_mut())
    }

    /// Puts `value` in place of the part's value and returns the old one: a move, no
    /// closure, for values that are not `Send` (handlers). The caller drops the old value
    /// after, outside any borrow (a handler's captures may reach the endpoint).
    #[inline]
    pub fn replace(&self, value: T) -> T {
        self.0.replace(value)
    }
}
