//! Starting clump's MPI runtime, which `MPI_Init` and the first `MPI_Session_init` both
//! do, and the thread that started it: MPI's main thread.

use super::handles::err;
use super::wired::Failure;
use std::cell::Cell;

thread_local! {
    /// Whether this thread started the runtime: MPI's main thread (a fact about the
    /// thread, not state of MPI's).
    static MAIN: Cell<bool> = const { Cell::new(false) };
}

/// Starts clump's MPI runtime (`MPI_Init`, or the first `MPI_Session_init`).
pub fn start_runtime() -> Result<(), Failure> {
    clump_mpi::set_extended(super::extended_ops::combine);
    clump_mpi::init().map_err(err)?;
    MAIN.with(|m| m.set(true));
    Ok(())
}

/// `MPI_Is_thread_main`: whether the calling thread started the runtime.
pub fn is_main_thread() -> bool {
    MAIN.with(Cell::get)
}
