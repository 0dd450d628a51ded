//! The network transport: Active Messages between hosts over UDP.
//!
//! Laid out as DESIGN.md says, so that each concern is found by file name:
//!
//! - [`wire`]: the packet format. Encoding, decoding and validation of every field,
//!   with a CRC32C over header and payload. Pure: no I/O, no clock, no allocation on
//!   decode. Fuzzed (`fuzz/fuzz_targets/wire_decode.rs`) and property-tested.
//! - `reliable.rs` (to come): the reliability and flow-control state machine, pure.
//! - `udp.rs` (to come): sockets and batching, the only file here that does I/O.

pub mod faults;
pub(crate) mod port;
pub mod reliable;
pub mod udp;
pub mod wire;
