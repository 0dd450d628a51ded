//! MPI over clump's Active Messages (paper 004): MPI matching with posted and unexpected
//! queues and per-sender order, the eager protocol for small messages (medium messages
//! into an unexpected store with a bound) and rendezvous for large ones (request to send,
//! clear to send, then the data straight into the receive buffer), and collectives.
//!
//! Everything progresses inside MPI calls by polling clump; the state belongs to the thread
//! that called [`init`].

mod all_done;
mod cancel;
mod coll;
mod coll_alltoall;
mod coll_bcast;
mod coll_gather;
mod coll_reduce;
mod coll_reduce_shm;
mod coll_shm;
mod comm;
mod comm_create;
mod comm_idup;
mod completion;
mod datatype;
mod datatype_external;
mod datatype_grid;
mod dims;
mod emit;
mod engine;
mod error;
mod generalized;
mod grequest;
mod grequest_hooks;
mod group;
mod idle;
mod intercomm;
mod matching;
mod nbc;
mod nbc_inter;
mod nbc_neighbor;
mod nbc_reduce;
mod neighbor;
mod op;
mod p2p;
mod partitioned;
mod placement;
mod rendezvous;
mod requests;
mod runtime;
mod sched;
mod send_queue;
mod send_start;
mod sent_log;
mod sequence;
mod short_eager;
mod single_copy;
mod slots;
mod startup;
mod status;
mod topo_create;
mod topology;
mod unexpected;

pub use all_done::all_done;
pub use coll_alltoall::{alltoall, alltoall_contiguous, alltoall_views};
pub use coll_bcast::bcast;
pub use coll_gather::{allgather, gather, scatter};
pub use coll_reduce::{allreduce, barrier, exscan, reduce, reduce_scatter, scan};
pub use comm::Comm;
pub use completion::{test_all, test_any, test_some, wait_all, wait_all_with, wait_any, wait_some};
pub use datatype::{Datatype, Predef};
pub use datatype_grid::{darray, subarray, Distrib, Order};
pub use dims::dims_create;
pub use error::{Error, ErrorClass, Result};
pub use grequest::{grequest_complete, grequest_start};
pub use grequest_hooks::{Hooks, SharedHooks};
pub use group::{Comparison, Group, UNDEFINED};
pub use intercomm::intercomm_create;
pub use matching::{ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB};
pub use nbc::{iallgather, ialltoall, ibarrier, ibcast, igather, iscatter};
pub use nbc_inter::{role, Role, ROOT};
pub use nbc_neighbor::{ineighbor_alltoall, DoneNeighbors};
pub use nbc_reduce::{iallreduce, ireduce, ireduce_scatter, iscan};
pub use neighbor::neighbor_alltoall;
pub use op::{set_extended, Extended, Op, Operator, UserFn};
pub use p2p::{
    cancel, get_status, iprobe, irecv, isend, isend_mode, isend_owned, pair, probe, recv, recv_raw,
    request_free, send, send_raw, sendrecv, ssend, test, wait, Request,
};
pub use partitioned::{check_partitioned, precv, psend};
pub use requests::Requests;
pub use runtime::{
    bundle_and_tag, finalize, is_finalized as finalized, is_initialized as initialized, owe,
    quiesce, CollTag, SendMode, Thresholds,
};
pub use sched::{reserve_tag, with_tag, Done, DoneBlocks};
pub use startup::init;
pub use status::Status;
pub use topology::{grid_size, Topology};

/// `MPI_Wtime`: seconds since `init`.
pub fn wtime() -> f64 {
    runtime::get().map_or(0.0, |rt| rt.start.elapsed().as_secs_f64())
}

/// `MPI_Wtick`: the resolution of [`wtime`].
pub fn wtick() -> f64 {
    1e-9
}

/// `MPI_Get_processor_name`: this host's name (before `init`, the machine's).
pub fn processor_name() -> String {
    runtime::get().map_or_else(
        |_| placement::processor_name(None),
        |rt| rt.processor_name.clone(),
    )
}

/// `MPI_Get_library_version`.
pub fn library_version() -> String {
    format!(
        "clump-mpi {} (MPI over clump Active Messages)",
        env!("CARGO_PKG_VERSION")
    )
}
