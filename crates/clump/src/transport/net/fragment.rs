//! The part of a queued message's payload that one datagram carries after its header.
//!
//! The reliability machine keeps each message's payload once, shared; a datagram points
//! at its slice of it, so the socket sends the fragment from there (scatter-gather)
//! instead of from a copy per datagram, and a retransmission copies nothing either.

use std::ops::Range;
use std::sync::Arc;

/// A slice of a shared payload, kept alive by the datagram until it is sent.
#[derive(Clone, Debug)]
pub struct Fragment {
    payload: Arc<Vec<u8>>,
    start: usize,
    end: usize,
}

impl Fragment {
    /// The bytes `range` of `payload`; `None` if the range does not lie within it.
    pub fn new(payload: &Arc<Vec<u8>>, range: Range<usize>) -> Option<Fragment> {
        payload.get(range.clone())?;
        Some(Fragment {
            payload: Arc::clone(payload),
            start: range.start,
            end: range.end,
        })
    }

    pub fn bytes(&self) -> &[u8] {
        // `new` checked the range.
        &self.payload[self.start..self.end]
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fragment_is_its_slice_of_the_shared_payload_and_never_lies_outside_it() {
        let p = Arc::new((0..10u8).collect::<Vec<u8>>());
        let f = Fragment::new(&p, 3..7).unwrap();
        assert_eq!((f.bytes(), f.len(), f.is_empty()), (&[3, 4, 5, 6][..], 4, false));
        assert_eq!(Arc::strong_count(&p), 2, "shared, not copied");
        assert!(Fragment::new(&p, 8..11).is_none());
        assert!(Fragment::new(&p, 10..10).unwrap().is_empty());
    }
}
