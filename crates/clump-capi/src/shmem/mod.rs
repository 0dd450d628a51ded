//! The OpenSHMEM 1.5 C interface (`include/shmem.h`) over the global address space of
//! `clump-gas`: every processing element (PE) is a rank of the job, the symmetric heap is
//! a region of each rank's segment at the same offset everywhere, and the program's global
//! and static variables are reached through Active Messages at their offset in the
//! executable. Every entry point checks its arguments; bad use (an address that is not
//! symmetric, a PE out of range, a call before `shmem_init`) prints what went wrong and
//! ends the job, as OpenSHMEM has no error codes for it.

mod abi;
mod active_set;
mod atomics;
mod collectives;
mod ctx;
mod deprecated;
mod direct;
pub(crate) mod extended;
pub(crate) mod heap;
mod locks;
mod memory;
mod private;
mod reduce;
mod res;
mod rma;
mod runtime;
mod setup;
mod signal;
mod statics;
mod symmetric;
mod sync;
mod team_set;
mod teams;
