//! clump-coll: what every face's collectives share, written once and free of I/O.
//!
//! - [`kernel`]: the element-wise reduction operators (sum, product, min, max, the logical
//!   and bitwise ones, MPI's MINLOC/MAXLOC pairs, complex products) on packed elements of
//!   each machine type. MPI's predefined operations, OpenSHMEM's reductions and clump-gas's
//!   `all_reduce` all combine through [`kernel::combine`].
//! - [`pattern`]: the communication pattern of each algorithm (binomial tree, dissemination,
//!   recursive doubling, prefix doubling, the host-aware two-level split): who sends to whom
//!   in which round. Each face drives its own transport from it: clump-gas's handlers, MPI's
//!   schedules and blocking collectives, OpenSHMEM through clump-gas.

#![forbid(unsafe_code)]

pub mod kernel;
pub mod pattern;

pub use kernel::{combine, combine_slice, Elem, Element, Loc, Op};
