//! `clump/amudp_spmd.h`: AMUDP's SPMD calls over clump's job (`clump/spmd.h`).

use crate::codes::{AmResult, Code, AM_OK, BAD_ARG, RESOURCE};
use crate::guard::{self, out_if};
use crate::spmd::{
    clump_spmd_allgather, clump_spmd_exit, clump_spmd_rank, clump_spmd_size, clump_spmd_startup,
    with_job,
};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::os::raw::c_int;
use std::sync::{Mutex, OnceLock};

/// Rank 0's environment, exchanged at start-up.
static MASTER_ENV: OnceLock<HashMap<Vec<u8>, CString>> = OnceLock::new();
/// The function `AMUDP_SPMDSetExitCallback` installed.
static EXIT_CALLBACK: Mutex<Option<extern "C" fn(c_int)>> = Mutex::new(None);

fn check(rc: c_int) -> AmResult {
    if rc == AM_OK {
        Ok(())
    } else {
        Err(Code(rc))
    }
}

/// This process's environment as `NAME=value\0` entries.
fn own_environment() -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = Vec::new();
    for (k, v) in std::env::vars_os() {
        bytes.extend_from_slice(k.as_bytes());
        bytes.push(b'=');
        bytes.extend_from_slice(v.as_bytes());
        bytes.push(0);
    }
    bytes
}

fn parse_environment(bytes: &[u8]) -> HashMap<Vec<u8>, CString> {
    bytes
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let eq = entry.iter().position(|&b| b == b'=')?;
            Some((entry[..eq].to_vec(), CString::new(&entry[eq + 1..]).ok()?))
        })
        .collect()
}

/// AMUDP's start-up. clump's launcher has already started the processes: `nproc` must
/// be 0 or the job's size, and `networkdepth` and `spawnfn` are not used. `networkpid`
/// receives the job's tag.
#[no_mangle]
pub extern "C" fn AMUDP_SPMDStartup(
    argc: *mut c_int,
    argv: *mut *mut *mut c_char,
    nproc: c_int,
    _networkdepth: c_int,
    _spawnfn: *mut c_void,
    networkpid: *mut u64,
    eb: *mut *mut c_void,
    ep: *mut *mut c_void,
) -> c_int {
    let rc = clump_spmd_startup(argc, argv, eb, ep);
    if rc != AM_OK {
        return rc;
    }
    guard::call(|| {
        if nproc != 0 && nproc != clump_spmd_size() {
            return Err(BAD_ARG);
        }
        // Rank 0 sends its environment; the others send nothing.
        let mine = if clump_spmd_rank() == 0 {
            own_environment()
        } else {
            Vec::new()
        };
        let parts = with_job(|s| Ok(s.allgather(&mine)?))?;
        let _ = MASTER_ENV.set(parse_environment(&parts[0]));
        let mut tag = 0;
        // SAFETY: eb/ep were just written by a successful start-up.
        check(crate::endpoint::AM_GetTag(unsafe { *ep }, &mut tag))?;
        out_if(networkpid, tag);
        Ok(())
    })
}

/// The value of `name` in rank 0's environment at start-up, or NULL.
#[no_mangle]
pub extern "C" fn AMUDP_SPMDgetenvMaster(name: *const c_char) -> *const c_char {
    if name.is_null() {
        return std::ptr::null();
    }
    // SAFETY: a NUL-terminated string from the caller.
    let key = unsafe { CStr::from_ptr(name) }.to_bytes();
    MASTER_ENV
        .get()
        .and_then(|env| env.get(key))
        .map_or(std::ptr::null(), |v| v.as_ptr())
}

#[no_mangle]
pub extern "C" fn AMUDP_SPMDBarrier() -> c_int {
    crate::spmd::clump_spmd_barrier()
}

#[no_mangle]
pub extern "C" fn AMUDP_SPMDAllGather(src: *const c_void, dst: *mut c_void, len: usize) -> c_int {
    clump_spmd_allgather(src, dst, len)
}

#[no_mangle]
pub extern "C" fn AMUDP_SPMDMyProc() -> c_int {
    clump_spmd_rank()
}

#[no_mangle]
pub extern "C" fn AMUDP_SPMDNumProcs() -> c_int {
    clump_spmd_size()
}

/// Every process `clump run` starts is a worker: the launcher plays AMUDP's master.
#[no_mangle]
pub extern "C" fn AMUDP_SPMDIsWorker(_argv: *mut *mut c_char) -> c_int {
    c_int::from(am::config::layers::launched())
}

/// Installs the function `AMUDP_SPMDExit` calls (with the exit status) before the job
/// ends (NULL for none).
#[no_mangle]
pub extern "C" fn AMUDP_SPMDSetExitCallback(f: Option<extern "C" fn(c_int)>) -> c_int {
    guard::call_uninit(|| {
        *EXIT_CALLBACK.lock().map_err(|_| RESOURCE)? = f;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AMUDP_SPMDExit(status: c_int) -> c_int {
    let callback = EXIT_CALLBACK
        .try_lock()
        .ok()
        .and_then(|mut slot| slot.take());
    if let Some(f) = callback {
        f(status);
    }
    clump_spmd_exit(status)
}

/// Ends this process only, at once, after flushing its stdio; the launcher then ends the
/// job as for any rank that dies.
extern "C" fn kill_my_process(status: c_int) {
    // SAFETY: fflush(NULL) flushes every stream; _exit(2) ends the process.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(status)
    }
}

/// AMUDP's `void (*AMUDP_SPMDkillmyprocess)(int)`: the function that ends the process,
/// which programs call through this pointer or replace.
#[no_mangle]
pub static mut AMUDP_SPMDkillmyprocess: extern "C" fn(c_int) = kill_my_process;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_round_trips_and_keeps_equals_signs_in_values() {
        let env = parse_environment(b"A=1\0B=x=y\0\0NOEQ\0");
        assert_eq!(env.len(), 2);
        assert_eq!(env[b"B".as_slice()].to_bytes(), b"x=y");
        let own = parse_environment(&own_environment());
        assert!(own.contains_key(b"PATH".as_slice()) || std::env::var_os("PATH").is_none());
    }
}
