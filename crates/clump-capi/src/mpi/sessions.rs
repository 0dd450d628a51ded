//! Sessions (MPI 4.0): `MPI_Session_init` opens MPI without the world model, over the
//! same runtime `MPI_Init` starts (the first session starts it if `MPI_Init` has not);
//! its process sets are `mpi://WORLD` and `mpi://SELF`, and `MPI_Comm_create_from_group`
//! and `MPI_Intercomm_create_from_groups` make communicators of groups of them. The runtime cannot start twice in a process,
//! so it stays up after the last session ends (its outstanding sends completed): a later
//! `MPI_Session_init`, or `MPI_Init`, finds it ready.

use super::abi::*;
use super::buffers::text_arg;
use super::errhandlers::{add, fits, hold, invoke, release, ErrFn, Kind};
use super::export::{call, mpi_functions, out, string_out};
use super::handles::*;
use super::info::{check_hints, hint, hints, INFO_NULL};
use super::session_table::{handler_of, inherit, known, on_session, with, Session};
use super::wired::Failure;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};

/// `MPI_SESSION_NULL`.
const SESSION_NULL: Handle = 0x120;
/// `MPI_MAX_PSET_NAME_LEN` and `MPI_MAX_STRINGTAG_LEN` (mpi.h).
const MAX_NAME: usize = 256;
/// The process sets every session has, as `MPI_Session_get_nth_pset` names them.
const PSETS: [&str; 2] = ["mpi://WORLD", "mpi://SELF"];

/// Whether a session started the runtime, which `MPI_Init` then adopts.
static STARTED_BY_SESSION: AtomicBool = AtomicBool::new(false);

/// Whether the running runtime is one a session started and `MPI_Init` has not yet
/// adopted; true once only (the adoption), so a second `MPI_Init` is still refused.
pub fn adopt_runtime() -> bool {
    STARTED_BY_SESSION.swap(false, Ordering::AcqRel)
}

/// Whether MPI runs because `MPI_Init` started it (or adopted a session's runtime).
pub fn world_model() -> bool {
    clump_mpi::initialized() && !STARTED_BY_SESSION.load(Ordering::Acquire)
}

/// The group of process set `name` (compared without case, as the standard's names are).
fn pset_group(name: &str) -> Result<clump_mpi::Group, Failure> {
    let world = comm(COMM_WORLD)?;
    if name.eq_ignore_ascii_case(PSETS[0]) {
        Ok(world.get_group())
    } else if name.eq_ignore_ascii_case(PSETS[1]) {
        world.get_group().incl(&[world.rank()]).map_err(err)
    } else {
        Err((MPI_ERR_ARG, format!("no process set is named {name:?}")))
    }
}

/// Starts the runtime for a session unless it runs.
fn ensure_runtime() -> Result<(), Failure> {
    if clump_mpi::finalized() {
        return Err((
            MPI_ERR_OTHER,
            "MPI_Session_init after MPI_Finalize: clump's runtime starts once per process".into(),
        ));
    }
    if !clump_mpi::initialized() {
        super::runtime_start::start_runtime()?;
        STARTED_BY_SESSION.store(true, Ordering::Release);
    }
    Ok(())
}

/// Tells the launcher what the process owes before it exits when only sessions opened
/// MPI: `MPI_Session_finalize` while one is open, nothing once all are finalized (under
/// the world model, `MPI_Init` and `MPI_Finalize` keep that account).
fn owe_session_finalize() -> Result<(), Failure> {
    if world_model() {
        return Ok(());
    }
    let open = with(|m| !m.is_empty());
    clump_mpi::owe(if open { "MPI_Session_finalize" } else { "" }).map_err(err)
}

/// A communicator made from groups by `make` (given the tag the string `tag` names),
/// with `errhandler`, in `*newcomm`; errors go through `MPI_COMM_SELF`'s handler.
fn from_groups(
    tag: *const c_char,
    errhandler: Handle,
    newcomm: *mut Handle,
    make: impl FnOnce(c_int) -> Result<Option<clump_mpi::Comm>, Failure>,
) -> c_int {
    call(|| {
        let made = (|| {
            let tag = text_arg(tag, MAX_NAME)?;
            if !fits(errhandler, Kind::Comm) && !fits(errhandler, Kind::Session) {
                return Err((
                    MPI_ERR_ERRHANDLER,
                    format!("{errhandler:#x} is no communicator error handler"),
                ));
            }
            put_comm(make(tag_of(&tag))?, COMM_WORLD)
        })()
        .map_err(|e| super::errhandlers::handle_error(COMM_SELF, e))?;
        if made != COMM_NULL {
            hold(errhandler);
            set_errhandler(made, errhandler);
        }
        out(newcomm, made)
    })
}

/// The message tag a string tag names (FNV-1a, folded to a valid tag).
fn tag_of(s: &str) -> c_int {
    let h = s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    (h & 0x7fff_ffff) as c_int
}

mpi_functions! {
    fn Session_init(info: Handle, errhandler: Handle, session: *mut Handle) -> c_int {
        call(|| {
            let started = (|| {
                check_hints(info)?;
                if !fits(errhandler, Kind::Session) {
                    return Err((MPI_ERR_ERRHANDLER, format!("{errhandler:#x} is no session error handler")));
                }
                ensure_runtime()?;
                let asked = match info {
                    INFO_NULL => None,
                    _ => hint(info, "thread_level")?,
                };
                Ok(match asked.as_deref() {
                    Some("MPI_THREAD_SINGLE") | None => "MPI_THREAD_SINGLE",
                    // The MPI state belongs to one thread: funneled at most, as MPI_Init_thread.
                    Some(_) => "MPI_THREAD_FUNNELED",
                })
            })();
            let thread_level = started.map_err(|e| super::errhandlers::handle_error(COMM_SELF, e))?;
            let s = fresh_handle();
            hold(errhandler);
            with(|m| m.insert(s, Session { errhandler, thread_level, members: Vec::new() }));
            owe_session_finalize().map_err(|e| super::errhandlers::handle_error(COMM_SELF, e))?;
            out(session, s)
        })
    }

    fn Session_finalize(session: *mut Handle) -> c_int {
        // SAFETY: a non-NULL session pointer from C points at an MPI_Session.
        let s = unsafe { session.as_ref() }.copied().unwrap_or(SESSION_NULL);
        on_session(s, || {
            known(s)?;
            // What was sent reaches its peers before the program may exit.
            super::bsend_buffers::flush(Some(super::bsend_buffers::Owner::Session(s)))?;
            clump_mpi::quiesce().map_err(err)?;
            if let Some(e) = with(|m| m.remove(&s)) {
                release(e.errhandler);
            }
            owe_session_finalize()?;
            out(session, SESSION_NULL).map_err(|e| (e, "NULL session".into()))
        })
    }

    fn Session_get_info(s: Handle, info: *mut Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            let level = with(|m| m.get(&s).map(|e| e.thread_level)).unwrap_or("MPI_THREAD_SINGLE");
            out(info, hints(&[("thread_level", level)])?).map_err(|e| (e, "NULL info".into()))
        })
    }

    fn Session_get_num_psets(s: Handle, _info: Handle, n: *mut c_int) -> c_int {
        on_session(s, || {
            known(s)?;
            out(n, PSETS.len() as c_int).map_err(|e| (e, "NULL count".into()))
        })
    }

    fn Session_get_nth_pset(s: Handle, _info: Handle, n: c_int, len: *mut c_int, name: *mut c_char) -> c_int {
        on_session(s, || {
            known(s)?;
            let pset = usize::try_from(n).ok().and_then(|i| PSETS.get(i))
                .ok_or_else(|| (MPI_ERR_ARG, format!("there is no process set {n}")))?;
            // SAFETY: a non-NULL length pointer from C points at an int.
            let room = unsafe { len.as_ref() }.copied().ok_or_else(|| (MPI_ERR_ARG, "NULL pset_len".into()))?;
            // A length of 0 asks for the length only.
            if room > 0 {
                let mut written = 0;
                string_out(pset, name, room as usize, &mut written).map_err(|e| (e, "NULL pset_name".into()))?;
            }
            out(len, pset.len() as c_int + 1).map_err(|e| (e, "NULL pset_len".into()))
        })
    }

    fn Session_get_pset_info(s: Handle, name: *const c_char, info: *mut Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            let size = pset_group(&text_arg(name, MAX_NAME)?)?.size().to_string();
            out(info, hints(&[("mpi_size", &size)])?).map_err(|e| (e, "NULL info".into()))
        })
    }

    fn Group_from_session_pset(s: Handle, name: *const c_char, group: *mut Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            let g = put_group(pset_group(&text_arg(name, MAX_NAME)?)?);
            with(|m| m.get_mut(&s).map(|e| e.members.push(g)));
            out(group, g).map_err(|e| (e, "NULL group".into()))
        })
    }

    fn Comm_create_from_group(g: Handle, tag: *const c_char, _info: Handle, errhandler: Handle, newcomm: *mut Handle) -> c_int {
        // Collective over the group: every member reaches the others through the runtime's
        // world, whatever model opened MPI.
        let rc = from_groups(tag, errhandler, newcomm, |_| comm(COMM_WORLD)?.create_group(&group(g)?).map_err(err));
        // SAFETY: a non-NULL communicator pointer from C points at an MPI_Comm.
        if let (MPI_SUCCESS, Some(&c)) = (rc, unsafe { newcomm.as_ref() }) {
            inherit(g, c);
        }
        rc
    }

    fn Intercomm_create_from_groups(local: Handle, local_leader: c_int, remote: Handle, remote_leader: c_int, tag: *const c_char, _info: Handle, errhandler: Handle, newcomm: *mut Handle) -> c_int {
        // The local group's communicator, then the leaders meet in the world under a tag
        // of the string both sides name.
        from_groups(tag, errhandler, newcomm, |tag| {
            let world = comm(COMM_WORLD)?;
            let lc = world.create_group(&group(local)?).map_err(err)?
                .ok_or_else(|| (MPI_ERR_GROUP, "this process is not in the local group".to_string()))?;
            let leader = group(remote)?.translate_ranks(&[remote_leader], &world.get_group()).map_err(err)?[0];
            clump_mpi::intercomm_create(&lc, local_leader, &world, leader, tag).map(Some).map_err(err)
        })
    }

    fn Session_create_errhandler(f: Option<ErrFn>, h: *mut Handle) -> c_int {
        call(|| out(h, add(f.ok_or(MPI_ERR_ARG)?, Kind::Session)))
    }

    fn Session_set_errhandler(s: Handle, h: Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            if !fits(h, Kind::Session) {
                return Err((MPI_ERR_ERRHANDLER, format!("{h:#x} is no session error handler")));
            }
            hold(h);
            let old = with(|m| m.get_mut(&s).map(|e| std::mem::replace(&mut e.errhandler, h)));
            old.map(release);
            Ok(())
        })
    }

    fn Session_get_errhandler(s: Handle, h: *mut Handle) -> c_int {
        on_session(s, || {
            known(s)?;
            let handler = handler_of(s);
            out(h, handler).map_err(|e| (e, "NULL errhandler".into()))?;
            // The program's new handle is a reference it frees.
            hold(handler);
            Ok(())
        })
    }

    fn Session_call_errhandler(s: Handle, code: c_int) -> c_int {
        on_session(s, || {
            known(s)?;
            let h = handler_of(s);
            if !invoke(h, s, code) && h != ERRORS_RETURN {
                fatal((code, "raised by MPI_Session_call_errhandler".into()));
            }
            Ok(())
        })
    }
}
