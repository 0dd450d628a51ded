//! Start and end: `MPI_Init` and its thread-level form, the queries about either, and
//! `MPI_Finalize`, which first deletes `MPI_COMM_SELF`'s attributes and flushes buffered
//! sends, as MPI says.

use super::abi::*;
use super::export::{call, mpi_functions, out};
use super::handles::*;
use super::runtime_start::{is_main_thread, start_runtime};
use super::wired::{on, Failure};
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicI32, Ordering};

/// The thread level granted for `required`: what was asked (`FUNNELED` for a value between
/// the levels, `MULTIPLE` above them). `SERIALIZED` and `MULTIPLE`
/// share MPI's state between threads behind one process lock (`clump::serial`): calls run
/// one at a time, and a thread that waits lets the lock go between polls.
pub(super) fn thread_level(required: c_int) -> c_int {
    match required {
        MPI_THREAD_SINGLE | MPI_THREAD_SERIALIZED | MPI_THREAD_MULTIPLE => required,
        r if r > MPI_THREAD_MULTIPLE => MPI_THREAD_MULTIPLE,
        _ => MPI_THREAD_FUNNELED,
    }
}

/// The level `MPI_Init_thread` granted (`MPI_Init` grants `FUNNELED`).
static PROVIDED: AtomicI32 = AtomicI32::new(MPI_THREAD_FUNNELED);

/// Grants `level`: for more than `FUNNELED`, every later call enters the process lock.
fn grant(level: c_int) {
    PROVIDED.store(level, Ordering::Relaxed);
    if level > MPI_THREAD_FUNNELED {
        // SAFETY: every MPI entry point (`mpi_functions!`) enters the process lock before
        // it touches MPI's state and hands C only integers and handles, so no value of that
        // state outlives a call; this thread is at the end of `MPI_Init_thread`, outside
        // any `enter`, and touches no state after this.
        unsafe { crate::guard::share() };
    }
}

/// `MPI_Init`: starts the runtime, or takes the one a session started; from now on the
/// process owes `MPI_Finalize` (the launcher ends the job if it exits without).
fn init() -> Result<(), Failure> {
    if !super::sessions::adopt_runtime() {
        start_runtime()?;
    }
    clump_mpi::owe("MPI_Finalize").map_err(err)
}

mpi_functions! {
    fn Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
        on(COMM_WORLD, init)
    }

    fn Init_thread(_argc: *mut c_int, _argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            if provided.is_null() {
                return Err((MPI_ERR_ARG, "NULL provided".into()));
            }
            init()?;
            let level = thread_level(required);
            out(provided, level).map_err(|c| (c, "NULL provided".into()))?;
            grant(level);
            Ok(())
        })
    }

    fn Query_thread(provided: *mut c_int) -> c_int {
        call(|| out(provided, PROVIDED.load(Ordering::Relaxed)))
    }

    fn Is_thread_main(flag: *mut c_int) -> c_int {
        call(|| out(flag, is_main_thread() as c_int))
    }

    fn Initialized(flag: *mut c_int) -> c_int {
        // Sessions alone leave the world model uninitialised.
        call(|| out(flag, super::sessions::world_model() as c_int))
    }

    fn Finalized(flag: *mut c_int) -> c_int {
        call(|| out(flag, clump_mpi::finalized() as c_int))
    }

    fn Finalize() -> c_int {
        on(COMM_WORLD, || {
            super::attrs::delete_all(COMM_SELF)?;
            super::bsend_buffers::flush(None)?;
            clump_mpi::finalize().map_err(err)
        })
    }

    fn Abort(_comm: Handle, errorcode: c_int) -> c_int {
        eprintln!("clump MPI: MPI_Abort with error code {errorcode}");
        std::process::exit(if errorcode == 0 { 1 } else { errorcode })
    }
}
