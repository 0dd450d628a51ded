//! The process's MPI state: the clump job, the engine, the thresholds, and progress.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clump::config::layers::MpiVars;
use clump::spmd::Spmd;

use crate::engine::{Action, Engine, ReqKind};
use crate::error::{Error, ErrorClass, Result};
use crate::idle;
use crate::matching::{Envelope, Pattern};
use crate::send_queue::SendQueue;
use crate::slots::Slots;
use clump::IdleWait;

pub(crate) const H_EAGER: usize = 1;
pub(crate) const H_RTS: usize = 2;
pub(crate) const H_CTS: usize = 3;
pub(crate) const H_DATA: usize = 4;
pub(crate) const H_FIN: usize = 5;
pub(crate) const H_EAGER_INLINE: usize = 6;
pub(crate) const H_EAGER_SHORT: usize = 7;
pub(crate) const H_PUSH: usize = 8;
pub(crate) const H_WROTE: usize = 9;
pub(crate) const H_CANCEL: usize = 10;
pub(crate) const H_CANCELLED: usize = 11;

/// Arguments ahead of the data words of an eager message sent inline.
const INLINE_HEAD: usize = 5;
/// The largest message that travels in a short request's arguments (no bulk buffer to
/// claim and copy through).
pub(crate) const INLINE_MAX: usize = (clump::MAX_ARGS - INLINE_HEAD) * 4;

/// How a send completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendMode {
    /// Once the buffer may be reused (eager: at once; rendezvous: once the data is sent).
    Standard,
    /// Only once a receive has matched it: always by rendezvous, whose clear to send says so.
    Synchronous,
}

/// Protocol thresholds, from `CLUMP_MPI_*`.
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    /// Largest message sent eagerly to a peer on this host.
    pub eager_shm: usize,
    /// Largest message sent eagerly to a peer on another host.
    pub eager_net: usize,
    /// Bound on the bytes of unexpected eager messages held.
    pub unexpected_bytes: usize,
    /// How long a blocking call polls before it sleeps (`None`: chosen at init).
    pub spin_us: Option<usize>,
    /// Largest contribution of a rank to a collective that goes through shared-memory
    /// slots on one host (0: never).
    pub shm_coll: usize,
}

/// Arguments of a request to send; a sender of this host adds its pid and buffer address.
pub(crate) const RTS_ARGS: usize = 8;

/// Largest medium payload minus nothing: a chunk of rendezvous data.
pub(crate) const CHUNK: usize = clump::MAX_MEDIUM;

impl Thresholds {
    /// The thresholds the environment sets.
    pub fn from_env() -> Result<Thresholds> {
        Ok(Thresholds::of(&vars()?))
    }

    /// The thresholds among MPI's variables, as clump's configuration read them.
    pub fn of(vars: &MpiVars) -> Thresholds {
        Thresholds {
            eager_shm: vars.eager_shm,
            eager_net: vars.eager_net,
            unexpected_bytes: vars.unexpected_bytes,
            shm_coll: vars.shm_coll,
            spin_us: vars.spin_us,
        }
    }
}

/// MPI's `CLUMP_MPI_*` variables, read and checked by clump's configuration.
pub(crate) fn vars() -> Result<MpiVars> {
    MpiVars::from_env().map_err(|e| Error::new(ErrorClass::Arg, e.to_string()))
}

/// Work in flight that moves on as the runtime makes progress: a non-blocking
/// collective's schedule. The schedules sit above the runtime, which only advances them.
pub(crate) trait Advance {
    /// Moves on as far as completed messages allow; true once finished.
    fn advance(&mut self, rt: &Runtime) -> bool;
}

/// The tag of a persistent collective, taken when it is initialised: MPI orders a
/// communicator's persistent collectives by their init calls (their starts may come in
/// any order), so each start runs under the tag its init took.
#[derive(Clone, Copy, Debug)]
pub struct CollTag {
    pub(crate) ctx: u32,
    pub(crate) tag: i32,
}

pub struct Runtime {
    pub spmd: RefCell<Spmd>,
    pub engine: Rc<RefCell<Engine>>,
    pub thresholds: Thresholds,
    pub start: Instant,
    /// The job rank that leads each job rank's host: the lowest rank it reaches through
    /// shared memory (collectives combine within a host before crossing the network).
    pub host_leaders: Vec<u32>,
    /// `MPI_Get_processor_name`'s answer: the host, as `host_leaders` groups them.
    pub processor_name: String,
    /// How long a blocking call polls before it sleeps in clump's event wait.
    pub spin: Duration,
    /// The lowest communicator context this process has not used (world and self hold 0
    /// and 1); new communicators agree on one at least this large on every member.
    pub next_ctx: Cell<u32>,
    /// Whether rendezvous to peers of this host offers a single-copy read (cleared once
    /// the kernel refuses one).
    pub(crate) single_copy: Rc<Cell<bool>>,
    /// Whether the sender of a large single-copy message writes part of it while the
    /// receiver reads the rest (the processes of this host have a core each).
    pub(crate) split: bool,
    /// The shared-memory slots of one-step collectives on this host.
    pub slots: Slots,
    /// The non-blocking collectives in flight, in the order they started.
    pub(crate) colls: RefCell<Vec<Box<dyn Advance>>>,
    /// How many schedules each collective context has started (their tags).
    pub(crate) nbc_calls: RefCell<HashMap<u32, u32>>,
    /// The tag the next schedule takes (a persistent collective's start).
    pub(crate) fixed_tag: Cell<Option<CollTag>>,
    /// How many times each context has been idup'ed (the duplicates' contexts).
    pub(crate) idups: RefCell<HashMap<u32, u32>>,
    /// This process's job rank, and whether each job rank is reached through shared
    /// memory (fixed at init; asked on every send).
    pub(crate) me: u32,
    /// This process's id, named in single-copy rendezvous (kept: each `getpid` is a
    /// system call).
    pub(crate) pid: u32,
    pub(crate) local: Vec<bool>,
    /// Whether every rank is on this host: then all that a wait waits for comes through
    /// this endpoint's shared-memory queues, and it looks at them between polls.
    pub(crate) all_local: bool,
    /// The messages that wait for credit, per destination (`send_queue.rs`).
    pub(crate) sendq: SendQueue,
}

clump::process_local! {
    /// The process's runtime (reachable from every thread under `clump::serial`'s rules).
    static RUNTIME: RefCell<Option<Rc<Runtime>>> = RefCell::new(None);
}
/// Whether `init` and `finalize` have run: atomics, since any thread may ask at any time.
static STARTED: AtomicBool = AtomicBool::new(false);
static FINALIZED: AtomicBool = AtomicBool::new(false);

/// The process's runtime, or an error before `init` / after `finalize`.
#[inline]
pub fn get() -> Result<Rc<Runtime>> {
    RUNTIME
        .with(|r| r.borrow().clone())
        .ok_or_else(not_initialized)
}

/// The error of a call before `init` or after `finalize` (kept off the call's path).
#[cold]
#[inline(never)]
fn not_initialized() -> Error {
    Error::new(
        ErrorClass::Other,
        "MPI is not initialized (call init first; it may not be used after finalize)",
    )
}

pub fn is_initialized() -> bool {
    STARTED.load(Ordering::Acquire)
}

pub fn is_finalized() -> bool {
    FINALIZED.load(Ordering::Acquire)
}

pub(crate) fn arg(args: &[u32], i: usize) -> u32 {
    args.get(i).copied().unwrap_or(0)
}

pub(crate) fn wide(args: &[u32], i: usize) -> u64 {
    arg(args, i) as u64 | (arg(args, i + 1) as u64) << 32
}

/// The envelope at the head of an eager message or a request to send.
pub(crate) fn envelope(args: &[u32]) -> Envelope {
    Envelope {
        src: arg(args, 0),
        ctx: arg(args, 1),
        tag: arg(args, 2) as i32,
    }
}

/// The arguments of an eager message of at most [`INLINE_MAX`] bytes carried inline:
/// `head` and the length, then the bytes in little-endian words; returns how many are used.
pub(crate) fn inline_args(head: [u32; 4], data: &[u8], args: &mut [u32; clump::MAX_ARGS]) -> usize {
    args[..4].copy_from_slice(&head);
    args[4] = data.len() as u32;
    for (word, chunk) in args[INLINE_HEAD..].iter_mut().zip(data.chunks(4)) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        *word = u32::from_le_bytes(b);
    }
    INLINE_HEAD + data.len().div_ceil(4)
}

/// The bytes of an inline eager message, into `out`; `None` when its length is bad.
pub(crate) fn inline_data<'a>(args: &[u32], out: &'a mut [u8; INLINE_MAX]) -> Option<&'a [u8]> {
    let len = arg(args, 4) as usize;
    let words = args.get(INLINE_HEAD..)?;
    if len > INLINE_MAX || words.len() * 4 < len {
        return None;
    }
    for (chunk, w) in out.chunks_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    Some(&out[..len])
}

pub(crate) fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The `len` bytes at `buf`; none (whatever `buf` is, even NULL) when `len` is 0.
///
/// # Safety
/// A non-empty `buf` must be valid for reads of `len` bytes while the slice lives.
pub(crate) unsafe fn bytes_at<'a>(buf: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(buf, len) }
    }
}

/// Makes `rt` the process's runtime (the end of `init`).
pub(crate) fn install(rt: Runtime) {
    RUNTIME.with(|r| *r.borrow_mut() = Some(Rc::new(rt)));
    STARTED.store(true, Ordering::Release);
}

/// Completes outstanding traffic, waits for every rank, tells the launcher this process
/// owes nothing more, and leaves the job.
pub fn finalize() -> Result<()> {
    quiesce()?;
    let rt = get()?;
    rt.spmd.borrow_mut().barrier()?;
    rt.spmd.borrow().owe("")?;
    drop(rt);
    RUNTIME.with(|r| *r.borrow_mut() = None);
    FINALIZED.store(true, Ordering::Release);
    Ok(())
}

/// Tells the launcher the call this process must make before it exits (`MPI_Finalize`
/// after `MPI_Init`; `""`: none): a rank that returns from `main` without it then ends
/// the job with a message naming it, instead of leaving its peers waiting for it.
/// `finalize` settles it.
pub fn owe(call: &str) -> Result<()> {
    Ok(get()?.spmd.borrow().owe(call)?)
}

/// Completes this process's outstanding sends, buffered and freed ones included, and
/// drains its endpoint, without ending MPI (what the end of a session owes its peers).
pub fn quiesce() -> Result<()> {
    let rt = get()?;
    rt.wait_until(|e| !e.has_detached() && rt.sendq.is_empty())?;
    rt.spmd.borrow().drain()?;
    Ok(())
}

/// The bundle this process's MPI polls and the job's tag: where another layer (the
/// global address space under MPI's one-sided calls) creates its endpoint, so that
/// every MPI wait also runs that layer's handlers.
pub fn bundle_and_tag() -> Result<(clump::Bundle, u64)> {
    let rt = get()?;
    let spmd = rt.spmd.borrow();
    Ok((spmd.bundle.clone(), spmd.job.job_id()))
}

impl Runtime {
    pub fn rank(&self) -> u32 {
        self.me
    }

    pub fn size(&self) -> u32 {
        self.spmd.borrow().size()
    }

    #[inline]
    pub(crate) fn is_local(&self, dest: u32) -> bool {
        self.local.get(dest as usize).copied().unwrap_or(false)
    }

    pub(crate) fn eager_limit(&self, dest: u32) -> usize {
        if self.is_local(dest) {
            self.thresholds.eager_shm
        } else {
            self.thresholds.eager_net
        }
    }

    pub(crate) fn finish(&self, id: u64) {
        self.engine.borrow_mut().complete(id);
    }

    /// Completes request `id` in error: a message of it could not be sent.
    pub(crate) fn fail(&self, id: u64, class: crate::error::ErrorClass) {
        self.engine.borrow_mut().fail(id, class);
    }

    /// Polls clump and runs what the handlers asked for; true when anything happened.
    pub fn progress(&self) -> Result<bool> {
        let n = self.spmd.borrow().bundle.poll()?;
        self.after_handlers(n)
    }

    /// Runs what the handlers of `n` messages just run asked for; true when anything
    /// happened.
    fn after_handlers(&self, n: usize) -> Result<bool> {
        {
            // Most polls leave nothing to do after the handlers (eager messages).
            let e = self.engine.borrow();
            if e.actions.is_empty()
                && !e.has_detached()
                && e.fault.is_none()
                && self.colls.borrow().is_empty()
                && self.sendq.is_empty()
            {
                return Ok(n > 0);
            }
        }
        // What waited for credit goes first: what the handlers asked for goes behind it.
        let queued = self.send_queued()?;
        let busy = self.send_actions()? || queued || n > 0;
        let busy = self.advance_colls() || busy;
        self.engine.borrow_mut().reap();
        if let Some(f) = self.engine.borrow_mut().fault.take() {
            return Err(f);
        }
        Ok(busy)
    }

    /// Adds receive `recv` (a `ReqKind::Recv`) and posts it for messages `pat` matches, in
    /// one engine borrow; its id. A match with a stored request to send owes its sender
    /// the answer now: a receive the match completed (a synchronous send whose bytes all
    /// came with its request) is never waited on, so no later poll of this process need
    /// send it, and the sender would wait forever.
    #[inline(always)]
    pub(crate) fn post(&self, recv: ReqKind, pat: Pattern) -> Result<u64> {
        let (id, owes) = {
            let mut e = self.engine.borrow_mut();
            let id = e.add_req(recv);
            e.post(id, pat);
            (id, !e.actions.is_empty())
        };
        if owes {
            self.send_actions()?;
        }
        Ok(id)
    }

    /// Sends what the engine asked for (clear to send, data, reads); true when it asked
    /// for anything.
    pub(crate) fn send_actions(&self) -> Result<bool> {
        let actions = std::mem::take(&mut self.engine.borrow_mut().actions);
        let busy = !actions.is_empty();
        for a in actions {
            match a {
                Action::Cts {
                    dest,
                    send_id,
                    recv_id,
                } => self.clear_to_send(dest, send_id, recv_id, None)?,
                Action::Data {
                    send_id,
                    recv_id,
                    range,
                } => self.send_data(send_id, recv_id, range)?,
                Action::Pull {
                    dest,
                    send_id,
                    recv_id,
                    len,
                    from,
                } => match self.pull(dest, send_id, recv_id, from, len)? {
                    None => {
                        self.emit_short(dest, H_FIN, &split(send_id))?;
                    }
                    Some(range) => self.clear_to_send(dest, send_id, recv_id, Some(range))?,
                },
            }
        }
        Ok(busy)
    }

    /// Advances every non-blocking collective in flight, in the order they started; true
    /// when one finished. (A schedule's step may poll, but never starts another.)
    fn advance_colls(&self) -> bool {
        let mut active = std::mem::take(&mut *self.colls.borrow_mut());
        let before = active.len();
        active.retain_mut(|s| !s.advance(self));
        let finished = active.len() < before;
        let mut colls = self.colls.borrow_mut();
        active.append(&mut colls);
        *colls = active;
        finished
    }

    /// Polls until `done` holds, blocking in clump when nothing happens.
    #[inline]
    pub fn wait_until(&self, mut done: impl FnMut(&Engine) -> bool) -> Result<()> {
        // Most often already so (a request a wait of a run finds complete): no poll loop.
        if done(&self.engine.borrow()) {
            return Ok(());
        }
        self.poll_until(done)
    }

    /// [`Runtime::wait_until`] once a first look found `done` false.
    #[inline(never)]
    fn poll_until(&self, mut done: impl FnMut(&Engine) -> bool) -> Result<()> {
        let mut idle = IdleWait::new(self.spin);
        loop {
            if done(&self.engine.borrow()) {
                return Ok(());
            }
            // What a wait on this host waits for is most often a request in this
            // endpoint's queue: when a look finds one, only that queue is polled (the full
            // poll, for replies, credits and the rest, comes when it is empty).
            let request = self.all_local && self.spmd.borrow().ep.shm_request_waiting();
            let busy = if request {
                let n = self.spmd.borrow().ep.poll_shm_requests();
                self.after_handlers(n)?
            } else {
                self.progress()?
            };
            if busy {
                idle.reset();
            } else if !self.sendq.is_empty() {
                // Credits come back in answers a sleeping wait may not wake for (a network
                // peer's credit-only datagram): poll again, letting others run meanwhile.
                std::thread::yield_now();
            } else if !(self.all_local && self.look_for_arrival()) {
                idle.round(&self.spmd.borrow().bundle)?;
            }
        }
    }

    /// Looks at this endpoint's shared-memory queues a while, without polling; true as
    /// soon as a message waits there. A look is one cache line where an empty poll runs
    /// a few hundred instructions, so a message is noticed sooner.
    fn look_for_arrival(&self) -> bool {
        let spmd = self.spmd.borrow();
        for _ in 0..idle::LOOKS {
            if spmd.ep.shm_ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_eager_bytes_round_trip_and_bad_lengths_are_refused() {
        for len in [0, 1, 4, 7, INLINE_MAX] {
            let data: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37)).collect();
            let mut args = [0u32; clump::MAX_ARGS];
            let n = inline_args([1, 2, 3, 4], &data, &mut args);
            assert_eq!(envelope(&args[..n]).tag, 3);
            let mut out = [0u8; INLINE_MAX];
            assert_eq!(inline_data(&args[..n], &mut out), Some(&data[..]));
        }
        let mut out = [0u8; INLINE_MAX];
        assert_eq!(inline_data(&[0, 0, 0, 0, 9, 1], &mut out), None);
        assert_eq!(inline_data(&[0, 0, 0, 0, 99], &mut out), None);
        assert_eq!(inline_data(&[0, 0, 0], &mut out), None);
    }
}
