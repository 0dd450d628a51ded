//! MPI matching: a receive's pattern against a message's envelope.

/// Matches a message from any source (`MPI_ANY_SOURCE`).
pub const ANY_SOURCE: i32 = -1;
/// Matches a message with any tag (`MPI_ANY_TAG`; the standard ABI's value, so that C
/// passes tags through unchanged).
pub const ANY_TAG: i32 = -2;
/// The rank whose sends and receives complete at once and move nothing (`MPI_PROC_NULL`,
/// the standard ABI's value too).
pub const PROC_NULL: i32 = -3;
/// Largest tag a program may use (`MPI_TAG_UB`).
pub const TAG_UB: i32 = i32::MAX;

/// Who sent a message, where and with which tag (`src` is the sender's job rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope {
    pub src: u32,
    pub ctx: u32,
    pub tag: i32,
}

/// What a receive accepts: a job rank or any, a tag or any, in one context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub src: Option<u32>,
    pub ctx: u32,
    pub tag: Option<i32>,
}

impl Pattern {
    pub fn matches(&self, e: &Envelope) -> bool {
        self.ctx == e.ctx
            && self.src.is_none_or(|s| s == e.src)
            && self.tag.is_none_or(|t| t == e.tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_contexts() {
        let e = Envelope {
            src: 3,
            ctx: 0,
            tag: 7,
        };
        let any = Pattern {
            src: None,
            ctx: 0,
            tag: None,
        };
        assert!(any.matches(&e));
        assert!(Pattern {
            src: Some(3),
            ctx: 0,
            tag: Some(7)
        }
        .matches(&e));
        assert!(!Pattern {
            src: Some(2),
            ctx: 0,
            tag: None
        }
        .matches(&e));
        assert!(!Pattern {
            src: None,
            ctx: 0,
            tag: Some(8)
        }
        .matches(&e));
        assert!(!Pattern {
            src: None,
            ctx: 1,
            tag: None
        }
        .matches(&e));
    }
}
