//! Creating and freeing windows, and what a window tells about itself: group,
//! attributes, name, error handler, and the direct pointers of `MPI_Win_shared_query`.

use super::super::abi::{MpiAint, MPI_ERR_ARG, MPI_ERR_NO_MEM};
use super::super::attrs;
use super::super::buffers::{name_arg, MAX_OBJECT_NAME};
use super::super::export::{mpi_functions, out, string_out};
use super::super::handles::{comm, put_group, ERRORS_ARE_FATAL};
use super::super::wired::{self, Failure};
use super::abi::*;
use super::guard::GUARD_BYTES;
use super::own;
use super::published;
use super::shared::{self, Carved};
use super::space::{self, Space};
use super::window::{self, on, Attrs, Epoch, Member, Owned, Served, Window};
use clump_mpi::Comm;
use std::os::raw::{c_char, c_int, c_void};
use std::rc::Rc;

/// Where a window's memory comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// The caller's, at this address (`MPI_Win_create`).
    Given(usize),
    /// This process's global address space segment, or a region of its own when the
    /// segment has no room ([`own`]).
    Segment,
    /// A region of the host's members (`MPI_Win_allocate_shared`), with the info
    /// object whose hints shape it.
    Shared { info: usize },
    /// None at first: the regions `MPI_Win_attach` adds (`MPI_Win_create_dynamic`).
    Dynamic,
}

/// What each member sends the others: whether its part is ready, then a [`Member`], its
/// process id and the descriptor of its part's own region, if it has one.
const ENTRY: usize = 9 * 8;

fn entry(ok: bool, m: &Member, own: Option<&am::SharedRegion>) -> Vec<u8> {
    let words = [
        ok as u64,
        m.rank as u64,
        m.id as u64,
        m.addr as u64,
        m.size as u64,
        m.disp_unit as u64,
        m.seg_off.map_or(u64::MAX, |o| o as u64),
        std::process::id() as u64,
        own.and_then(|r| r.fd()).map_or(u64::MAX, u64::from),
    ];
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A member as [`entry`] sent it, and its own region's descriptor.
fn member(bytes: &[u8]) -> (bool, Member, Option<u32>) {
    let w = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
    let m = Member {
        rank: w(1) as u32,
        id: w(2) as u32,
        addr: w(3) as usize,
        size: w(4) as usize,
        disp_unit: w(5) as usize,
        seg_off: (w(6) != u64::MAX).then_some(w(6) as usize),
        me: false,
        here: None,
        attach: Some(w(7) as u32),
        table: None,
        guard: None,
    };
    (w(0) != 0, m, u32::try_from(w(8)).ok())
}

/// The size and displacement unit from C, checked.
fn shape(size: MpiAint, disp_unit: MpiAint) -> Result<(usize, usize), Failure> {
    let size = usize::try_from(size).map_err(|_| (MPI_ERR_SIZE, format!("size {size}")))?;
    let unit = usize::try_from(disp_unit)
        .ok()
        .filter(|&u| u > 0)
        .ok_or_else(|| (MPI_ERR_DISP, format!("displacement unit {disp_unit}")))?;
    Ok((size, unit))
}

/// Creates a window over communicator `comm_h` together with its other members; returns
/// its handle and its memory's address here. A member that cannot take part makes every
/// member fail (none waits for it).
fn make(
    comm_h: usize,
    size: MpiAint,
    disp_unit: MpiAint,
    memory: Memory,
) -> Result<(usize, usize), Failure> {
    let c = comm(comm_h)?;
    let space = space::joined(&c, super::target::serve)?;
    if let Memory::Given(_) | Memory::Dynamic = memory {
        // Same-host members copy straight into this process's window memory.
        am::cma::admit_peers();
    }
    let mut problem = None;
    let shape = shape(size, disp_unit).map_err(|e| problem = Some(e)).ok();
    let (size, disp_unit) = shape.unwrap_or((0, 1));
    let Taken {
        addr,
        seg_off,
        carved,
        taken,
        own,
    } = take(&space, &c, memory, shape, &mut problem);
    let mine = Member {
        rank: space.gas.rank(),
        id: window::next_id(),
        addr,
        size,
        disp_unit,
        seg_off,
        me: true,
        here: None,
        attach: None,
        table: None,
        guard: None,
    };
    let n = c.size() as usize;
    let mine = entry(problem.is_none(), &mine, own.as_ref());
    let all = clump_mpi::allgather(&mine, &vec![ENTRY; n], &c).map_err(super::super::handles::err);
    let outcome = all.and_then(|all| members(&space, &all, memory, carved.as_ref(), problem));
    let (members, mapped) = match outcome {
        Ok(m) => m,
        Err(e) => {
            if let Some(t) = taken {
                space.free(t);
            }
            return Err(e);
        }
    };
    let attrs = Attrs {
        base: addr,
        size: size as isize,
        disp_unit: disp_unit as c_int,
        flavor: flavor(memory),
        model: MPI_WIN_UNIFIED,
    };
    let h = store(&c, &space, (members, mapped), attrs, (carved, taken, own));
    // No member may send a request to this window before every member has stored it:
    // the allgather above returns to some members while others are still inside it.
    clump_mpi::barrier(&c).map_err(super::super::handles::err)?;
    Ok((h, addr))
}

/// The memory a window's member takes: its address and segment offset, and what it must
/// give back if the window is not made (the host's shared region, segment bytes at an
/// address, or a region of its own). A failure is kept in `problem` for the members'
/// exchange to report.
struct Taken {
    addr: usize,
    seg_off: Option<usize>,
    carved: Option<Carved>,
    taken: Option<usize>,
    own: Option<am::SharedRegion>,
}

fn take(
    space: &Space,
    c: &Comm,
    memory: Memory,
    shape: Option<(usize, usize)>,
    problem: &mut Option<Failure>,
) -> Taken {
    let mut t = Taken {
        addr: 0,
        seg_off: None,
        carved: None,
        taken: None,
        own: None,
    };
    match memory {
        Memory::Given(addr) => t.addr = addr,
        // Its table of attached regions, for same-host origins.
        Memory::Dynamic => match space.alloc(published::BYTES) {
            Some((table, off)) => {
                published::publish(table, &[]);
                (t.taken, t.seg_off) = (Some(table), Some(off));
            }
            None => drop(problem.get_or_insert(no_room(published::BYTES))),
        },
        Memory::Shared { info } => {
            let noncontig = shared::noncontig(info).map_err(|e| problem.get_or_insert(e));
            let wanted = shape.filter(|_| noncontig.is_ok()).map(|s| s.0);
            match shared::carve(space, c, wanted, noncontig.unwrap_or(false)) {
                Ok(k) => {
                    t.addr = k.part(c.rank() as usize);
                    t.carved = Some(k);
                }
                Err(e) => drop(problem.get_or_insert(e)),
            }
        }
        Memory::Segment => {
            let bytes = shape.map_or(0, |s| s.0);
            match space.alloc(bytes) {
                Some((addr, off)) => (t.addr, t.taken, t.seg_off) = (addr, Some(addr), Some(off)),
                None => match own::create(bytes) {
                    Ok(region) => {
                        t.addr = region.as_ptr() as usize + GUARD_BYTES;
                        t.own = Some(region);
                    }
                    Err(e) => drop(problem.get_or_insert(e)),
                },
            }
        }
    }
    t
}

fn flavor(memory: Memory) -> c_int {
    match memory {
        Memory::Given(_) => MPI_WIN_FLAVOR_CREATE,
        Memory::Dynamic => MPI_WIN_FLAVOR_DYNAMIC,
        Memory::Segment => MPI_WIN_FLAVOR_ALLOCATE,
        Memory::Shared { .. } => MPI_WIN_FLAVOR_SHARED,
    }
}

/// Stores the window made over `c` in this process's registry (with the other members'
/// regions it mapped): its handle.
fn store(
    c: &Comm,
    space: &Rc<Space>,
    (members, mapped): (Vec<Member>, Vec<am::SharedRegion>),
    attrs: Attrs,
    (carved, taken, own): (Option<Carved>, Option<usize>, Option<am::SharedRegion>),
) -> usize {
    let owned = match (carved, taken, own) {
        (Some(k), _, _) => Owned::Shared(k.region),
        (None, Some(t), _) => Owned::Segment(t),
        (None, None, Some(region)) => Owned::Shared(region),
        (None, None, None) => Owned::Nothing,
    };
    window::insert(Window {
        comm: c.clone(),
        space: space.clone(),
        posts: vec![0; c.size() as usize],
        members,
        attrs: Box::new(attrs),
        name: String::new(),
        errhandler: ERRORS_ARE_FATAL,
        epoch: Epoch::default(),
        served: Served::default(),
        owned,
        mapped,
        attached: Vec::new(),
        completions: 0,
        exposed: Vec::new(),
    })
}

fn no_room(size: usize) -> Failure {
    (
        MPI_ERR_NO_MEM,
        format!(
            "no room for {size} bytes in the global address space segment \
             (CLUMP_GAS_SEGMENT sets its size)"
        ),
    )
}

/// Shows a dynamic window's attached regions to the same-host origins.
fn publish(w: &Window) {
    if let Owned::Segment(table) = w.owned {
        published::publish(table, &w.attached);
    }
}

/// The members from what they sent, with the other members' own regions this process
/// mapped; or why the window cannot be.
fn members(
    space: &Space,
    all: &[Vec<u8>],
    memory: Memory,
    carved: Option<&Carved>,
    problem: Option<Failure>,
) -> Result<(Vec<Member>, Vec<am::SharedRegion>), Failure> {
    if let Some(p) = problem {
        return Err(p);
    }
    let parsed: Vec<_> = all.iter().map(|b| member(b)).collect();
    if let Some(r) = parsed.iter().position(|(ok, _, _)| !ok) {
        return Err((
            MPI_ERR_WIN,
            format!("rank {r} of the communicator could not make its part"),
        ));
    }
    let me = space.gas.rank();
    let mut mapped = Vec::new();
    let mut members = Vec::with_capacity(parsed.len());
    for (i, (_, mut m, own)) in parsed.into_iter().enumerate() {
        m.me = m.rank == me;
        let pid = m.attach.take();
        (m.here, m.guard) = match (memory, carved) {
            (Memory::Shared { .. }, Some(k)) => (Some(k.part(i)), Some(k.guard())),
            // The displacement is an address only the target resolves.
            (Memory::Dynamic, _) => (None, None),
            _ => {
                let here = match (m.seg_off, own) {
                    _ if m.me => Some(m.addr),
                    (Some(off), _) => space.direct(m.rank, off),
                    // Mapped where its segment is (same host, direct access).
                    (None, Some(fd)) => space
                        .direct(m.rank, 0)
                        .and(pid)
                        .and_then(|pid| own::map(pid, fd, m.size))
                        .map(|region| {
                            let at = region.as_ptr() as usize + GUARD_BYTES;
                            mapped.push(region);
                            at
                        }),
                    (None, None) => None,
                };
                // Segment memory and own regions keep their guard word before them.
                let guarded = m.seg_off.is_some() || own.is_some();
                (here, here.filter(|_| guarded).map(|a| a - GUARD_BYTES))
            }
        };
        if let Memory::Given(_) | Memory::Dynamic = memory {
            m.attach = pid.filter(|_| !m.me && space.gas.is_local(m.rank));
        }
        if memory == Memory::Dynamic && m.attach.is_some() {
            m.table = m.seg_off.and_then(|off| space.direct(m.rank, off));
        }
        members.push(m);
    }
    Ok((members, mapped))
}

/// Creates a window and writes its handle (and its memory's address) for C.
fn create_out(
    comm_h: usize,
    size: MpiAint,
    disp_unit: MpiAint,
    memory: Memory,
    baseptr: *mut c_void,
    win: *mut usize,
) -> c_int {
    wired::on(comm_h, || {
        let given = matches!(memory, Memory::Given(_) | Memory::Dynamic);
        if win.is_null() || (!given && baseptr.is_null()) {
            return Err((MPI_ERR_ARG, "NULL win or baseptr".into()));
        }
        let (h, addr) = make(comm_h, size, disp_unit, memory)?;
        if !given {
            out(baseptr.cast::<usize>(), addr).map_err(|e| (e, "NULL baseptr".into()))?;
        }
        out(win, h).map_err(|e| (e, "NULL win".into()))
    })
}

/// The address of `rank`'s part of window `w` in this process, with its size and unit,
/// when this process can load and store it (NULL and 0 when it cannot).
fn query(w: &Window, rank: c_int) -> Result<(usize, usize, usize), Failure> {
    let m = if rank == clump_mpi::PROC_NULL {
        // The lowest rank with memory, as MPI says.
        w.members.iter().find(|m| m.size > 0).or(w.members.first())
    } else {
        usize::try_from(rank).ok().and_then(|r| w.members.get(r))
    }
    .ok_or_else(|| (MPI_ERR_RANK, format!("invalid rank {rank}")))?;
    // A member without memory has no base either (NULL, as other implementations give).
    Ok(match m.here {
        Some(addr) if m.size > 0 => (addr, m.size, m.disp_unit),
        _ => (0, 0, m.disp_unit),
    })
}

fn shared_query_out<U: TryFrom<usize>>(
    win: usize,
    rank: c_int,
    size: *mut MpiAint,
    disp_unit: *mut U,
    baseptr: *mut c_void,
) -> c_int {
    on(win, || {
        let (addr, len, unit) = window::with(win, |w| query(w, rank))?;
        let unit = U::try_from(unit).map_err(|_| (MPI_ERR_DISP, "unit too large".into()))?;
        let arg = |e| (e, "NULL size, disp_unit or baseptr".to_owned());
        out(size, len as MpiAint).map_err(arg)?;
        out(disp_unit, unit).map_err(arg)?;
        out(baseptr.cast::<usize>(), addr).map_err(arg)
    })
}

mpi_functions! {
    fn Win_create(
        base: *mut c_void, size: MpiAint, disp_unit: c_int, _info: usize, comm: usize,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit as MpiAint, Memory::Given(base as usize), std::ptr::null_mut(), win)
    }

    fn Win_create_c(
        base: *mut c_void, size: MpiAint, disp_unit: MpiAint, _info: usize, comm: usize,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit, Memory::Given(base as usize), std::ptr::null_mut(), win)
    }

    fn Win_allocate(
        size: MpiAint, disp_unit: c_int, _info: usize, comm: usize, baseptr: *mut c_void,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit as MpiAint, Memory::Segment, baseptr, win)
    }

    fn Win_allocate_c(
        size: MpiAint, disp_unit: MpiAint, _info: usize, comm: usize, baseptr: *mut c_void,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit, Memory::Segment, baseptr, win)
    }

    fn Win_allocate_shared(
        size: MpiAint, disp_unit: c_int, info: usize, comm: usize, baseptr: *mut c_void,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit as MpiAint, Memory::Shared { info }, baseptr, win)
    }

    fn Win_allocate_shared_c(
        size: MpiAint, disp_unit: MpiAint, info: usize, comm: usize, baseptr: *mut c_void,
        win: *mut usize,
    ) -> c_int {
        create_out(comm, size, disp_unit, Memory::Shared { info }, baseptr, win)
    }

    fn Win_shared_query(
        win: usize, rank: c_int, size: *mut MpiAint, disp_unit: *mut c_int, baseptr: *mut c_void,
    ) -> c_int {
        shared_query_out(win, rank, size, disp_unit, baseptr)
    }

    fn Win_shared_query_c(
        win: usize, rank: c_int, size: *mut MpiAint, disp_unit: *mut MpiAint, baseptr: *mut c_void,
    ) -> c_int {
        shared_query_out(win, rank, size, disp_unit, baseptr)
    }

    fn Win_free(win: *mut usize) -> c_int {
        // SAFETY: a non-NULL window pointer from C points at a window handle.
        let h = unsafe { win.as_ref() }.copied().unwrap_or(WIN_NULL);
        on(h, || {
            let c = window::with(h, |w| {
                // A fence ends its epoch by itself: the window may be freed after one.
                if w.epoch.needs_closing() {
                    return Err((MPI_ERR_RMA_SYNC, "the window is freed inside an epoch".into()));
                }
                Ok(w.comm.clone())
            })?;
            // No member frees its memory while another may still reach it (nor while
            // an access posted to it is under way).
            if let Some(space) = space::current() {
                space.settle(None)?;
            }
            clump_mpi::barrier(&c).map_err(super::super::handles::err)?;
            // The program's attributes go first: a delete callback that fails fails the call.
            attrs::delete_all(h)?;
            let w = window::remove(h)?;
            // The other members' regions go now, when no access can reach them.
            drop(w.mapped);
            super::super::errhandlers::release(w.errhandler);
            if let (Owned::Segment(addr), Some(space)) = (&w.owned, space::current()) {
                space.free(*addr);
            }
            out(win, WIN_NULL).map_err(|e| (e, "NULL win".into()))
        })
    }

    fn Win_create_dynamic(_info: usize, comm: usize, win: *mut usize) -> c_int {
        create_out(comm, 0, 1, Memory::Dynamic, std::ptr::null_mut(), win)
    }

    fn Win_attach(win: usize, base: *mut c_void, size: MpiAint) -> c_int {
        on(win, || {
            let size = usize::try_from(size).map_err(|_| (MPI_ERR_SIZE, format!("size {size}")))?;
            window::with(win, |w| {
                if w.attrs.flavor != MPI_WIN_FLAVOR_DYNAMIC {
                    return Err((MPI_ERR_RMA_FLAVOR, "attach to a window that is not dynamic".into()));
                }
                w.attached.push((base as usize, size));
                publish(w);
                Ok(())
            })
        })
    }

    fn Win_detach(win: usize, base: *const c_void) -> c_int {
        on(win, || {
            window::with(win, |w| {
                let at = w.attached.iter().position(|&(b, _)| b == base as usize).ok_or_else(|| {
                    (MPI_ERR_RMA_ATTACH, format!("no region is attached at {base:?}"))
                })?;
                w.attached.swap_remove(at);
                publish(w);
                Ok(())
            })
        })
    }

    fn Win_get_group(win: usize, group: *mut usize) -> c_int {
        on(win, || {
            let g = window::with(win, |w| Ok(w.comm.get_group()))?;
            out(group, put_group(g)).map_err(|e| (e, "NULL group".into()))
        })
    }

    fn Win_set_name(win: usize, name: *const c_char) -> c_int {
        on(win, || {
            let name = name_arg(name)?;
            window::with(win, |w| {
                w.name = name;
                Ok(())
            })
        })
    }

    fn Win_get_name(win: usize, name: *mut c_char, len: *mut c_int) -> c_int {
        on(win, || {
            // MPI_WIN_NULL is named as the other null handles are.
            let text = match win {
                WIN_NULL => "MPI_WIN_NULL".to_owned(),
                _ => window::with(win, |w| Ok(w.name.clone()))?,
            };
            string_out(&text, name, MAX_OBJECT_NAME, len).map_err(|e| (e, "NULL name".into()))
        })
    }
}
