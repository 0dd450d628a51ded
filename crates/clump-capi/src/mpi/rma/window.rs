//! The windows of this process: what each member of a window told the others when it was
//! created, this process's epochs as an origin and its locks as a target, in a per-thread
//! table indexed by handle. Nothing here is borrowed across a wait: a target's handler
//! reads the registry while an origin waits.

use super::super::errhandlers;
use super::super::handles::{fatal, Handle, ERRORS_ARE_FATAL, ERRORS_RETURN};
use super::super::wired::Failure;
use super::abi::*;
use super::request::Kind;
use super::space::Space;
use super::window_table::WindowTable;
use clump_mpi::Comm;
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::os::raw::c_int;
use std::rc::Rc;

/// Window handles are this plus the window's id in this process.
const FIRST_WIN: usize = 0x4000_0000;

/// One member of a window as the others see it.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    /// Its job rank (the global address space's rank).
    pub rank: u32,
    /// Its window's id in its own process.
    pub id: u32,
    /// Its window memory's address in its own process, and length.
    pub addr: usize,
    pub size: usize,
    pub disp_unit: usize,
    /// The memory's offset in its global address space segment (allocated windows).
    pub seg_off: Option<usize>,
    /// Whether it is this process, and where its memory is mapped here when this process
    /// loads and stores it (its own part, a same-host member's segment): found once, when
    /// the window is made, not on every access.
    pub me: bool,
    pub here: Option<usize>,
    /// Its process, when this one reaches its memory (the program's own, which it cannot
    /// map) by cross-memory attach: a same-host member of an `MPI_Win_create` window.
    pub attach: Option<u32>,
    /// A dynamic window's table of attached regions ([`super::published`]), where this
    /// process maps it (a same-host member's).
    pub table: Option<usize>,
    /// The guard word of its memory's accumulates, where this process reaches it.
    pub guard: Option<usize>,
}

/// Memory a window took, given back when it is freed.
pub enum Owned {
    /// None: the program's memory, or the regions it attaches.
    Nothing,
    /// Bytes of this process's segment at this address, their guard word before them.
    Segment(usize),
    /// A region of shared memory, guard word first: the one the host's members share
    /// (`MPI_Win_allocate_shared`), or this process's part of an `MPI_Win_allocate`
    /// window the segment had no room for ([`super::own`]).
    Shared(am::SharedRegion),
}

impl Owned {
    /// The guard word of this process's part, when it has one.
    pub fn guard(&self) -> Option<usize> {
        match self {
            Owned::Nothing => None,
            Owned::Segment(addr) => Some(addr - super::guard::GUARD_BYTES),
            Owned::Shared(region) => Some(region.as_ptr() as usize),
        }
    }
}

/// The values `MPI_Win_get_attr` hands out pointers to: they stay put while the window
/// lives.
pub struct Attrs {
    pub base: usize,
    pub size: isize,
    pub disp_unit: c_int,
    pub flavor: c_int,
    pub model: c_int,
}

/// What this process may access now, as an origin.
#[derive(Default)]
pub struct Epoch {
    /// Between fences (a fence without `MPI_MODE_NOSUCCEED` opens one).
    pub fence: bool,
    /// Targets (communicator ranks) locked by `MPI_Win_lock`.
    pub locked: HashMap<usize, Held>,
    /// Every target is locked shared by `MPI_Win_lock_all`: whether the targets' locks
    /// were taken (not under `MPI_MODE_NOCHECK`).
    pub all: Option<bool>,
    /// The targets of the open `MPI_Win_start`.
    pub started: Vec<usize>,
    /// Calls that ended accesses (flushes, unlocks, syncs): [`Space::serve`] polls on
    /// some of them.
    pub ends: u32,
}

impl Epoch {
    /// Counts a call that ends accesses; returns its number.
    pub fn count_end(&mut self) -> u32 {
        self.ends = self.ends.wrapping_add(1);
        self.ends
    }

    /// Inline: a fence or lock_all epoch answers in two loads.
    #[inline(always)]
    pub fn reaches(&self, target: usize) -> bool {
        self.fence || self.all.is_some() || self.reaches_one(target)
    }

    /// Whether `target` is locked or started on.
    #[inline(never)]
    fn reaches_one(&self, target: usize) -> bool {
        self.locked.contains_key(&target) || self.started.contains(&target)
    }

    pub fn is_open(&self) -> bool {
        self.fence || self.needs_closing()
    }

    /// An epoch the program must end itself (lock, lock_all, start); a fence's ends by
    /// itself, so a window may be freed after one.
    pub fn needs_closing(&self) -> bool {
        self.all.is_some() || !self.locked.is_empty() || !self.started.is_empty()
    }
}

/// A lock this process holds on a target.
#[derive(Clone, Copy)]
pub struct Held {
    pub exclusive: bool,
    /// Whether the target's lock was taken (not under `MPI_MODE_NOCHECK`).
    pub taken: bool,
}

/// This window's lock as a target: an exclusive holder, or a count of shared holders.
#[derive(Default)]
pub struct Served {
    pub exclusive: bool,
    pub shared: u32,
}

impl Served {
    /// Takes the lock of `kind` if it is free for it.
    pub fn try_lock(&mut self, exclusive: bool) -> bool {
        if self.exclusive || (exclusive && self.shared > 0) {
            return false;
        }
        if exclusive {
            self.exclusive = true;
        } else {
            self.shared += 1;
        }
        true
    }

    pub fn unlock(&mut self, exclusive: bool) {
        if exclusive {
            self.exclusive = false;
        } else {
            self.shared = self.shared.saturating_sub(1);
        }
    }
}

pub struct Window {
    pub comm: Comm,
    /// The global address space under the window: what serves requests as calls end.
    pub space: Rc<Space>,
    pub members: Vec<Member>,
    pub attrs: Box<Attrs>,
    pub name: String,
    pub errhandler: usize,
    pub epoch: Epoch,
    pub served: Served,
    pub owned: Owned,
    /// Other members' own regions ([`super::own`]) mapped here while the window lives.
    pub mapped: Vec<am::SharedRegion>,
    /// The (address, length) regions attached to a dynamic window.
    pub attached: Vec<(usize, usize)>,
    /// General active target: posts received from each member and not yet started on,
    /// completions received and not yet waited for, and the origins of the open post.
    pub posts: Vec<u32>,
    pub completions: usize,
    pub exposed: Vec<usize>,
}

impl Window {
    /// Counts a post or a completion from member `from`.
    pub fn signal(&mut self, kind: Kind, from: usize) {
        match kind {
            Kind::Post => {
                if let Some(p) = self.posts.get_mut(from) {
                    *p += 1;
                }
            }
            _ => self.completions += 1,
        }
    }

    /// The address here of `len` bytes at byte offset `offset` of this process's part:
    /// for a dynamic window the offset is an address, which an attached region must hold.
    pub fn locate(&self, offset: usize, len: usize) -> Result<usize, Failure> {
        let end = offset.checked_add(len);
        let inside = |(start, size): (usize, usize)| {
            offset >= start && end.is_some_and(|e| e <= start + size)
        };
        if self.attrs.flavor == MPI_WIN_FLAVOR_DYNAMIC {
            if self.attached.iter().any(|&r| inside(r)) || self.covered(offset, end) {
                return Ok(offset);
            }
        } else if inside((0, self.attrs.size as usize)) {
            return Ok(self.attrs.base + offset);
        }
        Err((
            MPI_ERR_RMA_RANGE,
            format!("{len} bytes at {offset:#x} leave the target's window"),
        ))
    }

    /// Whether attached regions that touch or overlap cover the bytes from `from` to `end`
    /// between them (an access may cross from one region into the next).
    fn covered(&self, mut from: usize, end: Option<usize>) -> bool {
        let Some(end) = end else { return false };
        while from < end {
            let reach = self
                .attached
                .iter()
                .filter(|&&(start, size)| start <= from && from < start + size)
                .map(|&(start, size)| start + size)
                .max();
            match reach {
                Some(next) => from = next,
                None => return false,
            }
        }
        true
    }

    /// The member of communicator rank `rank`, checked.
    #[inline]
    pub fn index(&self, rank: c_int) -> Result<usize, Failure> {
        usize::try_from(rank)
            .ok()
            .filter(|&r| r < self.members.len())
            .ok_or_else(|| (MPI_ERR_RANK, format!("invalid rank {rank}")))
    }
}

am::process_local! {
    static WINDOWS: RefCell<WindowTable<Window>> = RefCell::new(WindowTable::new(FIRST_WIN));
}

/// The id the next window of this process gets.
pub fn next_id() -> u32 {
    WINDOWS.with_borrow(|r| r.next_id())
}

/// Stores a window under the id [`next_id`] gave; returns its handle.
pub fn insert(w: Window) -> usize {
    WINDOWS.with_borrow_mut(|r| r.insert(w))
}

fn invalid(h: usize) -> Failure {
    (MPI_ERR_WIN, format!("invalid window handle {h:#x}"))
}

/// Runs `f` on window `h`.
#[inline]
pub fn with<T>(h: usize, f: impl FnOnce(&mut Window) -> Result<T, Failure>) -> Result<T, Failure> {
    WINDOWS.with_borrow_mut(|r| match r.get_mut(h) {
        Some(w) => f(w),
        None => Err(invalid(h)),
    })
}

/// Runs `f` on the window of this process with id `id` (a target's request names it so).
pub fn with_id<T>(id: u32, f: impl FnOnce(&mut Window) -> T) -> Option<T> {
    WINDOWS.with_borrow_mut(|r| r.by_id(id).map(f))
}

pub fn remove(h: usize) -> Result<Window, Failure> {
    WINDOWS
        .with_borrow_mut(|r| r.remove(h))
        .ok_or_else(|| invalid(h))
}

/// Passes an error through window `h`'s handler (fatal unless set otherwise); an invalid
/// window has none, so its errors are fatal.
pub fn handle_error(h: usize, failure: Failure) -> c_int {
    let handler = with(h, |w| Ok(w.errhandler)).unwrap_or(ERRORS_ARE_FATAL);
    raise(h, handler, failure)
}

/// Passes `failure` through `handler`, the handler of window `win`: gives the code back
/// when it returns or is the program's own (after calling it), ends the job otherwise.
pub fn raise(win: Handle, handler: Handle, failure: Failure) -> c_int {
    if handler == ERRORS_RETURN || errhandlers::invoke(handler, win, failure.0) {
        return failure.0;
    }
    fatal(failure)
}

/// Runs the body of a call on window `win`, its error through the window's handler.
pub fn on(win: usize, body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    super::super::export::call(|| body().map_err(|e| handle_error(win, e)))
}
