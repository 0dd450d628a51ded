//! How a thread's layers find the state they share (the job membership, the list of
//! endpoints holding credits back) without the thread owning it.
//!
//! The state is owned by its holders (`Rc`): the bundles, endpoints and layers that use
//! it. The thread keeps only a [`Finder`], a weak reference that a new holder upgrades to
//! share what the thread's other holders hold. So a holder never depends on the
//! thread-local to reach its state: once the thread's locals are destroyed (a C face
//! closing what is left from a thread-exit destructor, in no order it controls), holders
//! keep theirs and a new one starts a value apart, as when none was live.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::thread::LocalKey;

/// A thread's weak reference to the `T` its holders share.
pub(crate) struct Finder<T>(RefCell<Weak<T>>);

impl<T> Finder<T> {
    pub const fn new() -> Finder<T> {
        Finder(RefCell::new(Weak::new()))
    }
}

/// The `T` the holders on this thread share, or else `make`'s, which this thread's next
/// holders then share (unless the thread's locals are gone: then it is the caller's own).
pub(crate) fn find_or<T, E>(
    key: &'static LocalKey<Finder<T>>,
    make: impl FnOnce() -> Result<Rc<T>, E>,
) -> Result<Rc<T>, E> {
    if let Some(found) = key.try_with(|f| f.0.borrow().upgrade()).ok().flatten() {
        return Ok(found);
    }
    let made = make()?;
    // Fails only while the thread exits, when the value stays the caller's alone.
    let _ = key.try_with(|f| *f.0.borrow_mut() = Rc::downgrade(&made));
    Ok(made)
}

/// [`find_or`] for a value whose making cannot fail.
pub(crate) fn find_or_new<T>(key: &'static LocalKey<Finder<T>>, make: impl FnOnce() -> T) -> Rc<T> {
    find_or::<T, std::convert::Infallible>(key, || Ok(Rc::new(make())))
        .unwrap_or_else(|never| match never {})
}

#[cfg(test)]
mod tests {
    use super::{find_or, find_or_new, Finder};
    use std::rc::Rc;

    thread_local! {
        static FOUND: Finder<u32> = const { Finder::new() };
    }

    fn find(value: u32) -> Rc<u32> {
        find_or_new(&FOUND, || value)
    }

    #[test]
    fn holders_share_the_value_while_one_lives_and_the_next_makes_a_new_one() {
        let first = find(1);
        let second = find(2);
        assert!(Rc::ptr_eq(&first, &second), "the second holder shares the first's");
        drop((first, second));
        assert_eq!(*find(3), 3, "with no holder left, the thread finds nothing");
    }

    #[test]
    fn a_failed_make_leaves_nothing_to_find() {
        let failed = find_or(&FOUND, || Err::<Rc<u32>, _>("no"));
        assert_eq!(failed, Err("no"));
        assert_eq!(*find(4), 4);
    }
}
