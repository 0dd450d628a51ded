//! Initialization, bundles, events and polling.

use crate::codes::{AmResult, AM_NOEVENTS, AM_NOTEMPTY, AM_PAR, AM_SEQ, BAD_ARG};
use crate::guard::{self, out};
use crate::state::{self, to_ptr};
use am::idle::{Backoff, Pause};
use am::EventMask;
use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::c_int;

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
        crate::spmd::end_job();
        guard::set_initialized(false);
        Ok(())
    })
}

/// `AM_PAR` turns on the process lock (`am::serial::share`) for the rest of the process:
/// from then on every call of every face runs inside it, so the bundle, its endpoints and
/// everything made after may be used from any thread; what the calling thread made
/// before stays its own. Call it, like `MPI_Init_thread`, before other threads call.
#[no_mangle]
pub extern "C" fn AM_AllocateBundle(kind: c_int, endb: *mut *mut c_void) -> c_int {
    guard::call(|| {
        if !matches!(kind, AM_SEQ | AM_PAR) || endb.is_null() {
            return Err(BAD_ARG);
        }
        if kind == AM_PAR {
            // SAFETY: no value of a `ProcessLocal` is held here: the AM-II face keeps
            // none across its calls (its only one, the SPMD job, is taken and put back
            // inside one call), and nothing of MPI or OpenSHMEM runs inside this call.
            // That no other thread calls meanwhile is this function's documented contract.
            unsafe { crate::guard::share() };
        }
        // The lock from here on if `share` just turned it on (`guard` entered before).
        let _entered = am::serial::enter();
        let mut config = am::config::Config::from_env().map_err(|_| BAD_ARG)?;
        crate::spmd::adapt(&mut config);
        let bundle = am::Bundle::with_config(config)?;
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
        match am::serial::is_shared() {
            // Threads share the process (AM_PAR): the event fires when a message arrives
            // after the mask was set, though another thread's poll may have run its
            // handler (`event_fired`) and the message no longer waits; and it fires once:
            // when another thread's wait took it (the mask is reset), this one ends too.
            // Each round sleeps until a message waits or another thread wakes this one,
            // and starts by sending what the endpoints owe and hold. The mask and the
            // count are read under the lock, so nothing changes them between the look and
            // the sleep.
            true => {
                while b.event_mask() != EventMask::None
                    && !b.event_fired()
                    && !b.wait_round(WAIT_ROUND)?
                {}
            }
            false => b.wait()?,
        }
        b.set_event_mask(EventMask::None);
        poll(&b)
    })
}

/// The longest round of an `AM_WaitSema` once threads share the process (rounds end
/// sooner when woken).
const WAIT_ROUND: std::time::Duration = std::time::Duration::from_secs(3600);

thread_local! {
    /// This thread's run of empty `AM_Poll`s: C programs wait for messages in a loop
    /// around it, which must leave the core to the other processes when they outnumber
    /// the cores. Per thread, not per bundle: it is the calling thread's loop that spins
    /// (threads polling one `AM_PAR` bundle each back off on their own).
    static IDLE: Cell<Option<Backoff>> = const { Cell::new(None) };
}

#[no_mangle]
pub extern "C" fn AM_Poll(eb: *mut c_void) -> c_int {
    guard::call_shared!(|shared| poll_and_idle(eb, shared))
}

/// `AM_Poll`'s body: the program's wait loop is this call over and over.
#[inline(always)]
fn poll_and_idle(eb: *mut c_void, shared: bool) -> AmResult {
    let handled = state::bundle(eb)?.poll()?;
    // Once threads share the process an empty poll lets the lock go (and yields) when
    // another thread waits for it: a thread that polls in a loop would otherwise take it
    // back before the waiting thread could. Alone, it idles as one thread does.
    if shared && handled == 0 && am::serial::pause() {
        return Ok(());
    }
    let mut idle = IDLE
        .get()
        .unwrap_or_else(|| Backoff::for_host(crate::spmd::processes_here()));
    // The program's loop around AM_Poll is the spin: only letting go is done here.
    if handled > 0 {
        idle.reset();
    } else if idle.idle_round() == Pause::LetGo {
        std::thread::yield_now();
    }
    IDLE.set(Some(idle));
    Ok(())
}

fn poll(b: &am::Bundle) -> AmResult {
    b.poll()?;
    Ok(())
}
