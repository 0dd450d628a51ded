//! Start and end (`shmem_init`, `shmem_finalize`, `shmem_global_exit`), the PE queries,
//! library information, and `shmem_ptr`.

use super::abi::*;
use super::heap::Heap;
use super::runtime::{fatal, gas_err, install, installed, run, Res, State};
use super::statics::Statics;
use super::symmetric::Place;
use super::team_set::Teams;
use am::config::layers::ShmemVars;
use clump_gas::{Gas, GasConfig};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::rc::Rc;
use std::sync::atomic::{AtomicI32, Ordering};

/// The heap per PE when neither `SHMEM_SYMMETRIC_SIZE` nor `CLUMP_GAS_SEGMENT` says: Sandia
/// OpenSHMEM's default, room for OSU's message-rate benchmarks (~200 MiB). Only the pages
/// a program touches take memory.
const DEFAULT_HEAP_BYTES: usize = 512 << 20;

/// Joins the job: the segment (its size from `SHMEM_SYMMETRIC_SIZE` if set, else from
/// `CLUMP_GAS_SEGMENT`, else [`DEFAULT_HEAP_BYTES`]), the heap over all of it, the
/// program's data; binds this PE to a core of its own if `bind` and `CLUMP_SHMEM_BIND`
/// allow ([`bind_to_own_core`]).
fn start(bind: bool) -> Res<State> {
    let mut config = GasConfig::from_env().map_err(gas_err)?;
    let vars = ShmemVars::from_env().map_err(|e| e.to_string())?;
    config.segment_bytes = vars.heap_bytes.unwrap_or(DEFAULT_HEAP_BYTES);
    // Shares the process's job membership with MPI or AM-II SPMD, whichever came first.
    let mut gas = Gas::init_with(config).map_err(gas_err)?;
    if bind && vars.bind {
        bind_to_own_core(&mut gas)?;
    }
    let heap = gas.alloc::<u8>(gas.free_bytes()).map_err(gas_err)?;
    let heap_len = heap.len_per_rank();
    let heap_base = gas.local(&heap).as_mut_slice().as_mut_ptr();
    let statics = Statics::register(&mut gas)?;
    let teams = Teams::new(&gas)?;
    Ok(State {
        gas: RefCell::new(gas),
        heap,
        heap_base,
        heap_len,
        alloc: RefCell::new(Heap::new(heap_base as usize, heap_len)),
        statics,
        teams: RefCell::new(teams),
        active_sets: RefCell::default(),
        contexts: RefCell::default(),
        next_handle: Cell::new(FIRST_HANDLE),
        next_any: Cell::new(0),
        calls: Cell::new(0),
    })
}

/// Binds this PE to a core of its own when its machine has one for each of the job's
/// processes there (counted per kernel: virtual hosts and UDP ranks on one machine count
/// together), as MPI does: its waits spin on that core, and two PEs never take turns on
/// one core while the other stands idle. Only on request (`CLUMP_SHMEM_BIND=core`): on
/// a machine loaded by other work it helps some programs and slows others (README).
fn bind_to_own_core(gas: &mut Gas) -> Res<()> {
    let machines = gas.all_gather(&[am::cpu::machine_id()]).map_err(gas_err)?;
    let (on_machine, index) = am::cpu::place_on_machine(&machines, gas.rank() as usize);
    am::cpu::to_own_core(index, on_machine);
    Ok(())
}

/// `shmem_init`, binding to a core if `bind` (see [`start`]).
fn init(bind: bool) {
    let _entered = am::serial::enter();
    if installed().is_some() {
        return; // a second call is harmless
    }
    match std::panic::catch_unwind(|| start(bind)) {
        Ok(Ok(state)) => install(Some(Rc::new(state))),
        Ok(Err(why)) => fatal("shmem_init", &why),
        Err(_) => fatal("shmem_init", "internal error (a panic in the library)"),
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_init() {
    init(true);
}

#[pshmem::twin]
pub extern "C" fn shmem_init_thread(requested: c_int, provided: *mut c_int) -> c_int {
    // Threads that call OpenSHMEM would all share the one core the binding leaves.
    init(requested < THREAD_SERIALIZED);
    let level = requested.clamp(THREAD_SINGLE, THREAD_MULTIPLE);
    if level >= THREAD_SERIALIZED && !am::serial::is_shared() {
        // SAFETY: every OpenSHMEM call that reaches the state enters the process lock
        // first (`run`, and `shmem_init`, `shmem_finalize`, `shmem_global_exit`), and
        // hands C only numbers and addresses of symmetric memory, never a value of the
        // state; this thread is outside any call (shmem_init has returned) and touches
        // no state until its next call.
        unsafe { crate::guard::share() };
    }
    PROVIDED.store(level, Ordering::Relaxed);
    if !provided.is_null() {
        // SAFETY: a non-NULL `provided` points at an int (shmem.h).
        unsafe { provided.write(level) };
    }
    0
}

/// The level `shmem_init_thread` granted (`shmem_init` grants `SHMEM_THREAD_FUNNELED`):
/// `SERIALIZED` and `MULTIPLE` share the state between threads behind the process lock.
static PROVIDED: AtomicI32 = AtomicI32::new(THREAD_FUNNELED);

#[pshmem::twin]
pub extern "C" fn shmem_query_thread(provided: *mut c_int) {
    run("shmem_query_thread", |_| {
        // SAFETY: `provided` is the C caller's `int *`, or NULL.
        let p = unsafe { super::runtime::dst_slice(provided.cast(), 4, "provided")? };
        p.copy_from_slice(&PROVIDED.load(Ordering::Relaxed).to_ne_bytes());
        Ok(())
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_finalize() {
    let _entered = am::serial::enter();
    if installed().is_none() {
        return;
    }
    run("shmem_finalize", |s| {
        s.quiet()?;
        s.gas.borrow().barrier().map_err(gas_err)
    });
    // The heaps are unmapped with the state: no private context copies into them after.
    super::private::new_epoch();
    install(None);
}

#[pshmem::twin]
pub extern "C" fn shmem_global_exit(status: c_int) -> ! {
    let reason = format!("shmem_global_exit({status})");
    let _entered = am::serial::enter();
    if let Some(s) = installed() {
        if let Ok(mut gas) = s.gas.try_borrow_mut() {
            let _ = gas.sync();
            gas.abort(status, &reason);
        }
    }
    // The state goes now, while the thread's other locals it uses on the way out (the
    // network's) still live: exit(3) would drop it among them, in no set order.
    install(None);
    // exit(3) runs the program's atexit handlers and flushes its stdio.
    std::process::exit(status)
}

#[pshmem::twin]
pub extern "C" fn shmem_my_pe() -> c_int {
    run("shmem_my_pe", |s| Ok(s.me() as c_int))
}

#[pshmem::twin]
pub extern "C" fn shmem_n_pes() -> c_int {
    run("shmem_n_pes", |s| Ok(s.npes() as c_int))
}

#[pshmem::twin]
pub extern "C" fn shmem_pe_accessible(pe: c_int) -> c_int {
    run("shmem_pe_accessible", |s| Ok(s.pe(pe).is_ok() as c_int))
}

#[pshmem::twin]
pub extern "C" fn shmem_addr_accessible(addr: *const c_void, pe: c_int) -> c_int {
    run("shmem_addr_accessible", |s| {
        Ok((s.pe(pe).is_ok() && s.locate(addr, 1).is_ok()) as c_int)
    })
}

/// The address of `dest` on `pe` in this process, for plain loads and stores: the peer's
/// heap where it is mapped here (same host, direct mode), this PE's own objects; NULL else.
#[pshmem::twin]
pub extern "C" fn shmem_ptr(dest: *const c_void, pe: c_int) -> *mut c_void {
    run("shmem_ptr", |s| {
        let pe = s.pe(pe)?;
        s.ptr(dest, pe)
    })
}

/// [`shmem_ptr`] with `pe` numbered in `team` (OpenSHMEM 1.6); NULL for an invalid team
/// or a PE outside it.
#[pshmem::twin]
pub extern "C" fn shmem_team_ptr(team: usize, dest: *const c_void, pe: c_int) -> *mut c_void {
    run("shmem_team_ptr", |s| match s.team_pe(team, pe) {
        Ok(world) => s.ptr(dest, world),
        Err(_) => Ok(std::ptr::null_mut()),
    })
}

impl State {
    /// The address of `dest` on world PE `pe` for loads and stores here, or NULL.
    pub(super) fn ptr(&self, dest: *const c_void, pe: u32) -> Res<*mut c_void> {
        let place = self.locate(dest, 1)?;
        if pe == self.me() {
            return Ok(dest.cast_mut());
        }
        let Place::Heap(off) = place else {
            return Ok(std::ptr::null_mut());
        };
        let mapped = self.gas.borrow().direct_segment(pe);
        Ok(match mapped {
            // The heap starts at the same segment offset on every PE.
            Some((base, _)) => base.wrapping_add(self.heap.offset() + off).cast(),
            None => std::ptr::null_mut(),
        })
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_info_get_version(major: *mut c_int, minor: *mut c_int) {
    if major.is_null() || minor.is_null() {
        fatal("shmem_info_get_version", "major or minor is NULL");
    }
    // SAFETY: both point at ints (checked non-NULL above).
    unsafe {
        major.write(MAJOR_VERSION);
        minor.write(MINOR_VERSION);
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_info_get_name(name: *mut c_char) {
    if name.is_null() {
        fatal("shmem_info_get_name", "name is NULL");
    }
    let text = VENDOR_STRING.as_bytes();
    // SAFETY: the caller provides SHMEM_MAX_NAME_LEN bytes (shmem.h); the name and its NUL
    // are far shorter.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), name.cast::<u8>(), text.len());
        name.add(text.len()).write(0);
    }
    const _: () = assert!(VENDOR_STRING.len() < MAX_NAME_LEN);
}
