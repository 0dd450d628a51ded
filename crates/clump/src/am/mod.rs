//! The AM layer: what programs call (endpoints, bundles, tokens), above both transports.
//! Each verb routes once per translation (`send.rs` for requests and gets, `token.rs`
//! for replies) to the shared-memory transport (`shm/send.rs`, `shm/poll.rs`) or the
//! network transport (`net/send.rs`, `net/poll.rs`), which have the same verbs.

pub(crate) mod bundle;
pub(crate) mod endpoint;
pub(crate) mod peer_segment;
pub(crate) mod poll;
pub(crate) mod program_segment;
pub(crate) mod query;
pub(crate) mod send;
pub(crate) mod token;
