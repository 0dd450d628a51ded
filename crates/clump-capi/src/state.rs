//! What the C interface keeps beside each clump bundle and endpoint, in the registries C
//! handles index, and how a C handle finds it.

use crate::amx_stats::AmxStats;
use crate::codes::{AmResult, RESOURCE};
use crate::handles::Registry;
use std::cell::{Cell, RefCell, RefMut};
use std::ffi::c_void;
use std::rc::Rc;

/// Translation table entries an endpoint starts with (AMUDP's default).
pub const DEFAULT_TRANSLATIONS: usize = 256;

static BUNDLES: Registry<am::Bundle> = Registry::new();
static ENDPOINTS: Registry<EpState> = Registry::new();

/// A C handler as stored: called only after a cast back to the shape of the message.
pub type RawFn = unsafe extern "C" fn();

pub struct EpState {
    pub ep: am::Endpoint,
    /// Where the program sees the segment (its own memory or the layer's), shared with
    /// the handler closures that hand long payloads to C.
    pub seg_base: Rc<Cell<*mut u8>>,
    tables: RefCell<EpTables>,
}

/// What the C interface adds to an endpoint's own tables.
pub struct EpTables {
    /// Handle of the bundle the endpoint is in.
    pub bundle: usize,
    /// The C functions installed, by handler index (handler 0 included).
    pub handlers: [Option<RawFn>; am::MAX_HANDLERS],
    pub num_handlers: usize,
    pub num_translations: usize,
    /// The statistics at the last `AMUDP_ResetEndpointStatistics`, subtracted from the
    /// endpoint's counters when the program reads them.
    pub stats_base: AmxStats,
}

impl EpState {
    pub fn new(ep: am::Endpoint, bundle: usize, translations: usize) -> EpState {
        EpState {
            ep,
            seg_base: Rc::new(Cell::new(std::ptr::null_mut())),
            tables: RefCell::new(EpTables {
                bundle,
                handlers: [None; am::MAX_HANDLERS],
                num_handlers: am::MAX_HANDLERS,
                num_translations: translations,
                stats_base: AmxStats::default(),
            }),
        }
    }

    /// The C interface's tables. Hold them only while no clump call runs: handlers could
    /// run and want them.
    pub fn tables(&self) -> RefMut<'_, EpTables> {
        self.tables.borrow_mut()
    }
}

/// The handle value behind a C `ep_t` / `eb_t` / token pointer.
pub fn handle_of<T>(p: *mut T) -> usize {
    p as usize
}

/// The C pointer for a handle value: not an address, only ever compared and looked up.
pub fn to_ptr<T>(h: usize) -> *mut T {
    h as *mut T
}

/// The endpoint `ep` names, if it is this thread's.
#[inline]
pub fn endpoint(ep: *mut c_void) -> AmResult<Rc<EpState>> {
    ENDPOINTS.get(handle_of(ep))
}

/// Runs `f` on the C tables of the endpoint `ep` names. `f` must not call into clump
/// (handlers could run and want the tables): take what the call needs and call after.
pub fn with_tables<R>(
    ep: *mut c_void,
    f: impl FnOnce(&mut EpTables) -> AmResult<R>,
) -> AmResult<R> {
    f(&mut endpoint(ep)?.tables())
}

/// Whether the endpoint handle `ep` is still live (it has not been freed).
#[inline]
pub fn endpoint_live(ep: usize) -> bool {
    ENDPOINTS.holds(ep)
}

/// The handle of the endpoint in the slot `token` names, if it is this thread's.
#[inline]
pub fn endpoint_of_token(token: usize) -> Option<usize> {
    ENDPOINTS.slot_key(token)
}

/// The clump bundle `eb` names, if it is this thread's.
#[inline]
pub fn bundle(eb: *mut c_void) -> AmResult<Rc<am::Bundle>> {
    BUNDLES.get(handle_of(eb))
}

thread_local! {
    /// Frees what the thread still owns when it exits; armed by its first allocation.
    static AT_EXIT: AtExit = const { AtExit };
}

struct AtExit;

impl Drop for AtExit {
    fn drop(&mut self) {
        // Nothing may unwind out of a thread-local destructor.
        let _ = std::panic::catch_unwind(free_all);
    }
}

/// Makes sure this thread's objects are freed when it exits; refused once it is exiting.
fn arm_at_exit() -> AmResult {
    AT_EXIT.try_with(|_| ()).map_err(|_| RESOURCE)
}

/// Registers `bundle` as this thread's; returns its handle.
pub fn insert_bundle(bundle: am::Bundle) -> AmResult<usize> {
    arm_at_exit()?;
    BUNDLES.insert(Rc::new(bundle), |_| {})
}

/// Registers `ep` as this thread's; returns its handle. `claim` readies the handle's slot
/// for it (the token frames of the slot's previous endpoint are no longer the slot's).
pub fn insert_endpoint(ep: EpState, claim: fn(usize)) -> AmResult<usize> {
    arm_at_exit()?;
    ENDPOINTS.insert(Rc::new(ep), claim)
}

/// Takes the bundle `eb` names out of the registry, with the endpoints in it.
pub fn remove_bundle(eb: *mut c_void) -> AmResult<(Rc<am::Bundle>, Vec<Rc<EpState>>)> {
    let h = handle_of(eb);
    let bundle = BUNDLES.remove(h)?;
    Ok((bundle, ENDPOINTS.drain_where(|s| s.tables().bundle == h)))
}

/// Takes the endpoint `ep` names out of the registry.
pub fn remove_endpoint(ep: *mut c_void) -> AmResult<Rc<EpState>> {
    ENDPOINTS.remove(handle_of(ep))
}

/// Frees every bundle and endpoint of this thread (`AM_Terminate`, thread exit).
pub fn free_all() {
    ENDPOINTS
        .drain_where(|_| true)
        .into_iter()
        .for_each(free_endpoint);
    drop(BUNDLES.drain_where(|_| true));
}

/// Frees an endpoint the registry no longer holds.
pub fn free_endpoint(s: Rc<EpState>) {
    s.ep.free();
}
