//! Process topologies from C: the balanced grid of `MPI_Dims_create`.

use super::buffers::{ints, ints_out};
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{count, on};
use std::os::raw::c_int;

mpi_functions! {
    fn Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let mut d = ints(dims, count(ndims)?)?;
            clump_mpi::dims_create(nnodes, &mut d).map_err(err)?;
            ints_out(dims, &d)
        })
    }
}
