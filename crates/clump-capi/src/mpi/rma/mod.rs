//! MPI one-sided communication over clump-gas: windows ([`create`]), the RMA calls
//! ([`access`]) and their synchronization ([`sync`]). Window memory that lies in the
//! global address space's segment (`MPI_Win_allocate`) or in a region the host's members
//! share ([`shared`], `MPI_Win_allocate_shared`) is reached by plain loads and stores
//! from the processes of its host; everything else
//! (other hosts, `MPI_Win_create`'s memory) goes as a remote procedure call the target's
//! handler runs ([`target`]). Accumulates are atomic per element whichever way they come:
//! with the host's atomic instructions where it has them ([`atomic`]), else under the
//! window's [`guard`] word (segment memory) or in the target's process, one at a time. Each call
//! completes at the target before it returns, but for puts and accumulates that fetch
//! nothing to another host: those are posted, and the epoch's completion waits for them.

mod abi;
pub(super) mod access;
mod atomic;
pub(super) mod caching;
pub(super) mod create;
mod elements;
pub(super) mod errhandler;
mod guard;
mod own;
pub(super) mod pscw;
mod published;
mod request;
mod shared;
mod space;
pub(super) mod sync;
mod target;
mod window;
mod window_table;

pub(super) use window::on as on_window;
