//! The boundary every exported function goes through: the AM_Init check, the process lock
//! when threads share the process, and a panic caught and turned into an error code
//! instead of unwinding into C.

use crate::codes::{AmResult, AM_ERR_NOT_INIT, AM_ERR_RESOURCE, AM_OK};
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};

/// Where the AM-II face stands, in one byte, so that the test every entry point makes
/// (initialized, and whether threads share the process) is one load and one compare, as
/// the `AM_Init` check alone was: [`UNINIT`], [`ONE_THREAD`] or [`SHARED`].
static STATE: AtomicU8 = AtomicU8::new(UNINIT);
/// Before `AM_Init` (or after `AM_Terminate`).
pub const UNINIT: u8 = 0;
/// Initialized; calls come from the thread that owns their objects, no lock.
pub const ONE_THREAD: u8 = 1;
/// Initialized, and threads share the process (`am::serial::is_shared`): calls run inside
/// the process lock.
pub const SHARED: u8 = 2;

pub fn set_initialized(on: bool) {
    let state = match (on, am::serial::is_shared()) {
        (false, _) => UNINIT,
        (true, false) => ONE_THREAD,
        (true, true) => SHARED,
    };
    STATE.store(state, Ordering::Release);
}

/// The face's state, for the entry test ([`call_shared!`]).
#[inline(always)]
pub fn state() -> u8 {
    STATE.load(Ordering::Acquire)
}

/// Turns the process lock on (`am::serial::share`) for every face, and records it for
/// the entry test. Every face turns it on through here, so [`STATE`] is `SHARED` whenever
/// the face is initialized and the process shared.
///
/// # Safety
/// As for `am::serial::share`.
pub unsafe fn share() {
    // SAFETY: the caller's contract is `share`'s.
    unsafe { am::serial::share() };
    let _ = STATE.compare_exchange(ONE_THREAD, SHARED, Ordering::AcqRel, Ordering::Acquire);
}

/// Runs the body of an exported call: `AM_ERR_NOT_INIT` before `AM_Init`, the body's
/// code otherwise, `AM_ERR_RESOURCE` if it panicked. Inlined into each entry point, so
/// that the body's captures stay in registers.
#[inline(always)]
pub fn call(body: impl FnOnce() -> AmResult) -> c_int {
    let state = state();
    if state == ONE_THREAD {
        run(body)
    } else if state == UNINIT {
        AM_ERR_NOT_INIT
    } else {
        call_locked(body)
    }
}

/// [`call`] for a hot body, told whether threads share the process (an `AM_PAR` bundle):
/// `call_shared!(|shared| body)` expands the body twice, with `shared` the constant
/// `false` on the one-thread path and `true` inside the lock, so the body's own tests of
/// it fold away and the one-thread path asks once per call, here. Both copies are inline,
/// each called once: a closure passed to two calls, as `call` does, is too big to inline
/// into either (`AM_Poll` paid a call and a result through memory), and what it captures
/// escapes to the out-of-line copy, so the one-thread path stored the C arguments to the
/// stack on every call.
macro_rules! call_shared {
    (|$shared:ident| $body:expr) => {{
        let state = $crate::guard::state();
        if state == $crate::guard::ONE_THREAD {
            $crate::guard::run(move || {
                let $shared = false;
                $body
            })
        } else if state == $crate::guard::UNINIT {
            $crate::codes::AM_ERR_NOT_INIT
        } else {
            let _entered = $crate::guard::lock();
            $crate::guard::run(move || {
                let $shared = true;
                $body
            })
        }
    }};
}
pub(crate) use call_shared;

/// Enters the process lock for [`call_shared!`]'s locked copy: out of line and cold, so
/// that the compiler lays the one-thread copy out as the straight path.
#[cold]
#[inline(never)]
pub fn lock() -> am::serial::Entered {
    am::serial::enter()
}

/// Like [`call`] but without the `AM_Init` check (for `AM_Init` itself and the limits).
/// Once threads share the process (an `AM_PAR` bundle), the body runs inside the process
/// lock (`am::serial`); before, the lock costs one relaxed load.
#[inline(always)]
pub fn call_uninit(body: impl FnOnce() -> AmResult) -> c_int {
    if am::serial::is_shared() {
        return call_locked(body);
    }
    run(body)
}

/// [`call_uninit`] inside the process lock: out of line, so that the one-thread path
/// stays as it was (no guard to drop on the way out).
#[cold]
#[inline(never)]
fn call_locked(body: impl FnOnce() -> AmResult) -> c_int {
    let _entered = am::serial::enter();
    run(body)
}

#[inline(always)]
pub fn run(body: impl FnOnce() -> AmResult) -> c_int {
    // AssertUnwindSafe: after a panic the caller only gets an error code; the thread's
    // tables stay consistent because no borrow of them is held across clump calls.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => AM_OK,
        Ok(Err(code)) => code.0,
        Err(_) => AM_ERR_RESOURCE,
    }
}

/// Writes `v` through an out-pointer from C, or fails with `AM_ERR_BAD_ARG` if it is NULL.
pub fn out<T>(ptr: *mut T, v: T) -> AmResult {
    if ptr.is_null() {
        return Err(crate::codes::BAD_ARG);
    }
    // SAFETY: non-null, and the caller's contract is that a non-null out-pointer points
    // to writable storage of its type (alignment is not relied on); nothing old is dropped.
    unsafe { ptr.write_unaligned(v) };
    Ok(())
}

/// Writes `v` through an optional out-pointer from C: nothing if it is NULL.
pub fn out_if<T>(ptr: *mut T, v: T) {
    let _ = out(ptr, v);
}
