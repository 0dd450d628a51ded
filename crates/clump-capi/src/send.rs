//! Requests and replies: one function per direction does the work, and a macro exports
//! the AM-II names for 0..16 arguments (`AM_Request0` .. `AM_GetXfer16`).

use crate::codes::{AmResult, BAD_ARG, IN_USE};
use crate::guard;
use crate::state;
use crate::token;
use am::{MAX_ARGS, MAX_LONG, MAX_MEDIUM};
use std::ffi::c_void;
use std::os::raw::c_int;

/// What a message carries besides its arguments, as the C call gave it.
enum Payload {
    Short,
    Medium(*const c_void, c_int),
    Long {
        src: *const c_void,
        nbytes: c_int,
        offset: usize,
        wait: bool,
    },
    Get {
        src_offset: usize,
        dest_offset: usize,
        nbytes: c_int,
    },
}

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

fn words(args: &[i32]) -> ([u32; MAX_ARGS], usize) {
    let mut w = [0u32; MAX_ARGS];
    for (d, a) in w.iter_mut().zip(args) {
        *d = *a as u32;
    }
    (w, args.len())
}

fn request(ep: *mut c_void, dest: c_int, h: u8, args: &[i32], p: Payload) -> c_int {
    guard::call(|| -> AmResult {
        let dest = u32::try_from(dest).map_err(|_| BAD_ARG)?;
        let (w, n) = words(args);
        let args = &w[..n];
        let ep = state::endpoint(ep)?;
        match p {
            Payload::Short => ep.request(dest, h, args)?,
            Payload::Medium(src, nbytes) => {
                ep.request_medium(dest, h, args, bytes(src, nbytes, MAX_MEDIUM)?)?
            }
            Payload::Long {
                src,
                nbytes,
                offset,
                wait,
            } => {
                let data = bytes(src, nbytes, MAX_LONG)?;
                if !wait && !ep.can_send_now(dest) {
                    return Err(IN_USE);
                }
                ep.request_long(dest, h, args, data, offset)?
            }
            Payload::Get {
                src_offset,
                dest_offset,
                nbytes,
            } => {
                let len = usize::try_from(nbytes).map_err(|_| BAD_ARG)?;
                ep.get(dest, h, args, src_offset, len, dest_offset)?
            }
        }
        Ok(())
    })
}

fn reply(token: *mut c_void, h: u8, args: &[i32], p: Payload) -> c_int {
    guard::call(|| -> AmResult {
        let (w, n) = words(args);
        let args = &w[..n];
        let sent = match p {
            Payload::Short => token::with_token(token, |t| t.reply(h, args))?,
            Payload::Medium(src, nbytes) => {
                let data = bytes(src, nbytes, MAX_MEDIUM)?;
                token::with_token(token, |t| t.reply_medium(h, args, data))?
            }
            Payload::Long {
                src,
                nbytes,
                offset,
                ..
            } => {
                let data = bytes(src, nbytes, MAX_LONG)?;
                token::with_token(token, |t| t.reply_long(h, args, data, offset))?
            }
            Payload::Get { .. } => return Err(BAD_ARG),
        };
        Ok(sent?)
    })
}

macro_rules! export_sends {
    ($($n:literal [$($a:ident)*]),*) => { paste::paste! { $(
        #[no_mangle]
        pub extern "C" fn [<AM_Request $n>](ep: *mut c_void, dest: c_int, h: u8 $(, $a: i32)*) -> c_int {
            request(ep, dest, h, &[$($a),*], Payload::Short)
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestI $n>](
            ep: *mut c_void, dest: c_int, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, h, &[$($a),*], Payload::Medium(src, nbytes))
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestXfer $n>](
            ep: *mut c_void, dest: c_int, offset: usize, h: u8, src: *const c_void,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, h, &[$($a),*], Payload::Long { src, nbytes, offset, wait: true })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_RequestXferAsync $n>](
            ep: *mut c_void, dest: c_int, offset: usize, h: u8, src: *const c_void,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, h, &[$($a),*], Payload::Long { src, nbytes, offset, wait: false })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_GetXfer $n>](
            ep: *mut c_void, dest: c_int, src_offset: usize, h: u8, dest_offset: usize,
            nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            request(ep, dest, h, &[$($a),*], Payload::Get { src_offset, dest_offset, nbytes })
        }

        #[no_mangle]
        pub extern "C" fn [<AM_Reply $n>](token: *mut c_void, h: u8 $(, $a: i32)*) -> c_int {
            reply(token, h, &[$($a),*], Payload::Short)
        }

        #[no_mangle]
        pub extern "C" fn [<AM_ReplyI $n>](
            token: *mut c_void, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            reply(token, h, &[$($a),*], Payload::Medium(src, nbytes))
        }

        #[no_mangle]
        pub extern "C" fn [<AM_ReplyXfer $n>](
            token: *mut c_void, offset: usize, h: u8, src: *const c_void, nbytes: c_int $(, $a: i32)*
        ) -> c_int {
            reply(token, h, &[$($a),*], Payload::Long { src, nbytes, offset, wait: true })
        }
    )* } };
}
crate::arities!(export_sends);
