//! clump-gas: a Split-C style global address space over clump's Active Messages.
//!
//! Every rank of a job started by `clump run` owns a segment; a [`GlobalPtr`] names a rank
//! and an offset in it, and [`Spread`] arrays are allocated collectively at the same offset
//! everywhere. Blocking `read`/`write`, split-phase `get`/`put` completed by `sync`, one-way
//! `store`s completed by `store_sync`/`all_store_sync`, atomics, remote procedure calls and
//! collectives. Same-host ranks are reached through their mapped segment (`CLUMP_GAS_LOCAL=
//! direct`, the default) or by messages (`am`); other hosts always by messages.
//!
//! ```no_run
//! let mut gas = clump_gas::Gas::init()?;
//! let a = gas.alloc::<u64>(16)?;
//! let right = (gas.rank() + 1) % gas.size();
//! gas.write(a.at(right, 0), 42)?;
//! gas.barrier()?;
//! assert_eq!(gas.local(&a).get(0), 42);
//! # Ok::<(), clump_gas::Error>(())
//! ```

mod access;
mod atomic;
mod collective;
mod config;
mod error;
mod gas;
mod group;
mod handlers;
mod landing;
mod local_view;
mod posted;
mod protocol;
mod ptr;
pub mod rmw;
mod rpc;
mod shared;
mod threads;

/// `higher[i] = lower[i] op higher[i]`, for a reduction a caller combines itself.
pub use clump_coll::kernel::combine_slice as reduce_slice;
/// The reduction operators and the element types they apply to are clump-coll's, shared
/// with MPI and OpenSHMEM.
pub use clump_coll::kernel::{Element as Reducible, Op as ReduceOp};
pub use config::{GasConfig, GasVars, LocalMode, DEFAULT_SEGMENT_BYTES};
pub use error::{Error, Result};
pub use gas::{Exchange, Gas, GasStats, SHORT_BYTES};
pub use group::Group;
pub use local_view::LocalView;
pub use protocol::{RpcContext, RpcId};
pub use ptr::{GlobalPtr, Spread};
pub use rmw::Rmw;
pub use threads::SharedGas;
