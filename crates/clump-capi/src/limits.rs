//! The limits AM-II lets a program query; valid before `AM_Init`.

use crate::guard::{self, out};
use std::os::raw::c_int;

#[no_mangle]
pub extern "C" fn AM_MaxShort() -> c_int {
    am::MAX_ARGS as c_int
}

#[no_mangle]
pub extern "C" fn AM_MaxMedium() -> c_int {
    am::MAX_MEDIUM as c_int
}

#[no_mangle]
pub extern "C" fn AM_MaxLong() -> c_int {
    am::MAX_LONG as c_int
}

#[no_mangle]
pub extern "C" fn AM_MaxNumHandlers() -> c_int {
    am::MAX_HANDLERS as c_int
}

#[no_mangle]
pub extern "C" fn AM_MaxNumTranslations(ntrans: *mut c_int) -> c_int {
    guard::call_uninit(|| out(ntrans, am::MAX_TRANSLATIONS as c_int))
}

#[no_mangle]
pub extern "C" fn AM_MaxSegLength(nbytes: *mut usize) -> c_int {
    guard::call_uninit(|| out(nbytes, am::MAX_SEGMENT))
}
