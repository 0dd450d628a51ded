//! Payload buffers of acknowledged messages, kept for the next messages' copies.
//!
//! A long message's payload is large enough that the allocator maps fresh memory for
//! each one and unmaps it when it is acknowledged: the copy into it then faults in and
//! zeroes every page, which costs more than the copy itself above 128 KiB (the fall of
//! long-message bandwidth with size). Reusing the buffers keeps their pages mapped.

use std::sync::Arc;

/// Buffers smaller than this come from the allocator's free lists cheaply: not kept.
const SMALLEST: usize = 16 << 10;
/// Bytes of spare buffers kept at most.
const KEPT_BYTES: usize = 16 << 20;

#[derive(Debug, Default)]
pub(super) struct Spares {
    bufs: Vec<Vec<u8>>,
    bytes: usize,
    /// The payload of every message without one (each short message): shared, so that
    /// such a message allocates nothing.
    empty: Arc<Vec<u8>>,
}

impl Spares {
    /// Keeps the buffer of a finished message's payload if no datagram still holds it,
    /// it is large, and the spares have room.
    pub(super) fn give(&mut self, payload: Arc<Vec<u8>>) {
        let Ok(mut buf) = Arc::try_unwrap(payload) else {
            return;
        };
        let cap = buf.capacity();
        if cap >= SMALLEST && self.bytes + cap <= KEPT_BYTES {
            buf.clear();
            self.bytes += cap;
            self.bufs.push(buf);
        }
    }

    /// `payload` as the machine keeps it until acknowledged; an empty one is shared.
    pub(super) fn keep(&self, payload: Vec<u8>) -> Arc<Vec<u8>> {
        if payload.is_empty() {
            Arc::clone(&self.empty)
        } else {
            Arc::new(payload)
        }
    }

    /// A copy of `bytes`, in the smallest spare buffer that holds it if there is one.
    pub(super) fn copy_of(&mut self, bytes: &[u8]) -> Vec<u8> {
        let fitting = self
            .bufs
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= bytes.len())
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        match fitting {
            Some(i) if bytes.len() >= SMALLEST => {
                let mut buf = self.bufs.swap_remove(i);
                self.bytes -= buf.capacity();
                buf.extend_from_slice(bytes);
                buf
            }
            _ => bytes.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_come_back_for_copies_that_fit_and_small_ones_do_not() {
        let mut s = Spares::default();
        let big = vec![7u8; 100_000];
        let at = big.as_ptr();
        s.give(Arc::new(big));
        s.give(Arc::new(vec![1u8; 100]));
        assert_eq!(s.bufs.len(), 1, "the small one is not kept");
        let small = s.copy_of(&[3; 10]);
        assert_ne!(small.as_ptr(), at, "a small copy is allocated");
        let copy = s.copy_of(&[5u8; 60_000]);
        assert_eq!((copy.as_ptr(), copy.len()), (at, 60_000), "the spare is reused");
        assert!(copy.iter().all(|&b| b == 5));
        assert_eq!((s.bufs.len(), s.bytes), (0, 0));
        // A payload a datagram still holds is not taken from it.
        let shared = Arc::new(copy);
        let held = Arc::clone(&shared);
        s.give(shared);
        assert!(s.bufs.is_empty() && held.len() == 60_000);
        // The spares stay within their bound.
        for _ in 0..40 {
            s.give(Arc::new(vec![0u8; 1 << 20]));
        }
        assert!(s.bytes <= KEPT_BYTES && s.bufs.len() == KEPT_BYTES >> 20);
    }

    #[test]
    fn empty_payloads_share_one_buffer_and_are_not_kept() {
        let mut s = Spares::default();
        let (a, b) = (s.keep(Vec::new()), s.keep(Vec::new()));
        assert!(Arc::ptr_eq(&a, &b) && a.is_empty());
        assert!(!Arc::ptr_eq(&s.keep(vec![1]), &s.keep(vec![1])));
        s.give(a);
        s.give(b);
        assert!(s.bufs.is_empty() && s.bytes == 0);
    }
}
