//! What can go wrong in the global address space: bad use is an error, never corruption.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Am(#[from] clump::Error),
    #[error("rank {rank} is out of range (the job has {size} ranks)")]
    BadRank { rank: u32, size: u32 },
    #[error(
        "access of {len} bytes at offset {offset} lies outside its allocation ({start}..{end})"
    )]
    OutOfBounds {
        offset: usize,
        len: usize,
        start: usize,
        end: usize,
    },
    #[error("atomic access at offset {0} is not 8-byte aligned")]
    Misaligned(usize),
    #[error(
        "allocation of {requested} bytes per rank does not fit: {free} bytes left in the segment"
    )]
    SegmentFull { requested: usize, free: usize },
    #[error("size does not fit: {0}")]
    BadSize(String),
    #[error("configuration: {0}")]
    Config(String),
    #[error("a message could not be delivered: {0}")]
    Undeliverable(String),
    #[error("remote procedure call failed: {0}")]
    Rpc(String),
    #[error("collective called out of order: {0}")]
    BadCollective(String),
}

pub type Result<T> = std::result::Result<T, Error>;
