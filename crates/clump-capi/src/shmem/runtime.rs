//! The state behind the OpenSHMEM calls of this PE, and the boundary every call goes
//! through: [`run`] enters the process lock when threads share the state, finds the state,
//! catches panics, and turns an error into a message and the end of the job.

// The result type and its gas errors are res.rs's; most calls reach them from here.
use super::heap::Heap;
pub use super::res::{gas_err, Res};
use super::statics::Statics;
use super::team_set::Teams;
use clump_gas::{Gas, Spread};
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How often a call polls on entry (see [`run`]).
const POLL_EVERY: u32 = 8;

/// One PE's view of the job, from `shmem_init` to `shmem_finalize`.
pub struct State {
    pub gas: RefCell<Gas>,
    /// The symmetric heap: the same region of every rank's segment.
    pub heap: Spread<u8>,
    /// Where this PE's heap lies in its memory.
    pub heap_base: *mut u8,
    pub heap_len: usize,
    pub alloc: RefCell<Heap>,
    pub statics: Statics,
    pub teams: RefCell<Teams>,
    /// Active sets (`PE_start`, `logPE_stride`, `PE_size`) by key, with their collective state.
    pub active_sets: RefCell<HashMap<u64, Rc<clump_gas::Group>>>,
    /// Contexts the program created and has not destroyed, with their teams.
    pub contexts: RefCell<HashMap<usize, usize>>,
    pub next_handle: std::cell::Cell<usize>,
    /// Where the next `_any` wait or test starts looking, so that a series of calls
    /// returns every index whose condition holds, not always the lowest.
    pub next_any: std::cell::Cell<usize>,
    /// Calls so far, to poll on every [`POLL_EVERY`]th.
    pub calls: std::cell::Cell<u32>,
}

am::process_local! {
    /// The PE's state: the initialising thread's, or every thread's once a level of
    /// `SHMEM_THREAD_SERIALIZED` or more shares it (`am::serial`).
    static STATE: RefCell<Option<Rc<State>>> = RefCell::new(None);
}

/// Whether some thread of this process holds the state: a call from another thread at
/// `SHMEM_THREAD_FUNNELED` or below is told so.
static HELD: AtomicBool = AtomicBool::new(false);

pub fn installed() -> Option<Rc<State>> {
    STATE.with(|s| s.borrow().clone())
}

pub fn install(state: Option<Rc<State>>) {
    HELD.store(state.is_some(), Ordering::Relaxed);
    STATE.with(|s| *s.borrow_mut() = state);
}

/// Why this thread has no state.
fn no_state() -> String {
    if HELD.load(Ordering::Relaxed) {
        "called from a thread other than the one that called shmem_init (the thread level \
         provided is SHMEM_THREAD_FUNNELED or below)"
            .to_owned()
    } else {
        "called before shmem_init".to_owned()
    }
}

/// Runs the body of the call `what` with this thread's state. An error or a panic prints
/// `what` and the reason and ends the whole job: OpenSHMEM calls have no error return.
///
/// Every [`POLL_EVERY`]th call polls first: accesses to this PE's global and static
/// variables, and to its heap from other hosts, are messages that complete only when it
/// polls, and a program spinning on a local call (`shmem_int_atomic_fetch` of its own
/// flag, `shmem_test_lock`) must still let them complete. An empty poll looks at a few
/// queue heads (10 to 40 ns measured); one call in eight keeps that off the fastest puts.
///
/// When threads share the state, the call runs inside the process lock (`am::serial`).
pub fn run<R>(what: &str, body: impl FnOnce(&State) -> Res<R>) -> R {
    let _entered = am::serial::enter();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let state = installed().ok_or_else(no_state)?;
        let calls = state.calls.get().wrapping_add(1);
        state.calls.set(calls);
        if calls.is_multiple_of(POLL_EVERY) {
            state.poll()?;
        }
        body(&state)
    }));
    match outcome {
        Ok(Ok(v)) => v,
        Ok(Err(why)) => fatal(what, &why),
        Err(_) => fatal(what, "internal error (a panic in the library)"),
    }
}

/// Prints why `what` failed, asks the launcher to end the job, and exits.
pub fn fatal(what: &str, why: &str) -> ! {
    let reason = format!("clump shmem: {what}: {why}");
    eprintln!("{reason}");
    let _entered = am::serial::enter();
    if let Some(state) = installed() {
        if let Ok(mut gas) = state.gas.try_borrow_mut() {
            gas.abort(1, &reason);
        }
    }
    std::process::exit(1)
}

impl State {
    pub fn me(&self) -> u32 {
        self.gas.borrow().rank()
    }

    pub fn npes(&self) -> u32 {
        self.gas.borrow().size()
    }

    /// A PE number from C, checked against the job's size.
    pub fn pe(&self, pe: std::os::raw::c_int) -> Res<u32> {
        u32::try_from(pe)
            .ok()
            .filter(|&p| p < self.npes())
            .ok_or_else(|| format!("PE {pe} is out of range (the job has {} PEs)", self.npes()))
    }

    /// A fresh handle value for a context or team the program creates.
    pub fn fresh_handle(&self) -> usize {
        let h = self.next_handle.get();
        self.next_handle.set(h + 1);
        h
    }

    /// Completes every put, atomic and get this PE started (`shmem_quiet`).
    pub fn quiet(&self) -> Res<()> {
        self.gas.borrow().sync().map_err(gas_err)
    }

    /// Orders this PE's puts and atomics to each PE before its later ones (`shmem_fence`).
    pub fn fence(&self) -> Res<()> {
        self.gas.borrow().fence().map_err(gas_err)
    }

    /// Runs the handlers of messages that have arrived (progress while waiting).
    pub fn poll(&self) -> Res<()> {
        self.gas.borrow().poll().map_err(gas_err)
    }
}

/// `n` elements of `size` bytes as a byte count, refusing overflow.
pub fn byte_len(n: usize, size: usize) -> Res<usize> {
    n.checked_mul(size)
        .ok_or_else(|| format!("{n} elements of {size} bytes overflow"))
}

/// The C buffer `p` of `len` bytes (empty without looking at `p` when `len` is 0); NULL
/// with a length is an error naming the argument.
///
/// # Safety
/// A non-NULL `p` must point at `len` readable bytes that stay valid and unchanged for
/// `'a` (the C caller's contract for a source buffer, which shmem.h states).
pub unsafe fn src_slice<'a>(p: *const std::ffi::c_void, len: usize, name: &str) -> Res<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(format!("{name} is NULL"));
    }
    // SAFETY: `p` is not NULL, and this function's caller vouches for `len` bytes there
    // that stay valid and unchanged for `'a`.
    Ok(unsafe { std::slice::from_raw_parts(p.cast(), len) })
}

/// Like [`src_slice`], for a buffer the call writes.
///
/// # Safety
/// A non-NULL `p` must point at `len` writable bytes, valid for `'a` and not accessed
/// otherwise meanwhile (the C caller's contract for a destination buffer).
pub unsafe fn dst_slice<'a>(p: *mut std::ffi::c_void, len: usize, name: &str) -> Res<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(format!("{name} is NULL"));
    }
    // SAFETY: `p` is not NULL, and this function's caller vouches for `len` writable
    // bytes there that nothing else touches for `'a`.
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast(), len) })
}

/// Element strides from C, which must be positive.
pub fn strides(dst: isize, sst: isize) -> Res<(usize, usize)> {
    match (usize::try_from(dst), usize::try_from(sst)) {
        (Ok(d), Ok(s)) if d > 0 && s > 0 => Ok((d, s)),
        _ => Err(format!("strides {dst} and {sst} must be positive")),
    }
}
