//! Requests and replies: one function per direction checks the endpoint or token, and a
//! macro exports the AM-II names for 0..16 arguments (`AM_Request0` .. `AM_GetXfer16`),
//! each with the send of its kind.

use crate::codes::{AmResult, BAD_ARG, IN_USE};
use crate::guard;
use crate::state;
use crate::token;
use am::{MAX_LONG, MAX_MEDIUM};
use std::ffi::c_void;
use std::os::raw::c_int;

/// The `nbytes` bytes at `src`, checked against `limit`.
fn bytes<'a>(src: *const c_void, nbytes: c_int, limit: usize) -> AmResult<&'a [u8]> {
    let len = usize::try_from(nbytes).map_err(|_| BAD_ARG)?;
    if len > limit {
        return Err(BAD_ARG);
    }
    if len == 0 {
        return Ok(&[]);
    }
    if src.is_null() {
        return Err(BAD_ARG);
    }
    // SAFETY: non-null, and AM-II's contract is that the source holds `nbytes` readable
    // bytes for the duration of the call (clump copies them before returning).
    Ok(unsafe { std::slice::from_raw_parts(src.cast(), len) })
}

/// Sends a request: `send` gets the endpoint `ep` names and the translation `dest`, both
/// checked. Each entry point passes its own `send`, so each gets a fast path of its own.
#[inline(always)]
fn request(
    ep: *mut c_void,
    dest: c_int,
    send: impl FnOnce(&am::Endpoint, u32) -> AmResult,
) -> c_int {
    guard::call_shared!(|_shared| {
        let dest = u32::try_from(dest).map_err(|_| BAD_ARG)?;
        send(&state::endpoint(ep)?.ep, dest)
    })
}

/// Sends a reply: `send` gets the clump token `token` stands for, checked.
#[inline(always)]
fn reply(token: *mut c_void, send: impl FnOnce(&mut am::Token<'_>) -> AmResult) -> c_int {
    guard::call_shared!(|shared| token::with_token(token, shared, send)?)
}

/// A long request, or with `wait` false, `AM_ERR_IN_USE` if it would wait for credits.
#[allow(clippy::too_many_arguments)]
fn request_long(
    ep: &am::Endpoint,
    dest: u32,
    h: u8,
    args: &[u32],
    src: *const c_void,
    nbytes: c_int,
    offset: usize,
    wait: bool,
) -> AmResult {
    let data = bytes(src, nbytes, MAX_LONG)?;
    if !wait && !ep.can_send_now(dest) {
        return Err(IN_USE);
    }
    Ok(ep.request_long(dest, h, args, data, offset)?)
}

macro_rules! export_sends {
    ($($n:literal [$($a:ident)*]),*) => { paste::paste! { $(
        #[no_mangle]
        pub extern "C" fn [<AM_Request $n>](ep: *mut c_void, dest: c_int, h: u8 $(, $a: i32)*) -> c_int {
            request(ep, dest, move |ep, dest| Ok(ep.request(dest, h, &[$($a as u32),*])?))
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestI $n>](
            ep: *mut c_void, dest: c_int, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, move |ep, dest| {
                let data = bytes(src, nbytes, MAX_MEDIUM)?;
                Ok(ep.request_medium(dest, h, &[$($a as u32),*], data)?)
            })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestXfer $n>](
            ep: *mut c_void, dest: c_int, offset: usize, h: u8, src: *const c_void,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, move |ep, dest| {
                request_long(ep, dest, h, &[$($a as u32),*], src, nbytes, offset, true)
            })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestXferAsync $n>](
            ep: *mut c_void, dest: c_int, offset: usize, h: u8, src: *const c_void,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, move |ep, dest| {
                request_long(ep, dest, h, &[$($a as u32),*], src, nbytes, offset, false)
            })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_GetXfer $n>](
            ep: *mut c_void, dest: c_int, src_offset: usize, h: u8, dest_offset: usize,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, move |ep, dest| {
                let len = usize::try_from(nbytes).map_err(|_| BAD_ARG)?;
                Ok(ep.get(dest, h, &[$($a as u32),*], src_offset, len, dest_offset)?)
            })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_Reply $n>](token: *mut c_void, h: u8 $(, $a: i32)*) -> c_int {
            reply(token, move |t| Ok(t.reply(h, &[$($a as u32),*])?))
        }

        #[no_mangle]
        pub extern "C" fn [<AM_ReplyI $n>](
            token: *mut c_void, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            reply(token, move |t| {
                let data = bytes(src, nbytes, MAX_MEDIUM)?;
                Ok(t.reply_medium(h, &[$($a as u32),*], data)?)
            })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_ReplyXfer $n>](
            token: *mut c_void, offset: usize, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            reply(token, move |t| {
                let data = bytes(src, nbytes, MAX_LONG)?;
                Ok(t.reply_long(h, &[$($a as u32),*], data, offset)?)
            })
        }
    )* } };
}
crate::arities!(export_sends);
