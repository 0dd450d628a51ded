//! The large-count (`_c`) forms of MPI 4: each runs its `int` form when every count fits
//! an `int`, and fails with `MPI_ERR_COUNT` otherwise (clump's counts are the `int` forms').
//! The few that report a count or size widen the `int` form's answer.

#![allow(clippy::too_many_arguments)] // MPI's own argument lists

use super::abi::MPI_ERR_ARG;
use super::export::mpi_functions;
use super::handles::*;
use super::wired::{on, Failure};
#[allow(unused_imports)] // the `int` forms live in these
use super::{
    bsend_buffers::*, buffered::*, buffers::*, collectives::*, isendrecv::*, messages::*,
    nbcoll::*, nbneighbor::*, neighbor::*, partitioned::*, persistent::*, statuses::*,
    type_queries::*, types::*, wired::*,
};
use clump_mpi::ErrorClass;
use std::os::raw::{c_int, c_void};

type Count = i64;

/// A large count as the `int` its `int` form takes.
pub(super) fn narrow(n: Count) -> Result<c_int, Failure> {
    c_int::try_from(n).map_err(|_| {
        (
            class_code(ErrorClass::Count),
            format!("count {n} does not fit an int (clump's largest count)"),
        )
    })
}

/// Defines `NAME_c(args) on COMM => NAME(args) [counts]`: the counts narrowed (an error
/// through COMM's handler if one does not fit), then the `int` form called, which reports
/// its own errors.
macro_rules! narrowed {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) on $comm:ident => $base:ident($($pass:ident),*) [$($n:ident),*];)*) => {
        paste::paste! {
            mpi_functions! {
                $(
                    fn $name($($arg: $ty),*) -> c_int {
                        $(let $n = match narrow($n) {
                            Ok(v) => v,
                            Err(e) => return on($comm, || Err(e)),
                        };)*
                        [<PMPI_ $base>]($($pass),*)
                    }
                )*
            }
        }
    };
}

narrowed! {
    fn Send_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle) on comm => Send(buf, count, datatype, dest, tag, comm) [count];
    fn Bsend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle) on comm => Bsend(buf, count, datatype, dest, tag, comm) [count];
    fn Ssend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle) on comm => Ssend(buf, count, datatype, dest, tag, comm) [count];
    fn Rsend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle) on comm => Rsend(buf, count, datatype, dest, tag, comm) [count];
    fn Psend_init_c(buf: *const c_void, partitions: c_int, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request) [count];
    fn Precv_init_c(buf: *mut c_void, partitions: c_int, count: Count, datatype: Handle, source: c_int, tag: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Precv_init(buf, partitions, count, datatype, source, tag, comm, info, request) [count];
    fn Isend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Isend(buf, count, datatype, dest, tag, comm, request) [count];
    fn Ibsend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Ibsend(buf, count, datatype, dest, tag, comm, request) [count];
    fn Issend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Issend(buf, count, datatype, dest, tag, comm, request) [count];
    fn Irsend_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Irsend(buf, count, datatype, dest, tag, comm, request) [count];
    fn Recv_c(buf: *mut c_void, count: Count, datatype: Handle, source: c_int, tag: c_int, comm: Handle, status: *mut MpiStatus) on comm => Recv(buf, count, datatype, source, tag, comm, status) [count];
    fn Irecv_c(buf: *mut c_void, count: Count, datatype: Handle, source: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Irecv(buf, count, datatype, source, tag, comm, request) [count];
    fn Send_init_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Send_init(buf, count, datatype, dest, tag, comm, request) [count];
    fn Bsend_init_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Bsend_init(buf, count, datatype, dest, tag, comm, request) [count];
    fn Ssend_init_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Ssend_init(buf, count, datatype, dest, tag, comm, request) [count];
    fn Rsend_init_c(buf: *const c_void, count: Count, datatype: Handle, dest: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Rsend_init(buf, count, datatype, dest, tag, comm, request) [count];
    fn Recv_init_c(buf: *mut c_void, count: Count, datatype: Handle, source: c_int, tag: c_int, comm: Handle, request: *mut Handle) on comm => Recv_init(buf, count, datatype, source, tag, comm, request) [count];
    fn Sendrecv_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, dest: c_int, sendtag: c_int, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, source: c_int, recvtag: c_int, comm: Handle, status: *mut MpiStatus) on comm => Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status) [sendcount, recvcount];
    fn Sendrecv_replace_c(buf: *mut c_void, count: Count, datatype: Handle, dest: c_int, sendtag: c_int, source: c_int, recvtag: c_int, comm: Handle, status: *mut MpiStatus) on comm => Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status) [count];
    fn Isendrecv_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, dest: c_int, sendtag: c_int, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, source: c_int, recvtag: c_int, comm: Handle, request: *mut Handle) on comm => Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request) [sendcount, recvcount];
    fn Isendrecv_replace_c(buf: *mut c_void, count: Count, datatype: Handle, dest: c_int, sendtag: c_int, source: c_int, recvtag: c_int, comm: Handle, request: *mut Handle) on comm => Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request) [count];
    fn Mrecv_c(buf: *mut c_void, count: Count, datatype: Handle, message: *mut Handle, status: *mut MpiStatus) on COMM_WORLD => Mrecv(buf, count, datatype, message, status) [count];
    fn Imrecv_c(buf: *mut c_void, count: Count, datatype: Handle, message: *mut Handle, request: *mut Handle) on COMM_WORLD => Imrecv(buf, count, datatype, message, request) [count];
    fn Bcast_c(buffer: *mut c_void, count: Count, datatype: Handle, root: c_int, comm: Handle) on comm => Bcast(buffer, count, datatype, root, comm) [count];
    fn Ibcast_c(buffer: *mut c_void, count: Count, datatype: Handle, root: c_int, comm: Handle, request: *mut Handle) on comm => Ibcast(buffer, count, datatype, root, comm, request) [count];
    fn Bcast_init_c(buffer: *mut c_void, count: Count, datatype: Handle, root: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Bcast_init(buffer, count, datatype, root, comm, info, request) [count];
    fn Allreduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle) on comm => Allreduce(sendbuf, recvbuf, count, datatype, op, comm) [count];
    fn Iallreduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, request: *mut Handle) on comm => Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request) [count];
    fn Allreduce_init_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request) [count];
    fn Reduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, root: c_int, comm: Handle) on comm => Reduce(sendbuf, recvbuf, count, datatype, op, root, comm) [count];
    fn Ireduce_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, root: c_int, comm: Handle, request: *mut Handle) on comm => Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request) [count];
    fn Reduce_init_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, root: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request) [count];
    fn Scan_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle) on comm => Scan(sendbuf, recvbuf, count, datatype, op, comm) [count];
    fn Iscan_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, request: *mut Handle) on comm => Iscan(sendbuf, recvbuf, count, datatype, op, comm, request) [count];
    fn Scan_init_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request) [count];
    fn Exscan_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle) on comm => Exscan(sendbuf, recvbuf, count, datatype, op, comm) [count];
    fn Iexscan_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, request: *mut Handle) on comm => Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request) [count];
    fn Exscan_init_c(sendbuf: *const c_void, recvbuf: *mut c_void, count: Count, datatype: Handle, op: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request) [count];
    fn Reduce_scatter_block_c(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: Count, datatype: Handle, op: Handle, comm: Handle) on comm => Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm) [recvcount];
    fn Ireduce_scatter_block_c(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: Count, datatype: Handle, op: Handle, comm: Handle, request: *mut Handle) on comm => Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request) [recvcount];
    fn Reduce_scatter_block_init_c(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: Count, datatype: Handle, op: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request) [recvcount];
    fn Allgather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle) on comm => Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) [sendcount, recvcount];
    fn Iallgather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, request: *mut Handle) on comm => Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) [sendcount, recvcount];
    fn Allgather_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request) [sendcount, recvcount];
    fn Alltoall_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle) on comm => Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) [sendcount, recvcount];
    fn Ialltoall_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, request: *mut Handle) on comm => Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) [sendcount, recvcount];
    fn Alltoall_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request) [sendcount, recvcount];
    fn Gather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle) on comm => Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) [sendcount, recvcount];
    fn Igather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle, request: *mut Handle) on comm => Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request) [sendcount, recvcount];
    fn Gather_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request) [sendcount, recvcount];
    fn Scatter_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle) on comm => Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm) [sendcount, recvcount];
    fn Iscatter_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle, request: *mut Handle) on comm => Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request) [sendcount, recvcount];
    fn Scatter_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, root: c_int, comm: Handle, info: Handle, request: *mut Handle) on comm => Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request) [sendcount, recvcount];
    fn Reduce_local_c(inbuf: *const c_void, inoutbuf: *mut c_void, count: Count, datatype: Handle, op: Handle) on COMM_WORLD => Reduce_local(inbuf, inoutbuf, count, datatype, op) [count];
    fn Neighbor_allgather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle) on comm => Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) [sendcount, recvcount];
    fn Neighbor_alltoall_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle) on comm => Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) [sendcount, recvcount];
    fn Ineighbor_allgather_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, request: *mut Handle) on comm => Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) [sendcount, recvcount];
    fn Ineighbor_alltoall_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, request: *mut Handle) on comm => Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request) [sendcount, recvcount];
    fn Neighbor_allgather_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request) [sendcount, recvcount];
    fn Neighbor_alltoall_init_c(sendbuf: *const c_void, sendcount: Count, sendtype: Handle, recvbuf: *mut c_void, recvcount: Count, recvtype: Handle, comm: Handle, info: Handle, request: *mut Handle) on comm => Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request) [sendcount, recvcount];
    fn Type_contiguous_c(count: Count, oldtype: Handle, newtype: *mut Handle) on COMM_WORLD => Type_contiguous(count, oldtype, newtype) [count];
    fn Type_vector_c(count: Count, blocklength: Count, stride: Count, oldtype: Handle, newtype: *mut Handle) on COMM_WORLD => Type_vector(count, blocklength, stride, oldtype, newtype) [count, blocklength, stride];
    fn Buffer_attach_c(buffer: *mut c_void, size: Count) on COMM_WORLD => Buffer_attach(buffer, size) [size];
}

mpi_functions! {
    fn Type_size_c(t: Handle, size: *mut Count) -> c_int {
        widened(size, |n| PMPI_Type_size(t, n))
    }

    fn Get_count_c(s: *const MpiStatus, t: Handle, count: *mut Count) -> c_int {
        widened(count, |n| PMPI_Get_count(s, t, n))
    }

    fn Get_elements_c(s: *const MpiStatus, t: Handle, count: *mut Count) -> c_int {
        PMPI_Get_elements_x(s, t, count)
    }

    // MPI_Aint and MPI_Count are both 64 bits on the targets clump supports.
    fn Type_get_extent_c(t: Handle, lb: *mut Count, extent: *mut Count) -> c_int {
        PMPI_Type_get_extent(t, lb.cast(), extent.cast())
    }

    fn Type_get_true_extent_c(t: Handle, lb: *mut Count, extent: *mut Count) -> c_int {
        PMPI_Type_get_true_extent(t, lb.cast(), extent.cast())
    }

    fn Type_create_hvector_c(n: Count, len: Count, stride: Count, old: Handle, new: *mut Handle) -> c_int {
        match (narrow(n), narrow(len)) {
            (Ok(n), Ok(len)) => PMPI_Type_create_hvector(n, len, stride as Aint, old, new),
            (Err(e), _) | (_, Err(e)) => on(COMM_WORLD, || Err(e)),
        }
    }

    fn Type_create_resized_c(old: Handle, lb: Count, extent: Count, new: *mut Handle) -> c_int {
        PMPI_Type_create_resized(old, lb as Aint, extent as Aint, new)
    }

    fn Status_set_elements_c(s: *mut MpiStatus, t: Handle, n: Count) -> c_int {
        PMPI_Status_set_elements_x(s, t, n)
    }

    fn Buffer_detach_c(buf: *mut c_void, size: *mut Count) -> c_int {
        widened(size, |n| PMPI_Buffer_detach(buf, n))
    }

    fn Pack_size_c(n: Count, t: Handle, c: Handle, size: *mut Count) -> c_int {
        match narrow(n) {
            Ok(n) => widened(size, |s| PMPI_Pack_size(n, t, c, s)),
            Err(e) => on(c, || Err(e)),
        }
    }

    fn Pack_c(inbuf: *const c_void, n: Count, t: Handle, outbuf: *mut c_void, size: Count, pos: *mut Count, c: Handle) -> c_int {
        match (narrow(n), narrow(size)) {
            (Ok(n), Ok(size)) => moved(pos, c, |p| PMPI_Pack(inbuf, n, t, outbuf, size, p, c)),
            (Err(e), _) | (_, Err(e)) => on(c, || Err(e)),
        }
    }

    fn Unpack_c(inbuf: *const c_void, size: Count, pos: *mut Count, outbuf: *mut c_void, n: Count, t: Handle, c: Handle) -> c_int {
        match (narrow(size), narrow(n)) {
            (Ok(size), Ok(n)) => moved(pos, c, |p| PMPI_Unpack(inbuf, size, p, outbuf, n, t, c)),
            (Err(e), _) | (_, Err(e)) => on(c, || Err(e)),
        }
    }
}

/// `MPI_Aint`.
type Aint = isize;

/// Runs the `int` form `f` on the position `pos` (read and written) of a pack or unpack.
fn moved(pos: *mut Count, c: Handle, f: impl FnOnce(*mut c_int) -> c_int) -> c_int {
    // SAFETY: a non-NULL position pointer from C points at an MPI_Count.
    let Some(&at) = (unsafe { pos.as_ref() }) else {
        return on(c, || Err((MPI_ERR_ARG, "NULL position".into())));
    };
    let mut at = match narrow(at) {
        Ok(at) => at,
        Err(e) => return on(c, || Err(e)),
    };
    let rc = f(&mut at);
    if rc == 0 {
        // SAFETY: as above.
        unsafe { pos.write(at as Count) };
    }
    rc
}

/// Runs the `int` form `f` and writes its answer to `to` as a count (`MPI_UNDEFINED`
/// stays itself).
fn widened(to: *mut Count, f: impl FnOnce(*mut c_int) -> c_int) -> c_int {
    if to.is_null() {
        return on(COMM_WORLD, || Err((MPI_ERR_ARG, "NULL count".into())));
    }
    let mut n: c_int = 0;
    let rc = f(&mut n);
    if rc == 0 {
        // SAFETY: a non-NULL count pointer from C points at an MPI_Count.
        unsafe { to.write(n as Count) };
    }
    rc
}

pub(super) use one_sided::*;

/// The one-sided calls' large-count forms: the same narrowing, a count that does not fit
/// an error through the window's handler (`on` is the window's here).
mod one_sided {
    #![allow(clippy::too_many_arguments)] // MPI's own argument lists

    use super::super::export::mpi_functions;
    use super::super::handles::Handle;
    use super::super::rma::access::*;
    use super::super::rma::on_window as on;
    use super::{narrow, Count};
    use std::os::raw::{c_int, c_void};

    type Aint = isize;

    narrowed! {
        fn Put_c(buf: *const c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, win: Handle) on win => Put(buf, n, ot, target, disp, tn, tt, win) [n, tn];
        fn Rput_c(buf: *const c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, win: Handle, req: *mut Handle) on win => Rput(buf, n, ot, target, disp, tn, tt, win, req) [n, tn];
        fn Get_c(buf: *mut c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, win: Handle) on win => Get(buf, n, ot, target, disp, tn, tt, win) [n, tn];
        fn Rget_c(buf: *mut c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, win: Handle, req: *mut Handle) on win => Rget(buf, n, ot, target, disp, tn, tt, win, req) [n, tn];
        fn Accumulate_c(buf: *const c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, op: Handle, win: Handle) on win => Accumulate(buf, n, ot, target, disp, tn, tt, op, win) [n, tn];
        fn Raccumulate_c(buf: *const c_void, n: Count, ot: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, op: Handle, win: Handle, req: *mut Handle) on win => Raccumulate(buf, n, ot, target, disp, tn, tt, op, win, req) [n, tn];
        fn Get_accumulate_c(buf: *const c_void, n: Count, ot: Handle, res: *mut c_void, rn: Count, rt: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, op: Handle, win: Handle) on win => Get_accumulate(buf, n, ot, res, rn, rt, target, disp, tn, tt, op, win) [n, rn, tn];
        fn Rget_accumulate_c(buf: *const c_void, n: Count, ot: Handle, res: *mut c_void, rn: Count, rt: Handle, target: c_int, disp: Aint, tn: Count, tt: Handle, op: Handle, win: Handle, req: *mut Handle) on win => Rget_accumulate(buf, n, ot, res, rn, rt, target, disp, tn, tt, op, win, req) [n, rn, tn];
    }
}
