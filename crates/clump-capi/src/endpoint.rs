//! Endpoints: allocation, freeing, moving between bundles, tags, expected resources.

use crate::codes::{EnT, BAD_ARG};
use crate::guard::{self, out};
use crate::state::{self, handle_of, to_ptr, EpState, DEFAULT_TRANSLATIONS};
use std::ffi::c_void;
use std::os::raw::c_int;

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
        let state = EpState::new(ep.clone(), handle_of(bundle), DEFAULT_TRANSLATIONS);
        let h = match state::insert_endpoint(state, crate::token::claim) {
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
        state::free_endpoint(state::remove_endpoint(ea)?);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_MoveEndpoint(ea: *mut c_void, from: *mut c_void, to: *mut c_void) -> c_int {
    guard::call(|| {
        let target = state::bundle(to)?;
        state::bundle(from)?;
        let s = state::endpoint(ea)?;
        if s.tables().bundle != handle_of(from) {
            return Err(BAD_ARG);
        }
        target.adopt(&s.ep)?;
        s.tables().bundle = handle_of(to);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AM_SetTag(ea: *mut c_void, tag: u64) -> c_int {
    guard::call(|| Ok(state::endpoint(ea)?.ep.set_tag(tag)?))
}

#[no_mangle]
pub extern "C" fn AM_GetTag(ea: *mut c_void, tag: *mut u64) -> c_int {
    guard::call(|| out(tag, state::endpoint(ea)?.ep.tag()))
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
        state::endpoint(ea).map(drop)
    })
}
