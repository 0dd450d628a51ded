//! `MPI_Session_get_nth_pset` from Fortran: `pset_len` is the CHARACTER's length on entry
//! (0 asks for the name's length only) and the name's length on return, without C's NUL.

use super::super::abi::{MPI_ERR_ARG, MPI_MAX_LIBRARY_VERSION_STRING};
use super::super::handles::Handle;
use super::super::sessions::PMPI_Session_get_nth_pset;
use super::args::{put, val, Fint};
use std::os::raw::{c_char, c_int};

/// The most C may write: the entry point's buffer ([`super::args::string_buffer`]) less the NUL.
const ROOM: c_int = MPI_MAX_LIBRARY_VERSION_STRING as c_int;

pub fn get_nth(
    session: Handle,
    info: Handle,
    n: c_int,
    pset_len: *mut Fint,
    pset_name: *mut c_char,
) -> c_int {
    let room = match val(pset_len) {
        Ok(r) if r < 0 => return MPI_ERR_ARG,
        Ok(r) => r,
        Err(e) => return e,
    };
    // C counts the NUL; a length of 0 stays the query.
    let mut c_len = if room == 0 { 0 } else { room.min(ROOM) + 1 };
    let rc = PMPI_Session_get_nth_pset(session, info, n, &mut c_len, pset_name);
    if rc == 0 {
        put(pset_len, c_len - 1);
    }
    rc
}
