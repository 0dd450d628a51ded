//! The MPI C interface (`include/mpi.h`, the MPI standard ABI): each function exported
//! under its `MPI_` name and its `PMPI_` profiling name ([`export`]), with panics caught
//! at the boundary. So far the parts that need no communication layer: error classes and
//! strings, the environment queries, and ([`wired`]) what the `clump-mpi` crate serves.

mod abi;
mod env;
mod errors;
mod export;
mod handles;
mod wired;
