//! Start and end: `MPI_Init` and its thread-level form, the queries about either, and
//! `MPI_Finalize`, which first deletes `MPI_COMM_SELF`'s attributes and flushes buffered
//! sends, as MPI says.

use super::abi::*;
use super::export::{call, mpi_functions, out};
use super::handles::*;
use super::wired::{on, Failure};
use std::os::raw::{c_char, c_int};

/// The thread level clump provides for `required`: funneled at most, since the MPI state
/// belongs to the thread that initialised it.
fn thread_level(required: c_int) -> c_int {
    if required >= MPI_THREAD_FUNNELED {
        MPI_THREAD_FUNNELED
    } else {
        MPI_THREAD_SINGLE
    }
}

/// Starts clump's MPI runtime (`MPI_Init`, or the first `MPI_Session_init`).
pub fn start_runtime() -> Result<(), Failure> {
    clump_mpi::set_extended(super::extended_ops::combine);
    clump_mpi::init().map_err(err)
}

/// `MPI_Init`: starts the runtime, or takes the one a session started.
fn init() -> Result<(), Failure> {
    if super::sessions::adopt_runtime() {
        return Ok(());
    }
    start_runtime()
}

mpi_functions! {
    fn Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
        on(COMM_WORLD, init)
    }

    fn Init_thread(_argc: *mut c_int, _argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            init()?;
            out(provided, thread_level(required)).map_err(|c| (c, "NULL provided".into()))
        })
    }

    fn Query_thread(provided: *mut c_int) -> c_int {
        call(|| out(provided, MPI_THREAD_FUNNELED))
    }

    fn Is_thread_main(flag: *mut c_int) -> c_int {
        // The MPI state belongs to the thread that initialised it.
        call(|| out(flag, clump_mpi::initialized() as c_int))
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
            super::buffered::flush()?;
            clump_mpi::finalize().map_err(err)
        })
    }

    fn Abort(_comm: Handle, errorcode: c_int) -> c_int {
        eprintln!("clump MPI: MPI_Abort with error code {errorcode}");
        std::process::exit(if errorcode == 0 { 1 } else { errorcode })
    }
}
