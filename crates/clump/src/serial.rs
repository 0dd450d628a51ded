//! One lock per process, for C programs that call a face (MPI first) from several threads.
//!
//! A face's state (MPI's runtime and handle tables) is a graph of `Rc`/`RefCell` values,
//! fast for one thread and not `Send`. It lives in [`ProcessLocal`]s ([`process_local!`]),
//! which are in one of two modes:
//!
//! - **Per thread** (the default; MPI's `SINGLE` and `FUNNELED`): each thread has its own
//!   value, as with `thread_local!`, so only the thread that initialised the face reaches
//!   its state (another gets an empty one: "not initialized"). The cost on this path is a
//!   relaxed load of the mode beside the thread-local access: no lock, no atomic
//!   read-modify-write.
//! - **Shared** ([`share`], MPI's `SERIALIZED` and `MULTIPLE`): the values of the thread
//!   that called `share` become the process's, reached from every thread. Every C entry
//!   point [`enter`]s one process lock (re-entrant, for callbacks that call the face again)
//!   and holds it until it returns, so the calls of the face run one at a time, whichever
//!   thread makes them; handlers run inside the poll of the thread that holds the lock.
//!   A thread that waits (a blocking receive, a collective) [`pause`]s between polls:
//!   when another thread waits for the lock, it lets the lock go, yields, and takes it
//!   again, so that other threads' calls proceed; whichever thread waits makes the
//!   progress. Alone, it polls on as a one-thread wait does (a yield per empty poll made
//!   one thread under `AM_PAR` thirty times slower than under `AM_SEQ`).
//!
//! Why sharing is sound although the values are not `Send`: a shared value is only ever
//! read or written (including an `Rc`'s counts and a `RefCell`'s borrow flag) by the thread
//! that holds the lock ([`ProcessLocal::with`] checks it), and the lock orders one holder's
//! writes before the next holder's reads. A thread that pauses keeps `Rc`s and `RefCell`
//! guards on its stack but touches none of them until it holds the lock again; another
//! thread that wants a cell it keeps borrowed gets the `RefCell` error, not an alias.
//! What the lock cannot see is a value carried out of a call: that is the contract of
//! [`share`], which is `unsafe` for that reason (C callers get integers and handles only).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread::LocalKey;

/// Whether the process is in shared mode (see the module's comment).
static SHARED: AtomicBool = AtomicBool::new(false);
/// The process lock of shared mode.
static LOCK: Mutex<()> = Mutex::new(());
/// How many threads wait to take [`LOCK`] (found it held): whether a [`pause`] can help.
static WAITING: AtomicU32 = AtomicU32::new(0);
/// Every `ProcessLocal` some thread has touched: those whose values `share` adopts.
static TOUCHED: Mutex<Vec<&'static dyn Adopt>> = Mutex::new(Vec::new());

/// This thread's hold on the lock.
struct Mine {
    /// How many nested [`enter`]s this thread is in.
    depth: Cell<u32>,
    /// The lock while this thread holds it.
    guard: RefCell<Option<MutexGuard<'static, ()>>>,
}

thread_local! {
    static MINE: Mine = const { Mine { depth: Cell::new(0), guard: RefCell::new(None) } };
}

/// Whether the calling thread holds the process lock (false once its thread-locals are
/// gone, as it exits).
pub fn holds_lock() -> bool {
    MINE.try_with(|m| m.guard.borrow().is_some()).unwrap_or(false)
}

/// Whether the process is in shared mode.
#[inline]
pub fn is_shared() -> bool {
    SHARED.load(Ordering::Relaxed)
}

/// Turns shared mode on for the rest of the process: the calling thread's values of every
/// [`ProcessLocal`] become the process's, and every later touch of one needs the lock,
/// [`enter`]ed. A second call changes nothing.
///
/// # Safety
/// Every value the caller and its callers obtain from a `ProcessLocal` (any `Rc` cloned
/// out of one) must be touched only between an [`enter`] and the drop of what it returned,
/// on the thread that entered, and dropped before that: the lock orders nothing else. The
/// calling thread holds no such value when it calls this (it is not inside an `enter`),
/// and no other thread touches a `ProcessLocal` meanwhile.
pub unsafe fn share() {
    if SHARED.load(Ordering::Relaxed) {
        return;
    }
    for p in TOUCHED.lock().unwrap_or_else(PoisonError::into_inner).iter() {
        p.adopt();
    }
    SHARED.store(true, Ordering::Release);
}

/// A call of the face, inside the process lock in shared mode; leaves it when dropped.
#[must_use]
pub struct Entered(bool);

/// Enters the process lock if the process is shared (re-entrant: a callback inside a call
/// may call again); in one-thread mode only a relaxed load.
#[inline]
pub fn enter() -> Entered {
    if !SHARED.load(Ordering::Relaxed) {
        return Entered(false);
    }
    lock_nested();
    Entered(true)
}

#[cold]
fn lock_nested() {
    MINE.with(|m| {
        let depth = m.depth.get();
        if depth == 0 {
            *m.guard.borrow_mut() = Some(take_lock());
        }
        m.depth.set(depth + 1);
    });
}

impl Drop for Entered {
    #[inline]
    fn drop(&mut self) {
        if self.0 {
            MINE.with(|m| {
                let depth = m.depth.get() - 1;
                m.depth.set(depth);
                if depth == 0 {
                    m.guard.borrow_mut().take();
                }
            });
        }
    }
}

/// Takes the process lock, counted in [`WAITING`] while it has to wait for it.
fn take_lock() -> MutexGuard<'static, ()> {
    match LOCK.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => {
            WAITING.fetch_add(1, Ordering::Relaxed);
            let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
            WAITING.fetch_sub(1, Ordering::Relaxed);
            guard
        }
    }
}

/// A waiting thread's idle round in shared mode: when another thread waits for the lock,
/// lets it go, yields the core, and takes it again, so that the other thread's call (and
/// its progress) runs meanwhile. Says whether it did; when it did not (one-thread mode, or
/// no thread waits), the caller idles as a one-thread wait does. A thread that starts
/// waiting after the look is seen at the caller's next round, which comes after its next
/// poll.
#[inline]
pub fn pause() -> bool {
    SHARED.load(Ordering::Relaxed) && WAITING.load(Ordering::Relaxed) > 0 && pause_locked()
}

#[cold]
fn pause_locked() -> bool {
    unlocked(std::thread::yield_now);
    true
}

/// Runs `f`, a blocking call that touches no face's state (a `poll(2)` on descriptors
/// read before), with the process lock let go if this thread holds it, so that other
/// threads' calls run while this one sleeps; takes it again after.
pub fn unlocked<R>(f: impl FnOnce() -> R) -> R {
    if !SHARED.load(Ordering::Relaxed) {
        return f();
    }
    // The guard dropped here, before `f`: the lock is free while it runs.
    let released = MINE.with(|m| m.guard.borrow_mut().take()).is_some();
    let r = f();
    if released {
        MINE.with(|m| *m.guard.borrow_mut() = Some(take_lock()));
    }
    r
}

/// A static of a face's state, per thread or shared (see the module's comment); declared
/// with [`process_local!`], touched only inside [`ProcessLocal::with`].
pub struct ProcessLocal<T: 'static> {
    init: fn() -> T,
    /// This thread's value while the process is not shared (made on first use, and kept
    /// for the rest of the process: `share` may hand it to every thread).
    local: &'static LocalKey<Cell<Option<&'static T>>>,
    /// The process's value once shared: the sharing thread's, or made on first use. A
    /// static of its own, so that a `ProcessLocal` holds no interior mutability: the
    /// compiler then reads `local` from the static at compile time and inlines the
    /// thread-local access (through a field it would load at run time, every `with` paid
    /// an indirect call).
    shared: &'static AtomicPtr<T>,
}

// SAFETY: what a `ProcessLocal` holds is only read or written inside `with`. Before
// `share`, `with` reaches the calling thread's own value only, which no other thread can
// name (`adopt`, which publishes it, runs in `share` on that thread). After it, `with`
// reaches the shared value only on a thread that holds the process lock, whose release
// and acquisition order the accesses of successive holders; what `with` hands out cannot
// outlive the closure except as clones of values inside (an `Rc`), which `share`'s
// contract keeps inside the lock.
unsafe impl<T> Sync for ProcessLocal<T> {}

/// What `share` does to each `ProcessLocal` it finds.
trait Adopt: Sync {
    /// Makes the calling thread's value, if it has one, the process's.
    fn adopt(&self);
}

impl<T> Adopt for ProcessLocal<T> {
    fn adopt(&self) {
        if let Some(mine) = self.local.with(Cell::get) {
            self.shared.store(std::ptr::from_ref(mine).cast_mut(), Ordering::Release);
        }
    }
}

/// Declares `static NAME: ProcessLocal<T> = ProcessLocal::new(|| init)` with its
/// thread-local part.
#[macro_export]
macro_rules! process_local {
    ($(#[$m:meta])* $v:vis static $name:ident: $t:ty = $init:expr;) => {
        $(#[$m])*
        $v static $name: $crate::serial::ProcessLocal<$t> = {
            ::std::thread_local! {
                static LOCAL: ::std::cell::Cell<::std::option::Option<&'static $t>> =
                    const { ::std::cell::Cell::new(None) };
            }
            static SHARED: ::std::sync::atomic::AtomicPtr<$t> =
                ::std::sync::atomic::AtomicPtr::new(::std::ptr::null_mut());
            $crate::serial::ProcessLocal::new(|| $init, &LOCAL, &SHARED)
        };
    };
}

impl<T> ProcessLocal<T> {
    /// Use [`process_local!`], which makes `local` and `shared`.
    pub const fn new(
        init: fn() -> T,
        local: &'static LocalKey<Cell<Option<&'static T>>>,
        shared: &'static AtomicPtr<T>,
    ) -> ProcessLocal<T> {
        ProcessLocal {
            init,
            local,
            shared,
        }
    }

    /// Runs `f` on the value: this thread's, or the process's once shared. Panics when
    /// the process is shared and the calling thread did not `enter` the lock.
    #[inline]
    pub fn with<R>(&'static self, f: impl FnOnce(&T) -> R) -> R {
        if SHARED.load(Ordering::Relaxed) {
            return f(self.shared_value());
        }
        let value = match self.local.with(Cell::get) {
            Some(v) => v,
            None => self.first_local(),
        };
        f(value)
    }

    /// This thread's value on its first use: made, kept for the process, and listed for
    /// `share`.
    #[cold]
    fn first_local(&'static self) -> &'static T {
        let value: &'static T = Box::leak(Box::new((self.init)()));
        self.local.with(|l| l.set(Some(value)));
        let mut touched = TOUCHED.lock().unwrap_or_else(PoisonError::into_inner);
        let me: &'static dyn Adopt = self;
        if !touched.iter().any(|p| std::ptr::addr_eq(*p, me)) {
            touched.push(me);
        }
        value
    }

    /// The process's value, for a thread that holds the lock (made on first use).
    #[cold]
    fn shared_value(&'static self) -> &'static T {
        if !holds_lock() {
            refused();
        }
        let p = self.shared.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: a non-null `shared` is a leaked `Box` (`first_local` or below), valid
            // for the rest of the process; only `&` references to it are ever made.
            return unsafe { &*p };
        }
        let value: &'static T = Box::leak(Box::new((self.init)()));
        self.shared.store(std::ptr::from_ref(value).cast_mut(), Ordering::Release);
        value
    }
}

impl<T> ProcessLocal<RefCell<T>> {
    /// [`ProcessLocal::with`] on a shared borrow of the cell.
    #[inline]
    pub fn with_borrow<R>(&'static self, f: impl FnOnce(&T) -> R) -> R {
        self.with(|c| f(&c.borrow()))
    }

    /// [`ProcessLocal::with`] on a mutable borrow of the cell.
    #[inline]
    pub fn with_borrow_mut<R>(&'static self, f: impl FnOnce(&mut T) -> R) -> R {
        self.with(|c| f(&mut c.borrow_mut()))
    }
}

#[cold]
#[inline(never)]
fn refused() -> ! {
    panic!("clump: a face's state touched outside the process lock while threads share it")
}

/// A value that every thread of the process may reach, one at a time, inside the process
/// lock: how a Rust layer offers its one-thread state (a graph of `Rc`s and cells) to
/// threads, as the C faces do with theirs (clump-gas's `SharedGas`). Creating one turns
/// shared mode on ([`share`]).
pub struct Locked<T> {
    value: std::mem::ManuallyDrop<T>,
}

// SAFETY: the value is only reached through `Locked::with`, inside the process lock, and
// dropped inside it; the lock orders one holder's accesses (to the value and to every
// `Rc` count and cell inside it) before the next holder's. `new`'s and `with`'s contracts
// keep anything reached through the value from being touched outside the lock.
unsafe impl<T> Send for Locked<T> {}
// SAFETY: as for `Send`: a `&Locked` gives access to the value inside the lock only.
unsafe impl<T> Sync for Locked<T> {}

impl<T> Locked<T> {
    /// Hands `value` to the threads of the process.
    ///
    /// # Safety
    /// As for [`share`]; and `value` owns what it reaches: nothing outside it keeps a clone
    /// of an `Rc` inside it.
    pub unsafe fn new(value: T) -> Locked<T> {
        // SAFETY: the caller's contract is `share`'s.
        unsafe { share() };
        Locked {
            value: std::mem::ManuallyDrop::new(value),
        }
    }

    /// Runs `f` on the value inside the process lock (re-entrant). Waits inside `f` let the
    /// lock go between polls (`pause`), so other threads' calls run meanwhile.
    ///
    /// # Safety
    /// Nothing reached through the value (an `Rc` clone, a reference) outlives `f` unless
    /// it lives inside the value: neither the result nor anything `f` stores elsewhere (a
    /// thread-local, a capture) holds one.
    pub unsafe fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let _entered = enter();
        f(&self.value)
    }
}

impl<T> Drop for Locked<T> {
    fn drop(&mut self) {
        let _entered = enter();
        // SAFETY: dropped once, here, inside the lock; never touched again.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.value) };
    }
}
