//! Communicators and groups from C beyond world and self: dup, split, create, free,
//! compare, names, the predefined attributes, and the group operations. New
//! communicators inherit their parent's error handler.

use super::abi::*;
use super::attrs::{answer, Out, Word};
use super::buffers::{ints, ints_out, name_arg, MAX_OBJECT_NAME};
use super::export::{mpi_functions, out, string_out};
use super::handles::*;
use super::wired::{count, on, Failure};
use clump_mpi::{Comparison, Group};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::atomic::AtomicI32;
use std::sync::atomic::Ordering::Relaxed;

/// The values the predefined attributes point at (the standard hands out addresses).
static TAG_UB: c_int = clump_mpi::TAG_UB;
/// `MPI_PROC_NULL`: no process is the host.
static HOST: c_int = clump_mpi::PROC_NULL;
/// `MPI_ANY_SOURCE`: every process can do I/O.
static IO: c_int = clump_mpi::ANY_SOURCE;
static WTIME_IS_GLOBAL: c_int = 0;
static APPNUM: c_int = 0;
/// The job's size, set when the attribute is read.
static UNIVERSE_SIZE: AtomicI32 = AtomicI32::new(0);

fn comparison(c: Comparison) -> c_int {
    match c {
        Comparison::Ident => MPI_IDENT,
        Comparison::Congruent => MPI_CONGRUENT,
        Comparison::Similar => MPI_SIMILAR,
        Comparison::Unequal => MPI_UNEQUAL,
    }
}

/// Writes a new handle through an out-pointer argument.
fn handle_out(ptr: *mut Handle, h: Handle, what: &str) -> Result<(), Failure> {
    out(ptr, h).map_err(|e| (e, format!("NULL {what}")))
}

/// Duplicates `c` into `*newcomm`, attributes copied by their callbacks.
pub fn dup_out(c: Handle, newcomm: *mut Handle) -> Result<(), Failure> {
    let dup = put_comm(Some(comm(c)?.dup().map_err(err)?), c)?;
    super::attrs::copy_all(c, dup)?;
    handle_out(newcomm, dup, "newcomm")
}

/// Gets key `keyval` of communicator `c` into `to` (C's or Fortran's): a predefined
/// attribute is an int the standard hands out a pointer to.
pub fn get_comm_attr(c: Handle, keyval: c_int, to: Out, flag: *mut c_int) -> c_int {
    on(c, || {
        let size = comm(c)?.size();
        let found = match keyval {
            MPI_TAG_UB => Word::int(&TAG_UB),
            MPI_HOST => Word::int(&HOST),
            MPI_IO => Word::int(&IO),
            MPI_WTIME_IS_GLOBAL => Word::int(&WTIME_IS_GLOBAL),
            MPI_APPNUM => Word::int(&APPNUM),
            MPI_LASTUSEDCODE => {
                let last = &super::user_errors::LAST_USED;
                Word::Int(last.load(Relaxed), last.as_ptr())
            }
            MPI_UNIVERSE_SIZE => {
                let world = comm(COMM_WORLD)?.size().max(size);
                UNIVERSE_SIZE.store(world, Relaxed);
                Word::Int(world, UNIVERSE_SIZE.as_ptr())
            }
            _ => return answer(super::attrs::get(c, keyval)?, to, flag),
        };
        answer(Some(found), to, flag)
    })
}

/// Starts duplicating `c` into `*newcomm` (written when the request completes, with the
/// attributes copied by their callbacks then).
pub fn idup_out(c: Handle, newcomm: *mut Handle, req: *mut Handle) -> Result<(), Failure> {
    if newcomm.is_null() {
        return Err((MPI_ERR_ARG, "NULL newcomm".into()));
    }
    let done = move |dup| {
        put_comm(Some(dup), c)
            .and_then(|h| {
                super::attrs::copy_all(c, h).and_then(|()| handle_out(newcomm, h, "newcomm"))
            })
            .map_err(|(_, m)| clump_mpi::Error::new(clump_mpi::ErrorClass::Comm, m))
    };
    let r = comm(c)?.idup(Box::new(done)).map_err(err)?;
    out(req, put_request(r)?).map_err(|e| (e, "NULL request".into()))
}

/// Reads the handle an in-out pointer argument holds.
fn handle_in(ptr: *mut Handle, what: &str) -> Result<Handle, Failure> {
    // SAFETY: a non-NULL handle pointer from C points at a handle.
    unsafe { ptr.as_ref() }
        .copied()
        .ok_or_else(|| (MPI_ERR_ARG, format!("NULL {what}")))
}

/// A group made from `g` by `f`, stored.
fn derive_group(
    g: Handle,
    newgroup: *mut Handle,
    f: impl FnOnce(&Group) -> clump_mpi::Result<Group>,
) -> Result<(), Failure> {
    let made = f(&group(g)?).map_err(err)?;
    handle_out(newgroup, put_group(made), "newgroup")
}

/// The group `f` makes of groups `a` and `b` (union, intersection, difference), stored.
fn set_operation(
    a: Handle,
    b: Handle,
    newgroup: *mut Handle,
    f: fn(&Group, &Group) -> Group,
) -> Result<(), Failure> {
    let other = group(b)?;
    derive_group(a, newgroup, |g| Ok(f(g, &other)))
}

/// The `[first, last, stride]` triples of a range argument.
fn ranges(ptr: *const [c_int; 3], n: c_int) -> Result<Vec<(i32, i32, i32)>, Failure> {
    let flat = ints(ptr.cast(), count(n)? * 3)?;
    Ok(flat.chunks_exact(3).map(|t| (t[0], t[1], t[2])).collect())
}

/// Frees communicator `h` (its attributes first) and sets the program's handle `c` null.
fn release(c: *mut Handle, h: Handle) -> Result<(), Failure> {
    super::attrs::delete_all(h)?;
    free_comm(h)?.free().map_err(err)?;
    handle_out(c, COMM_NULL, "communicator")
}

mpi_functions! {
    fn Comm_dup(c: Handle, newcomm: *mut Handle) -> c_int {
        on(c, || dup_out(c, newcomm))
    }

    fn Comm_idup(c: Handle, newcomm: *mut Handle, req: *mut Handle) -> c_int {
        on(c, || idup_out(c, newcomm, req))
    }

    fn Comm_split(c: Handle, color: c_int, key: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let part = comm(c)?.split(color, key).map_err(err)?;
            handle_out(newcomm, put_comm(part, c)?, "newcomm")
        })
    }

    fn Comm_create(c: Handle, g: Handle, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let made = comm(c)?.create(&group(g)?).map_err(err)?;
            handle_out(newcomm, put_comm(made, c)?, "newcomm")
        })
    }

    fn Comm_create_group(c: Handle, g: Handle, _tag: c_int, newcomm: *mut Handle) -> c_int {
        on(c, || {
            let made = comm(c)?.create_group(&group(g)?).map_err(err)?;
            handle_out(newcomm, put_comm(made, c)?, "newcomm")
        })
    }

    fn Comm_free(c: *mut Handle) -> c_int {
        let h = handle_in(c, "communicator").unwrap_or(COMM_NULL);
        on(h, || release(c, h))
    }

    fn Comm_disconnect(c: *mut Handle) -> c_int {
        // Collective: once every member is here, what they sent each other before has been
        // matched or is pending in requests the program still completes (clump completes
        // them with or without their communicator).
        let h = handle_in(c, "communicator").unwrap_or(COMM_NULL);
        on(h, || {
            clump_mpi::barrier(&comm(h)?).map_err(err)?;
            release(c, h)
        })
    }

    fn Comm_compare(a: Handle, b: Handle, result: *mut c_int) -> c_int {
        on(a, || {
            let (x, y) = (comm(a)?, comm(b)?);
            let r = if a == b { Comparison::Ident } else { x.compare(&y) };
            out(result, comparison(r)).map_err(|e| (e, "NULL result".into()))
        })
    }

    fn Comm_group(c: Handle, g: *mut Handle) -> c_int {
        on(c, || handle_out(g, put_group(comm(c)?.get_group()), "group"))
    }

    fn Comm_get_attr(c: Handle, keyval: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
        get_comm_attr(c, keyval, Out::C(value), flag)
    }

    fn Comm_get_name(c: Handle, name: *mut c_char, len: *mut c_int) -> c_int {
        on(c, || {
            // MPI 4.1 names the null communicator too.
            let text = if c == COMM_NULL { "MPI_COMM_NULL".into() } else { with_comm(c, |e| e.name.clone())? };
            string_out(&text, name, MAX_OBJECT_NAME, len).map_err(|e| (e, "NULL name".into()))
        })
    }

    fn Comm_set_name(c: Handle, name: *const c_char) -> c_int {
        on(c, || {
            let cut = name_arg(name)?;
            with_comm(c, |e| e.name = cut)
        })
    }

    fn Errhandler_free(h: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            // SAFETY: a non-NULL handle pointer from C points at a handle.
            let Some(&handler) = (unsafe { h.as_ref() }) else {
                return Err((MPI_ERR_ARG, "NULL errhandler".into()));
            };
            // A user handler lives on while an object holds it; a predefined one always.
            if !super::errhandlers::predefined(handler) && !super::errhandlers::release(handler) {
                return Err((MPI_ERR_ERRHANDLER, format!("{handler:#x} is no error handler")));
            }
            handle_out(h, 0x140, "errhandler")
        })
    }

    fn Group_size(g: Handle, size: *mut c_int) -> c_int {
        on(COMM_WORLD, || out(size, group(g)?.size()).map_err(|e| (e, "NULL size".into())))
    }

    fn Group_rank(g: Handle, rank: *mut c_int) -> c_int {
        on(COMM_WORLD, || out(rank, group(g)?.rank()).map_err(|e| (e, "NULL rank".into())))
    }

    fn Group_incl(g: Handle, n: c_int, ranks: *const c_int, newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let ranks = ints(ranks, count(n)?)?;
            derive_group(g, newgroup, |g| g.incl(&ranks))
        })
    }

    fn Group_excl(g: Handle, n: c_int, ranks: *const c_int, newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let ranks = ints(ranks, count(n)?)?;
            derive_group(g, newgroup, |g| g.excl(&ranks))
        })
    }

    fn Group_range_incl(g: Handle, n: c_int, r: *const [c_int; 3], newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let r = ranges(r, n)?;
            derive_group(g, newgroup, |g| g.range_incl(&r))
        })
    }

    fn Group_range_excl(g: Handle, n: c_int, r: *const [c_int; 3], newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let r = ranges(r, n)?;
            derive_group(g, newgroup, |g| g.range_excl(&r))
        })
    }

    fn Group_translate_ranks(a: Handle, n: c_int, ranks: *const c_int, b: Handle, out_ranks: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let n = count(n)?;
            let got = group(a)?.translate_ranks(&ints(ranks, n)?, &group(b)?).map_err(err)?;
            ints_out(out_ranks, &got)
        })
    }

    fn Group_union(a: Handle, b: Handle, newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || set_operation(a, b, newgroup, Group::union))
    }

    fn Group_intersection(a: Handle, b: Handle, newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || set_operation(a, b, newgroup, Group::intersection))
    }

    fn Group_difference(a: Handle, b: Handle, newgroup: *mut Handle) -> c_int {
        on(COMM_WORLD, || set_operation(a, b, newgroup, Group::difference))
    }

    fn Group_compare(a: Handle, b: Handle, result: *mut c_int) -> c_int {
        on(COMM_WORLD, || {
            let r = comparison(group(a)?.compare(&group(b)?));
            out(result, r).map_err(|e| (e, "NULL result".into()))
        })
    }

    fn Group_free(g: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            free_group(handle_in(g, "group")?)?;
            handle_out(g, GROUP_NULL, "group")
        })
    }
}
