//! Tokens: the `void *token` a handler gets names a frame on its endpoint's stack of
//! running handlers, so a token is checked before use and refused once its handler has
//! returned. Message interrogation (`AM_GetSourceEndpoint`, ...) reads the frame.
//!
//! A token is a frame serial above the endpoint's registry slot: it leads to its endpoint
//! and its frame without a thread-local (see [`crate::handles`]).

use crate::codes::{AmResult, EnT, BAD_ARG, RESOURCE};
use crate::guard::{self, out, out_if};
use crate::handles::{join, split, this_thread, MAX_SLOTS};
use crate::state::{self, handle_of, to_ptr};
use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// What a running handler's token stands for.
pub enum Frame {
    /// A request, reply or get completion: the token clump gave the handler, and the
    /// message's handler index and kind.
    Message {
        token: *mut am::Token<'static>,
        handler: u8,
        kind: am::Kind,
    },
    /// A returned message, in handler 0.
    Returned(am::ReturnedMessage),
}

/// A running handler's frame: on the stack of [`enter`] while the handler runs.
struct Node {
    token: usize,
    /// The thread running the handler: only it may use the token.
    thread: usize,
    frame: Frame,
    /// The frame linked below this one on the same endpoint (or null): the handler this
    /// one runs inside, or, on an `AM_PAR` endpoint, another thread's.
    below: Cell<*mut Node>,
}

/// The frames of the handlers running on an endpoint slot's endpoint. Only the owner of
/// the slot touches them (its thread; for an `AM_PAR` endpoint, whichever thread holds
/// the process lock), and only while its endpoint is in the registry (a slot passes to
/// another owner through the registry's lock): plain loads and stores suffice. On one
/// thread frames come and go like the calls they are; the handlers of an `AM_PAR`
/// endpoint on several threads (one paused in a wait that let the lock go) need not, so
/// a frame is unlinked wherever it is.
struct SlotFrames {
    /// The last frame serial. It outlives the endpoints the slot holds in turn, so a token
    /// of a freed endpoint never names a frame of a later one.
    serial: AtomicUsize,
    /// The innermost frame, linked to those below; null when no handler runs.
    top: AtomicPtr<Node>,
}

/// Per endpoint slot, beside the registry rather than in the endpoint's state: a token
/// leads straight to its frame, in loads that do not wait for the registry's check.
static FRAMES: [SlotFrames; MAX_SLOTS] = [const {
    SlotFrames {
        serial: AtomicUsize::new(0),
        top: AtomicPtr::new(std::ptr::null_mut()),
    }
}; MAX_SLOTS];

/// Readies the frames of `slot` for the endpoint that is claiming it: a handler of the
/// slot's previous endpoint may still run (a handler may free its endpoint), but its
/// frames are no longer the slot's.
pub fn claim(slot: usize) {
    FRAMES[slot]
        .top
        .store(std::ptr::null_mut(), Ordering::Relaxed);
}

/// Unlinks the frame when the handler returns, however it returns.
struct Pop<'a> {
    ep: usize,
    node: &'a Node,
}

impl Drop for Pop<'_> {
    fn drop(&mut self) {
        // Unless the handler freed its endpoint: the slot's frames are then not its own.
        if !state::endpoint_live(self.ep) {
            return;
        }
        let slot = &FRAMES[split(self.ep).1];
        let me = std::ptr::from_ref(self.node).cast_mut();
        let above = slot.top.load(Ordering::Relaxed);
        if above == me {
            slot.top.store(self.node.below.get(), Ordering::Relaxed);
        } else {
            unlink_below(above, self.node);
        }
    }
}

/// Unlinks `node` from below `above`: on an `AM_PAR` endpoint, another thread's handler
/// may have started above it while this one waited.
#[cold]
#[inline(never)]
fn unlink_below(mut above: *mut Node, node: &Node) {
    let me = std::ptr::from_ref(node).cast_mut();
    while !above.is_null() {
        // SAFETY: a linked frame is live (see `find`), and only the slot's owner (this
        // thread, or the process lock's holder: this thread) touches the links.
        let n = unsafe { &*above };
        if n.below.get() == me {
            n.below.set(node.below.get());
            return;
        }
        above = n.below.get();
    }
}

/// Runs `f` with a token that stands for `frame` while `f` runs, on endpoint `ep`.
#[inline]
pub fn enter<R>(ep: usize, frame: Frame, f: impl FnOnce(*mut c_void) -> R) -> R {
    let slot = &FRAMES[split(ep).1];
    // A freed endpoint runs no handler; if one did, its token would name no frame.
    let linked = state::endpoint_live(ep);
    let serial = slot.serial.load(Ordering::Relaxed).wrapping_add(1);
    let below = match linked {
        true => slot.top.load(Ordering::Relaxed),
        false => std::ptr::null_mut(),
    };
    let node = Node {
        token: join(serial, split(ep).1),
        thread: this_thread(),
        frame,
        below: Cell::new(below),
    };
    let _pop = linked.then(|| {
        slot.serial.store(serial, Ordering::Relaxed);
        // Read through, and its `below` set through, a shared reference only.
        slot.top
            .store(std::ptr::from_ref(&node).cast_mut(), Ordering::Relaxed);
        Pop { ep, node: &node }
    });
    f(to_ptr(node.token))
}

/// Runs `f` on the endpoint handle and the live frame `token` names. `f` only reads.
/// `shared` says whether threads share the process: only then can the frame be another
/// thread's (before, the endpoint's registry slot, checked first, is this thread's, and
/// so are all its frames).
#[inline]
fn find<R>(
    token: *mut c_void,
    shared: bool,
    f: impl FnOnce(usize, &Frame) -> AmResult<R>,
) -> AmResult<R> {
    let token = handle_of(token);
    let ep = state::endpoint_of_token(token).ok_or(BAD_ARG)?;
    let mut node = FRAMES[split(token).1].top.load(Ordering::Relaxed);
    while !node.is_null() {
        // SAFETY: the slot is this thread's (or the lock's, which this thread holds:
        // checked just above), and its frames are linked only while the `enter` call whose
        // stack holds each runs: its `Pop` unlinks it, wherever it is, on return and on
        // unwind. So every linked node is live; `claim` drops the frames of a slot's
        // previous endpoint.
        let n = unsafe { &*node };
        if n.token == token {
            // Another thread's token names no frame of this one.
            return match !shared || n.thread == this_thread() {
                true => f(ep, &n.frame),
                false => Err(BAD_ARG),
            };
        }
        node = n.below.get();
    }
    Err(BAD_ARG)
}

/// Runs `f` on the clump token of a request, reply or get handler (`shared` as for
/// [`find`]).
#[inline]
pub fn with_token<R>(
    token: *mut c_void,
    shared: bool,
    f: impl FnOnce(&mut am::Token<'_>) -> R,
) -> AmResult<R> {
    let ptr = find(token, shared, |_, frame| match frame {
        Frame::Message { token, .. } => Ok(*token),
        Frame::Returned(_) => Err(BAD_ARG),
    })?;
    // SAFETY: the frame is on the stack only while the handler clump gave this token to
    // runs, and clump keeps the token alive for that whole call; no other reference to
    // it is used meanwhile (the handler's own is only held by the closure that called C).
    Ok(f(unsafe { &mut *ptr }))
}

/// What the message `token` stands for is: its handler index, its kind, and whether it
/// is a request (a returned message: the one that came back).
pub fn message_info(token: *mut c_void, shared: bool) -> AmResult<(u8, am::Kind, bool)> {
    let (handler, kind, request) = find(token, shared, |_, frame| match frame {
        Frame::Message { handler, kind, .. } => Ok((*handler, *kind, None)),
        Frame::Returned(m) => Ok((m.handler, m.kind, Some(m.request))),
    })?;
    let request = match request {
        Some(r) => r,
        None => with_token(token, shared, |t| t.is_request())?,
    };
    Ok((handler, kind, request))
}

#[no_mangle]
pub extern "C" fn AM_GetSourceEndpoint(token: *mut c_void, gan: *mut EnT) -> c_int {
    guard::call(|| {
        let shared = am::serial::is_shared();
        let (ep, translation) = find(token, shared, |ep, frame| match frame {
            Frame::Message { .. } => Ok((ep, None)),
            Frame::Returned(m) => Ok((ep, Some(m.translation.ok_or(RESOURCE)?))),
        })?;
        let name = match translation {
            None => with_token(token, shared, |t| t.source_name())?,
            Some(i) => state::endpoint(to_ptr(ep))?
                .ep
                .translation(i)
                .map(|(n, _)| n),
        };
        out(gan, EnT::from(name.ok_or(RESOURCE)?))
    })
}

#[no_mangle]
pub extern "C" fn AM_GetDestEndpoint(token: *mut c_void, endp: *mut *mut c_void) -> c_int {
    guard::call(|| {
        out(
            endp,
            to_ptr(find(token, am::serial::is_shared(), |ep, _| Ok(ep))?),
        )
    })
}

#[no_mangle]
pub extern "C" fn AM_GetMsgTag(token: *mut c_void, tagp: *mut u64) -> c_int {
    guard::call(|| {
        let shared = am::serial::is_shared();
        let (ep, translation) = find(token, shared, |ep, frame| {
            Ok((
                ep,
                match frame {
                    Frame::Message { .. } => None,
                    Frame::Returned(m) => m.translation,
                },
            ))
        })?;
        let endpoint = state::endpoint(to_ptr(ep))?;
        let tag = match translation {
            Some(i) => endpoint.ep.translation(i).map(|(_, tag)| tag),
            None => with_token(token, shared, |t| t.source_tag()).ok().flatten(),
        };
        out(tagp, tag.unwrap_or_else(|| endpoint.ep.tag()))
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
        let shared = am::serial::is_shared();
        find(token, shared, |_, frame| {
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
