//! The handler table: `AM_SetHandler`, `AM_SetHandlerAny` and its size.

use crate::codes::{table_size, AmResult, BAD_ARG, IN_USE, RESOURCE};
use crate::dispatch;
use crate::guard::{self, out};
use crate::state::RawFn;
use crate::state::{self, handle_of, with_tables};
use std::ffi::c_void;
use std::os::raw::c_int;

/// Installs `f` at `index` (or clears it) and records it.
fn set(ea: *mut c_void, index: usize, f: Option<RawFn>) -> AmResult {
    let s = state::endpoint(ea)?;
    if index >= s.tables().num_handlers {
        return Err(BAD_ARG);
    }
    dispatch::install(&s.ep, handle_of(ea), index, f, s.seg_base.clone())?;
    s.tables().handlers[index] = f;
    Ok(())
}

#[no_mangle]
pub extern "C" fn AM_SetHandler(ea: *mut c_void, handler: u8, function: Option<RawFn>) -> c_int {
    guard::call(|| set(ea, handler as usize, function))
}

/// Installs `function` at the first free index from 1 and returns that index.
#[no_mangle]
pub extern "C" fn AM_SetHandlerAny(
    ea: *mut c_void,
    handler: *mut u8,
    function: Option<RawFn>,
) -> c_int {
    guard::call(|| {
        if handler.is_null() || function.is_none() {
            return Err(BAD_ARG);
        }
        let free = with_tables(ea, |t| {
            (1..t.num_handlers)
                .find(|&i| t.handlers[i].is_none())
                .ok_or(RESOURCE)
        })?;
        set(ea, free, function)?;
        out(handler, free as u8)
    })
}

#[no_mangle]
pub extern "C" fn AM_GetNumHandlers(ea: *mut c_void, nhandlers: *mut c_int) -> c_int {
    guard::call(|| out(nhandlers, with_tables(ea, |t| Ok(t.num_handlers as c_int))?))
}

/// Sizes the table to `n` entries (1..=256); refused while a handler sits at `n` or above.
#[no_mangle]
pub extern "C" fn AM_SetNumHandlers(ea: *mut c_void, n: c_int) -> c_int {
    guard::call(|| {
        let n = table_size(n, am::MAX_HANDLERS)?;
        with_tables(ea, |t| {
            if t.handlers[n..].iter().any(Option::is_some) {
                return Err(IN_USE);
            }
            t.num_handlers = n;
            Ok(())
        })
    })
}
