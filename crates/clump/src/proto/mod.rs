//! Pure protocol logic of the AM layer: no socket, no clock, no shared memory. What
//! happens to a message (whether it may go, which request an answer settles, what comes
//! back to its sender when a peer is lost, which credits are owed) is decided here, so
//! that tests and the seeded simulation drive it as it runs.
//!
//! - [`flow`]: credits per translation, requests in flight, network flights, lost peers.
//! - [`acks`]: credits owed for requests whose handlers did not reply, coalesced in runs.
//! - [`held`]: when credits held back for a request to carry them must go.
//! - [`fifo`]: the queue of a translation's requests in flight.
//!
//! The network's reliability machine (`net/reliable.rs`) and the polling policy
//! (`poll.rs`) are pure in the same way.

pub(crate) mod acks;
pub(crate) mod fifo;
pub(crate) mod flow;
pub(crate) mod held;
