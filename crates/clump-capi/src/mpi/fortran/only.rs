//! What Fortran calls differently from C: `MPI_Pcontrol(level)`, a subroutine without
//! ierror (C's is variadic), and `MPI_F_sync_reg(buf)`, which does nothing: being an
//! external procedure given the buffer, its call makes the compiler store registers to the
//! buffer before and reload it after, around non-blocking communication.

use super::super::env::PMPI_Pcontrol;
use std::os::raw::{c_int, c_void};

pub fn pcontrol(_level: c_int) -> c_int {
    PMPI_Pcontrol()
}

pub fn f_sync_reg(_buf: *mut c_void) -> c_int {
    0
}
