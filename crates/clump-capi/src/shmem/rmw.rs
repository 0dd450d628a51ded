//! The atomic read-modify-writes of a 64-bit word that OpenSHMEM's atomics and the
//! program's data are updated with, and their encoding in a message.

use std::sync::atomic::{AtomicU64, Ordering};

/// An atomic read-modify-write of a 64-bit word; each returns the value it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    Load,
    Swap(u64),
    CompareSwap { expect: u64, new: u64 },
    Add(u64),
    And(u64),
    Or(u64),
    Xor(u64),
}

impl Rmw {
    pub fn apply(self, word: &AtomicU64) -> u64 {
        let o = Ordering::AcqRel;
        match self {
            Rmw::Load => word.load(Ordering::Acquire),
            Rmw::Swap(v) => word.swap(v, o),
            Rmw::CompareSwap { expect, new } => {
                match word.compare_exchange(expect, new, o, Ordering::Acquire) {
                    Ok(v) | Err(v) => v,
                }
            }
            Rmw::Add(v) => word.fetch_add(v, o),
            Rmw::And(v) => word.fetch_and(v, o),
            Rmw::Or(v) => word.fetch_or(v, o),
            Rmw::Xor(v) => word.fetch_xor(v, o),
        }
    }

    /// Code, operand, second operand: 17 bytes.
    pub fn encode(self) -> Vec<u8> {
        let (code, a, b) = match self {
            Rmw::Load => (0u8, 0, 0),
            Rmw::Swap(v) => (1, v, 0),
            Rmw::CompareSwap { expect, new } => (2, expect, new),
            Rmw::Add(v) => (3, v, 0),
            Rmw::And(v) => (4, v, 0),
            Rmw::Or(v) => (5, v, 0),
            Rmw::Xor(v) => (6, v, 0),
        };
        let mut out = vec![code];
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Rmw> {
        let (&code, rest) = bytes.split_first()?;
        let a = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let b = u64::from_le_bytes(rest.get(8..16)?.try_into().ok()?);
        Some(match code {
            0 => Rmw::Load,
            1 => Rmw::Swap(a),
            2 => Rmw::CompareSwap { expect: a, new: b },
            3 => Rmw::Add(a),
            4 => Rmw::And(a),
            5 => Rmw::Or(a),
            6 => Rmw::Xor(a),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_apply() {
        let ops = [
            Rmw::Load,
            Rmw::Swap(3),
            Rmw::CompareSwap { expect: 4, new: 5 },
            Rmw::Add(6),
            Rmw::And(7),
            Rmw::Or(8),
            Rmw::Xor(9),
        ];
        for op in ops {
            assert_eq!(Rmw::decode(&op.encode()), Some(op));
        }
        assert_eq!(Rmw::decode(&[9; 17]), None);
        assert_eq!(Rmw::decode(&[1, 2]), None);
        let w = AtomicU64::new(4);
        assert_eq!(Rmw::CompareSwap { expect: 4, new: 12 }.apply(&w), 4);
        assert_eq!(Rmw::And(10).apply(&w), 12);
        assert_eq!(Rmw::Load.apply(&w), 8);
    }
}
