//! A one-sided request as its remote procedure call carries it: the kind byte, the target
//! window's id, the offset and the kind's arguments, then the data; and the reply, an error
//! code before the data.

use super::super::abi::MPI_ERR_OTHER;
use super::super::wired::Failure;

/// What a request asks: the kind byte that starts it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Kind {
    Put = 1,
    Get = 2,
    Accumulate = 3,
    CompareSwap = 4,
    Lock = 5,
    Unlock = 6,
    /// General active target: a target's `MPI_Win_post` to an origin.
    Post = 7,
    /// An origin's `MPI_Win_complete` to a target.
    Complete = 8,
    /// Several byte runs of a derived target datatype at once: the data starts with the
    /// number of runs and a table of them, each (offset from the request's offset,
    /// length), all little-endian words; a put's or an accumulate's bytes follow (an
    /// accumulate's args as for [`Kind::Accumulate`]), a get's come back.
    PutRuns = 9,
    GetRuns = 10,
    AccumulateRuns = 11,
}

/// Bytes of a runs request's table per run.
pub const RUN_ENTRY: usize = 16;

/// A request: its kind, the target's window id, the byte offset in the window, and the
/// kind's own arguments.
pub struct Request<'a> {
    pub kind: Kind,
    pub id: u32,
    pub offset: u64,
    /// Put: nothing. Get: the length. Accumulate: the operation, the predefined type, and
    /// whether the old contents come back. Compare-and-swap: the type. Lock and unlock:
    /// whether exclusive.
    pub args: [u64; 3],
    pub data: &'a [u8],
}

const HEADER: usize = 1 + 4 + 8 + 3 * 8;

/// Bytes of data one request can carry.
pub fn room() -> usize {
    am::MAX_MEDIUM - HEADER
}

impl Request<'_> {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.data.len());
        out.push(self.kind as u8);
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        for a in self.args {
            out.extend_from_slice(&a.to_le_bytes());
        }
        out.extend_from_slice(self.data);
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Request<'_>> {
        if bytes.len() < HEADER {
            return None;
        }
        let kind = match bytes[0] {
            1 => Kind::Put,
            2 => Kind::Get,
            3 => Kind::Accumulate,
            4 => Kind::CompareSwap,
            5 => Kind::Lock,
            6 => Kind::Unlock,
            7 => Kind::Post,
            8 => Kind::Complete,
            9 => Kind::PutRuns,
            10 => Kind::GetRuns,
            11 => Kind::AccumulateRuns,
            _ => return None,
        };
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        Some(Request {
            kind,
            id: u32::from_le_bytes(bytes[1..5].try_into().unwrap()),
            offset: word(5),
            args: [word(13), word(21), word(29)],
            data: &bytes[HEADER..],
        })
    }
}

/// A reply: nothing for a success without data (what a posted request's answer is
/// counted off by, [`clump_gas::Gas::rpc_post`]), else the error code (0 for success) as
/// 4 bytes, then the data.
pub fn reply(outcome: Result<Vec<u8>, Failure>) -> Vec<u8> {
    match outcome {
        Ok(data) if data.is_empty() => data,
        Ok(mut data) => {
            data.splice(0..0, 0i32.to_le_bytes());
            data
        }
        Err((code, why)) => {
            let mut out = code.to_le_bytes().to_vec();
            out.extend_from_slice(why.as_bytes());
            out
        }
    }
}

/// The reply's data, or the target's error.
pub fn unreply(bytes: Vec<u8>) -> Result<Vec<u8>, Failure> {
    if bytes.is_empty() {
        return Ok(bytes);
    }
    if bytes.len() < 4 {
        return Err((MPI_ERR_OTHER, "a one-sided reply was cut short".into()));
    }
    match i32::from_le_bytes(bytes[..4].try_into().unwrap()) {
        0 => Ok(bytes[4..].to_vec()),
        code => Err((code, String::from_utf8_lossy(&bytes[4..]).into_owned())),
    }
}

impl Request<'_> {
    /// Whether the origin needs nothing back but that it was done: a put, or an
    /// accumulate that fetches nothing, which may be posted ([`super::space::Space::post`]).
    pub fn answers_nothing(&self) -> bool {
        match self.kind {
            Kind::Put | Kind::PutRuns => true,
            Kind::Accumulate | Kind::AccumulateRuns => self.args[2] == 0,
            _ => false,
        }
    }
}
