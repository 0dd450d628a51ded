//! `clump/spmd.h`: joining a job `clump run` started, and the job's collectives.

use crate::codes::{AmResult, BAD_ARG, RESOURCE};
use crate::errors;
use crate::guard::{self, out};
use crate::state::{self, to_ptr, EpState, DEFAULT_TRANSLATIONS};
use am::spmd::Spmd;
use std::cell::RefCell;
use std::ffi::{c_char, c_void};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

am::process_local! {
    /// The job, taken out while a collective runs (handlers then see it absent): the
    /// joining thread's, and the process's once threads share it (`AM_PAR`).
    static JOB: RefCell<Option<Spmd>> = RefCell::new(None);
}

/// This process's rank and the job's size once joined (-1 before): one job per process,
/// read by any thread without the lock.
static RANK: AtomicI32 = AtomicI32::new(-1);
static SIZE: AtomicI32 = AtomicI32::new(-1);
/// Processes of the job on this machine, once `clump_spmd_startup` has said (1 before):
/// how `AM_Poll`'s back-off shares the cores.
static PROCESSES_HERE: AtomicU32 = AtomicU32::new(1);

#[no_mangle]
pub extern "C" fn clump_spmd_startup(
    _argc: *mut c_int,
    _argv: *mut *mut *mut c_char,
    bundle: *mut *mut c_void,
    endpoint: *mut *mut c_void,
) -> c_int {
    guard::set_initialized(true);
    guard::call(|| {
        if bundle.is_null() || endpoint.is_null() {
            return Err(BAD_ARG);
        }
        if RANK.load(Ordering::Acquire) >= 0 {
            return Err(RESOURCE); // joined already
        }
        let spmd = Spmd::init().inspect_err(|e| errors::startup_failed(&e.to_string()))?;
        let size = spmd.size() as usize;
        let eb = state::insert_bundle(spmd.bundle.clone())?;
        let ep = EpState::new(spmd.ep.clone(), eb, size.max(DEFAULT_TRANSLATIONS));
        let ep = state::insert_endpoint(ep, crate::token::claim)?;
        SIZE.store(spmd.size() as c_int, Ordering::Relaxed);
        RANK.store(spmd.rank() as c_int, Ordering::Release);
        PROCESSES_HERE.store(spmd.job.processes_here(), Ordering::Relaxed);
        JOB.with_borrow_mut(|j| *j = Some(spmd));
        // SAFETY: atexit(3) takes a function of this type, called once at exit(3).
        unsafe { libc::atexit(end_job_at_exit) };
        out(bundle, to_ptr(eb))?;
        out(endpoint, to_ptr(ep))
    })
}

#[no_mangle]
pub extern "C" fn clump_spmd_rank() -> c_int {
    RANK.load(Ordering::Relaxed)
}

#[no_mangle]
pub extern "C" fn clump_spmd_size() -> c_int {
    SIZE.load(Ordering::Acquire)
}

/// Ends this process's part in the job (`AM_Terminate`): its process manager hears it
/// (PMIx's finalize, which Open MPI's `mpirun` requires before the process exits). The
/// job is a process-local value, which nothing drops at exit.
pub(crate) fn end_job() {
    drop(JOB.with_borrow_mut(Option::take));
}

/// [`end_job`] for a program that returns from `main` without `AM_Terminate`, as the
/// thread's locals once did at exit. Left to `AM_Terminate` once threads share the
/// process: another thread may hold the lock while this one exits.
extern "C" fn end_job_at_exit() {
    if am::serial::is_shared() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // Taken only if free: exit(3) may run inside a call that holds it.
        JOB.with(|j| j.try_borrow_mut().map(|mut j| drop(j.take())))
    });
}

pub(crate) fn processes_here() -> u32 {
    PROCESSES_HERE.load(Ordering::Relaxed)
}

/// Fits the configuration of a bundle the program allocates to the job it joined (its
/// network address on the job's hosts), as the job's own bundle is; unchanged before.
pub(crate) fn adapt(config: &mut am::config::Config) {
    JOB.with_borrow(|j| {
        if let Some(spmd) = j {
            spmd.job.adapt(config);
        }
    });
}

/// Runs a collective on the job, which is out of its cell meanwhile.
pub(crate) fn with_job<R>(f: impl FnOnce(&mut Spmd) -> AmResult<R>) -> AmResult<R> {
    let mut spmd = JOB.with_borrow_mut(Option::take).ok_or(RESOURCE)?;
    let result = f(&mut spmd);
    JOB.with_borrow_mut(|j| *j = Some(spmd));
    result
}

#[no_mangle]
pub extern "C" fn clump_spmd_barrier() -> c_int {
    guard::call(|| with_job(|s| Ok(s.barrier()?)))
}

#[no_mangle]
pub extern "C" fn clump_spmd_allgather(src: *const c_void, dst: *mut c_void, len: usize) -> c_int {
    guard::call(|| {
        if src.is_null() || dst.is_null() {
            return Err(BAD_ARG);
        }
        // SAFETY: the caller's contract: `len` readable bytes at `src`.
        let mine = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), len) };
        let parts = with_job(|s| Ok(s.allgather(mine)?))?;
        if parts.iter().any(|p| p.len() != len) {
            return Err(BAD_ARG); // ranks disagree on len
        }
        let all = parts.concat();
        // SAFETY: the caller's contract: `size * len` writable bytes at `dst`.
        unsafe { std::ptr::copy_nonoverlapping(all.as_ptr(), dst.cast::<u8>(), all.len()) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn clump_spmd_getenv(name: *const c_char) -> *const c_char {
    if name.is_null() {
        return std::ptr::null();
    }
    // SAFETY: a NUL-terminated string from the caller; getenv returns a pointer into the
    // environment (which `clump run` hands to every rank) or NULL.
    unsafe { libc::getenv(name) }
}

/// The thread inside the first `clump_spmd_exit` (0: none yet). A second entry (from a
/// signal or atexit handler while exit(3) runs) must neither run exit(3) again nor touch
/// thread-locals, which may be destroyed by then.
static EXITING_THREAD: AtomicI32 = AtomicI32::new(0);

/// Declared to return `int` like AMUDP's `SPMDExit`. The first call never returns. A call
/// made while it runs returns at once in the same thread (a handler that interrupted it:
/// returning lets exit(3) go on to flush the program's output) and, in any other thread,
/// waits for the process to end.
#[no_mangle]
pub extern "C" fn clump_spmd_exit(status: c_int) -> c_int {
    // SAFETY: gettid(2) is a plain, async-signal-safe syscall.
    let me = unsafe { libc::gettid() };
    if let Err(first) = EXITING_THREAD.compare_exchange(0, me, Ordering::SeqCst, Ordering::SeqCst) {
        if first == me {
            return 0;
        }
        loop {
            // SAFETY: pause(2) only sleeps; the exiting thread ends the process.
            unsafe { libc::pause() };
        }
    }
    let _ = std::panic::catch_unwind(|| {
        let reason = format!("clump_spmd_exit({status})");
        // The job's state needs the lock once threads share it. A panic here (this
        // thread's locals gone: it is ending) is caught: the launcher then learns the
        // status from the exit itself.
        let _entered = am::serial::enter();
        JOB.with(|j| {
            if let Ok(mut j) = j.try_borrow_mut() {
                if let Some(s) = j.as_mut() {
                    s.job.abort(status, &reason);
                }
            }
        });
    });
    // SAFETY: exit(3) runs the program's atexit handlers and flushes its stdio, as a C
    // program ending expects.
    unsafe { libc::exit(status) }
}
