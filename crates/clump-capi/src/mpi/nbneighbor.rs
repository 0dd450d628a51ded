//! The non-blocking and persistent neighbourhood collectives from C (`MPI_Ineighbor_*`,
//! `MPI_Neighbor_*_init`): the blocks of [`super::neighbor`], the blocks to send packed
//! when the collective starts, clump-mpi's schedule moving them, and what came unpacked
//! into the receive blocks when it completes.

use super::export::mpi_functions;
use super::handles::*;
use super::nbcoll::{persistent_out, request_out};
use super::neighbor::*;
use super::wired::{on, Failure};
use clump_mpi::{Error, ErrorClass, Request};
use std::os::raw::{c_int, c_void};

/// Starts sending `send[k]` to destination `k`; source `k`'s block lands in `recv[k]`
/// when the request completes.
pub(super) fn start(c: Handle, send: &[Block], recv: Vec<Block>) -> Result<Request, Failure> {
    let (packed, lens) = packed(send, &recv)?;
    let done = Box::new(move |got| {
        deliver(&recv, got).map_err(|(_, m)| Error::new(ErrorClass::Buffer, m))
    });
    clump_mpi::ineighbor_alltoall(packed, &lens, &comm(c)?, done).map_err(err)
}

/// Defines each neighbourhood collective's non-blocking form (`MPI_I...`) and persistent
/// form (`..._init`) over the function giving its blocks.
macro_rules! nonblocking {
    ($($name:ident ($($a:ident: $t:ty),*) => $blocks:ident;)*) => {
        paste::paste! {
            mpi_functions! {
                $(
                    fn [<I $name:lower>]($($a: $t,)* c: Handle, req: *mut Handle) -> c_int {
                        on(c, || {
                            let (send, recv) = $blocks($($a,)* c)?;
                            request_out(req, start(c, &send, recv)?)
                        })
                    }

                    fn [<$name _init>]($($a: $t,)* c: Handle, _info: Handle, req: *mut Handle) -> c_int {
                        on(c, || persistent_out(c, req, move || {
                            let (send, recv) = $blocks($($a,)* c)?;
                            start(c, &send, recv)
                        }))
                    }
                )*
            }
        }
    };
}

neighbourhood_collectives!(nonblocking);
