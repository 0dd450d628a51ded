//! The boundary every exported function goes through: the AM_Init check, the process lock
//! when threads share the process, and a panic caught and turned into an error code
//! instead of unwinding into C.

use crate::codes::{AmResult, AM_ERR_NOT_INIT, AM_ERR_RESOURCE, AM_OK};
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

static INITIALIZED: AtomicBool = AtomicBool::new(false);

pub fn set_initialized(on: bool) {
    INITIALIZED.store(on, Ordering::Release);
}

pub fn initialized() -> bool {
    INITIALIZED.load(Ordering::Acquire)
}

/// Runs the body of an exported call: `AM_ERR_NOT_INIT` before `AM_Init`, the body's
/// code otherwise, `AM_ERR_RESOURCE` if it panicked. Inlined into each entry point, so
/// that the body's captures stay in registers.
#[inline(always)]
pub fn call(body: impl FnOnce() -> AmResult) -> c_int {
    if !initialized() {
        return AM_ERR_NOT_INIT;
    }
    call_uninit(body)
}

/// Like [`call`] but without the `AM_Init` check (for `AM_Init` itself and the limits).
/// Once threads share the process (an `AM_PAR` bundle), the body runs inside the process
/// lock (`am::serial`); before, the lock costs a relaxed load and a test.
///
/// Why this shape: the body appears once, and the lock is left inside the caught call.
/// A second copy of the body (one inside the lock, one outside) made rustc put it out of
/// line, and a guard dropped after the `match` kept the caught result alive to the end;
/// each cost every call 15-30 instructions.
#[inline(always)]
pub fn call_uninit(body: impl FnOnce() -> AmResult) -> c_int {
    // AssertUnwindSafe: after a panic the caller only gets an error code; the thread's
    // tables stay consistent because no borrow of them is held across clump calls.
    let locked = AssertUnwindSafe(|| {
        let _entered = am::serial::enter();
        body()
    });
    match catch_unwind(locked) {
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
