//! The request handles of the C face: a [`HandleTable`], whose handle encodes the slot
//! index and a generation, so that storing, finding and forgetting a request is an index
//! and a compare, not a hash insert and remove per message; and a handle whose request
//! completed names nothing, even once its slot is reused (until the generation wraps).
//!
//! A handle is `1 << 30 | generation << 22 | index`: hence at most 2^22 requests pending
//! at once, 255 generations.

use super::abi::{MPI_ERR_NO_MEM, MPI_ERR_REQUEST};
use super::handle_table::HandleTable;
use clump_mpi::Request;
use std::any::Any;
use std::os::raw::c_int;
use std::rc::Rc;

pub type Handle = usize;

/// `MPI_REQUEST_NULL`.
pub const REQUEST_NULL: Handle = 0x180;

/// A persistent request: how to start it again, and its current start (null when idle).
pub struct Persistent {
    pub start: Rc<dyn Fn() -> Result<Request, (c_int, String)>>,
    pub active: Request,
    /// A partitioned request's partitions (`MPI_Psend_init`, `MPI_Precv_init`): opaque
    /// here, so that the table does not depend on the module that reads them.
    pub parts: Option<Rc<dyn Any>>,
}

/// What a request handle names.
pub enum Entry {
    /// A request of one operation; null while a call that took it waits on it.
    Plain(Request),
    /// A persistent (or partitioned) request: how to start it and its current start
    /// (boxed: the slots stay two words, cheap to fill for every plain request).
    Persistent(Box<Persistent>),
}

type Slab = HandleTable<Entry, { 1 << 30 }, 22>;

#[derive(Default)]
pub struct RequestTable {
    slab: Slab,
}

/// The error of a handle that names no request this call may use.
#[cold]
#[inline(never)]
fn invalid(h: Handle) -> (c_int, String) {
    (MPI_ERR_REQUEST, format!("invalid request handle {h:#x}"))
}

impl RequestTable {
    /// Stores `entry` under a new handle; `MPI_ERR_NO_MEM` once 2^22 requests are pending.
    #[inline(always)]
    pub fn insert(&mut self, entry: Entry) -> Result<Handle, (c_int, String)> {
        self.slab.insert(entry).ok_or_else(too_many)
    }

    pub fn get(&self, h: Handle) -> Option<&Entry> {
        self.slab.get(h)
    }

    pub fn get_mut(&mut self, h: Handle) -> Option<&mut Entry> {
        self.slab.get_mut(h)
    }

    pub fn persistent(&self, h: Handle) -> Option<&Persistent> {
        match self.get(h)? {
            Entry::Persistent(p) => Some(&**p),
            Entry::Plain(_) => None,
        }
    }

    pub fn persistent_mut(&mut self, h: Handle) -> Option<&mut Persistent> {
        match self.get_mut(h)? {
            Entry::Persistent(p) => Some(&mut **p),
            Entry::Plain(_) => None,
        }
    }

    /// Takes the request of `h` for a call to complete (null for `MPI_REQUEST_NULL` and
    /// for an inactive persistent request). The handle stays; [`RequestTable::restore`]
    /// puts the request back. A request another call has taken meanwhile is refused.
    #[inline]
    pub fn take(&mut self, h: Handle) -> Result<Request, (c_int, String)> {
        if h == REQUEST_NULL {
            return Ok(Request::null());
        }
        match self.get_mut(h) {
            Some(Entry::Plain(r)) if !r.is_null() => Ok(std::mem::replace(r, Request::null())),
            Some(Entry::Persistent(p)) => Ok(std::mem::replace(&mut p.active, Request::null())),
            _ => Err(invalid(h)),
        }
    }

    /// Takes the request of `h` to free it: a persistent request's handle now names its
    /// current start only, as a plain request that [`RequestTable::restore`] forgets
    /// once it is null.
    pub fn take_to_free(&mut self, h: Handle) -> Result<Request, (c_int, String)> {
        match self.get_mut(h) {
            Some(e @ Entry::Persistent(_)) => {
                let Entry::Persistent(p) = std::mem::replace(e, Entry::Plain(Request::null()))
                else {
                    unreachable!("matched as persistent")
                };
                Ok(p.active)
            }
            _ => self.take(h),
        }
    }

    /// Puts back the request `take` gave for `h`: a persistent request keeps its handle,
    /// a plain one that completed (null) is forgotten. Whether `h` still names a request.
    #[inline]
    pub fn restore(&mut self, h: Handle, req: Request) -> bool {
        // Most often a plain request that completed: forgotten in one lookup.
        let forgotten = |e: &Entry| matches!(e, Entry::Plain(_));
        if req.is_null() && self.slab.remove_if(h, forgotten).is_some() {
            return false;
        }
        match self.slab.get_mut(h) {
            Some(Entry::Persistent(p)) => p.active = req,
            Some(Entry::Plain(r)) if !req.is_null() => *r = req,
            Some(Entry::Plain(_)) => {
                self.slab.remove(h);
                return false;
            }
            None => return false,
        }
        true
    }
}

#[cold]
#[inline(never)]
fn too_many() -> (c_int, String) {
    let why = format!("more than {} requests pending at once", Slab::CAPACITY);
    (MPI_ERR_NO_MEM, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_positive_ints_above_the_predefined_ones() {
        let mut t = RequestTable::default();
        let h = t.insert(Entry::Plain(Request::completed())).unwrap();
        assert!(h > REQUEST_NULL && h >= 0x10000 && h <= c_int::MAX as Handle);
        for h in [0, REQUEST_NULL, 0x10005, (1 << 30) - 1, 1 << 31, usize::MAX] {
            assert!(t.get(h).is_none(), "{h:#x} is no request handle");
        }
    }

    #[test]
    fn a_taken_request_is_refused_to_a_second_taker_and_forgotten_once_complete() {
        let mut t = RequestTable::default();
        let h = t.insert(Entry::Plain(Request::completed())).unwrap();
        let r = t.take(h).unwrap();
        assert!(!r.is_null());
        assert_eq!(
            t.take(h).unwrap_err().0,
            MPI_ERR_REQUEST,
            "taken: another call may not have it"
        );
        assert!(t.restore(h, r), "still pending: the handle stays");
        let r = t.take(h).unwrap();
        drop(r);
        assert!(!t.restore(h, Request::null()), "complete: forgotten");
        assert_eq!(t.take(h).unwrap_err().0, MPI_ERR_REQUEST);
        let again = t.insert(Entry::Plain(Request::completed())).unwrap();
        assert_ne!(again, h, "the reused slot has a new generation");
        assert!(t.take(REQUEST_NULL).unwrap().is_null());
        assert!(!t.restore(REQUEST_NULL, Request::null()));
    }
}
