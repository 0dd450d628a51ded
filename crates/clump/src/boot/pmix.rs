//! PMIx (`srun --mpi=pmix`, Open MPI's `mpirun`) through the system's libpmix, loaded
//! at run time so that building clump does not need it.
//!
//! Only the few calls and types start-up needs are declared here, laid out as PMIx's
//! stable C ABI (`pmix_common.h`): `pmix_proc_t` is a 256-byte namespace and a rank,
//! `pmix_value_t` a 16-bit type and an 8-aligned union, `pmix_info_t` 552 bytes.

use super::kvs::Manager;
use super::{BootError, Locality};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

const NAME: &str = "PMIx";
/// Libraries tried in turn: the ABI-stable soname first.
const LIBRARIES: [&str; 2] = ["libpmix.so.2", "libpmix.so"];

const PMIX_SUCCESS: c_int = 0;
const PMIX_ERR_NOT_FOUND: c_int = -46;
const PMIX_GLOBAL: u8 = 3;
const PMIX_INT: u16 = 6;
const PMIX_STRING: u16 = 3;
const PMIX_UINT32: u16 = 14;
const PMIX_RANK_WILDCARD: u32 = u32::MAX - 1;
const NSPACE_BYTES: usize = 256;
const INFO_BYTES: usize = 552;

#[repr(C)]
#[derive(Clone, Copy)]
struct Proc {
    nspace: [c_char; NSPACE_BYTES],
    rank: u32,
}

/// `pmix_value_t`: the type, then a union whose largest member is 24 bytes.
#[repr(C)]
struct Value {
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
struct Api {
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

pub(super) struct Pmix {
    api: &'static Api,
    me: Proc,
    size: u32,
}

fn fail(what: String) -> BootError {
    BootError::Manager {
        manager: NAME,
        what,
    }
}

impl Api {
    fn load() -> Result<&'static Api, BootError> {
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
        Err(fail(format!(
            "cannot load the system's libpmix ({}); install it (Debian: libpmix2) or start \
             the job with `srun --mpi=pmi2`",
            errors.join("; ")
        )))
    }

    fn resolve(lib: &'static libloading::Library) -> Result<Api, BootError> {
        /// One symbol as the function type the caller names.
        fn sym<T: Copy>(lib: &'static libloading::Library, name: &str) -> Result<T, BootError> {
            // SAFETY: each type given below is the C prototype of that PMIx function
            // in pmix.h (PMIx 3 and later keep these signatures).
            unsafe { lib.get::<T>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| fail(format!("libpmix lacks {name}: {e}")))
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

    fn describe(&self, status: c_int) -> String {
        // SAFETY: PMIx_Error_string returns a static NUL-terminated string for any code.
        let text = unsafe { (self.error_string)(status) };
        if text.is_null() {
            return format!("status {status}");
        }
        // SAFETY: non-null, static, NUL-terminated (above).
        let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
        format!("{text} ({status})")
    }
}

impl Pmix {
    pub fn init(timeout: Duration) -> Result<Box<dyn Manager>, BootError> {
        let api = Api::load()?;
        let mut me = Proc {
            nspace: [0; NSPACE_BYTES],
            rank: 0,
        };
        // SAFETY: `me` is a writable pmix_proc_t; no info array.
        let rc = unsafe { (api.init)(&mut me, std::ptr::null_mut(), 0) };
        if rc != PMIX_SUCCESS {
            return Err(fail(format!(
                "PMIx_Init failed: {} (is the process manager's PMIx server running?)",
                api.describe(rc)
            )));
        }
        let mut pmix = Pmix { api, me, size: 0 };
        let wildcard = pmix.proc_of(PMIX_RANK_WILDCARD);
        pmix.size = pmix.get_u32(&wildcard, c"pmix.job.size", Some(timeout))?;
        Ok(Box::new(pmix))
    }

    fn proc_of(&self, rank: u32) -> Proc {
        Proc { rank, ..self.me }
    }

    /// An info array of one `PMIX_TIMEOUT` when `timeout` is given.
    fn timeout_info(&self, timeout: Option<Duration>) -> Option<Box<Info>> {
        let secs = c_int::try_from(timeout?.as_secs().max(1)).unwrap_or(c_int::MAX);
        let mut info = Box::new(Info([0; INFO_BYTES]));
        // SAFETY: `info` is a zeroed pmix_info_t; the key is a C string and the data a
        // live c_int, which PMIx_Info_load copies.
        let rc = unsafe {
            (self.api.info_load)(
                &mut *info,
                c"pmix.timeout".as_ptr(),
                (&secs as *const c_int).cast(),
                PMIX_INT,
            )
        };
        (rc == PMIX_SUCCESS).then_some(info)
    }

    /// Runs PMIx_Get and hands the value to `read`, then frees it; the PMIx status when
    /// the get fails.
    fn try_get<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<Option<T>, c_int> {
        let info = self.timeout_info(timeout);
        let (info_ptr, ninfo) = match &info {
            Some(i) => (&**i as *const Info, 1),
            None => (std::ptr::null(), 0),
        };
        let mut value: *mut Value = std::ptr::null_mut();
        // SAFETY: valid proc and key; `info_ptr` points to `ninfo` loaded infos (or is
        // null with 0); PMIx_Get stores a malloc'd value in `value` on success.
        let rc = unsafe { (self.api.get)(proc_, key.as_ptr(), info_ptr, ninfo, &mut value) };
        if rc != PMIX_SUCCESS || value.is_null() {
            return Err(rc);
        }
        // SAFETY: PMIx_Get succeeded, so `value` points to a valid pmix_value_t.
        let result = read(unsafe { &*value });
        // SAFETY: the value came from PMIx_Get: destruct releases what it holds, then
        // the struct itself is released with free(3), as PMIX_VALUE_RELEASE does.
        unsafe {
            (self.api.value_destruct)(value);
            libc::free(value.cast());
        }
        Ok(result)
    }

    /// As `try_get`, with failures as errors that name the rank and key.
    fn get_with<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<T, BootError> {
        let key_text = key.to_string_lossy();
        match self.try_get(proc_, key, timeout, read) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(fail(format!("{key_text} has an unexpected type"))),
            Err(rc) => {
                let who = if proc_.rank == PMIX_RANK_WILDCARD {
                    "the job".to_owned()
                } else {
                    format!("rank {}", proc_.rank)
                };
                Err(fail(format!(
                    "{who} did not publish {key_text}: {}",
                    self.api.describe(rc)
                )))
            }
        }
    }

    fn get_u32(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
    ) -> Result<u32, BootError> {
        self.get_with(proc_, key, timeout, |v| {
            if v.kind != PMIX_UINT32 {
                return None;
            }
            // SAFETY: the union member read is the one the type field names.
            Some(unsafe { v.data.uint32 })
        })
    }

    fn get_string(
        &self,
        proc_: &Proc,
        key: &CStr,
        timeout: Option<Duration>,
    ) -> Result<String, BootError> {
        self.get_with(proc_, key, timeout, read_string)
    }
}

fn read_string(v: &Value) -> Option<String> {
    {
        if v.kind != PMIX_STRING {
            return None;
        }
        // SAFETY: a PMIX_STRING value holds a NUL-terminated string (or null).
        let s = unsafe { v.data.string };
        // SAFETY: non-null strings of a PMIx value are NUL-terminated.
        (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
    }
}

/// The fence is still running (no PMIx status has this value).
const PENDING: c_int = c_int::MIN;

/// PMIx's completion callback for the fence: stores the status for the waiting thread.
extern "C" fn fence_done(status: c_int, cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the Arc reference `fence` handed over with Arc::into_raw;
    // PMIx calls this exactly once.
    let done = unsafe { std::sync::Arc::from_raw(cbdata.cast::<AtomicI32>().cast_const()) };
    done.store(status, Ordering::Release);
}

impl Manager for Pmix {
    fn rank(&self) -> u32 {
        self.me.rank
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn locality(&mut self) -> Result<Locality, BootError> {
        let me = self.me;
        let wildcard = self.proc_of(PMIX_RANK_WILDCARD);
        let nodes = self
            .get_u32(&wildcard, c"pmix.num.nodes", None)
            .unwrap_or(1);
        // The node id where the manager gives one; else the lowest rank on this node
        // (from the local peer list) names the node.
        let node = match self.get_u32(&me, c"pmix.nodeid", None) {
            Ok(n) => n,
            Err(_) => {
                let peers = self.get_string(&wildcard, c"pmix.lpeers", None)?;
                peers
                    .split(',')
                    .filter_map(|r| r.trim().parse::<u32>().ok())
                    .min()
                    .ok_or_else(|| fail(format!("unreadable local peer list {peers:?}")))?
            }
        };
        Ok(Locality { node, nodes })
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), BootError> {
        let key_c = CString::new(key).map_err(|_| fail(format!("key {key:?} holds a NUL")))?;
        let value_c =
            CString::new(value).map_err(|_| fail(format!("value for {key} holds a NUL")))?;
        let mut v = Value {
            kind: PMIX_STRING,
            data: ValueData {
                string: value_c.as_ptr().cast_mut(),
            },
        };
        // SAFETY: key and value are live C strings; PMIx_Put copies the value.
        let rc = unsafe { (self.api.put)(PMIX_GLOBAL, key_c.as_ptr(), &mut v) };
        if rc != PMIX_SUCCESS {
            return Err(fail(format!("PMIx_Put {key}: {}", self.api.describe(rc))));
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), BootError> {
        // SAFETY: no arguments.
        let rc = unsafe { (self.api.commit)() };
        if rc != PMIX_SUCCESS {
            return Err(fail(format!("PMIx_Commit: {}", self.api.describe(rc))));
        }
        Ok(())
    }

    /// The non-blocking fence, so that this process keeps polling (and answering its
    /// peers' requests) until PMIx's thread reports the fence complete.
    fn fence(
        &mut self,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<(), BootError> {
        let info = self.timeout_info(timeout);
        let (info_ptr, ninfo) = match &info {
            Some(i) => (&**i as *const Info, 1),
            None => (std::ptr::null(), 0),
        };
        // Shared with the callback, which may run after an error return here only if
        // PMIx broke its contract; leaked then rather than freed under it.
        let done = std::sync::Arc::new(AtomicI32::new(PENDING));
        let cbdata = std::sync::Arc::into_raw(std::sync::Arc::clone(&done));
        // SAFETY: no procs means every process of this namespace; `info_ptr` points to
        // `ninfo` loaded infos (or is null with 0) and lives until the callback ran,
        // below; `cbdata` is an Arc reference the callback takes over.
        let rc = unsafe {
            (self.api.fence_nb)(
                std::ptr::null(),
                0,
                info_ptr,
                ninfo,
                fence_done,
                cbdata.cast_mut().cast(),
            )
        };
        let rc = if rc == PMIX_SUCCESS {
            let mut nap = Duration::from_micros(20);
            loop {
                let status = done.load(Ordering::Acquire);
                if status != PENDING {
                    break status;
                }
                progress();
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(1));
            }
        } else {
            // PMIx will not call back: take its reference back.
            // SAFETY: `cbdata` came from Arc::into_raw above and was not consumed.
            drop(unsafe { std::sync::Arc::from_raw(cbdata) });
            rc
        };
        drop(info);
        if rc != PMIX_SUCCESS {
            return Err(fail(format!(
                "PMIx_Fence: {} (a rank of the job has not reached it?)",
                self.api.describe(rc)
            )));
        }
        Ok(())
    }

    fn gets_wait_for_keys(&self) -> bool {
        true
    }

    /// A key a peer has not committed yet is "not found" (Slurm's PMIx server does not
    /// hold the request): asks again, with naps, until the peer publishes it or has been
    /// silent for `timeout`, then names the rank.
    fn get(
        &mut self,
        rank: u32,
        key: &str,
        timeout: Option<Duration>,
        progress: &mut dyn FnMut(),
    ) -> Result<String, BootError> {
        let key_c = CString::new(key).map_err(|_| fail(format!("key {key:?} holds a NUL")))?;
        let peer = self.proc_of(rank);
        let started = Instant::now();
        let mut nap = Duration::from_micros(50);
        loop {
            match self.try_get(&peer, &key_c, timeout, read_string) {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => return Err(fail(format!("{key} has an unexpected type"))),
                Err(PMIX_ERR_NOT_FOUND) if timeout.is_none_or(|t| started.elapsed() < t) => {
                    progress();
                    std::thread::sleep(nap);
                    nap = (nap * 2).min(Duration::from_millis(10));
                }
                Err(rc) => {
                    let waited = timeout.map_or(String::new(), |t| {
                        format!(" within {}s (CLUMP_BOOT_TIMEOUT)", t.as_secs())
                    });
                    return Err(fail(format!(
                        "rank {rank} did not publish {key}{waited}: {}",
                        self.api.describe(rc)
                    )));
                }
            }
        }
    }

    fn abort(&mut self, status: i32, reason: &str) {
        let msg = CString::new(reason.replace('\0', " ")).unwrap_or_default();
        // SAFETY: a live C string; no procs means the whole namespace.
        unsafe { (self.api.abort)(status, msg.as_ptr(), std::ptr::null(), 0) };
    }

    fn finalize(&mut self) {
        // SAFETY: no info array.
        unsafe { (self.api.finalize)(std::ptr::null(), 0) };
    }
}
