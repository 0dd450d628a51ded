//! The translation table: map, unmap, queries and its size.

use crate::codes::{table_size, AmResult, EnT, BAD_ARG, IN_USE, RESOURCE};
use crate::guard::{self, out};
use crate::state::{self, with_tables};
use std::ffi::c_void;
use std::os::raw::c_int;

/// The endpoint and `index` checked against its table size.
fn entry(ea: *mut c_void, index: c_int) -> AmResult<(am::Endpoint, u32)> {
    let s = state::endpoint(ea)?;
    match usize::try_from(index) {
        Ok(i) if i < s.tables().num_translations => Ok((s.ep.clone(), i as u32)),
        _ => Err(BAD_ARG),
    }
}

fn map(ep: &am::Endpoint, index: u32, name: &EnT, tag: u64) -> AmResult {
    let name = am::EndpointName::from_bytes(&name.bytes).ok_or(BAD_ARG)?;
    if ep.translation(index).is_some() {
        return Err(RESOURCE); // AM-II: unmap before mapping again
    }
    Ok(ep.map(index, name, tag)?)
}

#[no_mangle]
pub extern "C" fn AM_Map(ea: *mut c_void, index: c_int, name: EnT, tag: u64) -> c_int {
    guard::call(|| {
        let (ep, i) = entry(ea, index)?;
        map(&ep, i, &name, tag)
    })
}

/// Maps `name` at the first free index and returns it.
#[no_mangle]
pub extern "C" fn AM_MapAny(ea: *mut c_void, index: *mut c_int, name: EnT, tag: u64) -> c_int {
    guard::call(|| {
        if index.is_null() {
            return Err(BAD_ARG);
        }
        let s = state::endpoint(ea)?;
        let size = s.tables().num_translations as u32;
        let ep = &s.ep;
        let free = (0..size)
            .find(|&i| ep.translation(i).is_none())
            .ok_or(RESOURCE)?;
        map(ep, free, &name, tag)?;
        out(index, free as c_int)
    })
}

#[no_mangle]
pub extern "C" fn AM_UnMap(ea: *mut c_void, index: c_int) -> c_int {
    guard::call(|| {
        let (ep, i) = entry(ea, index)?;
        Ok(ep.unmap(i)?)
    })
}

#[no_mangle]
pub extern "C" fn AM_GetNumTranslations(ea: *mut c_void, ntrans: *mut c_int) -> c_int {
    guard::call(|| {
        out(
            ntrans,
            with_tables(ea, |t| Ok(t.num_translations as c_int))?,
        )
    })
}

/// Sizes the table to `n` entries (1..=65536); refused while an entry at `n` or above is mapped.
#[no_mangle]
pub extern "C" fn AM_SetNumTranslations(ea: *mut c_void, n: c_int) -> c_int {
    guard::call(|| {
        let n = table_size(n, am::MAX_TRANSLATIONS)?;
        let s = state::endpoint(ea)?;
        let old = s.tables().num_translations;
        if (n..old).any(|i| s.ep.translation(i as u32).is_some()) {
            return Err(IN_USE);
        }
        s.tables().num_translations = n;
        Ok(())
    })
}

/// The mapping at `index`, or `AM_ERR_RESOURCE` if it is not in use.
fn lookup(ea: *mut c_void, index: c_int) -> AmResult<(am::EndpointName, u64)> {
    let (ep, i) = entry(ea, index)?;
    ep.translation(i).ok_or(RESOURCE)
}

#[no_mangle]
pub extern "C" fn AM_GetTranslationInuse(ea: *mut c_void, index: c_int) -> c_int {
    guard::call(|| lookup(ea, index).map(drop))
}

#[no_mangle]
pub extern "C" fn AM_GetTranslationTag(ea: *mut c_void, index: c_int, tag: *mut u64) -> c_int {
    guard::call(|| out(tag, lookup(ea, index)?.1))
}

#[no_mangle]
pub extern "C" fn AM_GetTranslationName(ea: *mut c_void, index: c_int, name: *mut EnT) -> c_int {
    guard::call(|| out(name, EnT::from(lookup(ea, index)?.0)))
}
