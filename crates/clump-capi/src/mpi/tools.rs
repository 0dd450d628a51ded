//! The tool information interface (`MPI_T_*`, MPI 4.1 §15.3) with no variables: clump
//! exports no control or performance variable, category, event or event source (the
//! standard allows zero), so every count is 0, every index is out of range
//! (`MPI_T_ERR_INVALID_INDEX`), every name unknown (`MPI_T_ERR_INVALID_NAME`) and every
//! variable, enumeration or event handle invalid (`MPI_T_ERR_INVALID_HANDLE`): no call
//! can create one. Performance-variable sessions are real, and empty. Any call outside
//! `MPI_T_init_thread` … `MPI_T_finalize` (which nest, and work before `MPI_Init` and
//! after `MPI_Finalize`) is `MPI_T_ERR_NOT_INITIALIZED`. These functions never go through
//! an error handler: they return their class.

use super::export::{call, mpi_functions};
use std::collections::BTreeSet;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

// The tool interface's error classes (mpi.h).
const NOT_INITIALIZED: c_int = 1003;
const INVALID: c_int = 1006;
const INVALID_INDEX: c_int = 1007;
const INVALID_SESSION: c_int = 1009;
const INVALID_HANDLE: c_int = 1010;
const INVALID_NAME: c_int = 1011;
const OUT_OF_SESSIONS: c_int = 1013;

/// `MPI_T_PVAR_ALL_HANDLES`: every handle of a session (start, stop and reset take it).
const ALL_HANDLES: usize = 1;
/// `MPI_T_PVAR_SESSION_NULL`.
const SESSION_NULL: usize = 0;

/// `MPI_T_init_thread` calls not yet matched by `MPI_T_finalize`.
static INITS: AtomicU32 = AtomicU32::new(0);

/// The performance-variable sessions open, and the next one's handle.
static SESSIONS: Mutex<(BTreeSet<usize>, usize)> = Mutex::new((BTreeSet::new(), 1));

type Answer = Result<(), c_int>;

/// Runs `body` once the interface is initialised; its class, never a handler's.
fn tool(body: impl FnOnce() -> Answer) -> c_int {
    call(|| {
        if INITS.load(Ordering::Acquire) == 0 {
            return Err(NOT_INITIALIZED);
        }
        body()
    })
}

/// Writes through an out-pointer, `MPI_T_ERR_INVALID` when it is NULL.
fn put<T>(ptr: *mut T, v: T) -> Answer {
    crate::guard::out(ptr, v).map_err(|_| INVALID)
}

/// What a pointer to a handle holds, `MPI_T_ERR_INVALID` when it is NULL.
fn held(ptr: *const usize) -> Result<usize, c_int> {
    // SAFETY: a non-NULL handle pointer from C points at a handle (a pointer-sized value)
    // the caller owns, as mpi.h declares it; it is only read, without alignment assumed.
    unsafe { ptr.as_ref().map(|_| ptr.read_unaligned()) }.ok_or(INVALID)
}

/// A name looked up among variables, categories or events: none has one.
fn unknown_name(name: *const c_char, index: *mut c_int) -> Answer {
    if name.is_null() || index.is_null() {
        return Err(INVALID);
    }
    Err(INVALID_NAME)
}

/// Whether `session` is an open performance-variable session.
fn session_open(session: usize) -> Answer {
    let open = SESSIONS.lock().unwrap_or_else(|p| p.into_inner());
    if open.0.contains(&session) {
        Ok(())
    } else {
        Err(INVALID_SESSION)
    }
}

/// A call on a handle of `session`: start, stop and reset accept "all handles" (there are
/// none); no single handle exists.
fn on_pvar(session: usize, handle: usize, all_allowed: bool) -> Answer {
    session_open(session)?;
    if all_allowed && handle == ALL_HANDLES {
        Ok(())
    } else {
        Err(INVALID_HANDLE)
    }
}

/// Defines each named function as one that answers `class` once the interface is
/// initialised. They read no parameter, as `unsupported.rs` argues: under the C calling
/// convention the caller places and removes every argument, so a callee that reads
/// fewer is sound for any argument list.
macro_rules! answer {
    ($($class:ident: $($name:ident)*;)*) => {
        mpi_functions! {
            $($(fn $name() -> c_int { tool(|| Err($class)) })*)*
        }
    };
}

answer! {
    // Every index is out of range.
    INVALID_INDEX:
        T_cvar_get_info T_pvar_get_info T_category_get_info T_category_get_categories
        T_category_get_cvars T_category_get_pvars T_category_get_events
        T_category_get_num_events T_event_get_info T_source_get_info T_source_get_timestamp
        T_cvar_handle_alloc T_event_handle_alloc;
    // No control variable, enumeration, event registration or event instance exists.
    INVALID_HANDLE:
        T_cvar_read T_cvar_write T_enum_get_info T_enum_get_item T_event_handle_free
        T_event_handle_get_info T_event_handle_set_info T_event_register_callback
        T_event_callback_get_info T_event_callback_set_info T_event_set_dropped_handler
        T_event_read T_event_copy T_event_get_timestamp T_event_get_source;
}

// mpi.h's signatures, the tool interface's handles (pointers) as `usize`; parameters the
// answer never reads are left out, as above.
mpi_functions! {
    fn T_init_thread(required: c_int, provided: *mut c_int) -> c_int {
        call(|| {
            put(provided, super::lifecycle::thread_level(required))?;
            INITS.fetch_add(1, Ordering::AcqRel);
            Ok(())
        })
    }

    fn T_finalize() -> c_int {
        call(|| {
            let left = INITS.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
            match left {
                // The last one frees what the interface held.
                Ok(1) => SESSIONS.lock().unwrap_or_else(|p| p.into_inner()).0.clear(),
                Ok(_) => {}
                Err(_) => return Err(NOT_INITIALIZED),
            }
            Ok(())
        })
    }

    fn T_cvar_get_num(num: *mut c_int) -> c_int { tool(|| put(num, 0)) }
    fn T_pvar_get_num(num: *mut c_int) -> c_int { tool(|| put(num, 0)) }
    fn T_category_get_num(num: *mut c_int) -> c_int { tool(|| put(num, 0)) }
    fn T_event_get_num(num: *mut c_int) -> c_int { tool(|| put(num, 0)) }
    fn T_source_get_num(num: *mut c_int) -> c_int { tool(|| put(num, 0)) }
    // The categories never change: the stamp stays 0.
    fn T_category_changed(stamp: *mut c_int) -> c_int { tool(|| put(stamp, 0)) }

    fn T_cvar_get_index(name: *const c_char, index: *mut c_int) -> c_int {
        tool(|| unknown_name(name, index))
    }
    fn T_category_get_index(name: *const c_char, index: *mut c_int) -> c_int {
        tool(|| unknown_name(name, index))
    }
    fn T_event_get_index(name: *const c_char, index: *mut c_int) -> c_int {
        tool(|| unknown_name(name, index))
    }
    fn T_pvar_get_index(name: *const c_char, _class: c_int, index: *mut c_int) -> c_int {
        tool(|| unknown_name(name, index))
    }

    fn T_cvar_handle_free(handle: *mut usize) -> c_int {
        tool(|| held(handle).and(Err(INVALID_HANDLE)))
    }

    fn T_pvar_session_create(session: *mut usize) -> c_int {
        tool(|| {
            let mut open = SESSIONS.lock().unwrap_or_else(|p| p.into_inner());
            let s = open.1;
            let next = s.checked_add(1).ok_or(OUT_OF_SESSIONS)?;
            put(session, s)?;
            open.0.insert(s);
            open.1 = next;
            Ok(())
        })
    }

    fn T_pvar_session_free(session: *mut usize) -> c_int {
        tool(|| {
            let s = held(session)?;
            let mut open = SESSIONS.lock().unwrap_or_else(|p| p.into_inner());
            if !open.0.remove(&s) {
                return Err(INVALID_SESSION);
            }
            put(session, SESSION_NULL)
        })
    }

    fn T_pvar_handle_alloc(session: usize, _index: c_int) -> c_int {
        tool(|| session_open(session).and(Err(INVALID_INDEX)))
    }
    fn T_pvar_handle_free(session: usize, handle: *mut usize) -> c_int {
        tool(|| {
            session_open(session)?;
            held(handle).and(Err(INVALID_HANDLE))
        })
    }
    fn T_pvar_start(session: usize, handle: usize) -> c_int {
        tool(|| on_pvar(session, handle, true))
    }
    fn T_pvar_stop(session: usize, handle: usize) -> c_int {
        tool(|| on_pvar(session, handle, true))
    }
    fn T_pvar_reset(session: usize, handle: usize) -> c_int {
        tool(|| on_pvar(session, handle, true))
    }
    fn T_pvar_read(session: usize, handle: usize, _buf: *mut c_void) -> c_int {
        tool(|| on_pvar(session, handle, false))
    }
    fn T_pvar_readreset(session: usize, handle: usize, _buf: *mut c_void) -> c_int {
        tool(|| on_pvar(session, handle, false))
    }
    fn T_pvar_write(session: usize, handle: usize, _buf: *const c_void) -> c_int {
        tool(|| on_pvar(session, handle, false))
    }
}
