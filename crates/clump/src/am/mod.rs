//! The AM layer: what programs call (endpoints, bundles, tokens), above both transports.
//! Each verb takes its translation's route from the one routing point
//! (`endpoint/route.rs`; `send.rs` for requests and gets, `token.rs` for replies) and
//! hands the message to the shared-memory transport (`shm/transport.rs`) or the network
//! transport (`net/transport.rs`), each a whole implementation of the same verbs
//! (`endpoint/transport.rs`).

pub(crate) mod bundle;
pub(crate) mod endpoint;
pub(crate) mod idle_wait;
pub(crate) mod peer_segment;
pub(crate) mod poll;
pub(crate) mod program_segment;
pub(crate) mod query;
pub(crate) mod send;
pub(crate) mod token;
