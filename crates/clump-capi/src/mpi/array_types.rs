//! `MPI_Type_create_subarray` and `MPI_Type_create_darray` from C: their arguments
//! checked and turned into clump-mpi's array types.

use super::abi::MPI_ERR_ARG;
use super::buffers::{counts, ints};
use super::export::mpi_functions;
use super::handles::*;
use super::type_contents::{Contents, DARRAY, SUBARRAY};
use super::types::made;
use super::wired::{count, on, Failure};
use clump_mpi::{Distrib, Order};
use std::os::raw::c_int;

/// `MPI_ORDER_*`, `MPI_DISTRIBUTE_*` (mpi.h).
const ORDER_C: c_int = 12;
const ORDER_FORTRAN: c_int = 15;
const DISTRIBUTE_NONE: c_int = 16;
const DISTRIBUTE_BLOCK: c_int = 17;
const DISTRIBUTE_CYCLIC: c_int = 18;
const DISTRIBUTE_DFLT_DARG: c_int = 19;

fn order(o: c_int) -> Result<Order, Failure> {
    match o {
        ORDER_C => Ok(Order::C),
        ORDER_FORTRAN => Ok(Order::Fortran),
        _ => Err((MPI_ERR_ARG, format!("unknown array order {o}"))),
    }
}

/// A distribution and its argument.
fn distrib(kind: c_int, darg: c_int) -> Result<Distrib, Failure> {
    let arg = match darg {
        DISTRIBUTE_DFLT_DARG => None,
        n => Some(
            usize::try_from(n).map_err(|_| (MPI_ERR_ARG, format!("distribution argument {n}")))?,
        ),
    };
    match kind {
        DISTRIBUTE_NONE => Ok(Distrib::None),
        DISTRIBUTE_BLOCK => Ok(Distrib::Block(arg)),
        DISTRIBUTE_CYCLIC => Ok(Distrib::Cyclic(arg)),
        _ => Err((MPI_ERR_ARG, format!("unknown distribution {kind}"))),
    }
}

mpi_functions! {
    fn Type_create_subarray(n: c_int, sizes: *const c_int, subsizes: *const c_int, starts: *const c_int,
                            o: c_int, old: Handle, new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let k = count(n)?;
            let (s, sub, at) = (counts(sizes, k)?, counts(subsizes, k)?, counts(starts, k)?);
            let t = clump_mpi::subarray(&s, &sub, &at, order(o)?, &datatype(old)?);
            let mut ints_of = vec![n];
            for a in [sizes, subsizes, starts] {
                ints_of.extend(ints(a, k)?);
            }
            ints_of.push(o);
            made(t, new, Contents::new(SUBARRAY, ints_of, vec![], &[old])?)
        })
    }

    fn Type_create_darray(size: c_int, rank: c_int, n: c_int, gsizes: *const c_int, distribs: *const c_int,
                          dargs: *const c_int, psizes: *const c_int, o: c_int, old: Handle,
                          new: *mut Handle) -> c_int {
        on(COMM_WORLD, || {
            let nd = n;
            let n = count(n)?;
            let kinds = ints(distribs, n)?
                .into_iter()
                .zip(ints(dargs, n)?)
                .map(|(k, a)| distrib(k, a))
                .collect::<Result<Vec<_>, _>>()?;
            let (g, p) = (counts(gsizes, n)?, counts(psizes, n)?);
            let t = clump_mpi::darray(count(size)?, count(rank)?, &g, &kinds, &p, order(o)?, &datatype(old)?);
            let mut ints_of = vec![size, rank, nd];
            for a in [gsizes, distribs, dargs, psizes] {
                ints_of.extend(ints(a, n)?);
            }
            ints_of.push(o);
            made(t, new, Contents::new(DARRAY, ints_of, vec![], &[old])?)
        })
    }
}
