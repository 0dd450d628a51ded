//! Initialization, bundles, events and polling.

use crate::codes::{AmResult, AM_NOEVENTS, AM_NOTEMPTY, AM_PAR, AM_SEQ, BAD_ARG, RESOURCE};
use crate::guard::{self, out};
use crate::state::{self, to_ptr};
use am::idle::{Backoff, Pause};
use am::EventMask;
use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU32, Ordering};

#[no_mangle]
pub extern "C" fn AM_Init() -> c_int {
    guard::call_uninit(|| {
        guard::set_initialized(true);
        Ok(())
    })
}

/// Frees this thread's bundles and endpoints; other calls fail until the next `AM_Init`.
#[no_mangle]
pub extern "C" fn AM_Terminate() -> c_int {
    guard::call(|| {
        state::free_all();
        guard::set_initialized(false);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_AllocateBundle(kind: c_int, endb: *mut *mut c_void) -> c_int {
    guard::call(|| {
        match kind {
            AM_SEQ => {}
            AM_PAR => return Err(RESOURCE),
            _ => return Err(BAD_ARG),
        }
        if endb.is_null() {
            return Err(BAD_ARG);
        }
        let bundle = am::Bundle::new()?;
        out(endb, to_ptr(state::insert_bundle(bundle)?))
    })
}

#[no_mangle]
pub extern "C" fn AM_FreeBundle(bundle: *mut c_void) -> c_int {
    guard::call(|| {
        let (gone, eps) = state::remove_bundle(bundle)?;
        eps.into_iter().for_each(state::free_endpoint);
        drop(gone);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_GetEventMask(eb: *mut c_void, mask: *mut c_int) -> c_int {
    guard::call(|| {
        let m = match state::bundle(eb)?.event_mask() {
            EventMask::None => AM_NOEVENTS,
            EventMask::NotEmpty => AM_NOTEMPTY,
        };
        out(mask, m)
    })
}

#[no_mangle]
pub extern "C" fn AM_SetEventMask(eb: *mut c_void, mask: c_int) -> c_int {
    guard::call(|| {
        let m = match mask {
            AM_NOEVENTS => EventMask::None,
            AM_NOTEMPTY => EventMask::NotEmpty,
            _ => return Err(BAD_ARG),
        };
        state::bundle(eb)?.set_event_mask(m);
        Ok(())
    })
}

/// Sleeps until a message waits, resets the mask (AM-II events fire once), then polls.
#[no_mangle]
pub extern "C" fn AM_WaitSema(eb: *mut c_void) -> c_int {
    guard::call(|| {
        let b = state::bundle(eb)?;
        b.wait()?;
        b.set_event_mask(EventMask::None);
        poll(&b)
    })
}

/// Processes of the job on this machine, once `clump_spmd_startup` has said (1 before).
static PROCESSES_HERE: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// This thread's run of empty `AM_Poll`s: C programs wait for messages in a loop
    /// around it, which must leave the core to the other processes when they outnumber
    /// the cores.
    static IDLE: Cell<Option<Backoff>> = const { Cell::new(None) };
}

pub(crate) fn set_processes_here(n: u32) {
    PROCESSES_HERE.store(n, Ordering::Relaxed);
}

#[no_mangle]
pub extern "C" fn AM_Poll(eb: *mut c_void) -> c_int {
    guard::call(|| {
        let handled = state::bundle(eb)?.poll()?;
        let mut idle = IDLE
            .get()
            .unwrap_or_else(|| Backoff::for_host(PROCESSES_HERE.load(Ordering::Relaxed)));
        // The program's loop around AM_Poll is the spin: only letting go is done here.
        if handled > 0 {
            idle.reset();
        } else if idle.idle_round() == Pause::LetGo {
            std::thread::yield_now();
        }
        IDLE.set(Some(idle));
        Ok(())
    })
}

fn poll(b: &am::Bundle) -> AmResult {
    b.poll()?;
    Ok(())
}
