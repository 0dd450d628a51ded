//! The network transport: Active Messages between hosts over UDP.
//!
//! Laid out as DESIGN.md says, so that each concern is found by file name:
//!
//! - [`wire`]: the packet format. Encoding, decoding and validation of every field,
//!   with a CRC32C over header and payload. Pure: no I/O, no clock, no allocation on
//!   decode. Fuzzed (`fuzz/fuzz_targets/wire_decode.rs`) and property-tested.
//! - [`reliable`]: the reliability and flow-control state machine, pure (no socket, no
//!   clock): sequence numbers per peer and channel, acks on the opposite channel,
//!   retransmission, NACKs, the retry budget. Its files: `reliable/send.rs` (the sending
//!   half of a channel), `reliable/recv.rs` (the receiving half and reassembly),
//!   `reliable/rtt.rs` (RTO estimate), `reliable/timers.rs` (the timer queue),
//!   `reliable/tests.rs` (one unit test per rule).
//! - `reliable_sim` (tests only): a deterministic seeded simulation that drives several
//!   machines through loss, duplication, reordering, corruption, link cuts and full
//!   receive queues, and checks exactly-once in-order delivery of every message.
//! - [`udp`]: sockets and batching (`sendmmsg`/`recvmmsg`), the only module here that
//!   does I/O: `udp/tx.rs` and `udp/rx.rs` (the batches, with segmentation-offload
//!   super-datagrams out and coalesced ones in, `udp/offload.rs`), `udp/path.rs` (the
//!   largest datagram the route to a peer carries); with [`faults`], the seeded fault
//!   injector it applies to what it sends, and [`doorbell`], the in-memory counter of
//!   queued datagrams that lets a poll skip the system call when nothing came.
//! - `port.rs`: an endpoint's socket joined to its machine, with the clock.
//!
//! The Active Message semantics over this transport (which message answers which
//! request, what lands where) live beside the shared-memory ones: `net_send.rs` and
//! `net_dispatch.rs` at the crate root.

pub mod doorbell;
pub mod faults;
pub(crate) mod port;
pub use port::NetStats;
pub mod reliable;
#[cfg(test)]
mod reliable_sim;
pub mod udp;
pub mod wire;
