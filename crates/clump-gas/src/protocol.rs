//! What the global address space's handlers and its calls agree on: the handler numbers,
//! the reply statuses, where the stored-bytes counter lives, and the remote procedures'
//! types. Its own file so that the handlers and the calls that send to them import it,
//! not each other.

use std::rc::Rc;

/// A read's get has landed in this rank's landing area (`landing.rs`).
pub(crate) const H_LANDED: u8 = 1;
pub(crate) const H_REPLY: u8 = 2;
pub(crate) const H_PUT: u8 = 3;
pub(crate) const H_PUT_ACK: u8 = 4;
pub(crate) const H_STORE: u8 = 5;
pub(crate) const H_GET_DONE: u8 = 6;
pub(crate) const H_ATOMIC: u8 = 7;
pub(crate) const H_COLL: u8 = 8;
pub(crate) const H_RPC: u8 = 9;
/// A remote procedure call whose caller does not wait (`posted.rs`), and its answer.
pub(crate) const H_RPC_POSTED: u8 = 10;
pub(crate) const H_POSTED_DONE: u8 = 11;

pub(crate) const STATUS_OK: u32 = 0;
pub(crate) const STATUS_BAD_RANGE: u32 = 1;
pub(crate) const STATUS_NO_SUCH_RPC: u32 = 2;
pub(crate) const STATUS_RESULT_TOO_LARGE: u32 = 3;

/// Offset in every segment of the count of bytes stored into this rank (an AtomicU64).
pub(crate) const STORED_COUNTER: usize = 0;

/// Where a read's gets land (`landing.rs`), past the part of every rank's segment `alloc`
/// hands out. The largest piece one get brings, and the pieces in flight at once: the landing area,
/// at the end of every rank's segment, holds one piece in flight per slot. A longer read
/// keeps every slot busy, each slot's next get leaving once its piece is copied out, so
/// that the target's turn to run (a round trip, on a loaded machine a time slice) is paid
/// once per `LANDING_SLOTS` pieces in flight rather than once per piece.
pub(crate) const LANDING_PIECE: usize = 1 << 20;
pub(crate) const LANDING_SLOTS: usize = 4;
pub(crate) const LANDING_BYTES: usize = LANDING_PIECE * LANDING_SLOTS;

pub(crate) type RpcFn = Rc<dyn Fn(&RpcContext, &[u8]) -> Vec<u8>>;

/// What a remote procedure learns about its call.
#[derive(Clone, Copy, Debug)]
pub struct RpcContext {
    pub source: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RpcId(pub(crate) u32);
