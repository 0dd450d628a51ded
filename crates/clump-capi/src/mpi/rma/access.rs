//! The RMA calls: put, get, the accumulates and their request-based forms. Each finds
//! where its target bytes are ([`reach`]): memory this process can load and store (its
//! own window, a same-host member's segment or shared window), a same-host member's
//! program memory (`MPI_Win_create`, a dynamic window's attached regions), copied by
//! cross-memory attach for puts and gets, or
//! a remote procedure call to the target. Accumulates to segment memory this process maps run here under the window's guard;
//! the others go to the target's handler. Each call completes at the target before it
//! returns, but for puts and accumulates that fetch nothing to a target on another host
//! (outside dynamic windows, whose targets check the range): those are posted, and the epoch's completion (flush, unlock, fence, complete) waits for
//! them ([`space::Space::settle`]).

use super::super::abi::MpiAint;
use super::super::buffers::{pack, unpack};
use super::super::export::{mpi_functions, out};
use super::super::handles::{
    datatype, err, plain_size, predef, predefined_op, put_request, with_datatype, Handle,
    DATATYPE_NULL,
};
use super::super::wired::{count, Failure};
use super::abi::*;
use super::atomic;
use super::elements;
use super::published;
use super::request::{self, Kind, Request};
use super::space;
use super::target;
use super::window::{self, on};
use clump_mpi::{Datatype, Predef};
use std::borrow::Cow;
use std::os::raw::{c_int, c_void};

/// `MPI_NO_OP`.
const NO_OP: Handle = 0x3d;

/// Where an access lands.
struct Reach {
    /// The target's job rank and window id.
    rank: u32,
    id: u32,
    /// Byte offset in the target's window of the access's lowest byte.
    offset: usize,
    /// That byte's address here, when this process can reach the target bytes directly.
    direct: Option<usize>,
    /// The target's process and that byte's address there, when this process reaches
    /// the target bytes by cross-memory attach.
    attach: Option<(u32, usize)>,
    /// The window's guard word here, when it has one this process reaches.
    guard: Option<usize>,
    /// The target is this process.
    me: bool,
    /// The origin checked the whole access against the window (every flavor but the
    /// dynamic one, whose target checks it): a put or accumulate may then be posted, its
    /// errors all found here already.
    checked: bool,
}

/// Checks an access of the `span` bytes that start `lo` bytes from displacement `disp`
/// of `target`'s part of `win` (epoch, rank, range); `None` for `MPI_PROC_NULL`, which
/// moves nothing.
fn reach(
    win: Handle,
    target: c_int,
    disp: MpiAint,
    (lo, span): (isize, usize),
) -> Result<Option<Reach>, Failure> {
    if target == clump_mpi::PROC_NULL {
        return Ok(None);
    }
    window::with(win, |w| {
        let t = w.index(target)?;
        if !w.epoch.reaches(t) {
            return Err((
                MPI_ERR_RMA_SYNC,
                format!("no access epoch to rank {target} is open (fence or lock first)"),
            ));
        }
        let m = &w.members[t]; // read in place: a copy of the member costs more than the rest
        let range = || {
            (
                MPI_ERR_RMA_RANGE,
                format!("{span} bytes at displacement {disp} leave rank {target}'s window"),
            )
        };
        let offset = isize::try_from(m.disp_unit)
            .ok()
            .and_then(|unit| disp.checked_mul(unit))
            .and_then(|d| d.checked_add(lo))
            .and_then(|d| usize::try_from(d).ok())
            .ok_or_else(range)?;
        let (direct, attach) = if w.attrs.flavor == MPI_WIN_FLAVOR_DYNAMIC {
            // The displacement is an address in the target, checked against what it
            // attached: by this process for its own, by the target's published table for
            // a same-host target (else by the target's handler).
            let direct = m.me.then(|| w.locate(offset, span)).transpose()?;
            let attach = m.attach.zip(m.table);
            let attach = attach.filter(|&(_, t)| published::covers(t, offset, span));
            (direct, attach.map(|(pid, _)| (pid, offset)))
        } else {
            if offset.checked_add(span).is_none_or(|end| end > m.size) {
                return Err(range());
            }
            let attach = m.attach.map(|pid| (pid, m.addr + offset));
            (m.here.map(|base| base + offset), attach)
        };
        Ok(Some(Reach {
            rank: m.rank,
            id: m.id,
            offset,
            direct,
            attach,
            guard: m.guard,
            me: m.me,
            checked: w.attrs.flavor != MPI_WIN_FLAVOR_DYNAMIC,
        }))
    })
}

impl Reach {
    /// Where an accumulate may run in this process: target bytes it reaches directly,
    /// behind the guard, or its own window without one (whose accumulates all run here).
    fn local(&self) -> Option<usize> {
        self.direct.filter(|_| self.guard.is_some() || self.me)
    }

    /// Sends `req` (at `at` bytes past this access's start) and returns the reply's data;
    /// a request that answers nothing, to a window this process checked it against, is
    /// posted ([`space::Space::post`]), done by the epoch's next completion.
    fn call(&self, mut req: Request, at: usize) -> Result<Vec<u8>, Failure> {
        req.id = self.id;
        req.offset = (self.offset + at) as u64;
        let space = space::current().ok_or_else(|| (MPI_ERR_WIN, "no window exists".to_owned()))?;
        if self.checked && req.answers_nothing() {
            return space.post(self.rank, &req).map(|()| Vec::new());
        }
        space.send(self.rank, &req)
    }
}

fn request(kind: Kind, args: [u64; 3], data: &[u8]) -> Request<'_> {
    Request {
        kind,
        id: 0,
        offset: 0,
        args,
        data,
    }
}

fn type_error(why: String) -> Failure {
    (super::super::abi::MPI_ERR_TYPE, why)
}

/// The target bytes of an access: the byte runs its elements cover, each as (offset from
/// the lowest of them, length) in type-map order; where that lowest byte lies from the
/// displacement; and how far the runs reach from it.
struct Shape {
    runs: Vec<(usize, usize)>,
    lo: isize,
    span: usize,
}

impl Shape {
    /// Each run with its part of the packed `data`.
    fn pieces<'a>(&'a self, data: &'a [u8]) -> impl Iterator<Item = (usize, &'a [u8])> {
        self.runs.iter().scan(0, move |at, &(off, len)| {
            let from = *at;
            *at += len;
            Some((off, &data[from..from + len]))
        })
    }
}

/// The shape of `n` elements of the target datatype `t` (any committed one), whose data
/// must be the origin's `origin` bytes.
fn target_shape(n: c_int, t: Handle, origin: usize) -> Result<Shape, Failure> {
    let (dt, n) = (datatype(t)?, count(n)?);
    let len = dt.bytes(n).map_err(err)?;
    if len != origin {
        return Err(type_error(format!(
            "the origin has {origin} bytes, the target {len}"
        )));
    }
    let mut raw: Vec<(isize, usize)> = Vec::new();
    for (off, _, len) in dt.runs(n) {
        match raw.last_mut() {
            Some(last) if last.0 + last.1 as isize == off => last.1 += len,
            _ if len > 0 => raw.push((off, len)),
            _ => {}
        }
    }
    let lo = raw.iter().map(|r| r.0).min().unwrap_or(0);
    let hi = raw.iter().map(|r| r.0 + r.1 as isize).max().unwrap_or(0);
    Ok(Shape {
        runs: raw
            .iter()
            .map(|&(off, len)| ((off - lo) as usize, len))
            .collect(),
        lo,
        span: (hi - lo) as usize,
    })
}

/// The shape of `n` elements of the target datatype `t`, made of the predefined `basic`
/// whose elements have holes, as one run per element in its memory layout
/// ([`elements`]); the origin brings `origin` packed bytes.
fn element_shape(n: c_int, t: Handle, basic: &Datatype, origin: usize) -> Result<Shape, Failure> {
    let (dt, n) = (datatype(t)?, count(n)?);
    let len = dt.bytes(n).map_err(err)?;
    if len != origin {
        return Err(type_error(format!(
            "the origin has {origin} bytes, the target {len}"
        )));
    }
    // An element starts at every multiple of its size in the packed bytes.
    let size = basic.size().max(1);
    let mut starts = Vec::new();
    for (off, at, len) in dt.runs(n) {
        let first = at.next_multiple_of(size);
        starts.extend(
            (first..at + len)
                .step_by(size)
                .map(|p| off + (p - at) as isize),
        );
    }
    let reach = elements::reach(basic);
    let lo = starts.iter().copied().min().unwrap_or(0);
    let hi = starts
        .iter()
        .map(|&s| s + reach as isize)
        .max()
        .unwrap_or(0);
    Ok(Shape {
        runs: starts.iter().map(|&s| ((s - lo) as usize, reach)).collect(),
        lo,
        span: (hi - lo) as usize,
    })
}

/// The byte count of `n` elements of `ot` at the origin and `tn` of `tt` at the target
/// when both types are predefined, unpadded and the counts agree: the common case, copied
/// straight between the caller's buffer and the target without packing.
#[inline]
fn plain(n: c_int, ot: Handle, tn: c_int, tt: Handle) -> Option<usize> {
    let o = plain_size(ot)?;
    // The same type on both sides (the common case) is looked up once.
    let t = if tt == ot { o } else { plain_size(tt)? };
    let len = usize::try_from(n).ok()?.checked_mul(o)?;
    (usize::try_from(tn).ok()?.checked_mul(t)? == len).then_some(len)
}

/// The caller's `len` bytes at `buf` (a predefined type's elements, contiguous).
fn user_bytes<'a>(buf: *const c_void, len: usize) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if buf.is_null() {
        return Err((super::super::abi::MPI_ERR_BUFFER, "NULL buffer".into()));
    }
    // SAFETY: the caller's contract (mpi.h) is that `buf` holds the `len` bytes of its
    // elements, unchanged during the call.
    Ok(unsafe { std::slice::from_raw_parts(buf.cast(), len) })
}

/// Writes `data` at `at` bytes into the access `r` (within the span `reach` checked).
/// Inline: a store to memory this process reaches is the common put.
#[inline]
fn put_bytes(r: &Reach, at: usize, data: &[u8]) -> Result<(), Failure> {
    if let Some(addr) = r.direct {
        // SAFETY: `reach` checked the access's span against the target's part of the
        // window, mapped here until the collective MPI_Win_free; `data` lies within it.
        unsafe { target::write_at(addr + at, data) };
        return Ok(());
    }
    put_far(r, at, data)
}

/// [`put_bytes`] to target bytes this process does not map: by cross-memory attach, or
/// as messages.
#[inline(never)]
fn put_far(r: &Reach, at: usize, data: &[u8]) -> Result<(), Failure> {
    // Anything the kernel refuses goes as messages, whose target checks it again.
    if let Some((pid, addr)) = r.attach {
        if am::cma::write(pid, (addr + at) as u64, data).is_ok() {
            return Ok(());
        }
    }
    for (i, chunk) in data.chunks(request::room()).enumerate() {
        r.call(request(Kind::Put, [0; 3], chunk), at + i * request::room())?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn put(
    buf: *const c_void,
    n: c_int,
    ot: Handle,
    target: c_int,
    disp: MpiAint,
    tn: c_int,
    tt: Handle,
    win: Handle,
) -> Result<(), Failure> {
    if let Some(len) = plain(n, ot, tn, tt) {
        return match reach(win, target, disp, (0, len))? {
            Some(r) => put_bytes(&r, 0, user_bytes(buf, len)?),
            None => Ok(()),
        };
    }
    put_typed((buf, n, ot), (target, disp, tn, tt), win)
}

/// A put with a derived datatype (or padded elements) on either side: packed, then moved
/// run by run.
#[inline(never)]
fn put_typed(
    (buf, n, ot): (*const c_void, c_int, Handle),
    (target, disp, tn, tt): (c_int, MpiAint, c_int, Handle),
    win: Handle,
) -> Result<(), Failure> {
    let data = pack(buf, count(n)?, &datatype(ot)?)?;
    let shape = target_shape(tn, tt, data.len())?;
    let Some(r) = reach(win, target, disp, (shape.lo, shape.span))? else {
        return Ok(());
    };
    if r.direct.is_none() && r.attach.is_none() {
        return send_runs(&r, (Kind::PutRuns, [0; 3], 1), &shape.runs, &data).map(drop);
    }
    for (at, piece) in shape.pieces(&data) {
        put_bytes(&r, at, piece)?;
    }
    Ok(())
}

/// `runs` cut into requests whose count, table and bytes each fit one message (a run
/// longer than that split over several, at a multiple of `unit` bytes), in order.
fn batches(runs: &[(usize, usize)], unit: usize) -> Vec<Vec<(usize, usize)>> {
    let room = request::room() - 8;
    let (mut out, mut batch, mut used) = (Vec::new(), Vec::new(), 0);
    for &(mut off, mut len) in runs {
        while len > 0 {
            if used + request::RUN_ENTRY + unit > room {
                out.push(std::mem::take(&mut batch));
                used = 0;
            }
            let fits = (room - used - request::RUN_ENTRY) / unit * unit;
            let step = len.min(fits);
            batch.push((off, step));
            used += request::RUN_ENTRY + step;
            (off, len) = (off + step, len - step);
        }
    }
    if !batch.is_empty() {
        out.push(batch);
    }
    out
}

/// A runs request's count and table for `batch`.
fn table(batch: &[(usize, usize)], bytes: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(8 + batch.len() * request::RUN_ENTRY + bytes);
    body.extend_from_slice(&(batch.len() as u64).to_le_bytes());
    for &(off, len) in batch {
        body.extend_from_slice(&(off as u64).to_le_bytes());
        body.extend_from_slice(&(len as u64).to_le_bytes());
    }
    body
}

/// Puts (or accumulates, `kind` and `args` say) the packed `data` of a derived target
/// type's `runs` through the target's handler, as many runs per message as fit, each
/// split at a multiple of `unit` bytes; what comes back, in order.
fn send_runs(
    r: &Reach,
    (kind, args, unit): (Kind, [u64; 3], usize),
    runs: &[(usize, usize)],
    data: &[u8],
) -> Result<Vec<u8>, Failure> {
    let (mut at, mut back) = (0, Vec::new());
    for batch in batches(runs, unit) {
        let bytes: usize = batch.iter().map(|b| b.1).sum();
        let mut body = table(&batch, bytes);
        body.extend_from_slice(&data[at..at + bytes]);
        at += bytes;
        back.extend(r.call(request(kind, args, &body), 0)?);
    }
    Ok(back)
}

/// Gets the bytes of a derived target type's `runs`, packed, as many per message as fit.
fn get_runs(r: &Reach, runs: &[(usize, usize)]) -> Result<Vec<u8>, Failure> {
    let mut data = Vec::new();
    for batch in batches(runs, 1) {
        let body = table(&batch, 0);
        data.extend(r.call(request(Kind::GetRuns, [0; 3], &body), 0)?);
    }
    Ok(data)
}

/// Reads the `len` target bytes of `r` by cross-memory attach straight into the caller's
/// `buf` (one copy): whether it could.
fn attach_read(r: &Reach, buf: *mut c_void, len: usize) -> bool {
    let Some((pid, addr)) = r.attach else {
        return false;
    };
    if len == 0 {
        return true;
    }
    // SAFETY: `buf` is not NULL (the caller checked) and holds `len` bytes that nothing
    // else reads or writes during the call (mpi.h's contract).
    let into = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    am::cma::read(pid, addr as u64, into).is_ok()
}

/// The `len` target bytes at `at` bytes into the access `r` (within its checked span).
fn fetch(r: &Reach, at: usize, len: usize) -> Result<Vec<u8>, Failure> {
    if let Some(addr) = r.direct {
        // SAFETY: as in `put_bytes`.
        return Ok(unsafe { target::read_at(addr + at, len) });
    }
    if let Some((pid, addr)) = r.attach {
        let mut data = vec![0; len];
        if am::cma::read(pid, (addr + at) as u64, &mut data).is_ok() {
            return Ok(data);
        }
    }
    let mut data = Vec::with_capacity(len);
    while data.len() < len {
        let step = (len - data.len()).min(request::room());
        let req = request(Kind::Get, [step as u64, 0, 0], &[]);
        data.extend(r.call(req, at + data.len())?);
    }
    Ok(data)
}

#[allow(clippy::too_many_arguments)] // MPI's own argument list
fn get(
    buf: *mut c_void,
    n: c_int,
    ot: Handle,
    target: c_int,
    disp: MpiAint,
    tn: c_int,
    tt: Handle,
    win: Handle,
) -> Result<(), Failure> {
    if let Some(len) = plain(n, ot, tn, tt) {
        let Some(r) = reach(win, target, disp, (0, len))? else {
            return Ok(());
        };
        user_bytes(buf, len)?; // NULL is refused before anything is read
        if let Some(addr) = r.direct {
            // SAFETY: `buf` holds `len` bytes (mpi.h's contract); the target bytes are
            // the span `reach` checked, mapped here until the collective MPI_Win_free.
            unsafe { target::copy(addr, buf as usize, len) };
            return Ok(());
        }
        return get_far(&r, buf, len);
    }
    get_typed((buf, n, ot), (target, disp, tn, tt), win)
}

/// The `len` bytes of a get to target bytes this process does not map into `buf`: by
/// cross-memory attach, or as messages.
#[inline(never)]
fn get_far(r: &Reach, buf: *mut c_void, len: usize) -> Result<(), Failure> {
    if !attach_read(r, buf, len) {
        let data = fetch(r, 0, len)?;
        // SAFETY: `buf` holds `len` bytes (mpi.h's contract), and `data` has `len`.
        unsafe { target::write_at(buf as usize, &data) };
    }
    Ok(())
}

/// A get with a derived datatype (or padded elements) on either side: run by run, then
/// unpacked.
#[inline(never)]
fn get_typed(
    (buf, n, ot): (*mut c_void, c_int, Handle),
    (target, disp, tn, tt): (c_int, MpiAint, c_int, Handle),
    win: Handle,
) -> Result<(), Failure> {
    let (n, odt) = (count(n)?, datatype(ot)?);
    let len = odt.bytes(n).map_err(err)?;
    let shape = target_shape(tn, tt, len)?;
    let Some(r) = reach(win, target, disp, (shape.lo, shape.span))? else {
        return Ok(());
    };
    let data = if r.direct.is_none() && r.attach.is_none() {
        get_runs(&r, &shape.runs)?
    } else {
        let mut data = Vec::with_capacity(len);
        for &(at, len) in &shape.runs {
            data.extend(fetch(&r, at, len)?);
        }
        data
    };
    unpack(&data, buf, n, &odt)
}

/// What an accumulate combines: the origin's operation, bytes and the target's type.
struct Combine {
    origin: (*const c_void, c_int, Handle),
    /// Where the old contents go (get-accumulate), as (buffer, count, type).
    result: Option<(*mut c_void, c_int, Handle)>,
    target: (c_int, MpiAint, c_int, Handle),
    op: Handle,
    win: Handle,
}

/// The handle of predefined type `p` (one of them, where several share a layout): what
/// names an accumulate's elements to the target.
fn basic_handle(p: Predef) -> Handle {
    (DATATYPE_NULL..DATATYPE_NULL + 0x60)
        .find(|&h| predef(h) == Some(p))
        .expect("every predefined type has a handle")
}

/// The common atomic: one element of a predefined type of 1, 2, 4 or 8 bytes, the same
/// type at origin, target and result, a predefined operation, and target memory this
/// process reaches (a fetch-and-op or one-element accumulate over shared memory). It runs
/// as one atomic instruction (or compare-and-swap loop) in place, the old value written
/// straight to the result: no packing, no allocation, no lookup but the window's and the
/// datatype's. `None` when the call is not of that shape (nothing was done).
fn one_element(a: &Combine) -> Option<Result<(), Failure>> {
    let (target, disp, tn, tt) = a.target;
    let (buf, n, ot) = a.origin;
    let same = |(rn, rt): (c_int, Handle)| rn == 1 && rt == tt;
    if (n, tn, ot) != (1, 1, tt) || !a.result.is_none_or(|(_, rn, rt)| same((rn, rt))) {
        return None;
    }
    let w = plain_size(tt).filter(|&w| w <= 8)?;
    let op = predefined_op(a.op)?;
    let addr = match reach(a.win, target, disp, (0, w)) {
        Ok(r) => r?.local()?,
        Err(e) => return Some(Err(e)),
    };
    Some((|| {
        let mut data = [0u8; 8];
        if a.op != NO_OP {
            data[..w].copy_from_slice(user_bytes(buf, w)?);
        }
        let result = match a.result {
            // SAFETY: the caller's contract (mpi.h): the result buffer holds one element,
            // `w` bytes, which `user_bytes` checked is not NULL.
            Some((res, _, _)) => Some(unsafe {
                user_bytes(res, w)?;
                std::slice::from_raw_parts_mut(res.cast::<u8>(), w)
            }),
            None => None,
        };
        // The datatype where it is stored (a predefined operation reaches no registry).
        let done = with_datatype(tt, |dt| {
            // SAFETY: `reach` checked the element's `w` bytes lie in the target's part of
            // the window, mapped here until the collective MPI_Win_free; every accumulate
            // on them goes element-wise through `atomic` (their type and address decide
            // it, as here).
            unsafe { atomic::accumulate(addr, &data[..w], (dt, &op), result) }
        })?;
        match done {
            Some(done) => done,
            // Misaligned: the general path serializes it under the guard.
            None => accumulate_general(a),
        }
    })())
}

fn accumulate(a: Combine) -> Result<(), Failure> {
    match one_element(&a) {
        Some(done) => done,
        None => accumulate_general(&a),
    }
}

fn accumulate_general(a: &Combine) -> Result<(), Failure> {
    let (target, disp, tn, tt) = a.target;
    let tdt = datatype(tt)?;
    let tlen = tdt.bytes(count(tn)?).map_err(err)?;
    if tlen == 0 {
        return accumulate_nothing(a);
    }
    // The operation combines the one predefined type the target's type is made of.
    let basic = tdt.element().ok_or_else(|| {
        type_error("an accumulate's target datatype must be made of one predefined type".into())
    })?;
    let (basic_h, bdt) = match predef(tt) {
        Some(_) => (tt, tdt.clone()),
        None => (basic_handle(basic), Datatype::predefined(basic)),
    };
    let whole = plain(a.origin.1, a.origin.2, tn, tt);
    let data = origin_data(a, tlen, whole.is_some(), basic)?;
    let (shape, data) = accumulate_shape((tn, tt), &bdt, whole, data)?;
    // The operation must apply to the type before any byte moves.
    let op = super::super::handles::op(a.op, basic_h)?;
    op.check(&bdt).map_err(err)?;
    let Some(r) = reach(a.win, target, disp, (shape.lo, shape.span))? else {
        return Ok(());
    };
    let fetching = a.result.is_some();
    let args = [a.op as u64, basic_h as u64, fetching as u64];
    let unit = elements::reach(&bdt).max(1);
    let old = match r.local() {
        None if shape.runs.len() > 1 => {
            send_runs(&r, (Kind::AccumulateRuns, args, unit), &shape.runs, &data)?
        }
        local => {
            let mut old = Vec::new();
            for (at, piece) in shape.pieces(&data) {
                let before = match local {
                    // SAFETY: `piece` lies in the span `reach` checked, mapped here until
                    // the collective MPI_Win_free; every accumulate on the window passes
                    // the same guard (none: this process owns it and serves the others).
                    Some(addr) => unsafe {
                        target::accumulate_at(addr + at, piece, (&bdt, &op), fetching, r.guard)
                    }?,
                    None => accumulate_remote(&r, (at, piece), args, unit)?,
                };
                if old.is_empty() {
                    old = before;
                } else {
                    old.extend(before);
                }
            }
            old
        }
    };
    deliver(a.result, &old, (tn, tt))
}

/// An accumulate of no bytes (a zero count, or a type of none): only the call's epoch
/// and target are checked, and the origin must bring nothing either.
fn accumulate_nothing(a: &Combine) -> Result<(), Failure> {
    let (target, disp, _, _) = a.target;
    let (_, n, ot) = a.origin;
    let olen = datatype(ot)?.bytes(count(n)?).map_err(err)?;
    if olen != 0 && a.op != NO_OP {
        return Err(type_error(format!(
            "the origin has {olen} bytes, the target 0"
        )));
    }
    reach(a.win, target, disp, (0, 0)).map(drop)
}

/// The `tlen` bytes an accumulate combines into its target: zeros for `MPI_NO_OP`, the
/// caller's buffer itself when `whole` (predefined on both sides), else the origin packed,
/// which must be made of the target's `basic` type.
fn origin_data<'a>(
    a: &Combine,
    tlen: usize,
    whole: bool,
    basic: Predef,
) -> Result<Cow<'a, [u8]>, Failure> {
    let (buf, n, ot) = a.origin;
    if a.op == NO_OP {
        return Ok(Cow::Owned(vec![0; tlen]));
    }
    if whole {
        return Ok(Cow::Borrowed(user_bytes(buf, tlen)?));
    }
    let odt = datatype(ot)?;
    if odt.element() != Some(basic) {
        return Err(type_error(format!(
            "the origin's datatype is not made of the target's {}",
            basic.name()
        )));
    }
    Ok(Cow::Owned(pack(buf, count(n)?, &odt)?))
}

/// Where an accumulate's `data` goes among `tn` elements of the target's type `tt`, made of
/// `bdt`: one run per element when its elements have holes (with the data spread to
/// their layout), one run when both sides are predefined (`whole`), else its type map's.
fn accumulate_shape<'a>(
    (tn, tt): (c_int, Handle),
    bdt: &Datatype,
    whole: Option<usize>,
    data: Cow<'a, [u8]>,
) -> Result<(Shape, Cow<'a, [u8]>), Failure> {
    Ok(match whole {
        _ if elements::has_holes(bdt) => (
            element_shape(tn, tt, bdt, data.len())?,
            Cow::Owned(
                data.chunks(bdt.size())
                    .flat_map(|e| elements::spread(bdt, e))
                    .collect(),
            ),
        ),
        // Predefined on both sides: one run, nothing to walk.
        Some(len) if len == data.len() => (
            Shape {
                runs: vec![(0, len)],
                lo: 0,
                span: len,
            },
            data,
        ),
        _ => (target_shape(tn, tt, data.len())?, data),
    })
}

/// Accumulates the run `piece` at `at` bytes into `r` through the target's handler, whole
/// elements of `unit` bytes per request; the bytes it held before.
fn accumulate_remote(
    r: &Reach,
    (at, piece): (usize, &[u8]),
    args: [u64; 3],
    unit: usize,
) -> Result<Vec<u8>, Failure> {
    let step = (request::room() / unit * unit).max(unit);
    let mut before = Vec::new();
    for (i, chunk) in piece.chunks(step).enumerate() {
        let req = request(Kind::Accumulate, args, chunk);
        before.extend(r.call(req, at + i * step)?);
    }
    Ok(before)
}

/// Writes a get-accumulate's `old` target bytes (of `tn` elements of `tt`) to its result
/// buffer, if it has one.
fn deliver(
    result: Option<(*mut c_void, c_int, Handle)>,
    old: &[u8],
    (tn, tt): (c_int, Handle),
) -> Result<(), Failure> {
    match result {
        Some((res, rn, rt)) if plain(rn, rt, tn, tt).is_some() => {
            // NULL is refused.
            user_bytes(res, old.len())?;
            // SAFETY: `res` holds `rn` elements of `rt`, the `old.len()` bytes of the
            // target's (mpi.h's contract; `plain` checked the two agree).
            unsafe { target::write_at(res as usize, old) };
            Ok(())
        }
        Some((res, rn, rt)) => unpack(old, res, count(rn)?, &datatype(rt)?),
        None => Ok(()),
    }
}

fn compare_and_swap(
    new: *const c_void,
    expect: *const c_void,
    result: *mut c_void,
    t: Handle,
    target: c_int,
    disp: MpiAint,
    win: Handle,
) -> Result<(), Failure> {
    if predef(t).is_none() {
        return Err((
            super::super::abi::MPI_ERR_TYPE,
            "compare-and-swap takes a predefined datatype".into(),
        ));
    }
    let dt = datatype(t)?;
    let mut data = pack(expect, 1, &dt)?;
    data.extend(pack(new, 1, &dt)?);
    let Some(r) = reach(win, target, disp, (0, dt.size()))? else {
        return Ok(());
    };
    let old = match r.local() {
        // SAFETY: as for an accumulate in `accumulate`, for the element's bytes.
        Some(addr) => unsafe {
            target::compare_swap_at(addr, &data[..dt.size()], &data[dt.size()..], r.guard)
        },
        None => r.call(request(Kind::CompareSwap, [0; 3], &data), 0)?,
    };
    unpack(&old, result, 1, &dt)
}

/// Writes a request complete from the start: the operation completed when it ran.
fn done(request: *mut Handle) -> Result<(), Failure> {
    out(request, put_request(clump_mpi::Request::completed())?)
        .map_err(|e| (e, "NULL request".into()))
}

fn combine(
    origin: (*const c_void, c_int, Handle),
    result: Option<(*mut c_void, c_int, Handle)>,
    target: (c_int, MpiAint, c_int, Handle),
    op: Handle,
    win: Handle,
) -> Combine {
    Combine {
        origin,
        result,
        target,
        op,
        win,
    }
}

mpi_functions! {
    fn Put(
        buf: *const c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, win: Handle,
    ) -> c_int {
        on(win, || put(buf, n, ot, target, disp, tn, tt, win))
    }

    fn Rput(
        buf: *const c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, win: Handle, req: *mut Handle,
    ) -> c_int {
        on(win, || {
            put(buf, n, ot, target, disp, tn, tt, win)?;
            done(req)
        })
    }

    fn Get(
        buf: *mut c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, win: Handle,
    ) -> c_int {
        on(win, || get(buf, n, ot, target, disp, tn, tt, win))
    }

    fn Rget(
        buf: *mut c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, win: Handle, req: *mut Handle,
    ) -> c_int {
        on(win, || {
            get(buf, n, ot, target, disp, tn, tt, win)?;
            done(req)
        })
    }

    fn Accumulate(
        buf: *const c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, op: Handle, win: Handle,
    ) -> c_int {
        on(win, || accumulate(combine((buf, n, ot), None, (target, disp, tn, tt), op, win)))
    }

    fn Raccumulate(
        buf: *const c_void, n: c_int, ot: Handle, target: c_int, disp: MpiAint, tn: c_int,
        tt: Handle, op: Handle, win: Handle, req: *mut Handle,
    ) -> c_int {
        on(win, || {
            accumulate(combine((buf, n, ot), None, (target, disp, tn, tt), op, win))?;
            done(req)
        })
    }

    fn Get_accumulate(
        buf: *const c_void, n: c_int, ot: Handle, res: *mut c_void, rn: c_int, rt: Handle,
        target: c_int, disp: MpiAint, tn: c_int, tt: Handle, op: Handle, win: Handle,
    ) -> c_int {
        on(win, || {
            accumulate(combine((buf, n, ot), Some((res, rn, rt)), (target, disp, tn, tt), op, win))
        })
    }

    fn Rget_accumulate(
        buf: *const c_void, n: c_int, ot: Handle, res: *mut c_void, rn: c_int, rt: Handle,
        target: c_int, disp: MpiAint, tn: c_int, tt: Handle, op: Handle, win: Handle,
        req: *mut Handle,
    ) -> c_int {
        on(win, || {
            accumulate(combine((buf, n, ot), Some((res, rn, rt)), (target, disp, tn, tt), op, win))?;
            done(req)
        })
    }

    fn Fetch_and_op(
        buf: *const c_void, res: *mut c_void, t: Handle, target: c_int, disp: MpiAint,
        op: Handle, win: Handle,
    ) -> c_int {
        on(win, || accumulate(combine((buf, 1, t), Some((res, 1, t)), (target, disp, 1, t), op, win)))
    }

    fn Compare_and_swap(
        new: *const c_void, expect: *const c_void, res: *mut c_void, t: Handle, target: c_int,
        disp: MpiAint, win: Handle,
    ) -> c_int {
        on(win, || compare_and_swap(new, expect, res, t, target, disp, win))
    }
}
