//! Point-to-point: non-blocking sends and receives over raw buffers, their safe blocking
//! forms over slices, and wait/test.

use crate::comm::Comm;
use crate::datatype::Datatype;
use crate::engine::{rank_in, Engine, Req, ReqKind, Senders, Unpack, SENT};
use crate::error::{Error, ErrorClass, Result};
use crate::generalized;
use crate::matching::{Pattern, ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB};
use crate::runtime::{self, SendMode};
use crate::sent_log::{is_logged, Sent};
use crate::status::Status;
use std::rc::Rc;

/// A non-blocking operation; `Request::null()` once completed by `wait`/`test`.
#[derive(Debug, PartialEq, Eq)]
pub struct Request(u64);

/// Requests with this id complete at once (`MPI_PROC_NULL` peers).
const DONE_AT_ONCE: u64 = u64::MAX;

/// Whether request `id` holds nothing in the engine: null, or complete from the start.
fn settled(id: u64) -> bool {
    matches!(id, 0 | DONE_AT_ONCE | SENT) || is_logged(id)
}

impl Request {
    /// `MPI_REQUEST_NULL`.
    pub fn null() -> Request {
        Request(0)
    }

    pub fn is_null(&self) -> bool {
        self.0 == 0
    }

    /// A request complete from the start: an operation that finished when it began (a
    /// one-sided call completes before it returns).
    pub fn completed() -> Request {
        Request(DONE_AT_ONCE)
    }
}

#[inline(always)]
pub(crate) fn check_tag(tag: i32, wildcard_ok: bool) -> Result<()> {
    if (0..=TAG_UB).contains(&tag) || (wildcard_ok && tag == ANY_TAG) {
        Ok(())
    } else {
        Err(bad_tag(tag))
    }
}

#[cold]
#[inline(never)]
fn bad_tag(tag: i32) -> Error {
    Error::new(ErrorClass::Tag, format!("tag {tag} is invalid"))
}

/// `MPI_Isend` (standard mode).
///
/// # Safety
/// `buf` must be valid for reads of `count * dt.size()` bytes and not be written until the
/// request completes (`wait`, or a `test` that returns a status).
pub unsafe fn isend(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Request> {
    // SAFETY: the same contract.
    unsafe { isend_mode(buf, count, dt, dest, tag, comm, SendMode::Standard) }
}

/// `MPI_Isend` in `mode`: `MPI_Issend` is [`SendMode::Synchronous`]; a ready send
/// (`MPI_Irsend`) may take [`SendMode::Standard`], its receive being posted.
///
/// # Safety
/// As [`isend`].
#[inline]
pub unsafe fn isend_mode(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
    mode: SendMode,
) -> Result<Request> {
    // SAFETY: the same contract.
    let (r, sent) = unsafe { start(buf, count, dt, dest, tag, comm, mode)? };
    let Some((rt, dest, seq)) = sent.filter(|_| r.0 == SENT) else {
        return Ok(r);
    };
    // An eager send is complete, but the program may still cancel it: its message is
    // logged under the id it gets.
    let ctx = comm.p2p_ctx();
    let id = rt
        .engine
        .borrow_mut()
        .sent_log
        .push(Sent { dest, ctx, seq });
    Ok(Request(id))
}

/// The runtime a send started in, the job rank it went to and its sequence number.
type SentTo = (Rc<runtime::Runtime>, u32, u32);

/// Starts a send as [`isend_mode`] does, an eager one under [`SENT`] (not logged); with
/// the runtime, the job rank it went to and its number, unless it went nowhere
/// (`MPI_PROC_NULL`), so that logging it looks none of them up again.
///
/// # Safety
/// As [`isend`].
#[inline(always)]
unsafe fn start(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
    mode: SendMode,
) -> Result<(Request, Option<SentTo>)> {
    check_tag(tag, false)?;
    // SAFETY: the same contract.
    unsafe { start_in(buf, count, dt, dest, (comm.p2p_ctx(), tag), comm, mode) }
}

/// Starts a send as [`start`] does, in context and tag `(ctx, tag)` (checked by the caller).
///
/// # Safety
/// As [`isend`].
#[inline]
pub(crate) unsafe fn start_in(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    (ctx, tag): (u32, i32),
    comm: &Comm,
    mode: SendMode,
) -> Result<(Request, Option<SentTo>)> {
    let len = dt.bytes(count)?;
    let Some(dest) = comm.job_rank(dest)? else {
        return Ok((Request(DONE_AT_ONCE), None));
    };
    if buf.is_null() && len > 0 && !dt.absolute() {
        return Err(Error::new(ErrorClass::Buffer, "null send buffer"));
    }
    let rt = runtime::get()?;
    let packed = (!dt.is_contiguous()).then(|| {
        let mut v = Vec::new();
        // SAFETY: this function's contract: `buf` holds `count` elements of `dt`.
        unsafe { dt.pack_raw(buf, count, &mut v) };
        v
    });
    let from = packed.as_ref().map_or(buf, |v| v.as_ptr());
    // SAFETY: passed on from this function's contract, or the packed copy, which the
    // request keeps (its heap bytes do not move with it).
    let (id, seq) = unsafe { rt.start_send(from, len, dest, ctx, tag, mode)? };
    if let Some(v) = packed {
        rt.engine.borrow_mut().keep(id, v);
    }
    Ok((Request(id), Some((rt, dest, seq))))
}

/// `MPI_Irecv` (inlined into its callers with the steps below: each call boundary of
/// this per-message path costs as much as some of the steps).
///
/// # Safety
/// `buf` must be valid for writes of `count * dt.size()` bytes, and neither read nor
/// written by the program until the request completes.
#[inline]
pub unsafe fn irecv(
    buf: *mut u8,
    count: usize,
    dt: &Datatype,
    source: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Request> {
    let Some((cap, pat)) = recv_pattern(buf, count, dt, source, tag, comm)? else {
        return Ok(Request(DONE_AT_ONCE));
    };
    // SAFETY: the same contract.
    unsafe { post_recv(buf, count, dt, (cap, pat), (source, comm)) }
}

/// Posts a receive of `count` elements of `dt` into `buf`, of capacity `cap` bytes, for
/// messages `pat` matches, from `source` (a rank, or any) of `comm`.
///
/// # Safety
/// As [`irecv`].
#[inline(always)]
pub(crate) unsafe fn post_recv(
    buf: *mut u8,
    count: usize,
    dt: &Datatype,
    (cap, pat): (usize, Pattern),
    (source, comm): (i32, &Comm),
) -> Result<Request> {
    let rt = runtime::get()?;
    let mut unpack = (!dt.is_contiguous()).then(|| {
        Box::new(Unpack {
            dt: dt.clone(),
            count,
            to: buf,
            staging: vec![0u8; cap],
        })
    });
    let into = unpack.as_mut().map_or(buf, |u| u.staging.as_mut_ptr());
    let recv = ReqKind::Recv {
        buf: into,
        cap,
        expected: None,
        received: 0,
        senders: Senders::of(&pat, source, comm.peers()),
        unpack,
    };
    Ok(Request(rt.post(recv, pat)?))
}

/// The capacity and pattern of a receive of `count` elements of `dt` into `buf`, its
/// arguments checked; `None` for `MPI_PROC_NULL`.
#[inline(always)]
pub(crate) fn recv_pattern(
    buf: *mut u8,
    count: usize,
    dt: &Datatype,
    source: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Option<(usize, Pattern)>> {
    check_tag(tag, true)?;
    let cap = dt.bytes(count)?;
    if buf.is_null() && cap > 0 && !dt.absolute() {
        return Err(Error::new(ErrorClass::Buffer, "null receive buffer"));
    }
    Ok(pattern(source, tag, comm)?.map(|pat| (cap, pat)))
}

/// `MPI_Recv` of `count` elements of `dt` into `buf`. A contiguous receive needs no
/// request: it takes the engine's blocking slot, which a matching message fills straight
/// from the queue (or the unexpected store, looked at once), while this call polls.
///
/// # Safety
/// `buf` must be valid for writes of `count * dt.size()` bytes during the call.
pub unsafe fn recv_raw(
    buf: *mut u8,
    count: usize,
    dt: &Datatype,
    source: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Status> {
    if dt.is_contiguous() {
        let Some((cap, pat)) = recv_pattern(buf, count, dt, source, tag, comm)? else {
            return Ok(null_status());
        };
        let rt = runtime::get()?;
        let posted = rt.engine.borrow_mut().post_blocking(
            ReqKind::Recv {
                buf,
                cap,
                expected: None,
                received: 0,
                senders: Senders::of(&pat, source, comm.peers()),
                unpack: None,
            },
            pat,
        );
        if posted {
            // A match at once may owe its sender an answer (as `Runtime::post` sends).
            let done = rt
                .send_actions()
                .and_then(|_| rt.wait_until(Engine::blocking_done));
            if let Err(e) = done {
                rt.engine.borrow_mut().abandon_blocking();
                return Err(e);
            }
            let req = rt.engine.borrow_mut().take_blocking();
            return outcome(req.expect("the wait saw it complete").finish());
        }
    }
    // SAFETY: the caller's contract, for as long as `wait` takes to complete it.
    let mut r = unsafe { irecv(buf, count, dt, source, tag, comm)? };
    wait(&mut r)
}

fn null_status() -> Status {
    Status {
        source: PROC_NULL,
        tag: ANY_TAG,
        ..Status::empty()
    }
}

/// Takes a completed request's status and frees it.
#[inline(always)]
fn collect(rt: &runtime::Runtime, req: &mut Request) -> Result<Status> {
    let r = rt
        .engine
        .borrow_mut()
        .reqs
        .remove(req.0)
        .ok_or_else(|| Error::new(ErrorClass::Request, format!("unknown request {}", req.0)))?;
    *req = Request::null();
    collected(r)
}

/// The status of completed request `r`, taken out of the engine (or its error).
#[inline(always)]
fn collected(r: Req) -> Result<Status> {
    if let Some(h) = generalized::hooks_of(&r) {
        return generalized::collect(&h);
    }
    if let ReqKind::Pair { recv, send } = r.kind {
        // Both parts have completed: these waits only collect them.
        let sent = wait(&mut Request(send));
        let got = wait(&mut Request(recv));
        sent?;
        return got;
    }
    if let ReqKind::Coll { error: Some(e) } = r.kind {
        return Err(e);
    }
    outcome(r.finish())
}

/// A completed receive's status, or the error it records (truncation).
#[inline(always)]
fn outcome(status: Status) -> Result<Status> {
    match status.error {
        Some(ErrorClass::Truncate) => Err(truncated(&status)),
        _ => Ok(status),
    }
}

#[cold]
#[inline(never)]
fn truncated(status: &Status) -> Error {
    Error::new(
        ErrorClass::Truncate,
        format!(
            "a message from rank {} with tag {} is larger than the receive buffer",
            status.source, status.tag
        ),
    )
}

/// `MPI_Wait`: polls until `req` completes; a null request gives an empty status.
pub fn wait(req: &mut Request) -> Result<Status> {
    wait_in(&mut None, req)
}

/// [`wait`] for one of a run of waits (`MPI_Waitall`): the runtime is looked up once for
/// the run, by the first wait that needs it (`rt` holds it from then on).
#[inline]
pub(crate) fn wait_in(rt: &mut Option<Rc<runtime::Runtime>>, req: &mut Request) -> Result<Status> {
    match req.0 {
        0 => Ok(Status::empty()),
        DONE_AT_ONCE => {
            *req = Request::null();
            Ok(null_status())
        }
        id if id == SENT || is_logged(id) => {
            *req = Request::null();
            Ok(Status::empty())
        }
        id => {
            let rt = match rt {
                Some(rt) => rt,
                None => rt.insert(runtime::get()?),
            };
            // Most often complete already (a run of waits): one lookup takes it out.
            let done = |r: &Req| r.done && !matches!(r.kind, ReqKind::Pair { .. });
            // (The engine's borrow ends here: a generalized request's functions may call MPI.)
            let taken = rt.engine.borrow_mut().reqs.remove_if(id, done);
            if let Some(r) = taken {
                *req = Request::null();
                return collected(r);
            }
            rt.wait_until(|e| finished(e, id))?;
            collect(rt, req)
        }
    }
}

/// `MPI_Test`: one round of progress; the status when `req` has completed.
pub fn test(req: &mut Request) -> Result<Option<Status>> {
    match req.0 {
        id if settled(id) => wait(req).map(Some),
        id => {
            let rt = runtime::get()?;
            rt.progress()?;
            let done = finished(&rt.engine.borrow(), id);
            if done {
                collect(&rt, req).map(Some)
            } else {
                Ok(None)
            }
        }
    }
}

/// `MPI_Request_get_status`: one round of progress; the status when `req` has completed,
/// the request left for a wait or test to free.
pub fn get_status(req: &Request) -> Result<Option<Status>> {
    match req.0 {
        id if id == 0 || id == SENT || is_logged(id) => Ok(Some(Status::empty())),
        DONE_AT_ONCE => Ok(Some(null_status())),
        id => {
            let rt = runtime::get()?;
            rt.progress()?;
            let e = rt.engine.borrow();
            if !finished(&e, id) {
                return Ok(None);
            }
            if let Some(h) = e.reqs.get(id).and_then(generalized::hooks_of) {
                drop(e);
                return generalized::query(&h).map(Some);
            }
            Ok(Some(match e.reqs.get(id) {
                Some(Req {
                    kind: ReqKind::Pair { recv, .. },
                    ..
                }) if *recv == DONE_AT_ONCE => null_status(),
                Some(Req {
                    kind: ReqKind::Pair { recv, .. },
                    ..
                }) => e
                    .reqs
                    .get(*recv)
                    .map_or(Status::empty(), |r| r.status.clone()),
                Some(r) => r.status.clone().shown(),
                None => Status::empty(),
            }))
        }
    }
}

impl Request {
    /// A request complete from the start whose wait gives `status` (a receive whose data
    /// the caller already placed).
    pub fn completed_with(status: Status) -> Result<Request> {
        let rt = runtime::get()?;
        let id = rt.engine.borrow_mut().add_req(ReqKind::Recv {
            buf: std::ptr::null_mut(),
            cap: 0,
            expected: Some(status.count_bytes),
            received: status.count_bytes,
            senders: Senders::One(status.source),
            unpack: None,
        });
        if let Some(r) = rt.engine.borrow_mut().reqs.get_mut(id) {
            r.done = true;
            r.status = status;
        }
        Ok(Request(id))
    }
}

/// Whether request `id` has completed; one that is gone counts as done, so that `collect`
/// names it unknown.
#[inline]
fn finished(e: &Engine, id: u64) -> bool {
    match e.reqs.get(id) {
        Some(Req {
            kind: ReqKind::Pair { recv, send },
            ..
        }) => finished(e, *recv) && finished(e, *send),
        r => r.is_none_or(|r| r.done),
    }
}

/// One request for a receive and a send that complete together (`MPI_Isendrecv`); its
/// status is the receive's.
pub fn pair(recv: Request, send: Request) -> Result<Request> {
    let rt = runtime::get()?;
    let id = rt.engine.borrow_mut().add_req(ReqKind::Pair {
        recv: recv.0,
        send: send.0,
    });
    Ok(Request(id))
}

/// `MPI_Isend` (standard mode) of bytes the request owns until it completes.
pub fn isend_owned(data: Vec<u8>, dest: i32, tag: i32, comm: &Comm) -> Result<Request> {
    check_tag(tag, false)?;
    let Some(dest) = comm.job_rank(dest)? else {
        return Ok(Request(DONE_AT_ONCE));
    };
    let rt = runtime::get()?;
    let mode = SendMode::Standard;
    // SAFETY: the request keeps `data` (its heap bytes do not move with it) until it
    // completes; an eager send has copied it before this returns.
    let (id, _) =
        unsafe { rt.start_send(data.as_ptr(), data.len(), dest, comm.p2p_ctx(), tag, mode)? };
    rt.engine.borrow_mut().keep(id, data);
    Ok(Request(id))
}

/// `MPI_Send` of the bytes of `count` elements of `dt` in `buf`.
pub fn send(
    buf: &[u8],
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
) -> Result<()> {
    blocking_send(buf, count, dt, dest, tag, comm, SendMode::Standard)
}

/// `MPI_Ssend`: returns once a receive has matched the message.
pub fn ssend(
    buf: &[u8],
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
) -> Result<()> {
    blocking_send(buf, count, dt, dest, tag, comm, SendMode::Synchronous)
}

fn blocking_send(
    buf: &[u8],
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
    mode: SendMode,
) -> Result<()> {
    check_len(buf.len(), count, dt)?;
    // SAFETY: `buf` is borrowed for the whole call.
    unsafe { send_raw(buf.as_ptr(), count, dt, dest, tag, comm, mode) }
}

/// `MPI_Send` (or `MPI_Ssend` in [`SendMode::Synchronous`]) of `count` elements of `dt` at
/// `buf`: returns once the buffer may be reused. An eager send is complete as it starts.
///
/// # Safety
/// `buf` must be valid for reads of `count * dt.size()` bytes during the call.
pub unsafe fn send_raw(
    buf: *const u8,
    count: usize,
    dt: &Datatype,
    dest: i32,
    tag: i32,
    comm: &Comm,
    mode: SendMode,
) -> Result<()> {
    // SAFETY: the caller's contract, for as long as `wait` takes to complete it.
    let (mut r, _) = unsafe { start(buf, count, dt, dest, tag, comm, mode)? };
    if r.0 == SENT {
        return Ok(());
    }
    wait(&mut r).map(drop)
}

/// `MPI_Sendrecv`: the send and the receive proceed together, so two ranks that exchange
/// large messages do not wait on each other.
#[allow(clippy::too_many_arguments)] // MPI's own argument list
pub fn sendrecv(
    sendbuf: &[u8],
    sendcount: usize,
    sendtype: &Datatype,
    dest: i32,
    sendtag: i32,
    recvbuf: &mut [u8],
    recvcount: usize,
    recvtype: &Datatype,
    source: i32,
    recvtag: i32,
    comm: &Comm,
) -> Result<Status> {
    check_len(sendbuf.len(), sendcount, sendtype)?;
    check_len(recvbuf.len(), recvcount, recvtype)?;
    // SAFETY: both buffers stay borrowed until both requests completed below.
    let mut r = unsafe {
        irecv(
            recvbuf.as_mut_ptr(),
            recvcount,
            recvtype,
            source,
            recvtag,
            comm,
        )?
    };
    // SAFETY: as above.
    let mut s = unsafe { isend(sendbuf.as_ptr(), sendcount, sendtype, dest, sendtag, comm)? };
    let sent = wait(&mut s);
    let got = wait(&mut r);
    sent?;
    got
}

/// `MPI_Recv` into `buf`.
pub fn recv(
    buf: &mut [u8],
    count: usize,
    dt: &Datatype,
    source: i32,
    tag: i32,
    comm: &Comm,
) -> Result<Status> {
    check_len(buf.len(), count, dt)?;
    // SAFETY: `buf` is borrowed mutably for the whole call.
    unsafe { recv_raw(buf.as_mut_ptr(), count, dt, source, tag, comm) }
}

fn check_len(have: usize, count: usize, dt: &Datatype) -> Result<()> {
    dt.check_span(have, count)
}

/// `MPI_Request_free`: the request completes on its own (a send still delivers, a
/// receive still fills its buffer) and is forgotten; this does not wait. A generalized
/// request not yet complete stays in `req`, for `grequest_complete` to name.
pub fn request_free(req: &mut Request) -> Result<()> {
    let id = std::mem::replace(req, Request::null()).0;
    if settled(id) {
        return Ok(());
    }
    let rt = runtime::get()?;
    match generalized::free(&rt, id)? {
        Some(false) => {
            *req = Request(id);
            return Ok(());
        }
        Some(true) => return Ok(()),
        None => {}
    }
    let mut e = rt.engine.borrow_mut();
    let parts = match e.reqs.get(id) {
        Some(Req {
            kind: ReqKind::Pair { recv, send },
            ..
        }) => vec![*recv, *send],
        _ => vec![id],
    };
    if parts[0] != id {
        e.reqs.remove(id);
    }
    for part in parts.into_iter().filter(|&p| !settled(p)) {
        e.detach(part);
    }
    Ok(())
}

/// `MPI_Cancel`: a receive that has not matched is cancelled at once (true); a send asks
/// its receiver to withdraw the message, and its wait tells whether it did. A send may go
/// on under another id (see [`crate::cancel`]), which `req` then holds.
pub fn cancel(req: &mut Request) -> Result<bool> {
    let rt = runtime::get()?;
    if generalized::cancel(&rt, req.0)? {
        return Ok(false);
    }
    if rt.engine.borrow_mut().cancel_recv(req.0) {
        return Ok(true);
    }
    if let Some(id) = rt.cancel_send(req.0)? {
        req.0 = id;
    }
    Ok(false)
}

impl Request {
    pub(crate) fn from_id(id: u64) -> Request {
        Request(id)
    }

    pub(crate) fn id(&self) -> u64 {
        self.0
    }

    pub(crate) fn into_id(self) -> u64 {
        self.0
    }

    /// Whether `wait` would return at once.
    pub(crate) fn is_complete(&self, rt: &runtime::Runtime) -> bool {
        settled(self.0) || finished(&rt.engine.borrow(), self.0)
    }
}

/// The pattern a receive with these arguments would match; `None` for `MPI_PROC_NULL`.
fn probe_pattern(source: i32, tag: i32, comm: &Comm) -> Result<Option<Pattern>> {
    check_tag(tag, true)?;
    pattern(source, tag, comm)
}

/// The pattern of a receive from `source` with `tag` (checked) in `comm`.
#[inline(always)]
fn pattern(source: i32, tag: i32, comm: &Comm) -> Result<Option<Pattern>> {
    let src = if source == ANY_SOURCE {
        None
    } else {
        match comm.job_rank(source)? {
            None => return Ok(None),
            some => some,
        }
    };
    Ok(Some(Pattern {
        src,
        ctx: comm.p2p_ctx(),
        tag: (tag != ANY_TAG).then_some(tag),
    }))
}

/// The status of the first stored message `pat` matches.
fn peek_status(rt: &runtime::Runtime, pat: &Pattern, comm: &Comm) -> Option<Status> {
    let found = rt.engine.borrow().peek(pat);
    found.map(|(env, len)| match rank_in(comm.peers(), env.src) {
        Some(source) => Status {
            source,
            tag: env.tag,
            count_bytes: len,
            ..Status::empty()
        },
        // No member sent it: a receive would fail on it (see the engine).
        None => Status {
            error: Some(ErrorClass::Rank),
            ..Status::empty()
        },
    })
}

/// `MPI_Iprobe`: one round of progress; the status of the first message a receive with these
/// arguments would take, without taking it.
pub fn iprobe(source: i32, tag: i32, comm: &Comm) -> Result<Option<Status>> {
    let Some(pat) = probe_pattern(source, tag, comm)? else {
        return Ok(Some(null_status()));
    };
    let rt = runtime::get()?;
    rt.progress()?;
    Ok(peek_status(&rt, &pat, comm))
}

/// `MPI_Probe`: waits until a receive with these arguments would find a message, and gives
/// its status without taking it.
pub fn probe(source: i32, tag: i32, comm: &Comm) -> Result<Status> {
    let Some(pat) = probe_pattern(source, tag, comm)? else {
        return Ok(null_status());
    };
    let rt = runtime::get()?;
    rt.wait_until(|e| e.peek(&pat).is_some())?;
    Ok(peek_status(&rt, &pat, comm).expect("the wait found a message"))
}
