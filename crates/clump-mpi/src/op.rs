//! Reduction operations on predefined types: `acc = acc OP incoming`, element by element.

use crate::datatype::Predef;
use crate::error::{Error, ErrorClass, Result};

/// The predefined reduction operations this version implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Sum,
    Prod,
    Min,
    Max,
    Land,
    Lor,
    Lxor,
    Band,
    Bor,
    Bxor,
    Replace,
    NoOp,
}

/// Combines an integer pair; `None` when the operation does not apply to integers.
macro_rules! int_op {
    ($op:expr, $a:expr, $b:expr) => {
        match $op {
            Op::Sum => Some($a.wrapping_add($b)),
            Op::Prod => Some($a.wrapping_mul($b)),
            Op::Min => Some(if $b < $a { $b } else { $a }),
            Op::Max => Some(if $b > $a { $b } else { $a }),
            Op::Land => Some(((($a != 0) && ($b != 0)) as u8) as _),
            Op::Lor => Some(((($a != 0) || ($b != 0)) as u8) as _),
            Op::Lxor => Some(((($a != 0) != ($b != 0)) as u8) as _),
            Op::Band => Some($a & $b),
            Op::Bor => Some($a | $b),
            Op::Bxor => Some($a ^ $b),
            Op::Replace => Some($b),
            Op::NoOp => Some($a),
        }
    };
}

/// Combines a floating-point pair; `None` for the bitwise operations.
macro_rules! float_op {
    ($op:expr, $a:expr, $b:expr) => {
        match $op {
            Op::Sum => Some($a + $b),
            Op::Prod => Some($a * $b),
            Op::Min => Some(if $b < $a { $b } else { $a }),
            Op::Max => Some(if $b > $a { $b } else { $a }),
            Op::Land => Some((($a != 0.0) && ($b != 0.0)) as u8 as _),
            Op::Lor => Some((($a != 0.0) || ($b != 0.0)) as u8 as _),
            Op::Lxor => Some((($a != 0.0) != ($b != 0.0)) as u8 as _),
            Op::Replace => Some($b),
            Op::NoOp => Some($a),
            Op::Band | Op::Bor | Op::Bxor => None,
        }
    };
}

/// Applies `op` to each element of `acc` and `incoming` (same length) typed as `t`.
fn combine_as<const N: usize, T: Copy>(
    acc: &mut [u8],
    incoming: &[u8],
    from: fn([u8; N]) -> T,
    to: fn(T) -> [u8; N],
    f: impl Fn(T, T) -> Option<T>,
) -> bool {
    for (a, b) in acc.chunks_exact_mut(N).zip(incoming.chunks_exact(N)) {
        let x = from(a.try_into().expect("chunk of N"));
        let y = from(b.try_into().expect("chunk of N"));
        match f(x, y) {
            Some(r) => a.copy_from_slice(&to(r)),
            None => return false,
        }
    }
    true
}

/// Combines `acc` and `inc` as elements of `$t` with `$pair` (`int_op` or `float_op`).
macro_rules! typed {
    ($pair:ident, $t:ty, $op:expr, $acc:expr, $inc:expr) => {
        combine_as(
            $acc,
            $inc,
            <$t>::from_ne_bytes,
            <$t>::to_ne_bytes,
            |a: $t, b: $t| $pair!($op, a, b),
        )
    };
}

impl Op {
    /// `acc[i] = acc[i] op incoming[i]` for the elements of type `t` in the two buffers.
    pub fn apply(self, t: Predef, acc: &mut [u8], incoming: &[u8]) -> Result<()> {
        use Predef::*;
        if acc.len() != incoming.len() || !acc.len().is_multiple_of(t.size()) {
            return Err(Error::new(ErrorClass::Intern, "reduction buffers differ"));
        }
        let ok = match t {
            Char | SignedChar | Int8 => typed!(int_op, i8, self, acc, incoming),
            Byte | UnsignedChar | Uint8 | CBool => typed!(int_op, u8, self, acc, incoming),
            Short | Int16 => typed!(int_op, i16, self, acc, incoming),
            UnsignedShort | Uint16 => typed!(int_op, u16, self, acc, incoming),
            Int | Int32 => typed!(int_op, i32, self, acc, incoming),
            Unsigned | Uint32 => typed!(int_op, u32, self, acc, incoming),
            Long | LongLong | Int64 => typed!(int_op, i64, self, acc, incoming),
            UnsignedLong | UnsignedLongLong | Uint64 => typed!(int_op, u64, self, acc, incoming),
            Float => typed!(float_op, f32, self, acc, incoming),
            Double => typed!(float_op, f64, self, acc, incoming),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::new(
                ErrorClass::Op,
                format!("{self:?} does not apply to {}", t.name()),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    fn back(b: &[u8]) -> Vec<i32> {
        b.chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn integer_ops() {
        let cases = [
            (Op::Sum, vec![4, -1, 0]),
            (Op::Prod, vec![3, -6, 0]),
            (Op::Min, vec![1, -3, 0]),
            (Op::Max, vec![3, 2, 0]),
            (Op::Land, vec![1, 1, 0]),
            (Op::Lor, vec![1, 1, 0]),
            (Op::Lxor, vec![0, 0, 0]),
            (Op::Band, vec![1, 2 & -3, 0]),
            (Op::Bor, vec![3, 2 | -3, 0]),
            (Op::Bxor, vec![2, 2 ^ -3, 0]),
            (Op::Replace, vec![3, -3, 0]),
            (Op::NoOp, vec![1, 2, 0]),
        ];
        for (op, want) in cases {
            let mut acc = ints(&[1, 2, 0]);
            op.apply(Predef::Int, &mut acc, &ints(&[3, -3, 0])).unwrap();
            assert_eq!(back(&acc), want, "{op:?}");
        }
    }

    #[test]
    fn float_ops_and_refusals() {
        let mut acc: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let inc: Vec<u8> = [2.0f64, 4.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        Op::Prod.apply(Predef::Double, &mut acc, &inc).unwrap();
        assert_eq!(f64::from_ne_bytes(acc[..8].try_into().unwrap()), 3.0);
        assert_eq!(f64::from_ne_bytes(acc[8..].try_into().unwrap()), -8.0);
        let e = Op::Band.apply(Predef::Double, &mut acc, &inc).unwrap_err();
        assert_eq!(e.class, ErrorClass::Op);
        assert!(Op::Sum
            .apply(Predef::Int, &mut [0u8; 4], &[0u8; 8])
            .is_err());
    }
}
