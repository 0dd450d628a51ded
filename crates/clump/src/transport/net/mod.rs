//! The network transport: Active Messages between hosts over UDP.
//!
//! Laid out as DESIGN.md says, so that each concern is found by file name:
//!
//! - [`wire`]: the packet format. Encoding, decoding and validation of every field,
//!   with a CRC32C over header and payload. Pure: no I/O, no clock, no allocation on
//!   decode. Fuzzed (`fuzz/fuzz_targets/wire_decode.rs`) and property-tested.
//!   [`fragment`]: the slice of a queued message's payload a datagram carries, sent
//!   from the machine's one copy (scatter-gather) rather than copied per datagram.
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
//! - `port.rs`: an endpoint's socket joined to its machine, with the clock;
//!   `members.rs`: the endpoints whose datagrams the machine admits (the job's);
//!   `auth.rs`: the datagram seal, a MAC under the job's key (`seal_speed.rs`: what
//!   `clump info` says of its speed here).
//!
//! The Active Message side of the transport, with the same verbs as shared memory's:
//! - `send.rs`: requests, gets, replies, returned requests and credit-only answers, as
//!   packets for the endpoint's reliability machine.
//! - `credit.rs`: the credit-only answer, for requests whose handlers did not reply;
//!   `send/owed.rs`: the endpoints holding those answers back for the next request to
//!   carry them, and the checks that send them in bounded time.
//! - `poll.rs`: datagrams into the machine, then the handlers of the whole messages it
//!   delivers; waiting for a datagram; the rounds of a closing endpoint.
//! - `linger.rs`: a freed endpoint's socket stays until what it sent is acknowledged or,
//!   after the silence timeout, returned to handler 0: never dropped unacknowledged.
//! - `transport.rs`: the whole as one complete implementation of the transports' trait
//!   (`endpoint/transport.rs`), shared memory's twin.

pub(crate) mod auth;
pub(crate) mod credit;
pub mod doorbell;
pub(crate) mod linger;
pub(crate) mod members;
pub(crate) mod poll;
pub(crate) mod port;
pub(crate) mod seal_speed;
#[cfg(test)]
mod reliable_sim;
pub(crate) mod send;
pub(crate) mod transport;
crate::testing_pub! {
    mod faults;
    mod fragment;
    mod reliable;
    mod udp;
    mod wire;
}

pub use port::NetStats;
pub use reliable::Stats as ProtocolStats;
pub use udp::{Offload, UdpStats};

/// A network destination: the socket address and the endpoint behind it.
pub(crate) type NetPeer = reliable::Peer<std::net::SocketAddrV4>;
