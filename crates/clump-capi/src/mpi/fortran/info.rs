//! Info values from Fortran: C's queries write into a buffer of the size the caller says,
//! the entry point's own of `MPI_MAX_INFO_VAL` + 1 bytes here (the longest value an info
//! holds), so the sizes given C are cut to it; a Fortran length counts no NUL.

use super::super::abi::{MPI_ERR_ARG, MPI_MAX_INFO_VAL};
use super::super::handles::Handle;
use super::super::info::{PMPI_Info_get, PMPI_Info_get_string};
use super::args::{put, val, Fint};
use std::os::raw::{c_char, c_int};

/// The longest value C may write, in characters.
const ROOM: c_int = MPI_MAX_INFO_VAL as c_int;

pub fn get(
    info: Handle,
    key: *const c_char,
    valuelen: c_int,
    value: *mut c_char,
    flag: *mut Fint,
) -> c_int {
    PMPI_Info_get(info, key, valuelen.min(ROOM), value, flag)
}

/// `MPI_Info_get_string`: `buflen` is the Fortran value's length on entry, and the
/// length of the info's value on return.
pub fn get_string(
    info: Handle,
    key: *const c_char,
    buflen: *mut Fint,
    value: *mut c_char,
    flag: *mut Fint,
) -> c_int {
    let Ok(room) = val(buflen) else {
        return MPI_ERR_ARG;
    };
    // C counts the NUL; a length of 0 stays the query, which writes no value.
    let mut c_room = if room <= 0 { 0 } else { room.min(ROOM) + 1 };
    let rc = PMPI_Info_get_string(info, key, &mut c_room, value, flag);
    if rc == 0 && val(flag).is_ok_and(|f| f != 0) {
        put(buflen, c_room - 1);
    }
    rc
}
