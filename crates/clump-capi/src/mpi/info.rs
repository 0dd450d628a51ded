//! Info objects (`MPI_Info_*`): ordered key/value strings, checked against the standard's
//! lengths, and the info objects the ABI hands out about itself (`MPI_Abi_get_info`, the
//! Fortran layout of `MPI_Abi_get_fortran_info`). Errors go to `MPI_COMM_WORLD`'s handler.
//!
//! Info objects are process-wide (a program may make them before `MPI_Init`, from any
//! thread), so they live behind a lock rather than in the MPI thread's registry.

use super::abi::*;
use super::export::{mpi_functions, out};
use super::handles::{Handle, COMM_WORLD};
use super::wired::{on, Failure};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

pub const INFO_NULL: Handle = 0x130;
const INFO_ENV: Handle = 0x131;
/// The program's info objects are counted from here (above every predefined handle).
const FIRST_INFO: Handle = 0x10000;

type Entries = Vec<(String, String)>;

struct Infos {
    objects: HashMap<Handle, Entries>,
    next: Handle,
    /// What a Fortran binding layer said of its compiler (`MPI_Abi_set_fortran_info`).
    fortran: Option<Entries>,
}

static INFOS: Mutex<Option<Infos>> = Mutex::new(None);

/// Runs `f` on the info objects.
fn with_infos<T>(f: impl FnOnce(&mut Infos) -> Result<T, Failure>) -> Result<T, Failure> {
    let mut guard = INFOS
        .lock()
        .map_err(|_| (MPI_ERR_INTERN, "info objects poisoned".to_string()))?;
    f(guard.get_or_insert_with(|| Infos {
        objects: HashMap::new(),
        next: FIRST_INFO,
        fortran: None,
    }))
}

fn entries(infos: &mut Infos, h: Handle) -> Result<&mut Entries, Failure> {
    infos
        .objects
        .get_mut(&h)
        .ok_or_else(|| (MPI_ERR_INFO, format!("invalid info handle {h:#x}")))
}

/// The entries of `h`, `MPI_INFO_ENV` included (it describes how clump runs the program).
fn read(infos: &mut Infos, h: Handle) -> Result<Entries, Failure> {
    if h == INFO_ENV {
        return Ok(vec![("thread_level".into(), "MPI_THREAD_FUNNELED".into())]);
    }
    entries(infos, h).cloned()
}

fn create(entries: Entries) -> Result<Handle, Failure> {
    with_infos(|infos| {
        let h = infos.next;
        infos.next += 1;
        infos.objects.insert(h, entries);
        Ok(h)
    })
}

/// Fails unless `h` is an info object or `MPI_INFO_NULL`: what a call that takes hints
/// checks before it ignores them.
pub fn check_hints(h: Handle) -> Result<(), Failure> {
    if h == INFO_NULL {
        return Ok(());
    }
    with_infos(|infos| read(infos, h)).map(drop)
}

/// A new info object with no entries: the hints clump uses (none).
pub fn no_hints() -> Result<Handle, Failure> {
    create(Vec::new())
}

/// A new info object holding `pairs`: hints that describe what clump does.
pub fn hints(pairs: &[(&str, &str)]) -> Result<Handle, Failure> {
    create(pairs.iter().map(|&(k, v)| (k.into(), v.into())).collect())
}

/// A string argument of at most `max - 1` bytes (the standard's limits include the NUL).
fn text(s: *const c_char, max: usize, too_long: c_int, what: &str) -> Result<String, Failure> {
    if s.is_null() {
        return Err((MPI_ERR_ARG, format!("NULL {what}")));
    }
    // SAFETY: a non-NULL string from C is NUL-terminated.
    let t = unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned();
    if t.len() >= max {
        return Err((too_long, format!("{what} longer than {} bytes", max - 1)));
    }
    Ok(t)
}

fn key(k: *const c_char) -> Result<String, Failure> {
    text(k, MPI_MAX_INFO_KEY, MPI_ERR_INFO_KEY, "info key")
}

/// The value of hint `k` in info `h` (none in `MPI_INFO_NULL`).
pub fn hint(h: Handle, k: &str) -> Result<Option<String>, Failure> {
    if h == INFO_NULL {
        return Ok(None);
    }
    let all = with_infos(|infos| read(infos, h))?;
    Ok(all.into_iter().find(|(name, _)| name == k).map(|(_, v)| v))
}

fn value_of(h: Handle, k: *const c_char) -> Result<Option<String>, Failure> {
    let k = key(k)?;
    let all = with_infos(|infos| read(infos, h))?;
    Ok(all.into_iter().find(|(name, _)| *name == k).map(|(_, v)| v))
}

/// Copies `v` into `buf` of `room` bytes, cut to fit and NUL-terminated.
fn copy_out(v: &str, buf: *mut c_char, room: usize) -> Result<(), Failure> {
    if room == 0 {
        return Ok(());
    }
    if buf.is_null() {
        return Err((MPI_ERR_ARG, "NULL value buffer".into()));
    }
    let n = v.len().min(room - 1);
    // SAFETY: the caller's contract is that `buf` holds `room` bytes; n + 1 are written.
    unsafe {
        std::ptr::copy_nonoverlapping(v.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
    Ok(())
}

fn handle_out(ptr: *mut Handle, h: Handle) -> Result<(), Failure> {
    out(ptr, h).map_err(|e| (e, "NULL info".into()))
}

fn flag_out(flag: *mut c_int, set: bool) -> Result<(), Failure> {
    out(flag, set as c_int).map_err(|e| (e, "NULL flag".into()))
}

fn sizes(pairs: &[(&str, usize)]) -> Entries {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The Fortran layout clump's predefined Fortran datatypes have (4-byte default INTEGER,
/// LOGICAL and REAL), and which sized types it serves.
fn fortran_layout() -> Entries {
    let mut e = sizes(&[
        ("mpi_logical_size", 4),
        ("mpi_integer_size", 4),
        ("mpi_real_size", 4),
        ("mpi_double_precision_size", 8),
    ]);
    let served = [
        ("logical", &[1, 2, 4, 8][..], &[16][..]),
        ("integer", &[1, 2, 4, 8], &[16]),
        ("real", &[4, 8], &[2, 16]),
        ("complex", &[8, 16], &[4, 32]),
    ];
    for (kind, yes, no) in served {
        for (n, supported) in yes
            .iter()
            .map(|n| (n, true))
            .chain(no.iter().map(|n| (n, false)))
        {
            e.push((format!("mpi_{kind}{n}_supported"), supported.to_string()));
        }
    }
    e.push(("mpi_double_complex_supported".into(), "true".into()));
    e
}

mpi_functions! {
    fn Info_create(info: *mut Handle) -> c_int {
        on(COMM_WORLD, || handle_out(info, create(Vec::new())?))
    }

    fn Info_create_env(_argc: c_int, _argv: *mut *mut c_char, info: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let env = with_infos(|infos| read(infos, INFO_ENV))?;
            handle_out(info, create(env)?)
        })
    }

    fn Info_dup(info: Handle, newinfo: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let copy = with_infos(|infos| read(infos, info))?;
            handle_out(newinfo, create(copy)?)
        })
    }

    fn Info_free(info: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL handle pointer from C points at a handle.
            let h = unsafe { info.as_ref() }.copied().ok_or((MPI_ERR_ARG, "NULL info".to_string()))?;
            with_infos(|infos| {
                infos.objects.remove(&h).ok_or_else(|| (MPI_ERR_INFO, format!("invalid info handle {h:#x}")))
            })?;
            handle_out(info, INFO_NULL)
        })
    }

    fn Info_set(info: Handle, k: *const c_char, value: *const c_char) -> c_int {
        on(COMM_WORLD, || {
            let (k, v) = (key(k)?, text(value, MPI_MAX_INFO_VAL, MPI_ERR_INFO_VALUE, "info value")?);
            with_infos(|infos| {
                let e = entries(infos, info)?;
                match e.iter_mut().find(|(name, _)| *name == k) {
                    Some(slot) => slot.1 = v,
                    None => e.push((k, v)),
                }
                Ok(())
            })
        })
    }

    fn Info_delete(info: Handle, k: *const c_char) -> c_int {
        on(COMM_WORLD, || {
            let k = key(k)?;
            with_infos(|infos| {
                let e = entries(infos, info)?;
                let at = e.iter().position(|(name, _)| *name == k);
                let at = at.ok_or_else(|| (MPI_ERR_INFO_NOKEY, format!("no info key {k}")))?;
                e.remove(at);
                Ok(())
            })
        })
    }

    fn Info_get_string(info: Handle, k: *const c_char, buflen: *mut c_int, value: *mut c_char, flag: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL length pointer from C points at an int.
            let room = unsafe { buflen.as_ref() }.copied().ok_or((MPI_ERR_ARG, "NULL buflen".to_string()))?;
            let found = value_of(info, k)?;
            if let Some(v) = &found {
                copy_out(v, value, usize::try_from(room).unwrap_or(0))?;
                out(buflen, v.len() as c_int + 1).map_err(|e| (e, "NULL buflen".into()))?;
            }
            flag_out(flag, found.is_some())
        })
    }

    fn Info_get(info: Handle, k: *const c_char, valuelen: c_int, value: *mut c_char, flag: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let room = usize::try_from(valuelen).map_err(|_| (MPI_ERR_ARG, format!("negative valuelen {valuelen}")))?;
            let found = value_of(info, k)?;
            if let Some(v) = &found {
                copy_out(v, value, room + 1)?;
            }
            flag_out(flag, found.is_some())
        })
    }

    fn Info_get_valuelen(info: Handle, k: *const c_char, valuelen: *mut c_int, flag: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let found = value_of(info, k)?;
            if let Some(v) = &found {
                out(valuelen, v.len() as c_int).map_err(|e| (e, "NULL valuelen".into()))?;
            }
            flag_out(flag, found.is_some())
        })
    }

    fn Info_get_nkeys(info: Handle, nkeys: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let n = with_infos(|infos| read(infos, info))?.len();
            out(nkeys, n as c_int).map_err(|e| (e, "NULL nkeys".into()))
        })
    }

    fn Info_get_nthkey(info: Handle, n: c_int, k: *mut c_char) -> c_int {
        on(COMM_WORLD, || {
            let all = with_infos(|infos| read(infos, info))?;
            let (name, _) = usize::try_from(n)
                .ok()
                .and_then(|i| all.get(i))
                .ok_or_else(|| (MPI_ERR_ARG, format!("no key {n} among {}", all.len())))?;
            copy_out(name, k, MPI_MAX_INFO_KEY)
        })
    }

    fn Abi_get_info(info: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let word = std::mem::size_of::<MpiAint>();
            let e = sizes(&[("mpi_aint_size", word), ("mpi_count_size", 8), ("mpi_offset_size", 8)]);
            handle_out(info, create(e)?)
        })
    }

    fn Abi_get_fortran_info(info: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let set = with_infos(|infos| Ok(infos.fortran.clone()))?;
            handle_out(info, create(set.unwrap_or_else(fortran_layout))?)
        })
    }

    fn Abi_set_fortran_info(info: Handle) -> c_int {
        on(COMM_WORLD, || {
            with_infos(|infos| {
                let e = read(infos, info)?;
                infos.fortran = Some(e);
                Ok(())
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::handles::{set_errhandler, ERRORS_RETURN};

    fn c(s: &str) -> std::ffi::CString {
        std::ffi::CString::new(s).unwrap()
    }

    fn get(info: Handle, k: &str) -> Option<String> {
        let (mut buf, mut len, mut flag) = ([0 as c_char; 64], 64, -1);
        assert_eq!(
            MPI_Info_get_string(info, c(k).as_ptr(), &mut len, buf.as_mut_ptr(), &mut flag),
            0
        );
        (flag == 1).then(|| {
            // SAFETY: Info_get_string wrote a NUL-terminated string when it found the key.
            unsafe { CStr::from_ptr(buf.as_ptr()) }
                .to_str()
                .unwrap()
                .to_owned()
        })
    }

    #[test]
    fn keys_are_set_replaced_read_counted_and_deleted() {
        let mut info = 0;
        assert_eq!(MPI_Info_create(&mut info), 0);
        assert_eq!(MPI_Info_set(info, c("a").as_ptr(), c("1").as_ptr()), 0);
        assert_eq!(MPI_Info_set(info, c("b").as_ptr(), c("2").as_ptr()), 0);
        assert_eq!(MPI_Info_set(info, c("a").as_ptr(), c("three").as_ptr()), 0);
        assert_eq!(get(info, "a").as_deref(), Some("three"));
        assert_eq!(get(info, "zz"), None);
        let (mut n, mut key) = (0, [0 as c_char; MPI_MAX_INFO_KEY]);
        assert_eq!(MPI_Info_get_nkeys(info, &mut n), 0);
        assert_eq!(n, 2);
        assert_eq!(MPI_Info_get_nthkey(info, 1, key.as_mut_ptr()), 0);
        // SAFETY: Info_get_nthkey wrote a NUL-terminated key.
        let nth = unsafe { CStr::from_ptr(key.as_ptr()) };
        assert_eq!(nth.to_str().unwrap(), "b");
        let mut dup = 0;
        assert_eq!(MPI_Info_dup(info, &mut dup), 0);
        assert_eq!(MPI_Info_delete(info, c("a").as_ptr()), 0);
        assert_eq!(get(info, "a"), None);
        assert_eq!(get(dup, "a").as_deref(), Some("three"));
        for mut h in [info, dup] {
            assert_eq!(MPI_Info_free(&mut h), 0);
            assert_eq!(h, INFO_NULL);
        }
    }

    #[test]
    fn bad_handles_keys_and_lengths_are_errors() {
        set_errhandler(COMM_WORLD, ERRORS_RETURN);
        let mut info = 0;
        assert_eq!(MPI_Info_create(&mut info), 0);
        let long = c(&"k".repeat(MPI_MAX_INFO_KEY));
        assert_eq!(
            MPI_Info_set(info, long.as_ptr(), c("v").as_ptr()),
            MPI_ERR_INFO_KEY
        );
        assert_eq!(
            MPI_Info_delete(info, c("none").as_ptr()),
            MPI_ERR_INFO_NOKEY
        );
        assert_eq!(
            MPI_Info_set(INFO_NULL, c("a").as_ptr(), c("v").as_ptr()),
            MPI_ERR_INFO
        );
        let mut env = INFO_ENV;
        assert_eq!(MPI_Info_free(&mut env), MPI_ERR_INFO);
        assert_eq!(MPI_Info_free(&mut info), 0);
    }

    #[test]
    fn the_abi_describes_its_integer_sizes_and_fortran_layout() {
        let mut info = 0;
        assert_eq!(MPI_Abi_get_info(&mut info), 0);
        assert_eq!(get(info, "mpi_aint_size").as_deref(), Some("8"));
        assert_eq!(get(info, "mpi_count_size").as_deref(), Some("8"));
        assert_eq!(get(info, "mpi_offset_size").as_deref(), Some("8"));
        let mut fortran = 0;
        assert_eq!(MPI_Abi_get_fortran_info(&mut fortran), 0);
        assert_eq!(get(fortran, "mpi_integer_size").as_deref(), Some("4"));
        assert_eq!(
            get(fortran, "mpi_integer8_supported").as_deref(),
            Some("true")
        );
        assert_eq!(
            get(fortran, "mpi_real16_supported").as_deref(),
            Some("false")
        );
    }
}
