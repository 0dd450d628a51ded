//! Endpoints: allocation, freeing, moving between bundles, tags, expected resources.

use crate::bundle::free_endpoint;
use crate::codes::{AmResult, EnT, BAD_ARG};
use crate::guard::{self, out};
use crate::handles;
use crate::state::{self, handle_of, to_ptr, with_ep, EpState, DEFAULT_TRANSLATIONS, ENDPOINTS};
use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::c_int;
use std::rc::Rc;

/// Puts `ep`, which lives in bundle `bundle`, in this thread's table; returns its handle.
pub fn register(ep: am::Endpoint, bundle: usize, translations: usize) -> AmResult<usize> {
    let state = EpState {
        ep,
        bundle,
        handlers: [None; am::MAX_HANDLERS],
        num_handlers: am::MAX_HANDLERS,
        num_translations: translations,
        seg_base: Rc::new(Cell::new(std::ptr::null_mut())),
        user_seg: None,
    };
    handles::with(&ENDPOINTS, |t| t.insert(state))
}

/// A new endpoint has tag `AM_NONE` (0) until `AM_SetTag`.
#[no_mangle]
pub extern "C" fn AM_AllocateEndpoint(
    bundle: *mut c_void,
    endp: *mut *mut c_void,
    endpoint_name: *mut EnT,
) -> c_int {
    guard::call(|| {
        if endp.is_null() || endpoint_name.is_null() {
            return Err(BAD_ARG);
        }
        let b = state::bundle(bundle)?;
        let ep = b.create_endpoint(0)?;
        let name = EnT::from(ep.name());
        let h = match register(ep.clone(), handle_of(bundle), DEFAULT_TRANSLATIONS) {
            Ok(h) => h,
            Err(e) => {
                ep.free();
                return Err(e);
            }
        };
        out(endpoint_name, name)?;
        out(endp, to_ptr(h))
    })
}

#[no_mangle]
pub extern "C" fn AM_FreeEndpoint(ea: *mut c_void) -> c_int {
    guard::call(|| {
        let s = handles::with(&ENDPOINTS, |t| t.remove(handle_of(ea)))?;
        free_endpoint(s);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_MoveEndpoint(ea: *mut c_void, from: *mut c_void, to: *mut c_void) -> c_int {
    guard::call(|| {
        let target = state::bundle(to)?;
        state::bundle(from)?;
        let ep = with_ep(ea, |s| {
            if s.bundle == handle_of(from) {
                Ok(s.ep.clone())
            } else {
                Err(BAD_ARG)
            }
        })?;
        target.adopt(&ep)?;
        with_ep(ea, |s| {
            s.bundle = handle_of(to);
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn AM_SetTag(ea: *mut c_void, tag: u64) -> c_int {
    guard::call(|| Ok(state::endpoint(ea)?.set_tag(tag)?))
}

#[no_mangle]
pub extern "C" fn AM_GetTag(ea: *mut c_void, tag: *mut u64) -> c_int {
    guard::call(|| out(tag, state::endpoint(ea)?.tag()))
}

/// clump sizes its queues when it creates an endpoint, so this only checks the figures.
#[no_mangle]
pub extern "C" fn AM_SetExpectedResources(
    ea: *mut c_void,
    n_endpoints: c_int,
    n_outstanding_requests: c_int,
) -> c_int {
    guard::call(|| {
        if n_endpoints < 0 || n_outstanding_requests < 0 {
            return Err(BAD_ARG);
        }
        with_ep(ea, |_| Ok(()))
    })
}
