//! libclump: the AM-II C interface of clump (`include/clump/amii.h`) and its SPMD start-up
//! extension (`include/clump/spmd.h`), built as `libclump.so` and `libclump.a`.
//!
//! Every exported function checks its arguments, returns an AM-II code and catches
//! panics ([`guard`]). Bundles and endpoints live in process-wide registries that C
//! handles index, each entry owned by one thread ([`handles`], [`state`]); tokens name
//! frames of running handlers ([`token`]). The hot paths (`AM_Poll`, requests, replies,
//! handler dispatch) read no thread-local: in a shared library each such read is a call.

// The exported names are AM-II's (`AM_Request4`, ...).
#![allow(non_snake_case)]

/// Invokes `$m!` with every arity 0..=16 and the argument names of each.
macro_rules! arities {
    ($m:ident) => {
        $m! {
            0 [],
            1 [a0],
            2 [a0 a1],
            3 [a0 a1 a2],
            4 [a0 a1 a2 a3],
            5 [a0 a1 a2 a3 a4],
            6 [a0 a1 a2 a3 a4 a5],
            7 [a0 a1 a2 a3 a4 a5 a6],
            8 [a0 a1 a2 a3 a4 a5 a6 a7],
            9 [a0 a1 a2 a3 a4 a5 a6 a7 a8],
            10 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9],
            11 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10],
            12 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11],
            13 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12],
            14 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13],
            15 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14],
            16 [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15]
        }
    };
}
pub(crate) use arities;

mod amudp;
mod amudp_spmd;
mod amx_stats;
mod bundle;
mod codes;
mod dispatch;
mod endpoint;
mod errors;
mod guard;
mod handler;
mod handles;
mod limits;
mod mpi;
mod segment;
mod send;
mod shmem;
mod spmd;
mod state;
mod token;
mod translation;
