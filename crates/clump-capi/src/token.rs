//! Tokens: the `void *token` a handler gets names a frame on this thread's stack of
//! running handlers, so a token is checked before use and refused once its handler has
//! returned. Message interrogation (`AM_GetSourceEndpoint`, ...) reads the frame.

use crate::codes::{AmResult, EnT, BAD_ARG, RESOURCE};
use crate::guard::{self, out, out_if};
use crate::state::{self, handle_of, to_ptr};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::os::raw::c_int;

/// What a running handler's token stands for.
pub enum Frame {
    /// A request, reply or get completion; the token clump gave the handler.
    Message(*mut am::Token<'static>),
    /// A returned message, in handler 0.
    Returned(am::ReturnedMessage),
}

struct Entry {
    serial: usize,
    /// Handle of the endpoint the handler runs on.
    ep: usize,
    frame: Frame,
}

thread_local! {
    static FRAMES: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<usize> = const { Cell::new(1) };
}

/// Pops the frame when the handler returns, however it returns.
struct Pop;
impl Drop for Pop {
    fn drop(&mut self) {
        FRAMES.with(|f| f.borrow_mut().pop());
    }
}

/// Runs `f` with a token that stands for `frame` while `f` runs.
pub fn enter<R>(ep: usize, frame: Frame, f: impl FnOnce(*mut c_void) -> R) -> R {
    let serial = NEXT.with(|n| n.replace(n.get() + 1));
    FRAMES.with(|fr| fr.borrow_mut().push(Entry { serial, ep, frame }));
    let _pop = Pop;
    f(to_ptr(serial))
}

/// Runs `f` on the live frame `token` names.
fn find<R>(token: *mut c_void, f: impl FnOnce(usize, &Frame) -> AmResult<R>) -> AmResult<R> {
    let serial = handle_of(token);
    FRAMES.with(|fr| {
        let frames = fr.borrow();
        let e = frames
            .iter()
            .rev()
            .find(|e| e.serial == serial)
            .ok_or(BAD_ARG)?;
        f(e.ep, &e.frame)
    })
}

/// Runs `f` on the clump token of a request, reply or get handler.
pub fn with_token<R>(token: *mut c_void, f: impl FnOnce(&mut am::Token<'_>) -> R) -> AmResult<R> {
    let ptr = find(token, |_, frame| match frame {
        Frame::Message(t) => Ok(*t),
        Frame::Returned(_) => Err(BAD_ARG),
    })?;
    // SAFETY: the frame is on the stack only while the handler clump gave this token to
    // runs, and clump keeps the token alive for that whole call; no other reference to
    // it is used meanwhile (the handler's own is only held by the closure that called C).
    Ok(f(unsafe { &mut *ptr }))
}

#[no_mangle]
pub extern "C" fn AM_GetSourceEndpoint(token: *mut c_void, gan: *mut EnT) -> c_int {
    guard::call(|| {
        let (ep, translation) = find(token, |ep, frame| match frame {
            Frame::Message(_) => Ok((ep, None)),
            Frame::Returned(m) => Ok((ep, Some(m.translation.ok_or(RESOURCE)?))),
        })?;
        let name = match translation {
            None => with_token(token, |t| t.source_name())?,
            Some(i) => state::endpoint(to_ptr(ep))?.translation(i).map(|(n, _)| n),
        };
        out(gan, EnT::from(name.ok_or(RESOURCE)?))
    })
}

#[no_mangle]
pub extern "C" fn AM_GetDestEndpoint(token: *mut c_void, endp: *mut *mut c_void) -> c_int {
    guard::call(|| out(endp, to_ptr(find(token, |ep, _| Ok(ep))?)))
}

#[no_mangle]
pub extern "C" fn AM_GetMsgTag(token: *mut c_void, tagp: *mut u64) -> c_int {
    guard::call(|| {
        let (ep, translation) = find(token, |ep, frame| {
            Ok((
                ep,
                match frame {
                    Frame::Message(_) => None,
                    Frame::Returned(m) => m.translation,
                },
            ))
        })?;
        let endpoint = state::endpoint(to_ptr(ep))?;
        let tag = match translation {
            Some(i) => endpoint.translation(i).map(|(_, tag)| tag),
            None => with_token(token, |t| t.source_tag()).ok().flatten(),
        };
        out(tagp, tag.unwrap_or_else(|| endpoint.tag()))
    })
}

#[no_mangle]
pub extern "C" fn clump_returned_msg(
    token: *mut c_void,
    handler: *mut u8,
    args: *mut [i32; am::MAX_ARGS],
    numargs: *mut c_int,
    translation: *mut c_int,
) -> c_int {
    guard::call(|| {
        find(token, |_, frame| {
            let Frame::Returned(m) = frame else {
                return Err(BAD_ARG);
            };
            let mut words = [0i32; am::MAX_ARGS];
            for (w, a) in words.iter_mut().zip(m.args()) {
                *w = *a as i32;
            }
            out_if(handler, m.handler);
            out_if(args, words);
            out_if(numargs, m.args().len() as c_int);
            out_if(translation, m.translation.map_or(-1, |i| i as c_int));
            Ok(())
        })
    })
}
