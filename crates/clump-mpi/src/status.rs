//! What a completed receive reports.

use crate::datatype::Datatype;
use crate::error::ErrorClass;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The sender's rank in the communicator (`MPI_PROC_NULL` for a null peer).
    pub source: i32,
    pub tag: i32,
    pub error: Option<ErrorClass>,
    /// Bytes received.
    pub count_bytes: usize,
    pub cancelled: bool,
}

impl Status {
    pub fn empty() -> Status {
        Status {
            source: crate::matching::ANY_SOURCE,
            tag: crate::matching::ANY_TAG,
            error: None,
            count_bytes: 0,
            cancelled: false,
        }
    }

    /// `MPI_Get_count`: whole elements of `dt` received, `None` (`MPI_UNDEFINED`) otherwise.
    pub fn get_count(&self, dt: &Datatype) -> Option<usize> {
        match dt.size() {
            0 => Some(0),
            s if self.count_bytes.is_multiple_of(s) => Some(self.count_bytes / s),
            _ => None,
        }
    }

    /// The status a program sees of a completed request: a matched partitioned message
    /// (a real source, a negative tag: `partitioned`'s channel) shows the program's tag.
    pub(crate) fn shown(mut self) -> Status {
        if self.source >= 0 && self.tag < 0 {
            self.tag = !self.tag;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partitioned_status_shows_the_programs_tag_and_others_stay() {
        let matched = |source, tag| Status {
            source,
            tag,
            ..Status::empty()
        };
        assert_eq!(matched(1, !7).shown().tag, 7);
        assert_eq!(matched(0, !i32::MAX).shown().tag, i32::MAX);
        assert_eq!(matched(1, 7).shown().tag, 7);
        // Never matched: the empty status keeps MPI_ANY_TAG.
        assert_eq!(Status::empty().shown().tag, crate::matching::ANY_TAG);
    }
}
