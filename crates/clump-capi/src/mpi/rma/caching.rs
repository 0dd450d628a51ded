//! What a window carries besides its memory: its attributes (the predefined ones, and the
//! program's, keys made by `MPI_Win_create_keyval`; their delete callbacks run on
//! `MPI_Win_delete_attr`, on a replacing `MPI_Win_set_attr` and on `MPI_Win_free`, and
//! since windows are never duplicated, their copy callbacks never run), and info hints.
//! The setter and getter take the value and where it goes in either language, so that
//! Fortran's entry points call them too.

use super::super::abi::{MPI_ERR_ARG, MPI_KEYVAL_INVALID};
use super::super::attrs::{self, Out, Word};
use super::super::export::{mpi_functions, out};
use super::super::handles::{Handle, COMM_WORLD};
use super::super::info::{check_hints, hints};
use super::super::wired::{self, Failure};
use super::abi::{
    MPI_WIN_BASE, MPI_WIN_CREATE_FLAVOR, MPI_WIN_DISP_UNIT, MPI_WIN_MODEL, MPI_WIN_SIZE,
};
use super::window::{self, on};
use std::os::raw::{c_int, c_void};

/// The hints `MPI_Win_get_info` reports: what holds of every clump window whatever the
/// program asked (each call completes at its target in order, so accumulates keep every
/// ordering; no other hint changes what clump does).
const USED: &[(&str, &str)] = &[
    ("accumulate_ordering", "rar,raw,war,waw"),
    ("accumulate_ops", "same_op_no_op"),
    ("same_size", "false"),
    ("same_disp_unit", "false"),
    ("no_locks", "false"),
];

/// Errors of the key calls, which name no window, go to `MPI_COMM_WORLD`'s handler.
fn on_keys(body: impl FnOnce() -> Result<(), Failure>) -> c_int {
    wired::on(COMM_WORLD, body)
}

fn window(win: Handle) -> Result<(), Failure> {
    window::with(win, |_| Ok(()))
}

/// Sets key `k` on window `win` (from C or Fortran).
pub fn set_win_attr(win: Handle, k: c_int, value: attrs::Value) -> c_int {
    on(win, || {
        window(win)?;
        attrs::set(win, k, value)
    })
}

/// Gets key `k` of window `win` into `to`: the predefined base is an address, the others
/// integers the standard hands out pointers to.
pub fn get_win_attr(win: Handle, k: c_int, to: Out, flag: *mut c_int) -> c_int {
    on(win, || {
        let found = window::with(win, |w| {
            let a = &*w.attrs;
            Ok(Some(match k {
                MPI_WIN_BASE => Word::Address(a.base),
                MPI_WIN_SIZE => Word::aint(&a.size),
                MPI_WIN_DISP_UNIT => Word::int(&a.disp_unit),
                MPI_WIN_CREATE_FLAVOR => Word::int(&a.flavor),
                MPI_WIN_MODEL => Word::int(&a.model),
                _ => return attrs::get(win, k),
            }))
        })?;
        attrs::answer(found, to, flag)
    })
}

mpi_functions! {
    fn Win_create_keyval(copy: usize, delete: usize, k: *mut c_int, extra: *mut c_void) -> c_int {
        on_keys(|| out(k, attrs::create_keyval(copy, delete, extra as usize, attrs::Callbacks::C))
            .map_err(|e| (e, "NULL keyval".into())))
    }

    fn Win_free_keyval(k: *mut c_int) -> c_int {
        on_keys(|| {
            // SAFETY: a non-NULL keyval pointer from C points at an int.
            let key = unsafe { k.as_ref() }.copied().ok_or_else(|| (MPI_ERR_ARG, "NULL keyval".to_owned()))?;
            attrs::free_keyval(key)?;
            out(k, MPI_KEYVAL_INVALID).map_err(|e| (e, "NULL keyval".into()))
        })
    }

    fn Win_set_attr(win: Handle, k: c_int, value: *mut c_void) -> c_int {
        set_win_attr(win, k, attrs::Value::Address(value as usize))
    }

    fn Win_get_attr(win: Handle, k: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
        get_win_attr(win, k, Out::C(value), flag)
    }

    fn Win_delete_attr(win: Handle, k: c_int) -> c_int {
        on(win, || {
            window(win)?;
            attrs::delete(win, k)
        })
    }

    fn Win_set_info(win: Handle, info: Handle) -> c_int {
        on(win, || {
            window(win)?;
            check_hints(info)
        })
    }

    fn Win_get_info(win: Handle, info: *mut Handle) -> c_int {
        on(win, || {
            window(win)?;
            out(info, hints(USED)?).map_err(|e| (e, "NULL info".into()))
        })
    }
}
