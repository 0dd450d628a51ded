//! The MPI C interface (`include/mpi.h`, the MPI standard ABI): each function exported
//! under its `MPI_` name and its `PMPI_` profiling name ([`export`]), with panics caught
//! at the boundary: error classes and strings, the environment queries, and what the
//! `clump-mpi` crate serves ([`wired`], [`completion`], [`types`]) through the handle
//! registry of [`handles`].

mod abi;
mod abi_queries;
mod alltoall_views;
mod array_types;
mod attrs;
mod bsend_buffers;
mod buffered;
mod buffers;
mod class_texts;
mod coll_args;
mod collectives;
mod comm_attrs;
mod comm_hints;
mod comms;
mod completion;
mod conversions;
mod env;
mod errhandler_calls;
mod errhandlers;
mod errors;
mod export;
mod extended_ops;
mod external;
mod f90_types;
mod fortran;
mod graphs;
mod grequests;
mod handle_table;
mod handles;
mod info;
mod intercomms;
mod isendrecv;
mod large_count;
mod large_count_arrays;
mod large_count_types;
mod lifecycle;
mod messages;
mod nbcoll;
mod nbneighbor;
mod neighbor;
mod partitioned;
mod persistent;
mod request_status;
mod request_table;
mod rma;
mod runtime_start;
mod session_table;
mod sessions;
mod split_type;
mod statuses;
mod tools;
mod topology;
mod type_contents;
mod type_queries;
mod types;
mod unsupported;
mod user_errors;
mod wired;
