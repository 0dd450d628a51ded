//! The shared-memory transport: queue blocks in memory other processes of the host map.
//!
//! - `region.rs`: shared memory regions (memfd) and mapping a peer's.
//! - `ring.rs`, `bulk.rs`: the lock-free packet queue and the bulk blocks of medium
//!   payloads (model-checked with loom in `ring_loom.rs`).
//! - `block.rs`, `packet.rs`: an endpoint's queue block and the packet of one slot.
//! - `remote.rs`: peers' blocks as this process sees them (`liveness.rs`: whether a
//!   peer's process still runs); `segment.rs`: a mapped
//!   segment, the one place where segment bytes are read and written.
//! - `cma.rs`: cross-memory attach, one copy to or from a peer's program memory;
//!   `owned.rs`: whether memory the program names as a segment is its own.
//! - `wake.rs`: waking a process that sleeps in `wait`, and sleeping on descriptors;
//!   `cpu_mate.rs`: whether a process this one wakes, or is woken by, shares its CPU.
//! - `send.rs`, `poll.rs`: the Active Message side; `short.rs`: their fast path for the
//!   short round trip; `transport.rs`: the three as one complete implementation of the
//!   transports' trait (`endpoint/transport.rs`), the network's twin.

pub mod bulk;
pub mod ring;
#[cfg(all(test, loom))]
mod ring_loom;

crate::without_loom! {
    pub mod block;
    pub mod cma;
    pub mod cpu_mate;
    pub mod liveness;
    pub mod owned;
    pub mod packet;
    pub(crate) mod poll;
    pub mod region;
    pub mod remote;
    pub mod segment;
    pub(crate) mod send;
    pub(crate) mod short;
    pub(crate) mod transport;
    pub mod wake;
}
