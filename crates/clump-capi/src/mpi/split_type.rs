//! `MPI_Comm_split_type`: the clump's host structure made visible to MPI programs. The
//! processes of one host (which share memory) form `MPI_COMM_TYPE_SHARED`'s
//! communicators, also what the guided types give for the hardware resource
//! `mpi_shared_memory`. clump knows no finer structure (sockets, caches), so other
//! resources and `MPI_COMM_TYPE_HW_UNGUIDED` give `MPI_COMM_NULL`, as MPI allows.

use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{on, Failure};
use std::os::raw::c_int;

/// `MPI_COMM_TYPE_*` (mpi.h).
const SHARED: c_int = 221;
const HW_UNGUIDED: c_int = 222;
const HW_GUIDED: c_int = 223;
const RESOURCE_GUIDED: c_int = 224;

/// Whether this process joins a per-host communicator for `split_type` with `info`.
fn by_host(split_type: c_int, info: Handle) -> Result<bool, Failure> {
    Ok(match split_type {
        SHARED => true,
        HW_GUIDED | RESOURCE_GUIDED => {
            super::info::hint(info, "mpi_hw_resource_type")?.as_deref() == Some("mpi_shared_memory")
        }
        HW_UNGUIDED | clump_mpi::UNDEFINED => false,
        t => return Err((super::abi::MPI_ERR_ARG, format!("unknown split type {t}"))),
    })
}

mpi_functions! {
    fn Comm_split_type(c: Handle, split_type: c_int, key: c_int, info: Handle, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let part = intracomm(c, "MPI_Comm_split_type")?
                .split_by_host(by_host(split_type, info)?, key)
                .map_err(err)?;
            out(newcomm, put_comm(part, c)?).map_err(|e| (e, "NULL newcomm".into()))
        })
    }
}
