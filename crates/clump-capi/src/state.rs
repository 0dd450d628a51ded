//! What the C interface keeps beside each clump bundle and endpoint, in this thread's
//! tables, and how a C handle finds it.

use crate::codes::AmResult;
use crate::handles::{self, Table};
use crate::segment::UserSegment;
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::rc::Rc;

/// Translation table entries an endpoint starts with (AMUDP's default).
pub const DEFAULT_TRANSLATIONS: usize = 256;

pub struct EbState {
    pub bundle: am::Bundle,
}

pub struct EpState {
    pub ep: am::Endpoint,
    /// Handle of the bundle the endpoint is in.
    pub bundle: usize,
    /// The C functions installed, by handler index (handler 0 included).
    pub handlers: [Option<crate::dispatch::RawFn>; am::MAX_HANDLERS],
    pub num_handlers: usize,
    pub num_translations: usize,
    /// Where the program sees the segment (its own memory or the layer's), shared with
    /// the handler closures that hand long payloads to C.
    pub seg_base: Rc<Cell<*mut u8>>,
    /// The program's memory made into the segment, turned private again on drop.
    pub user_seg: Option<UserSegment>,
}

thread_local! {
    pub static BUNDLES: RefCell<Table<EbState>> = const { RefCell::new(Table::new()) };
    pub static ENDPOINTS: RefCell<Table<EpState>> = const { RefCell::new(Table::new()) };
}

/// The handle value behind a C `ep_t` / `eb_t` / token pointer.
pub fn handle_of<T>(p: *mut T) -> usize {
    p as usize
}

/// The C pointer for a handle value: not an address, only ever compared and looked up.
pub fn to_ptr<T>(h: usize) -> *mut T {
    h as *mut T
}

/// Runs `f` on the endpoint `ep` names.
pub fn with_ep<R>(ep: *mut c_void, f: impl FnOnce(&mut EpState) -> AmResult<R>) -> AmResult<R> {
    handles::with(&ENDPOINTS, |t| f(t.get_mut(handle_of(ep))?))
}

/// A handle on the clump endpoint `ep` names, to call clump with no table borrowed.
pub fn endpoint(ep: *mut c_void) -> AmResult<am::Endpoint> {
    with_ep(ep, |s| Ok(s.ep.clone()))
}

/// A handle on the clump bundle `eb` names.
pub fn bundle(eb: *mut c_void) -> AmResult<am::Bundle> {
    handles::with(&BUNDLES, |t| Ok(t.get(handle_of(eb))?.bundle.clone()))
}
