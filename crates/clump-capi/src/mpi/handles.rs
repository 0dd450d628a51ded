//! ABI handles <-> clump-mpi objects: predefined communicators, datatypes and operations
//! have the values the standard ABI fixes; the program's objects live in a per-thread
//! registry keyed by handle (requests in [`request_table`]'s slab). Also the status layout
//! and the error handlers of the two communicators.

use super::abi::*;
use super::handle_table::HandleTable;
use super::request_table::{Entry as RequestEntry, RequestTable};
pub use super::request_table::{Persistent, REQUEST_NULL};
use clump_mpi::{Comm, Datatype, ErrorClass, Group, Op, Operator, Predef, Request, Status};
use rustc_hash::FxHashMap as HashMap;
use std::any::Any;
use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

pub type Handle = usize;

pub const COMM_NULL: Handle = 0x100;
pub const COMM_WORLD: Handle = 0x101;
pub const COMM_SELF: Handle = 0x102;
pub const ERRORS_ARE_FATAL: Handle = 0x141;
pub const ERRORS_ABORT: Handle = 0x142;
pub const ERRORS_RETURN: Handle = 0x143;
/// `MPI_IN_PLACE`.
pub const IN_PLACE: usize = 1;
/// Handles of the program's objects (other than requests) start here, far above every
/// predefined handle value.
const FIRST_REQUEST: Handle = 0x10000;

/// The ABI's `MPI_Status`.
#[repr(C)]
pub struct MpiStatus {
    pub source: c_int,
    pub tag: c_int,
    pub error: c_int,
    /// Received bytes (low, high 32 bits), then the cancelled flag.
    pub internal: [c_int; 5],
}

/// `MPI_User_function`.
pub type UserFunction = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut Handle);

/// `MPI_User_function_c`: the large-count form, its length an `MPI_Count`.
pub type UserFunctionC = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut i64, *mut Handle);

/// A user operation's function, of either form.
#[derive(Clone, Copy)]
pub enum UserFn {
    Int(UserFunction),
    Large(UserFunctionC),
}

/// A communicator from C: the clump-mpi communicator and its name.
pub struct CommEntry {
    pub comm: Comm,
    pub name: String,
}

/// The communicators: the program's in a [`HandleTable`] (a send or receive finds its
/// communicator by index), world and self beside them, made on first use.
#[derive(Default)]
struct Comms {
    made: HandleTable<CommEntry, { 1 << 29 }, 20>,
    world: Option<CommEntry>,
    self_comm: Option<CommEntry>,
}

impl Comms {
    /// The entry of `h` (world and self are made on first use).
    #[inline(always)]
    fn entry(&mut self, h: Handle) -> Result<&mut CommEntry, (c_int, String)> {
        if let Some(e) = self.made.get_mut(h) {
            return Ok(e);
        }
        let slot = match h {
            COMM_WORLD => &mut self.world,
            COMM_SELF => &mut self.self_comm,
            _ => return Err(invalid_comm(h)),
        };
        match slot {
            Some(e) => Ok(e),
            None => Ok(slot.insert(predefined_comm(h)?)),
        }
    }

    /// Whether `h` names a communicator (world and self always do).
    fn knows(&self, h: Handle) -> bool {
        h == COMM_WORLD || h == COMM_SELF || self.made.get(h).is_some()
    }
}

/// The error of a handle that names no communicator.
#[cold]
#[inline(never)]
fn invalid_comm(h: Handle) -> (c_int, String) {
    (MPI_ERR_COMM, format!("invalid communicator handle {h:#x}"))
}

#[derive(Default)]
struct Registry {
    requests: RequestTable,
    datatypes: HashMap<Handle, Datatype>,
    /// The predefined datatypes built so far, by handle value from `MPI_DATATYPE_NULL` on
    /// (the values are fixed and few; each is built once, then found by index).
    predefined: Vec<Option<Datatype>>,
    ops: HashMap<Handle, (UserFn, bool)>,
    comms: Comms,
    groups: HashMap<Handle, Group>,
    /// Error handler of each communicator that set one (world's may be set before init).
    handlers: HashMap<Handle, Handle>,
    next: Handle,
}

/// A handle value no other object has (for objects kept outside the registry).
pub fn fresh_handle() -> Handle {
    REGISTRY.with_borrow_mut(Registry::fresh)
}

impl Registry {
    fn fresh(&mut self) -> Handle {
        let h = self.next;
        self.next += 1;
        h
    }
}

am::process_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry { next: FIRST_REQUEST, ..Default::default() });
}

/// The ABI code of a clump-mpi error class.
pub fn class_code(c: ErrorClass) -> c_int {
    match c {
        ErrorClass::Buffer => 1,
        ErrorClass::Count => 2,
        ErrorClass::Type => 3,
        ErrorClass::Tag => 4,
        ErrorClass::Comm => 5,
        ErrorClass::Rank => 6,
        ErrorClass::Request => 7,
        ErrorClass::Root => 8,
        ErrorClass::Op => 10,
        ErrorClass::Arg => MPI_ERR_ARG,
        ErrorClass::Truncate => 15,
        ErrorClass::Other => MPI_ERR_OTHER,
        ErrorClass::Intern => MPI_ERR_INTERN,
        ErrorClass::NoMem => MPI_ERR_NO_MEM,
        ErrorClass::Pending => 18,
        ErrorClass::InStatus => 19,
        ErrorClass::Unsupported => MPI_ERR_UNSUPPORTED_OPERATION,
        ErrorClass::Topology => 11,
        ErrorClass::Dims => 12,
    }
}

/// Converts a clump-mpi error to its code, keeping the message for the fatal handler.
pub fn err(e: clump_mpi::Error) -> (c_int, String) {
    (class_code(e.class), e.to_string())
}

/// Runs `f` on the entry of communicator `h` (world and self are made on first use).
pub fn with_comm<T>(h: Handle, f: impl FnOnce(&mut CommEntry) -> T) -> Result<T, (c_int, String)> {
    REGISTRY.with_borrow_mut(|r| Ok(f(r.comms.entry(h)?)))
}

/// The entry of `MPI_COMM_WORLD` or `MPI_COMM_SELF`; an error for any other handle.
fn predefined_comm(h: Handle) -> Result<CommEntry, (c_int, String)> {
    let (comm, name) = match h {
        COMM_WORLD => (Comm::world().map_err(err)?, "MPI_COMM_WORLD"),
        COMM_SELF => (Comm::self_comm().map_err(err)?, "MPI_COMM_SELF"),
        _ => return Err(invalid_comm(h)),
    };
    Ok(CommEntry {
        comm,
        name: name.into(),
    })
}

pub fn comm(h: Handle) -> Result<Comm, (c_int, String)> {
    with_comm(h, |e| e.comm.clone())
}

/// The communicator of `h` for an operation clump has for intracommunicators only.
pub fn intracomm(h: Handle, what: &str) -> Result<Comm, (c_int, String)> {
    let c = comm(h)?;
    c.refuse_inter(what).map_err(err)?;
    Ok(c)
}

/// Stores a new communicator (`None` gives `MPI_COMM_NULL`); it inherits `parent`'s error
/// handler, as MPI says; `MPI_ERR_NO_MEM` once a million communicators exist at once.
pub fn put_comm(c: Option<Comm>, parent: Handle) -> Result<Handle, (c_int, String)> {
    let Some(comm) = c else {
        return Ok(COMM_NULL);
    };
    let errhandler = errhandler(parent);
    REGISTRY.with_borrow_mut(|r| {
        let entry = CommEntry {
            comm,
            name: String::new(),
        };
        let h = r.comms.made.insert(entry).ok_or_else(|| {
            let most = HandleTable::<CommEntry, { 1 << 29 }, 20>::CAPACITY;
            (
                MPI_ERR_NO_MEM,
                format!("more than {most} communicators at once"),
            )
        })?;
        r.handlers.insert(h, errhandler);
        Ok(h)
    })
}

/// Removes a user communicator.
pub fn free_comm(h: Handle) -> Result<Comm, (c_int, String)> {
    if h == COMM_WORLD || h == COMM_SELF {
        return Err((
            MPI_ERR_COMM,
            "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed".into(),
        ));
    }
    REGISTRY
        .with_borrow_mut(|r| {
            r.handlers.remove(&h);
            r.comms.made.remove(h)
        })
        .map(|e| e.comm)
        .ok_or_else(|| invalid_comm(h))
}

pub const GROUP_NULL: Handle = 0x108;
pub const GROUP_EMPTY: Handle = 0x109;

pub fn group(h: Handle) -> Result<Group, (c_int, String)> {
    if h == GROUP_EMPTY {
        return Ok(Group::empty());
    }
    REGISTRY
        .with_borrow(|r| r.groups.get(&h).cloned())
        .ok_or_else(|| (MPI_ERR_GROUP, format!("invalid group handle {h:#x}")))
}

/// Stores group `g`; an empty group is `MPI_GROUP_EMPTY` itself.
pub fn put_group(g: Group) -> Handle {
    if g.size() == 0 {
        return GROUP_EMPTY;
    }
    REGISTRY.with_borrow_mut(|r| {
        let h = r.fresh();
        r.groups.insert(h, g);
        h
    })
}

pub fn free_group(h: Handle) -> Result<(), (c_int, String)> {
    if h == GROUP_EMPTY {
        return Ok(());
    }
    REGISTRY
        .with_borrow_mut(|r| r.groups.remove(&h))
        .map(drop)
        .ok_or_else(|| (MPI_ERR_GROUP, format!("invalid group handle {h:#x}")))
}

pub const fn predef(h: Handle) -> Option<Predef> {
    use Predef::*;
    Some(match h {
        0x201 => Aint,
        0x202 => Count,
        0x203 => Offset,
        0x207 => Packed,
        0x212 | 0x213 => FloatComplex,
        0x216 | 0x217 => DoubleComplex,
        0x228 => FloatInt,
        0x229 => DoubleInt,
        0x22a => LongInt,
        0x22b => TwoInt,
        0x22c => ShortInt,
        0x220 => LongDouble,
        0x224 | 0x225 => LongDoubleComplex,
        0x22d => LongDoubleInt,
        0x239 => CBool,
        0x23c => Wchar,
        0x208 => Short,
        0x209 => Int,
        0x20a => Long,
        0x20b => LongLong,
        0x20c => UnsignedShort,
        0x20d => Unsigned,
        0x20e => UnsignedLong,
        0x20f => UnsignedLongLong,
        0x210 => Float,
        0x214 => Double,
        0x238 => CBool,
        0x240 => Int8,
        0x241 => Uint8,
        0x243 => Char,
        0x244 => SignedChar,
        0x245 => UnsignedChar,
        0x247 => Byte,
        0x248 => Int16,
        0x249 => Uint16,
        0x250 => Int32,
        0x251 => Uint32,
        0x258 => Int64,
        0x259 => Uint64,
        _ => return None,
    })
}

/// Bytes of one element of each predefined datatype [`predef`] knows whose elements have
/// no padding, by handle from [`DATATYPE_NULL`] on; 0 for any other handle.
const PLAIN_SIZES: [u8; 0x60] = {
    let mut sizes = [0; 0x60];
    let mut i = 0;
    while i < sizes.len() {
        if let Some(p) = predef(DATATYPE_NULL + i) {
            if p.size() == p.extent() {
                sizes[i] = p.size() as u8;
            }
        }
        i += 1;
    }
    sizes
};

/// The size of an element of `h` when it is a predefined datatype without padding: what
/// a one-sided access of contiguous elements needs, found with one load (the match of
/// [`predef`] and the sizes' cost more than a small put itself).
#[inline]
pub fn plain_size(h: Handle) -> Option<usize> {
    match PLAIN_SIZES.get(h.wrapping_sub(DATATYPE_NULL)) {
        Some(&s) if s != 0 => Some(s as usize),
        _ => None,
    }
}

/// Fortran's datatypes, each as the C type of its layout under a Fortran compiler with
/// 4-byte default INTEGER, LOGICAL and REAL (what `MPI_Abi_get_fortran_info` reports; a
/// LOGICAL is the integer of its size), and its name.
fn fortran(h: Handle) -> Option<(Predef, &'static str)> {
    use Predef::*;
    Some(match h {
        0x218 => (Int32, "MPI_LOGICAL"),
        0x219 => (Int32, "MPI_INTEGER"),
        0x21a => (Float, "MPI_REAL"),
        0x21b => (FloatComplex, "MPI_COMPLEX"),
        0x21c => (Double, "MPI_DOUBLE_PRECISION"),
        0x21d => (DoubleComplex, "MPI_DOUBLE_COMPLEX"),
        0x21e => (Char, "MPI_CHARACTER"),
        0x230 => (TwoFloat, "MPI_2REAL"),
        0x231 => (TwoDouble, "MPI_2DOUBLE_PRECISION"),
        0x232 => (TwoInt, "MPI_2INTEGER"),
        0x2c0 => (Int8, "MPI_LOGICAL1"),
        0x2c1 => (Int8, "MPI_INTEGER1"),
        0x2c8 => (Int16, "MPI_LOGICAL2"),
        0x2c9 => (Int16, "MPI_INTEGER2"),
        0x2d0 => (Int32, "MPI_LOGICAL4"),
        0x2d1 => (Int32, "MPI_INTEGER4"),
        0x2d2 => (Float, "MPI_REAL4"),
        0x2d8 => (Int64, "MPI_LOGICAL8"),
        0x2d9 => (Int64, "MPI_INTEGER8"),
        0x2da => (Double, "MPI_REAL8"),
        0x2db => (FloatComplex, "MPI_COMPLEX8"),
        0x2e3 => (DoubleComplex, "MPI_COMPLEX16"),
        0x2e1 => (Int128, "MPI_INTEGER16"),
        0x2e2 => (Float128, "MPI_REAL16"),
        0x2eb => (Float128Complex, "MPI_COMPLEX32"),
        _ => return None,
    })
}

pub const DATATYPE_NULL: Handle = 0x200;

/// The names of the C++ types, which share their layout with a C type of another name,
/// and of the C types `mpi.h` gives two names: the older one, which MPICH and its test
/// suite expect (`MPI_LONG_LONG_INT` for `MPI_LONG_LONG`, `MPI_C_COMPLEX` for
/// `MPI_C_FLOAT_COMPLEX`).
fn alias_name(h: Handle) -> Option<&'static str> {
    Some(match h {
        0x20b => "MPI_LONG_LONG_INT",
        0x212 => "MPI_C_COMPLEX",
        0x213 => "MPI_CXX_FLOAT_COMPLEX",
        0x217 => "MPI_CXX_DOUBLE_COMPLEX",
        0x225 => "MPI_CXX_LONG_DOUBLE_COMPLEX",
        0x239 => "MPI_CXX_BOOL",
        _ => return None,
    })
}

pub fn datatype(h: Handle) -> Result<Datatype, (c_int, String)> {
    with_datatype(h, Datatype::clone)
}

/// Runs `f` on datatype `h` where it is stored, without a copy; `f` must not reach the
/// registry, which is borrowed meanwhile.
#[inline]
pub fn with_datatype<T>(h: Handle, f: impl FnOnce(&Datatype) -> T) -> Result<T, (c_int, String)> {
    REGISTRY.with_borrow_mut(|r| find_datatype(&r.datatypes, &mut r.predefined, h).map(f))
}

/// Datatype `h` among the user's and the predefined ones (built on first use).
#[inline(always)]
fn find_datatype<'a>(
    user: &'a HashMap<Handle, Datatype>,
    predefined: &'a mut Vec<Option<Datatype>>,
    h: Handle,
) -> Result<&'a Datatype, (c_int, String)> {
    let unknown = || unknown_datatype(h);
    if h >= FIRST_REQUEST {
        return user.get(&h).ok_or_else(unknown);
    }
    let i = h.checked_sub(DATATYPE_NULL).ok_or_else(unknown)?;
    if predefined.get(i).is_none_or(Option::is_none) {
        build_predefined(predefined, h, i)?;
    }
    predefined[i].as_ref().ok_or_else(unknown)
}

/// Builds predefined datatype `h` into `predefined[i]` on its first use (out of line: the
/// lookup of every later call stays short).
#[cold]
#[inline(never)]
fn build_predefined(
    predefined: &mut Vec<Option<Datatype>>,
    h: Handle,
    i: usize,
) -> Result<(), (c_int, String)> {
    let t = match fortran(h) {
        Some((layout, name)) => {
            let mut t = Datatype::predefined(layout);
            t.set_name(name);
            t
        }
        None => {
            let mut t = predef(h)
                .map(Datatype::predefined)
                .ok_or_else(|| unknown_datatype(h))?;
            if let Some(name) = alias_name(h) {
                t.set_name(name);
            }
            t
        }
    };
    if predefined.len() <= i {
        predefined.resize(i + 1, None);
    }
    predefined[i] = Some(t);
    Ok(())
}

/// The error of a datatype handle that names none (kept off the point-to-point path).
#[cold]
#[inline(never)]
fn unknown_datatype(h: Handle) -> (c_int, String) {
    if h == REAL2 {
        let why = "MPI_REAL2: Fortran has no 2-byte REAL here (gfortran's kinds are 4, 8, 10, 16)";
        return (MPI_ERR_TYPE, why.into());
    }
    (MPI_ERR_TYPE, format!("unsupported datatype handle {h:#x}"))
}

/// `MPI_REAL2`, which names a Fortran kind no supported compiler has.
const REAL2: Handle = 0x2ca;

/// Runs `f` on datatype `t` and communicator `c` where they are stored: one registry
/// access and no copies, for point-to-point calls. `f` must not reach the registry, which
/// is borrowed meanwhile (clump-mpi's point-to-point calls never call back into C). When
/// threads share MPI, `f` runs on copies instead (two `Rc` counts): a blocking call lets
/// the process lock go while it waits, and other threads' calls need the registry.
pub fn with_type_and_comm<T>(
    t: Handle,
    c: Handle,
    f: impl FnOnce(&Datatype, &Comm) -> Result<T, (c_int, String)>,
) -> Result<T, (c_int, String)> {
    with_type_and_comm_then(t, c, f, |_, v| Ok(v))
}

/// [`with_type_and_comm`] for a call that makes a request: stores it in the same registry
/// access (two when threads share MPI) and returns its handle.
pub fn request_with_type_and_comm(
    t: Handle,
    c: Handle,
    f: impl FnOnce(&Datatype, &Comm) -> Result<Request, (c_int, String)>,
) -> Result<Handle, (c_int, String)> {
    with_type_and_comm_then(t, c, f, store_request)
}

/// [`with_type_and_comm`], then `then` on the registry and what `f` gave.
#[inline(always)]
fn with_type_and_comm_then<T, U>(
    t: Handle,
    c: Handle,
    f: impl FnOnce(&Datatype, &Comm) -> Result<T, (c_int, String)>,
    then: impl FnOnce(&mut Registry, T) -> Result<U, (c_int, String)>,
) -> Result<U, (c_int, String)> {
    if am::serial::is_shared() {
        let (dt, comm) = REGISTRY.with_borrow_mut(|r| {
            let (dt, comm) = type_and_comm(r, t, c)?;
            Ok::<_, (c_int, String)>((dt.clone(), comm.clone()))
        })?;
        let v = f(&dt, &comm)?;
        return REGISTRY.with_borrow_mut(|r| then(r, v));
    }
    REGISTRY.with_borrow_mut(|r| {
        let (dt, comm) = type_and_comm(r, t, c)?;
        let v = f(dt, comm)?;
        then(r, v)
    })
}

/// Datatype `t` and communicator `c` in the registry (world and self made on first use).
#[inline(always)]
fn type_and_comm(
    r: &mut Registry,
    t: Handle,
    c: Handle,
) -> Result<(&Datatype, &Comm), (c_int, String)> {
    let comm = r.comms.entry(c)?;
    let dt = find_datatype(&r.datatypes, &mut r.predefined, t)?;
    Ok((dt, &comm.comm))
}

/// Renames datatype `h` (a predefined one too: MPI allows it).
pub fn rename_datatype(h: Handle, name: &str) -> Result<(), (c_int, String)> {
    REGISTRY.with_borrow_mut(|r| {
        find_datatype(&r.datatypes, &mut r.predefined, h).map(drop)?;
        let t = match h.checked_sub(DATATYPE_NULL) {
            Some(i) if h < FIRST_REQUEST => r.predefined.get_mut(i).and_then(Option::as_mut),
            _ => r.datatypes.get_mut(&h),
        };
        t.ok_or_else(|| unknown_datatype(h))?.set_name(name);
        Ok(())
    })
}

/// Whether `h` names a predefined datatype (user ones have handles from the registry).
pub fn is_predefined_datatype(h: Handle) -> bool {
    h < FIRST_REQUEST
}

/// Stores a user datatype and returns its handle.
pub fn put_datatype(dt: Datatype) -> Handle {
    REGISTRY.with_borrow_mut(|r| {
        let h = r.fresh();
        r.datatypes.insert(h, dt);
        h
    })
}

/// Frees a user datatype; predefined ones cannot be freed.
pub fn free_datatype(h: Handle) -> Result<(), (c_int, String)> {
    REGISTRY
        .with_borrow_mut(|r| r.datatypes.remove(&h))
        .map(drop)
        .ok_or_else(|| (MPI_ERR_TYPE, format!("{h:#x} is not a user datatype")))
}

/// The operation of handle `h` as it applies to datatype `t` (a user function gets the
/// datatype handle it was called with).
pub fn op(h: Handle, t: Handle) -> Result<Op, (c_int, String)> {
    if let Some((f, commute)) = REGISTRY.with_borrow(|r| r.ops.get(&h).copied()) {
        let call = move |a: *const u8, b: *mut u8, n: usize| {
            let (a, b, mut dt) = (a.cast_mut().cast(), b.cast(), t);
            match f {
                // SAFETY: the user function's contract (MPI_Op_create): `len` elements of
                // the datatype at each address, which clump-mpi lays out.
                UserFn::Int(f) => unsafe { f(a, b, &mut (n as c_int), &mut dt) },
                // SAFETY: as above (MPI_Op_create_c), the length an MPI_Count.
                UserFn::Large(f) => unsafe { f(a, b, &mut (n as i64), &mut dt) },
            }
        };
        return Ok(Op::User {
            f: Rc::new(call),
            commute,
        });
    }
    predefined_op(h).ok_or_else(|| (MPI_ERR_OP, format!("unsupported operation handle {h:#x}")))
}

/// The predefined operation of handle `h`, found without the registry (what a one-sided
/// request's handler may use while a blocking call holds the registry).
pub fn predefined_op(h: Handle) -> Option<Op> {
    Some(Op::Predefined(match h {
        0x21 => Operator::Sum,
        0x22 => Operator::Min,
        0x23 => Operator::Max,
        0x24 => Operator::Prod,
        0x28 => Operator::Band,
        0x29 => Operator::Bor,
        0x2a => Operator::Bxor,
        0x30 => Operator::Land,
        0x31 => Operator::Lor,
        0x32 => Operator::Lxor,
        0x38 => Operator::MinLoc,
        0x39 => Operator::MaxLoc,
        0x3c => Operator::Replace,
        0x3d => Operator::NoOp,
        _ => return None,
    }))
}

pub const OP_NULL: Handle = 0x20;

/// Stores a user operation.
pub fn put_op(f: UserFn, commute: bool) -> Handle {
    REGISTRY.with_borrow_mut(|r| {
        let h = r.fresh();
        r.ops.insert(h, (f, commute));
        h
    })
}

pub fn free_op(h: Handle) -> Result<(), (c_int, String)> {
    REGISTRY
        .with_borrow_mut(|r| r.ops.remove(&h))
        .map(drop)
        .ok_or_else(|| (MPI_ERR_OP, format!("{h:#x} is not a user operation")))
}

/// Stores `req` and returns its handle (`MPI_REQUEST_NULL` for a null request).
pub fn put_request(req: Request) -> Result<Handle, (c_int, String)> {
    REGISTRY.with_borrow_mut(|r| store_request(r, req))
}

#[inline]
fn store_request(r: &mut Registry, req: Request) -> Result<Handle, (c_int, String)> {
    if req.is_null() {
        return Ok(REQUEST_NULL);
    }
    r.requests.insert(RequestEntry::Plain(req))
}

/// Stores a persistent request (inactive) and returns its handle.
pub fn put_persistent(
    start: Rc<dyn Fn() -> Result<Request, (c_int, String)>>,
) -> Result<Handle, (c_int, String)> {
    put_partitioned(start, None)
}

/// Stores a persistent request (inactive) with its partitions, if it has any.
pub fn put_partitioned(
    start: Rc<dyn Fn() -> Result<Request, (c_int, String)>>,
    parts: Option<Rc<dyn Any>>,
) -> Result<Handle, (c_int, String)> {
    let p = Persistent {
        start,
        active: Request::null(),
        parts,
    };
    REGISTRY.with_borrow_mut(|r| r.requests.insert(RequestEntry::Persistent(Box::new(p))))
}

/// The partitions of partitioned request `h`, and whether it is active.
pub fn partitions(h: Handle) -> Option<(Rc<dyn Any>, bool)> {
    REGISTRY.with_borrow(|r| {
        let p = r.requests.persistent(h)?;
        Some((p.parts.clone()?, !p.active.is_null()))
    })
}

/// Puts `req` in the place of persistent request `h`'s current start, which it returns.
pub fn replace_active(h: Handle, req: Request) -> Request {
    REGISTRY.with_borrow_mut(|r| match r.requests.persistent_mut(h) {
        Some(p) => std::mem::replace(&mut p.active, req),
        None => req,
    })
}

/// Starts persistent request `h`.
pub fn start_persistent(h: Handle) -> Result<(), (c_int, String)> {
    let start = REGISTRY.with_borrow(|r| match r.requests.persistent(h) {
        Some(p) if p.active.is_null() => Ok(p.start.clone()),
        Some(_) => Err((MPI_ERR_REQUEST, format!("request {h:#x} is already active"))),
        None => Err((
            MPI_ERR_REQUEST,
            format!("{h:#x} is not a persistent request"),
        )),
    })?;
    let req = start()?;
    REGISTRY.with_borrow_mut(|r| {
        if let Some(p) = r.requests.persistent_mut(h) {
            p.active = req;
        }
    });
    Ok(())
}

/// Frees request `h`: its operation completes on its own and is forgotten (a pending
/// generalized request keeps `h`, which `MPI_Grequest_complete` still names).
pub fn free_request(h: Handle) -> Result<(), (c_int, String)> {
    let mut req = REGISTRY.with_borrow_mut(|r| r.requests.take_to_free(h))?;
    clump_mpi::request_free(&mut req).map_err(err)?;
    REGISTRY.with_borrow_mut(|r| r.requests.restore(h, req));
    Ok(())
}

/// Runs `f` on the requests of the C array `slots` (`n` handles), then stores each one
/// back: `MPI_REQUEST_NULL` for those `f` completed, the same handle for the others (a
/// persistent request keeps its handle). Two registry accesses, whatever `n`.
pub fn with_requests<T>(
    slots: *mut Handle,
    n: usize,
    f: impl FnOnce(&mut [Request]) -> clump_mpi::Result<T>,
) -> Result<T, (c_int, String)> {
    if n > 0 && slots.is_null() {
        return Err((MPI_ERR_ARG, "NULL request array".into()));
    }
    // SAFETY: a non-NULL request array from C holds `n` handles, and every `i` is below `n`.
    let handle = |i: usize| unsafe { slots.add(i) };
    let mut reqs = REGISTRY.with_borrow_mut(|r| {
        let mut reqs = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: see `handle`.
            match r.requests.take(unsafe { *handle(i) }) {
                Ok(req) => reqs.push(req),
                Err(e) => {
                    for (i, req) in reqs.into_iter().enumerate() {
                        // SAFETY: see `handle`.
                        r.requests.restore(unsafe { *handle(i) }, req);
                    }
                    return Err(e);
                }
            }
        }
        Ok(reqs)
    })?;
    let result = f(&mut reqs);
    REGISTRY.with_borrow_mut(|r| {
        for (i, req) in reqs.into_iter().enumerate() {
            // SAFETY: see `handle`.
            let h = unsafe { &mut *handle(i) };
            if !r.requests.restore(*h, req) {
                *h = REQUEST_NULL;
            }
        }
    });
    result.map_err(err)
}

/// Writes `s` into a C status unless it is `MPI_STATUS_IGNORE`. The error field changes
/// only for an error: MPI leaves it to the program on success.
pub fn write_status(dst: *mut MpiStatus, s: &Status) {
    if dst.is_null() {
        return;
    }
    // SAFETY: a non-NULL status pointer from C points at an MPI_Status (mpi.h's layout).
    let kept = unsafe { (*dst).error };
    let bytes = s.count_bytes as u64;
    let v = MpiStatus {
        source: s.source,
        tag: s.tag,
        error: s.error.map_or(kept, class_code),
        internal: [
            bytes as u32 as c_int,
            (bytes >> 32) as c_int,
            s.cancelled as c_int,
            0,
            0,
        ],
    };
    // SAFETY: a non-NULL status pointer from C points at an MPI_Status (mpi.h's layout).
    unsafe { dst.write(v) };
}

/// The received byte count a status records.
pub fn status_bytes(s: &MpiStatus) -> u64 {
    (s.internal[0] as u32 as u64) | ((s.internal[1] as u32 as u64) << 32)
}

/// The error handler of `comm`; an invalid communicator has none of its own, so its
/// errors go to the handler of `MPI_COMM_WORLD` (fatal until set).
pub fn errhandler(comm: Handle) -> Handle {
    REGISTRY.with_borrow(|r| {
        let known = r.comms.knows(comm);
        let owner = if known { comm } else { COMM_WORLD };
        r.handlers.get(&owner).copied().unwrap_or(ERRORS_ARE_FATAL)
    })
}

pub fn set_errhandler(comm: Handle, h: Handle) {
    REGISTRY.with_borrow_mut(|r| r.handlers.insert(comm, h));
}

/// Prints an error and ends the process (`MPI_ERRORS_ARE_FATAL`).
pub fn fatal((code, message): (c_int, String)) -> ! {
    eprintln!("clump MPI: fatal error (class {code}): {message}");
    std::process::exit(code.max(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_sizes_are_the_unpadded_predefined_types() {
        for h in 0..0x400 {
            let want = predef(h)
                .filter(|p| p.size() == p.extent())
                .map(|p| p.size());
            assert_eq!(plain_size(h), want, "handle {h:#x}");
        }
        assert_eq!(plain_size(0x247), Some(1)); // MPI_BYTE
        assert_eq!(plain_size(0x229), None); // MPI_DOUBLE_INT, padded
    }
}
