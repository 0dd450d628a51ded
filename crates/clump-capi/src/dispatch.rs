//! Running C handlers: clump calls a Rust closure per handler index, which calls the C
//! function with exactly as many `int32_t` arguments as the message carries, in the short
//! shape `h(token, a0..)` or the medium/long shape `h(token, buf, nbytes, a0..)`, and
//! handler 0 as `h(status, opcode, token)`.

use crate::codes::{opcode_of, status_of, AmResult};
use crate::state::RawFn;
use crate::token::{self, Frame};
use am::{Kind, MAX_ARGS};
use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::c_int;
use std::rc::Rc;

/// `i32`, whatever identifier it is given: one per argument of the arity being expanded.
macro_rules! int32 {
    ($a:ident) => {
        i32
    };
}

/// Calls `$f` as `unsafe extern "C" fn(prefix types.., i32 per argument)`.
macro_rules! call_as {
    ($f:expr, ($($p:expr),*), ($($pt:ty),*), $($a:ident)*) => {{
        // SAFETY: the caller of `call` (an `unsafe fn`) vouches that the program installed
        // `$f` for messages of this shape: a C function of exactly this signature.
        unsafe {
            let g = std::mem::transmute::<RawFn, unsafe extern "C" fn($($pt,)* $(int32!($a)),*)>($f);
            g($($p,)* $($a as i32),*)
        }
    }};
}

macro_rules! define_call {
    ($($n:literal [$($a:ident)*]),*) => {
        /// Calls `f` with `token`, the payload (`bulk`, for medium, long and get messages)
        /// and `args`, each as an `int32_t`.
        ///
        /// # Safety
        /// `f` must be a C function of the shape the message kind calls for, with as many
        /// `int32_t` arguments as `args` holds.
        unsafe fn call(
            f: RawFn,
            token: *mut c_void,
            bulk: Option<(*mut c_void, usize)>,
            args: &[u32],
        ) {
            match *args {
                $([$($a),*] => match bulk {
                    None => call_as!(f, (token), (*mut c_void), $($a)*),
                    Some((buf, len)) => call_as!(
                        f, (token, buf, len), (*mut c_void, *mut c_void, usize), $($a)*
                    ),
                },)*
                _ => unreachable!("clump delivers at most {MAX_ARGS} arguments"),
            }
        }
    };
}
crate::arities!(define_call);

/// Installs C function `f` (or clears the entry) at `index` of the handler table of `ep`,
/// whose handle is `ep_handle`. `seg_base` is where the program sees the segment, for long
/// payloads and gets.
pub fn install(
    ep: &am::Endpoint,
    ep_handle: usize,
    index: usize,
    f: Option<RawFn>,
    seg_base: Rc<Cell<*mut u8>>,
) -> AmResult {
    match (index, f) {
        (0, Some(f)) => ep.set_return_handler(move |r| returned(f, ep_handle, r))?,
        (0, None) => ep.set_return_handler(|r| {
            eprintln!(
                "clump: a {:?} message to handler {} came back ({}), status {}; \
                 install handler 0 to act on it",
                r.kind,
                r.handler,
                r.reason,
                status_of(r.reason)
            )
        })?,
        (i, Some(f)) => ep.set_handler(i, move |t, m| message(f, ep_handle, &seg_base, t, m))?,
        (i, None) => ep.clear_handler(i)?,
    }
    Ok(())
}

/// Inlined into the handler closure `install` makes: out of line since the token frame grew
/// (AM_PAR), it cost every message a call boundary (about 10 instructions).
#[inline]
fn message(
    f: RawFn,
    ep: usize,
    seg_base: &Cell<*mut u8>,
    token: &mut am::Token<'_>,
    msg: &am::Message<'_>,
) {
    let bulk = match msg.kind {
        Kind::Short => None,
        Kind::Medium => Some((msg.payload.as_ptr() as *mut c_void, msg.payload.len())),
        // The program's view of its segment, which may be its own memory.
        Kind::Long | Kind::Get => Some((
            seg_base.get().wrapping_add(msg.offset as usize).cast(),
            msg.payload.len(),
        )),
    };
    let ptr: *mut am::Token<'static> = (token as *mut am::Token<'_>).cast();
    let frame = Frame::Message {
        token: ptr,
        handler: msg.handler,
        kind: msg.kind,
    };
    token::enter(ep, frame, |t| {
        // SAFETY: the program installed `f` as the handler of this index; AM-II makes
        // the handler's shape follow the message kind, which `bulk` encodes.
        unsafe { call(f, t, bulk, msg.args) }
    })
}

fn returned(f: RawFn, ep: usize, r: &am::Returned<'_>) {
    let (status, opcode) = (status_of(r.reason), opcode_of(r.kind, r.request));
    let frame = Frame::Returned(r.to_message());
    token::enter(ep, frame, |t| {
        // SAFETY: handler 0 has the shape `void h(int status, op_t opcode, void *token)`.
        unsafe {
            let g =
                std::mem::transmute::<RawFn, unsafe extern "C" fn(c_int, c_int, *mut c_void)>(f);
            g(status, opcode, t)
        }
    })
}
