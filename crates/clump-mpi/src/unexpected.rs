//! The store of eager messages that arrived before their receive was posted (paper 004's
//! buffered protocol): small messages go into fixed 1 KiB bins kept on a free list, so the
//! common case neither searches nor calls the allocator; larger ones get storage of their
//! own. Every byte held counts against a bound (`CLUMP_MPI_UNEXPECTED_BYTES`); a message
//! past it is still kept (nothing is lost) and the store reports the overflow.

use crate::error::{Error, ErrorClass};

/// The size of a bin: messages up to this many bytes take one.
pub const BIN: usize = 1024;
/// Free bins kept for reuse at most (the rest go back to the allocator).
const KEEP_FREE: usize = 256;

/// One stored message.
pub struct Stored {
    storage: Storage,
    len: usize,
}

enum Storage {
    Bin(Box<[u8; BIN]>),
    Own(Vec<u8>),
}

impl Stored {
    pub fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Bin(b) => &b[..self.len],
            Storage::Own(v) => v,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes it holds of the bound: a whole bin, or its own length.
    fn charge(&self) -> usize {
        match self.storage {
            Storage::Bin(_) => BIN,
            Storage::Own(_) => self.len,
        }
    }
}

pub struct UnexpectedStore {
    limit: usize,
    used: usize,
    // Boxed: a bin moves between this list and a message without copying its KiB.
    #[allow(clippy::vec_box)]
    free: Vec<Box<[u8; BIN]>>,
}

impl UnexpectedStore {
    pub fn new(limit: usize) -> UnexpectedStore {
        UnexpectedStore {
            limit,
            used: 0,
            free: Vec::new(),
        }
    }

    /// Keeps a copy of `data`; the error says the bound was passed (the copy is kept).
    pub fn keep(&mut self, data: &[u8]) -> (Stored, Option<Error>) {
        let storage = if data.len() <= BIN {
            let mut bin = self.free.pop().unwrap_or_else(|| Box::new([0u8; BIN]));
            bin[..data.len()].copy_from_slice(data);
            Storage::Bin(bin)
        } else {
            Storage::Own(data.to_vec())
        };
        let s = Stored {
            storage,
            len: data.len(),
        };
        self.used += s.charge();
        let over = (self.used > self.limit).then(|| {
            Error::new(
                ErrorClass::NoMem,
                format!(
                    "unexpected messages hold {} bytes, more than CLUMP_MPI_UNEXPECTED_BYTES ({} bytes): receives are posted too late for what is sent",
                    self.used, self.limit
                ),
            )
        });
        (s, over)
    }

    /// Gives a stored message's storage back.
    pub fn release(&mut self, s: Stored) {
        self.used -= s.charge();
        if let Storage::Bin(b) = s.storage {
            if self.free.len() < KEEP_FREE {
                self.free.push(b);
            }
        }
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_messages_reuse_bins_and_large_ones_are_charged_their_length() {
        let mut s = UnexpectedStore::new(4 * BIN);
        let (a, over) = s.keep(b"hello");
        assert!(over.is_none());
        assert_eq!((a.bytes(), s.used()), (&b"hello"[..], BIN));
        let first = a.bytes().as_ptr();
        s.release(a);
        assert_eq!(s.used(), 0);
        let (b, _) = s.keep(b"again");
        assert_eq!(b.bytes().as_ptr(), first, "the freed bin is reused");
        let (big, over) = s.keep(&[7u8; 2000]);
        assert!(over.is_none());
        assert_eq!((big.len(), s.used()), (2000, BIN + 2000));
        s.release(b);
        s.release(big);
        assert_eq!(s.used(), 0);
    }

    #[test]
    fn passing_the_bound_keeps_the_message_and_says_so() {
        let mut s = UnexpectedStore::new(BIN);
        let (a, over) = s.keep(&[1u8; 10]);
        assert!(over.is_none());
        let (b, over) = s.keep(&[2u8; 10]);
        let e = over.expect("over the bound");
        assert_eq!(e.class, ErrorClass::NoMem);
        assert!(e.message.contains("CLUMP_MPI_UNEXPECTED_BYTES"));
        assert_eq!(b.bytes(), &[2u8; 10]);
        s.release(a);
        s.release(b);
    }
}
