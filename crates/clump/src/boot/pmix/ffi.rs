//! The system's libpmix, loaded at run time so that building clump does not need it,
//! behind a safe API: every unsafe call of the PMIx client is in this file.
//!
//! Only the few calls and types start-up needs are declared, laid out as PMIx's stable C
//! ABI (`pmix_common.h`): `pmix_proc_t` is a 256-byte namespace and a rank,
//! `pmix_value_t` a 16-bit type and an 8-aligned union, `pmix_info_t` 552 bytes.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Libraries tried in turn: the ABI-stable soname first.
const LIBRARIES: [&str; 2] = ["libpmix.so.2", "libpmix.so"];

const PMIX_SUCCESS: c_int = 0;
pub(super) const PMIX_ERR_NOT_FOUND: c_int = -46;
const PMIX_GLOBAL: u8 = 3;
const PMIX_INT: u16 = 6;
const PMIX_STRING: u16 = 3;
const PMIX_UINT32: u16 = 14;
pub(super) const PMIX_RANK_WILDCARD: u32 = u32::MAX - 1;
const NSPACE_BYTES: usize = 256;
const INFO_BYTES: usize = 552;

/// A PMIx status other than success.
pub(super) type Status = c_int;

/// `pmix_proc_t`: a process of this job's namespace.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Proc {
    nspace: [c_char; NSPACE_BYTES],
    pub rank: u32,
}

/// `pmix_value_t`: the type, then a union whose largest member is 24 bytes.
#[repr(C)]
pub(super) struct Value {
    kind: u16,
    data: ValueData,
}

#[repr(C)]
union ValueData {
    string: *mut c_char,
    uint32: u32,
    integer: c_int,
    _size: [u64; 3],
}

impl Value {
    pub fn as_u32(&self) -> Option<u32> {
        // SAFETY: the union member read is the one the type field names.
        (self.kind == PMIX_UINT32).then(|| unsafe { self.data.uint32 })
    }

    pub fn as_string(&self) -> Option<String> {
        if self.kind != PMIX_STRING {
            return None;
        }
        // SAFETY: the union member read is the one the type field names.
        let s = unsafe { self.data.string };
        // SAFETY: a non-null string of a PMIx value is NUL-terminated, and lives as long
        // as the value, which outlives this borrow.
        (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
    }
}

/// `pmix_info_t`, filled only through `PMIx_Info_load`.
#[repr(C, align(8))]
struct Info([u8; INFO_BYTES]);

type InitFn = unsafe extern "C" fn(*mut Proc, *mut Info, usize) -> c_int;
type FinalizeFn = unsafe extern "C" fn(*const Info, usize) -> c_int;
type AbortFn = unsafe extern "C" fn(c_int, *const c_char, *const Proc, usize) -> c_int;
type PutFn = unsafe extern "C" fn(u8, *const c_char, *mut Value) -> c_int;
type CommitFn = unsafe extern "C" fn() -> c_int;
type OpCallback = extern "C" fn(c_int, *mut c_void);
type FenceNbFn =
    unsafe extern "C" fn(*const Proc, usize, *const Info, usize, OpCallback, *mut c_void) -> c_int;
type GetFn =
    unsafe extern "C" fn(*const Proc, *const c_char, *const Info, usize, *mut *mut Value) -> c_int;
type ValueDestructFn = unsafe extern "C" fn(*mut Value);
type InfoLoadFn = unsafe extern "C" fn(*mut Info, *const c_char, *const c_void, u16) -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The entry points, resolved once; the library stays loaded for the process's life
/// (PMIx runs threads of its own, which unloading would pull the code from under).
pub(super) struct Api {
    init: InitFn,
    finalize: FinalizeFn,
    abort: AbortFn,
    put: PutFn,
    commit: CommitFn,
    fence_nb: FenceNbFn,
    get: GetFn,
    value_destruct: ValueDestructFn,
    info_load: InfoLoadFn,
    error_string: ErrorStringFn,
}

/// Turns a PMIx return code into a result.
fn status(rc: c_int) -> Result<(), Status> {
    if rc == PMIX_SUCCESS {
        Ok(())
    } else {
        Err(rc)
    }
}

impl Api {
    /// Loads libpmix; the error says what each library name answered.
    pub fn load() -> Result<&'static Api, String> {
        let mut errors = Vec::new();
        for name in LIBRARIES {
            // SAFETY: loading libpmix runs its initialisers, which only set up the
            // library's own state.
            match unsafe { libloading::Library::new(name) } {
                Ok(lib) => {
                    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
                    return Api::resolve(lib).map(|api| &*Box::leak(Box::new(api)));
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        Err(errors.join("; "))
    }

    fn resolve(lib: &'static libloading::Library) -> Result<Api, String> {
        /// One symbol as the function type the caller names.
        fn sym<T: Copy>(lib: &'static libloading::Library, name: &str) -> Result<T, String> {
            // SAFETY: each type given below is the C prototype of that PMIx function
            // in pmix.h (PMIx 3 and later keep these signatures).
            unsafe { lib.get::<T>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("libpmix lacks {name}: {e}"))
        }
        Ok(Api {
            init: sym(lib, "PMIx_Init")?,
            finalize: sym(lib, "PMIx_Finalize")?,
            abort: sym(lib, "PMIx_Abort")?,
            put: sym(lib, "PMIx_Put")?,
            commit: sym(lib, "PMIx_Commit")?,
            fence_nb: sym(lib, "PMIx_Fence_nb")?,
            get: sym(lib, "PMIx_Get")?,
            value_destruct: sym(lib, "PMIx_Value_destruct")?,
            info_load: sym(lib, "PMIx_Info_load")?,
            error_string: sym(lib, "PMIx_Error_string")?,
        })
    }

    /// PMIx's text for `status`, with the number.
    pub fn describe(&self, status: Status) -> String {
        // SAFETY: PMIx_Error_string returns a static NUL-terminated string for any code.
        let text = unsafe { (self.error_string)(status) };
        if text.is_null() {
            return format!("status {status}");
        }
        // SAFETY: non-null, static, NUL-terminated (above).
        let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
        format!("{text} ({status})")
    }

    /// PMIx_Init: this process as the process manager names it.
    pub fn init(&self) -> Result<Proc, Status> {
        let mut me = Proc {
            nspace: [0; NSPACE_BYTES],
            rank: 0,
        };
        // SAFETY: `me` is a writable pmix_proc_t; no info array.
        status(unsafe { (self.init)(&mut me, std::ptr::null_mut(), 0) })?;
        Ok(me)
    }

    /// An info array of one `PMIX_TIMEOUT` when `timeout` is given.
    fn timeout_info(&self, timeout: Option<Duration>) -> Option<Box<Info>> {
        let secs = c_int::try_from(timeout?.as_secs().max(1)).unwrap_or(c_int::MAX);
        let mut info = Box::new(Info([0; INFO_BYTES]));
        // SAFETY: `info` is a zeroed pmix_info_t; the key is a C string and the data a
        // live c_int, which PMIx_Info_load copies.
        let rc = unsafe {
            (self.info_load)(
                &mut *info,
                c"pmix.timeout".as_ptr(),
                (&secs as *const c_int).cast(),
                PMIX_INT,
            )
        };
        (rc == PMIX_SUCCESS).then_some(info)
    }

    /// PMIx_Get of `key` published by `proc_`, handed to `read` and then freed.
    pub fn get<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<Option<T>, Status> {
        let info = self.timeout_info(timeout);
        let (info_ptr, ninfo) = info_array(&info);
        let mut value: *mut Value = std::ptr::null_mut();
        // SAFETY: valid proc and key; `info_ptr` points to `ninfo` loaded infos (or is
        // null with 0); PMIx_Get stores a malloc'd value in `value` on success.
        let rc = unsafe { (self.get)(proc_, key.as_ptr(), info_ptr, ninfo, &mut value) };
        if rc != PMIX_SUCCESS || value.is_null() {
            return Err(rc);
        }
        // SAFETY: PMIx_Get succeeded, so `value` points to a valid pmix_value_t.
        let result = read(unsafe { &*value });
        // SAFETY: the value came from PMIx_Get and `read`'s borrow has ended: destruct
        // releases what it holds, then the struct itself is released with free(3), as
        // PMIX_VALUE_RELEASE does.
        unsafe {
            (self.value_destruct)(value);
            libc::free(value.cast());
        }
        Ok(result)
    }

    /// PMIx_Put of a string for every process of the job.
    pub fn put(&self, key: &CStr, value: &CStr) -> Result<(), Status> {
        let mut v = Value {
            kind: PMIX_STRING,
            data: ValueData {
                string: value.as_ptr().cast_mut(),
            },
        };
        // SAFETY: key and value are live C strings; PMIx_Put copies the value and does
        // not write through its string.
        status(unsafe { (self.put)(PMIX_GLOBAL, key.as_ptr(), &mut v) })
    }

    pub fn commit(&self) -> Result<(), Status> {
        // SAFETY: no arguments.
        status(unsafe { (self.commit)() })
    }

    /// Starts the non-blocking fence over the whole namespace; [`Fence::done`] tells
    /// when PMIx's thread has reported it complete.
    pub fn fence(&self, timeout: Option<Duration>) -> Result<Fence, Status> {
        let info = self.timeout_info(timeout);
        let (info_ptr, ninfo) = info_array(&info);
        let done = Arc::new(AtomicI32::new(PENDING));
        let cbdata = Arc::into_raw(Arc::clone(&done));
        // SAFETY: no procs means every process of this namespace; `info_ptr` points to
        // `ninfo` loaded infos (or is null with 0), which the Fence keeps until the
        // callback ran; `cbdata` is an Arc reference the callback takes over.
        let rc = unsafe {
            (self.fence_nb)(
                std::ptr::null(),
                0,
                info_ptr,
                ninfo,
                fence_done,
                cbdata.cast_mut().cast(),
            )
        };
        if let Err(rc) = status(rc) {
            // PMIx will not call back: take its reference back.
            // SAFETY: `cbdata` came from Arc::into_raw above and was not consumed.
            drop(unsafe { Arc::from_raw(cbdata) });
            return Err(rc);
        }
        Ok(Fence { done, info })
    }

    /// PMIx_Abort of the whole namespace.
    pub fn abort(&self, code: i32, reason: &CStr) {
        // SAFETY: a live C string; no procs means the whole namespace.
        unsafe { (self.abort)(code, reason.as_ptr(), std::ptr::null(), 0) };
    }

    pub fn finalize(&self) {
        // SAFETY: no info array.
        unsafe { (self.finalize)(std::ptr::null(), 0) };
    }
}

/// The pointer and length PMIx takes for an optional info array of one.
fn info_array(info: &Option<Box<Info>>) -> (*const Info, usize) {
    match info {
        Some(i) => (&**i as *const Info, 1),
        None => (std::ptr::null(), 0),
    }
}

/// The fence is still running (no PMIx status has this value).
const PENDING: c_int = c_int::MIN;

/// A fence PMIx is running, and the info array it may still read.
pub(super) struct Fence {
    done: Arc<AtomicI32>,
    info: Option<Box<Info>>,
}

impl Fence {
    /// The fence's outcome once PMIx has reported it.
    pub fn done(&self) -> Option<Result<(), Status>> {
        let rc = self.done.load(Ordering::Acquire);
        (rc != PENDING).then(|| status(rc))
    }
}

impl Drop for Fence {
    fn drop(&mut self) {
        // PMIx may read the info array until it calls back: leaked rather than freed
        // under it if the fence is dropped unfinished.
        if self.done.load(Ordering::Acquire) == PENDING {
            std::mem::forget(self.info.take());
        }
    }
}

/// PMIx's completion callback for the fence: stores the status for the waiting thread.
extern "C" fn fence_done(status: c_int, cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the Arc reference `fence` handed over with Arc::into_raw;
    // PMIx calls this exactly once.
    let done = unsafe { Arc::from_raw(cbdata.cast::<AtomicI32>().cast_const()) };
    done.store(status, Ordering::Release);
}

impl Proc {
    /// The process of rank `rank` in the same namespace.
    pub fn with_rank(&self, rank: u32) -> Proc {
        Proc { rank, ..*self }
    }
}
