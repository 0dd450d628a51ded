//! Intercommunicators from C: creating one from two groups' leaders, merging one into an
//! intracommunicator, and the queries about its remote group.

use super::export::{mpi_functions, out};
use super::handles::*;
use super::wired::{on, Failure};
use std::os::raw::c_int;

/// Writes an integer answer through an out-pointer argument.
fn int_out(ptr: *mut c_int, v: c_int, what: &str) -> Result<(), Failure> {
    out(ptr, v).map_err(|e| (e, format!("NULL {what}")))
}

mpi_functions! {
    fn Comm_test_inter(c: Handle, flag: *mut c_int) -> c_int {
        on(c, || int_out(flag, comm(c)?.is_inter() as c_int, "flag"))
    }

    fn Comm_remote_size(c: Handle, size: *mut c_int) -> c_int {
        on(c, || int_out(size, comm(c)?.remote_size().map_err(err)?, "size"))
    }

    fn Comm_remote_group(c: Handle, g: *mut Handle) -> c_int {
        on(c, || {
            let remote = comm(c)?.remote_group().map_err(err)?;
            out(g, put_group(remote)).map_err(|e| (e, "NULL group".into()))
        })
    }

    fn Intercomm_create(
        local: Handle,
        local_leader: c_int,
        peer: Handle,
        remote_leader: c_int,
        tag: c_int,
        newcomm: *mut Handle,
    ) -> c_int {
        on(local, || {
            let lc = comm(local)?;
            // Only the local leader names (and needs) the peer communicator.
            let pc = if lc.rank() == local_leader { comm(peer)? } else { lc.clone() };
            let made = clump_mpi::intercomm_create(&lc, local_leader, &pc, remote_leader, tag)
                .map_err(err)?;
            out(newcomm, put_comm(Some(made), local)?).map_err(|e| (e, "NULL newcomm".into()))
        })
    }

    fn Intercomm_merge(c: Handle, high: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let merged = comm(c)?.intercomm_merge(high != 0).map_err(err)?;
            out(newcomm, put_comm(Some(merged), c)?).map_err(|e| (e, "NULL newcomm".into()))
        })
    }
}
