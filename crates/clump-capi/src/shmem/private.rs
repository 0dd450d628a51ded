//! Private contexts (`SHMEM_CTX_PRIVATE`): the standard lets only the thread that created
//! one use it, so it is listed in that thread's own registry, and its puts and gets of
//! symmetric-heap objects on PEs whose heaps are mapped in this process (this PE, and
//! same-host PEs in direct mode) copy straight between the heaps, without the process
//! lock that every other call of a `SHMEM_THREAD_MULTIPLE` process runs inside. Its quiet
//! and fence are then a memory fence. What still takes the lock: an access to a global or
//! static variable or to a PE on another host (messages), strided and atomic calls, a
//! quiet or fence after such an access, one call in [`PROGRESS_EVERY`] (which polls, for
//! the accesses other PEs make to this one), creation and destruction; and contexts on
//! teams other than the world.

use super::runtime::{run, State};
use super::symmetric::Dir;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{fence, AtomicU64, Ordering};

/// One private context's accesses in this many polls once (through the lock), so that a
/// thread that only makes direct accesses still serves what other PEs send this one.
const PROGRESS_EVERY: u32 = 64;

/// Which `shmem_init` the state is from (`shmem_finalize` moves it on): a context of an
/// earlier one (its heaps unmapped) is no longer private, and takes the locked path's
/// error.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// A private context of the calling thread.
struct Private {
    handle: usize,
    epoch: u64,
    /// This PE's heap, where the program sees it, and its length (the same on every PE).
    heap: usize,
    heap_len: usize,
    /// Each world PE's heap where this process maps it, or NULL (accesses by messages).
    peers: Vec<*mut u8>,
    /// An access took the locked path since the last quiet (atomics, signals and strided
    /// calls always do): quiet and fence take it too.
    locked: Cell<bool>,
    calls: Cell<u32>,
}

thread_local! {
    static MINE: RefCell<Vec<Private>> = const { RefCell::new(Vec::new()) };
}

/// `shmem_finalize`: every private context made before is done.
pub fn new_epoch() {
    EPOCH.fetch_add(1, Ordering::Release);
}

/// Lists `handle`, just created on the world team, as the calling thread's private context.
pub fn register(s: &State, handle: usize) -> super::runtime::Res<()> {
    let peers = (0..s.npes())
        .map(|pe| s.ptr(s.heap_base.cast(), pe).map(|p| p.cast::<u8>()))
        .collect::<super::runtime::Res<Vec<_>>>()?;
    MINE.with_borrow_mut(|mine| {
        mine.push(Private {
            handle,
            epoch: EPOCH.load(Ordering::Acquire),
            heap: s.heap_base as usize,
            heap_len: s.heap_len,
            peers,
            locked: Cell::new(false),
            calls: Cell::new(0),
        })
    });
    Ok(())
}

/// Takes `handle` off the calling thread's private contexts, if it is one of them.
pub fn forget(handle: usize) {
    MINE.with_borrow_mut(|mine| mine.retain(|p| p.handle != handle));
}

/// Runs `f` on the calling thread's private context `ctx` of the live state, if it is one.
fn with_mine<R>(ctx: usize, f: impl FnOnce(&Private) -> Option<R>) -> Option<R> {
    MINE.with_borrow(|mine| {
        let p = mine.iter().find(|p| p.handle == ctx)?;
        (p.epoch == EPOCH.load(Ordering::Acquire)).then_some(())?;
        f(p)
    })
}

/// `len` bytes between the caller's buffer and the symmetric object on `pe` (a put:
/// `src` to `dest`; a get: `src` to `dest`), when `ctx` is the calling thread's private
/// context and the object lies in a heap mapped here. False: take the locked path (which
/// also reports bad arguments).
pub fn access(
    ctx: usize,
    dir: Dir,
    dest: *mut c_void,
    src: *const c_void,
    len: usize,
    pe: c_int,
) -> bool {
    let polls = with_mine(ctx, |p| {
        if !copy(p, dir, (dest, src, len), pe) {
            return None;
        }
        let calls = p.calls.get().wrapping_add(1);
        p.calls.set(calls);
        Some(calls.is_multiple_of(PROGRESS_EVERY))
    });
    match polls {
        Some(true) => run("shmem_ctx progress", State::poll),
        Some(false) => {}
        None => return false,
    }
    true
}

/// An access on context `ctx` takes the locked path (`State::target`, which every
/// access's locked path goes through): if it is the calling thread's private context, its
/// next quiet or fence takes the locked path too, to complete what the access started.
pub fn went_locked(ctx: usize) {
    with_mine(ctx, |p| {
        p.locked.set(true);
        Some(())
    });
}

/// The copy of [`access`] (`dest`, `src`, `len` bytes), if it can go direct.
fn copy(
    p: &Private,
    dir: Dir,
    (dest, src, len): (*mut c_void, *const c_void, usize),
    pe: c_int,
) -> bool {
    let (object, local) = match dir {
        Dir::Put => (dest as usize, src as usize),
        Dir::Get => (src as usize, dest as usize),
    };
    let Some(off) = object.checked_sub(p.heap) else {
        return false;
    };
    let fits = off.checked_add(len).is_some_and(|end| end <= p.heap_len);
    let Some(&base) = usize::try_from(pe).ok().and_then(|pe| p.peers.get(pe)) else {
        return false;
    };
    if !fits || base.is_null() || local == 0 || len == 0 {
        return false;
    }
    let remote = base.wrapping_add(off);
    // SAFETY: `remote..remote + len` lies inside `pe`'s heap as this process maps it
    // (checked above against the heap's length, the same on every PE), mapped until
    // `shmem_finalize`, after which the epoch no longer matches and no copy is made. The
    // local side is the C caller's buffer of `len` bytes (shmem.h's contract), not NULL.
    // `copy` allows the overlap of an access to this PE's own heap. Other PEs and threads
    // may touch the remote bytes meanwhile, as with `shmem_ptr`'s loads and stores: the
    // program orders them (quiet, barriers), the library does not.
    unsafe {
        match dir {
            Dir::Put => std::ptr::copy(src.cast::<u8>(), remote, len),
            Dir::Get => std::ptr::copy(remote.cast_const(), dest.cast::<u8>(), len),
        }
    }
    true
}

/// `shmem_ctx_quiet` and `shmem_ctx_fence` on the calling thread's private context `ctx`
/// whose accesses since the last all went direct: they are complete, so a memory fence
/// orders and publishes them. False: take the locked path (the next quiet is direct again).
pub fn quiet(ctx: usize) -> bool {
    with_mine(ctx, |p| {
        if p.locked.replace(false) {
            return None;
        }
        fence(Ordering::SeqCst);
        Some(())
    })
    .is_some()
}
