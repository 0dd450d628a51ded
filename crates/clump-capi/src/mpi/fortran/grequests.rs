//! `MPI_Grequest_start` from Fortran: the program's query, free and cancel procedures
//! take every argument by reference and give their error in a last `ierror`, so each is
//! called through a trampoline of that shape behind clump-mpi's hooks.

use super::super::abi::{MpiAint as Aint, MPI_ERR_ARG};
use super::super::grequests::{query_with, returned, start as start_hooks};
use super::super::handles::{Handle, MpiStatus, COMM_WORLD};
use super::super::wired::on;
use super::args::Fint;
use clump_mpi::{Hooks, Status};
use std::cell::RefCell;
use std::os::raw::c_int;
use std::rc::Rc;

/// GREQUEST_QUERY_FUNCTION(EXTRA_STATE, STATUS, IERROR).
type QueryFn = extern "C" fn(&Aint, &mut MpiStatus, &mut Fint);
/// GREQUEST_FREE_FUNCTION(EXTRA_STATE, IERROR).
type FreeFn = extern "C" fn(&Aint, &mut Fint);
/// GREQUEST_CANCEL_FUNCTION(EXTRA_STATE, COMPLETE, IERROR): COMPLETE a LOGICAL.
type CancelFn = extern "C" fn(&Aint, &Fint, &mut Fint);

struct FortranHooks {
    query: QueryFn,
    free: FreeFn,
    cancel: CancelFn,
    extra: Aint,
}

impl Hooks for FortranHooks {
    fn query(&mut self, status: &mut Status) -> clump_mpi::Result<()> {
        query_with(status, |s| {
            let mut rc = 0;
            (self.query)(&self.extra, s, &mut rc);
            rc
        })
    }

    fn free(&mut self) -> clump_mpi::Result<()> {
        let mut rc = 0;
        (self.free)(&self.extra, &mut rc);
        returned("free", rc)
    }

    fn cancel(&mut self, complete: bool) -> clump_mpi::Result<()> {
        let mut rc = 0;
        (self.cancel)(&self.extra, &Fint::from(complete), &mut rc);
        returned("cancel", rc)
    }
}

/// The entry point's target: the three procedures' addresses, the program's state.
pub fn start(query: usize, free: usize, cancel: usize, extra: Aint, req: *mut Handle) -> c_int {
    on(COMM_WORLD, || {
        if query == 0 || free == 0 || cancel == 0 {
            return Err((MPI_ERR_ARG, "no query, free or cancel procedure".into()));
        }
        // SAFETY: each address is a procedure the program passed where the standard
        // requires one of the interface named on its type (all arguments by reference;
        // gfortran passes LOGICAL and the status as C ints, ADDRESS_KIND as 8 bytes).
        let hooks = unsafe {
            FortranHooks {
                query: std::mem::transmute::<usize, QueryFn>(query),
                free: std::mem::transmute::<usize, FreeFn>(free),
                cancel: std::mem::transmute::<usize, CancelFn>(cancel),
                extra,
            }
        };
        start_hooks(Rc::new(RefCell::new(hooks)), req)
    })
}
