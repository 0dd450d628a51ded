//! Attribute caching on communicators: user keys (`MPI_Comm_create_keyval`, and the
//! MPI-1 `MPI_Keyval_create`) with their copy and delete callbacks, values set on and
//! read from a communicator, copied by `MPI_Comm_dup` and deleted by `MPI_Comm_free`
//! (and, for `MPI_COMM_SELF`, first thing in `MPI_Finalize`, as MPI says).
//!
//! Callbacks run with no registry borrowed, so they may call MPI themselves. A key made
//! from Fortran has Fortran's callbacks ([`Callbacks`]): every argument by reference,
//! handles and values as Fortran integers, the error in a last argument.
//!
//! Values cross languages as MPI 4.1 (19.3.7) says: C sets addresses, Fortran integers
//! ([`Value`]); C reads an integer through a pointer to where it is kept, Fortran reads
//! an address as an integer ([`Word`]), MPI-1's `MPI_ATTR_GET` its low part. A callback
//! sees a value as its language reads it, and the copy it makes is of its language.

use super::abi::MPI_ERR_KEYVAL;
use super::export::out;
use super::handles::Handle;
use super::wired::Failure;
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

/// User keys start above the predefined ones (`MPI_TAG_UB` … `MPI_UNIVERSE_SIZE`).
const FIRST_KEYVAL: c_int = 1000;
/// `MPI_COMM_NULL_COPY_FN` and `MPI_COMM_DUP_FN` (`mpi.h` defines them as 0 and 1).
const NULL_COPY_FN: usize = 0;
const DUP_FN: usize = 1;
/// `MPI_COMM_NULL_DELETE_FN`.
const NULL_DELETE_FN: usize = 0;

type CopyFn =
    extern "C" fn(Handle, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;
type DeleteFn = extern "C" fn(Handle, c_int, *mut c_void, *mut c_void) -> c_int;
/// Fortran's copy and delete callbacks (`COMM_COPY_ATTR_FUNCTION` ...): the handle, key,
/// extra state, values, flag and error by reference; `I` is the integer of the state and
/// the values (INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI-1's `MPI_Keyval_create`).
type FortranCopyFn<I> = extern "C" fn(&c_int, &c_int, &I, &I, &mut I, &mut c_int, &mut c_int);
type FortranDeleteFn<I> = extern "C" fn(&c_int, &c_int, &I, &I, &mut c_int);

/// Whose calling convention a key's callbacks have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Callbacks {
    C,
    /// Values and state are INTEGER(KIND=MPI_ADDRESS_KIND).
    Fortran,
    /// MPI-1's Fortran `MPI_KEYVAL_CREATE`: values and state are default INTEGERs.
    FortranInt,
}

#[derive(Clone, Copy)]
struct Keyval {
    copy: usize,
    delete: usize,
    extra: usize,
    callbacks: Callbacks,
    /// Freed by the program: no new values, but it lives while values use it.
    freed: bool,
}

/// An attribute value: an address C set, or an integer Fortran set, boxed so that C can
/// be given a pointer to it that stays put while the value lives.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Address(usize),
    /// INTEGER(KIND=MPI_ADDRESS_KIND), from `MPI_XXX_SET_ATTR`.
    Aint(Box<isize>),
    /// A default INTEGER, from MPI-1's `MPI_ATTR_PUT`.
    Int(Box<c_int>),
}

impl Value {
    pub fn aint(v: isize) -> Value {
        Value::Aint(Box::new(v))
    }

    pub fn int(v: c_int) -> Value {
        Value::Int(Box::new(v))
    }

    fn word(&self) -> Word {
        match self {
            Value::Address(a) => Word::Address(*a),
            Value::Aint(v) => Word::aint(v),
            Value::Int(v) => Word::int(v),
        }
    }
}

/// What a get finds: an address, or an integer with where it is kept (a value Fortran
/// set, or a predefined attribute's: `MPI_TAG_UB` is an int, `MPI_WIN_SIZE` an MPI_Aint).
#[derive(Clone, Copy, Debug)]
pub enum Word {
    Address(usize),
    Aint(isize, *const isize),
    Int(c_int, *const c_int),
}

impl Word {
    pub fn aint(at: &isize) -> Word {
        Word::Aint(*at, at)
    }

    pub fn int(at: &c_int) -> Word {
        Word::Int(*at, at)
    }

    /// What C is given: the address, or a pointer to the integer.
    fn for_c(self) -> usize {
        match self {
            Word::Address(a) => a,
            Word::Aint(_, at) => at as usize,
            Word::Int(_, at) => at as usize,
        }
    }

    /// What Fortran is given: the address as an integer, or the integer sign-extended.
    fn for_fortran(self) -> isize {
        match self {
            Word::Address(a) => a as isize,
            Word::Aint(v, _) => v,
            Word::Int(v, _) => v as isize,
        }
    }
}

/// Where a get writes what it found: C's `void *` argument (the address of a pointer),
/// Fortran's INTEGER(KIND=MPI_ADDRESS_KIND), or MPI-1's default INTEGER (the low part).
pub enum Out {
    C(*mut c_void),
    Aint(*mut isize),
    Int(*mut c_int),
}

/// Answers a get: what it found (if anything) where `to` says, and `flag`.
pub fn answer(found: Option<Word>, to: Out, flag: *mut c_int) -> Result<(), Failure> {
    if let Some(w) = found {
        let written = match to {
            Out::C(p) => out(p.cast::<usize>(), w.for_c()),
            Out::Aint(p) => out(p, w.for_fortran()),
            Out::Int(p) => out(p, w.for_fortran() as c_int),
        };
        written.map_err(|e| (e, "NULL attribute_val".into()))?;
    }
    out(flag, found.is_some() as c_int).map_err(|e| (e, "NULL flag".into()))
}

#[derive(Default)]
struct Attrs {
    keyvals: HashMap<c_int, Keyval>,
    next: c_int,
    /// Each object's values, in the order they were set.
    values: HashMap<Handle, Vec<(c_int, Value)>>,
}

am::process_local! {
    static ATTRS: RefCell<Attrs> = RefCell::new(Attrs { next: FIRST_KEYVAL, ..Attrs::default() });
}

fn keyval(k: c_int) -> Result<Keyval, Failure> {
    ATTRS
        .with_borrow(|a| a.keyvals.get(&k).copied())
        .ok_or_else(|| (MPI_ERR_KEYVAL, format!("invalid keyval {k}")))
}

/// A new key with these callbacks (function addresses as the program passed them).
pub fn create_keyval(copy: usize, delete: usize, extra: usize, callbacks: Callbacks) -> c_int {
    ATTRS.with_borrow_mut(|a| {
        let k = a.next;
        a.next += 1;
        let freed = false;
        a.keyvals.insert(
            k,
            Keyval {
                copy,
                delete,
                extra,
                callbacks,
                freed,
            },
        );
        k
    })
}

/// Frees key `k`; values set with it stay until deleted.
pub fn free_keyval(k: c_int) -> Result<(), Failure> {
    keyval(k)?;
    ATTRS.with_borrow_mut(|a| {
        a.keyvals.get_mut(&k).expect("checked above").freed = true;
        drop_if_unused(a, k);
    });
    Ok(())
}

fn drop_if_unused(a: &mut Attrs, k: c_int) {
    let used = a
        .values
        .values()
        .any(|v| v.iter().any(|&(key, _)| key == k));
    if !used && a.keyvals.get(&k).is_some_and(|kv| kv.freed) {
        a.keyvals.remove(&k);
    }
}

/// The value of key `k` on object `h`, if set (the word points into the store).
pub fn get(h: Handle, k: c_int) -> Result<Option<Word>, Failure> {
    keyval(k)?;
    Ok(ATTRS.with_borrow(|a| {
        a.values
            .get(&h)
            .and_then(|v| v.iter().find(|e| e.0 == k).map(|e| e.1.word()))
    }))
}

/// Sets key `k` on `h` to `value`, deleting (with the callback) the value it had.
pub fn set(h: Handle, k: c_int, value: Value) -> Result<(), Failure> {
    if keyval(k)?.freed {
        return Err((MPI_ERR_KEYVAL, format!("keyval {k} was freed")));
    }
    delete(h, k)?;
    ATTRS.with_borrow_mut(|a| a.values.entry(h).or_default().push((k, value)));
    Ok(())
}

/// Deletes key `k` from `h` (nothing if unset), calling its delete callback first; if that
/// fails, the value stays and its error is the call's.
pub fn delete(h: Handle, k: c_int) -> Result<(), Failure> {
    let kv = keyval(k)?;
    let Some(word) = get(h, k)? else {
        return Ok(());
    };
    if kv.delete != NULL_DELETE_FN {
        let rc = call_delete(&kv, h, k, word);
        if rc != 0 {
            return Err((rc, format!("the delete callback of keyval {k} failed")));
        }
    }
    ATTRS.with_borrow_mut(|a| {
        if let Some(v) = a.values.get_mut(&h) {
            v.retain(|e| e.0 != k);
        }
        drop_if_unused(a, k);
    });
    Ok(())
}

/// Copies the values of `from` to the new `to` through each key's copy callback.
pub fn copy_all(from: Handle, to: Handle) -> Result<(), Failure> {
    let values = ATTRS.with_borrow(|a| a.values.get(&from).cloned().unwrap_or_default());
    for (k, value) in values {
        let kv = keyval(k)?;
        let copied = match kv.copy {
            NULL_COPY_FN => None,
            DUP_FN => Some(value),
            _ => {
                // The callback sees the stored value, not this list's copy of it: C may
                // change the integer its pointer points at.
                let Some(word) = get(from, k)? else { continue };
                let (rc, out, flag) = call_copy(&kv, from, k, word);
                if rc != 0 {
                    return Err((rc, format!("the copy callback of keyval {k} failed")));
                }
                (flag != 0).then_some(out)
            }
        };
        if let Some(v) = copied {
            ATTRS.with_borrow_mut(|a| a.values.entry(to).or_default().push((k, v)));
        }
    }
    Ok(())
}

/// Deletes every value on `h` (an object being freed), in the reverse order of setting.
pub fn delete_all(h: Handle) -> Result<(), Failure> {
    let values = ATTRS.with_borrow(|a| a.values.get(&h).cloned().unwrap_or_default());
    for &(k, _) in values.iter().rev() {
        delete(h, k)?;
    }
    ATTRS.with_borrow_mut(|a| a.values.remove(&h));
    Ok(())
}

/// A Fortran handle: the standard ABI's int of `h`.
fn fortran_handle(h: Handle) -> c_int {
    c_int::try_from(h).unwrap_or(-1)
}

/// Runs key `kv`'s copy callback on `value` of `from`: its code, the copy and the flag.
fn call_copy(kv: &Keyval, from: Handle, k: c_int, value: Word) -> (c_int, Value, c_int) {
    let (mut flag, mut rc) = (0, 0);
    match kv.callbacks {
        Callbacks::C => {
            // SAFETY: `copy` is the address of the program's copy callback, of the
            // MPI_Comm_copy_attr_function type mpi.h declares for it.
            let f: CopyFn = unsafe { std::mem::transmute::<usize, CopyFn>(kv.copy) };
            let mut out = 0usize;
            let (extra, value) = (kv.extra as *mut c_void, value.for_c() as *mut c_void);
            let out_ptr = (&mut out as *mut usize).cast();
            rc = f(from, k, extra, value, out_ptr, &mut flag);
            (rc, Value::Address(out), flag)
        }
        Callbacks::Fortran => {
            // SAFETY: `copy` is the address of the program's Fortran copy procedure, whose
            // interface the standard fixes (COMM_COPY_ATTR_FUNCTION): all by reference.
            let f = unsafe { std::mem::transmute::<usize, FortranCopyFn<isize>>(kv.copy) };
            let mut out = 0isize;
            let h = fortran_handle(from);
            f(
                &h,
                &k,
                &(kv.extra as isize),
                &value.for_fortran(),
                &mut out,
                &mut flag,
                &mut rc,
            );
            (rc, Value::aint(out), flag)
        }
        Callbacks::FortranInt => {
            // SAFETY: as above, MPI-1's COPY_FUNCTION, whose integers are default INTEGERs.
            let f = unsafe { std::mem::transmute::<usize, FortranCopyFn<c_int>>(kv.copy) };
            let mut out = 0;
            let h = fortran_handle(from);
            f(
                &h,
                &k,
                &(kv.extra as c_int),
                &(value.for_fortran() as c_int),
                &mut out,
                &mut flag,
                &mut rc,
            );
            (rc, Value::int(out), flag)
        }
    }
}

/// Runs key `kv`'s delete callback on `value` of `h`: its code.
fn call_delete(kv: &Keyval, h: Handle, k: c_int, value: Word) -> c_int {
    let mut rc = 0;
    match kv.callbacks {
        Callbacks::C => {
            // SAFETY: `delete` is the address of the program's delete callback, of the
            // MPI_Comm_delete_attr_function type mpi.h declares for it.
            let f: DeleteFn = unsafe { std::mem::transmute::<usize, DeleteFn>(kv.delete) };
            rc = f(h, k, value.for_c() as *mut c_void, kv.extra as *mut c_void);
        }
        Callbacks::Fortran => {
            // SAFETY: the program's Fortran delete procedure (COMM_DELETE_ATTR_FUNCTION).
            let f = unsafe { std::mem::transmute::<usize, FortranDeleteFn<isize>>(kv.delete) };
            f(
                &fortran_handle(h),
                &k,
                &value.for_fortran(),
                &(kv.extra as isize),
                &mut rc,
            );
        }
        Callbacks::FortranInt => {
            // SAFETY: MPI-1's Fortran DELETE_FUNCTION, with default INTEGERs.
            let f = unsafe { std::mem::transmute::<usize, FortranDeleteFn<c_int>>(kv.delete) };
            f(
                &fortran_handle(h),
                &k,
                &(value.for_fortran() as c_int),
                &(kv.extra as c_int),
                &mut rc,
            );
        }
    }
    rc
}
