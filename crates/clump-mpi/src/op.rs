//! Reduction operations on packed data: `higher = lower OP higher`, element by element,
//! where `lower` comes from the lower ranks (the order a non-commutative operation needs).

use std::fmt;
use std::rc::Rc;
use std::sync::OnceLock;

use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};

/// A user function (`MPI_User_function`): `inout[i] = in[i] op inout[i]` for `count`
/// elements laid out as the datatype says, at raw addresses (the type map may reach
/// before the first element).
pub type UserFn = dyn Fn(*const u8, *mut u8, usize);

/// Arithmetic on element types Rust lacks (long double, its complex and value-index
/// pair, complex products), supplied by the C layer, which has C's: `higher = lower op
/// higher` on packed elements of the type; false when the operation does not apply.
pub type Extended = fn(&Op, Predef, &[u8], &mut [u8]) -> bool;

static EXTENDED: OnceLock<Extended> = OnceLock::new();

/// Hands clump-mpi the arithmetic of [`Extended`] (once; later calls change nothing).
pub fn set_extended(f: Extended) {
    let _ = EXTENDED.set(f);
}

fn extended(op: &Op, t: Predef, lower: &[u8], higher: &mut [u8]) -> bool {
    EXTENDED.get().is_some_and(|f| f(op, t, lower, higher))
}

/// A reduction operation: a predefined one or a user function (`MPI_Op_create`).
#[derive(Clone)]
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
    MaxLoc,
    MinLoc,
    Replace,
    NoOp,
    User { f: Rc<UserFn>, commute: bool },
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::User { commute, .. } => write!(f, "User(commute: {commute})"),
            Op::Sum => f.write_str("Sum"),
            Op::Prod => f.write_str("Prod"),
            Op::Min => f.write_str("Min"),
            Op::Max => f.write_str("Max"),
            Op::Land => f.write_str("Land"),
            Op::Lor => f.write_str("Lor"),
            Op::Lxor => f.write_str("Lxor"),
            Op::Band => f.write_str("Band"),
            Op::Bor => f.write_str("Bor"),
            Op::Bxor => f.write_str("Bxor"),
            Op::MaxLoc => f.write_str("MaxLoc"),
            Op::MinLoc => f.write_str("MinLoc"),
            Op::Replace => f.write_str("Replace"),
            Op::NoOp => f.write_str("NoOp"),
        }
    }
}

/// Combines `lower` into `higher` as elements of `$t` with an integer operation; false
/// when `$op` does not apply. The operation is chosen once, outside the loop, so that each
/// arm's loop is a plain element-wise one the compiler turns into vector instructions.
macro_rules! int_op {
    ($t:ty, $op:expr, $lower:expr, $higher:expr) => {{
        match $op {
            Op::Sum => each_as!($t, $lower, $higher, |a, b| a.wrapping_add(b)),
            Op::Prod => each_as!($t, $lower, $higher, |a, b| a.wrapping_mul(b)),
            Op::Min => each_as!($t, $lower, $higher, |a, b| if b < a { b } else { a }),
            Op::Max => each_as!($t, $lower, $higher, |a, b| if b > a { b } else { a }),
            Op::Land => each_as!($t, $lower, $higher, |a, b| ((a != 0) && (b != 0)) as $t),
            Op::Lor => each_as!($t, $lower, $higher, |a, b| ((a != 0) || (b != 0)) as $t),
            Op::Lxor => each_as!($t, $lower, $higher, |a, b| ((a != 0) != (b != 0)) as $t),
            Op::Band => each_as!($t, $lower, $higher, |a, b| a & b),
            Op::Bor => each_as!($t, $lower, $higher, |a, b| a | b),
            Op::Bxor => each_as!($t, $lower, $higher, |a, b| a ^ b),
            Op::Replace => each_as!($t, $lower, $higher, |_, b| b),
            Op::NoOp => each_as!($t, $lower, $higher, |a, _| a),
            _ => false,
        }
    }};
}

/// The same with a floating-point operation (none of the bitwise or location ones).
macro_rules! float_op {
    ($t:ty, $op:expr, $lower:expr, $higher:expr) => {{
        match $op {
            Op::Sum => each_as!($t, $lower, $higher, |a, b| a + b),
            Op::Prod => each_as!($t, $lower, $higher, |a, b| a * b),
            Op::Min => each_as!($t, $lower, $higher, |a, b| if b < a { b } else { a }),
            Op::Max => each_as!($t, $lower, $higher, |a, b| if b > a { b } else { a }),
            Op::Land => each_as!($t, $lower, $higher, |a, b| ((a != 0.0) && (b != 0.0)) as u8
                as $t),
            Op::Lor => each_as!($t, $lower, $higher, |a, b| ((a != 0.0) || (b != 0.0)) as u8
                as $t),
            Op::Lxor => each_as!($t, $lower, $higher, |a, b| ((a != 0.0) != (b != 0.0)) as u8
                as $t),
            Op::Replace => each_as!($t, $lower, $higher, |_, b| b),
            Op::NoOp => each_as!($t, $lower, $higher, |a, _| a),
            _ => false,
        }
    }};
}

/// `higher[i] = f(lower[i], higher[i])` over elements of `$t`; true.
macro_rules! each_as {
    ($t:ty, $lower:expr, $higher:expr, $f:expr) => {
        each($lower, $higher, <$t>::from_ne_bytes, <$t>::to_ne_bytes, $f)
    };
}

/// `higher[i] = f(lower[i], higher[i])` over elements of `N` bytes read as `T`; true.
/// A function of its own for each type and operation: its loop vectorizes, and the match
/// that picks it stays small (inlined, the loops made it slow for a few elements).
#[inline(never)]
fn each<const N: usize, T: Copy>(
    lower: &[u8],
    higher: &mut [u8],
    from: fn([u8; N]) -> T,
    to: fn(T) -> [u8; N],
    f: impl Fn(T, T) -> T,
) -> bool {
    for (a, b) in lower.chunks_exact(N).zip(higher.chunks_exact_mut(N)) {
        let x = from(a.try_into().expect("chunk of N"));
        let y = from(b.try_into().expect("chunk of N"));
        b.copy_from_slice(&to(f(x, y)));
    }
    true
}

/// `MPI_MAXLOC` (`max`) or `MPI_MINLOC` on packed (value, index) pairs whose value is
/// `N` bytes read as `T` and whose index is `M` bytes read as `U` (an int in C's pairs,
/// the value's type in Fortran's MPI_2REAL ...): the better value, the lower index on a tie.
fn locate<const N: usize, const M: usize, T: PartialOrd, U: PartialOrd>(
    lower: &[u8],
    higher: &mut [u8],
    from: fn([u8; N]) -> T,
    index: fn([u8; M]) -> U,
    max: bool,
) {
    for (a, b) in lower
        .chunks_exact(N + M)
        .zip(higher.chunks_exact_mut(N + M))
    {
        let (va, vb) = (
            from(a[..N].try_into().expect("N")),
            from(b[..N].try_into().expect("N")),
        );
        let index = |x: &[u8]| index(x[N..].try_into().expect("M bytes"));
        let take_a = if va == vb {
            index(a) < index(b)
        } else {
            (va > vb) == max
        };
        if take_a {
            b.copy_from_slice(a);
        }
    }
}

/// A complex number of `N`-byte parts read as `T`, from its bytes and back.
fn complex<const N: usize, const B: usize, T: Copy>(
    lower: &[u8],
    higher: &mut [u8],
    from: fn([u8; N]) -> T,
    to: fn(T) -> [u8; N],
    f: impl Fn((T, T), (T, T)) -> (T, T),
) -> bool {
    let parts = |x: [u8; B]| {
        (
            from(x[..N].try_into().expect("N")),
            from(x[N..].try_into().expect("N")),
        )
    };
    let join = |(re, im): (T, T)| {
        let mut out = [0u8; B];
        out[..N].copy_from_slice(&to(re));
        out[N..].copy_from_slice(&to(im));
        out
    };
    for (a, b) in lower.chunks_exact(B).zip(higher.chunks_exact_mut(B)) {
        let x = parts(a.try_into().expect("B"));
        let y = parts((&*b).try_into().expect("B"));
        b.copy_from_slice(&join(f(x, y)));
    }
    true
}

/// The complex product, `MPI_PROD` on complex types.
fn times<
    T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
>(
    (a, b): (T, T),
    (c, d): (T, T),
) -> (T, T) {
    (a * c - b * d, a * d + b * c)
}

impl Op {
    /// Whether the order of the operands does not matter.
    pub fn is_commutative(&self) -> bool {
        match self {
            Op::User { commute, .. } => *commute,
            _ => true,
        }
    }

    /// Whether the operation applies to `dt` (a user function applies to any type): what a
    /// reduction checks before it sends anything, so that every rank fails alike.
    pub fn check(&self, dt: &Datatype) -> Result<()> {
        if matches!(self, Op::User { .. }) {
            return Ok(());
        }
        // No elements: whether the operation applies, without data to combine.
        self.combine(dt, 0, &[], &mut [])
    }

    /// `higher = lower op higher` for `count` packed elements of `dt` in each buffer.
    pub fn combine(
        &self,
        dt: &Datatype,
        count: usize,
        lower: &[u8],
        higher: &mut [u8],
    ) -> Result<()> {
        let len = dt.bytes(count)?;
        if lower.len() != len || higher.len() != len {
            return Err(Error::new(ErrorClass::Intern, "reduction buffers differ"));
        }
        if let Op::User { f, .. } = self {
            return user(f.as_ref(), dt, count, lower, higher);
        }
        let refused = || {
            Error::new(
                ErrorClass::Op,
                format!("{self:?} does not apply to {}", dt.name()),
            )
        };
        let t = dt.element().ok_or_else(refused)?;
        if self.predefined_on(t, lower, higher) {
            Ok(())
        } else {
            Err(refused())
        }
    }

    /// A predefined operation on elements of `t`; false when it does not apply to them.
    fn predefined_on(&self, t: Predef, lower: &[u8], higher: &mut [u8]) -> bool {
        use Predef::*;
        // Replace and no-op only move bytes, so they apply to every type (the pairs and
        // complex types included, which one-sided calls may name with them).
        match self {
            Op::Replace => return true,
            Op::NoOp => {
                higher.copy_from_slice(lower);
                return true;
            }
            _ => {}
        }
        let loc = matches!(self, Op::MaxLoc | Op::MinLoc);
        let max = matches!(self, Op::MaxLoc);
        match t {
            FloatInt | DoubleInt | LongInt | TwoInt | ShortInt | TwoFloat | TwoDouble if !loc => {
                false
            }
            LongDouble | LongDoubleComplex | LongDoubleInt | Float128 | Float128Complex => {
                extended(self, t, lower, higher)
            }
            FloatInt => {
                locate(lower, higher, f32::from_ne_bytes, i32::from_ne_bytes, max);
                true
            }
            DoubleInt => {
                locate(lower, higher, f64::from_ne_bytes, i32::from_ne_bytes, max);
                true
            }
            LongInt => {
                locate(lower, higher, i64::from_ne_bytes, i32::from_ne_bytes, max);
                true
            }
            TwoInt => {
                locate(lower, higher, i32::from_ne_bytes, i32::from_ne_bytes, max);
                true
            }
            ShortInt => {
                locate(lower, higher, i16::from_ne_bytes, i32::from_ne_bytes, max);
                true
            }
            TwoFloat => {
                locate(lower, higher, f32::from_ne_bytes, f32::from_ne_bytes, max);
                true
            }
            TwoDouble => {
                locate(lower, higher, f64::from_ne_bytes, f64::from_ne_bytes, max);
                true
            }
            _ if loc => false,
            Char | SignedChar | Int8 => int_op!(i8, self, lower, higher),
            Byte | Packed | UnsignedChar | Uint8 | CBool => int_op!(u8, self, lower, higher),
            Short | Int16 => int_op!(i16, self, lower, higher),
            UnsignedShort | Uint16 => int_op!(u16, self, lower, higher),
            Int | Int32 | Wchar => int_op!(i32, self, lower, higher),
            Unsigned | Uint32 => int_op!(u32, self, lower, higher),
            Long | LongLong | Int64 | Aint | Offset | Count => {
                int_op!(i64, self, lower, higher)
            }
            UnsignedLong | UnsignedLongLong | Uint64 => int_op!(u64, self, lower, higher),
            Int128 => int_op!(i128, self, lower, higher),
            Float => float_op!(f32, self, lower, higher),
            Double => float_op!(f64, self, lower, higher),
            // A complex sum is the sum of the parts; the product is the complex one; other
            // operations do not apply.
            FloatComplex if matches!(self, Op::Sum) => float_op!(f32, self, lower, higher),
            DoubleComplex if matches!(self, Op::Sum) => float_op!(f64, self, lower, higher),
            FloatComplex if matches!(self, Op::Prod) => {
                complex::<4, 8, f32>(lower, higher, f32::from_ne_bytes, f32::to_ne_bytes, times)
            }
            DoubleComplex if matches!(self, Op::Prod) => {
                complex::<8, 16, f64>(lower, higher, f64::from_ne_bytes, f64::to_ne_bytes, times)
            }
            FloatComplex | DoubleComplex => false,
        }
    }
}

/// Runs a user function on packed data: straight on it for a contiguous type, else on
/// copies laid out as the type says.
fn user(f: &UserFn, dt: &Datatype, count: usize, lower: &[u8], higher: &mut [u8]) -> Result<()> {
    if dt.is_contiguous() {
        f(lower.as_ptr(), higher.as_mut_ptr(), count);
        return Ok(());
    }
    let (lo, ext) = dt.true_bounds();
    let span = match count {
        0 => 0,
        n => (n as isize - 1) * dt.extent() + ext,
    };
    let span = usize::try_from(span)
        .map_err(|_| Error::new(ErrorClass::Type, "a user operation on a negative extent"))?;
    let (mut a, mut b) = (vec![0u8; span], vec![0u8; span]);
    // The type map starts `lo` bytes after the address the function gets.
    let (pa, pb) = (
        a.as_mut_ptr().wrapping_offset(-lo),
        b.as_mut_ptr().wrapping_offset(-lo),
    );
    // SAFETY: `a` and `b` hold every run of `count` elements from `pa`/`pb` (the runs lie
    // within `lo .. lo + span` of those addresses).
    unsafe {
        dt.unpack_raw(lower, pa, count);
        dt.unpack_raw(higher, pb, count);
    }
    f(pa, pb, count);
    let mut out = Vec::with_capacity(higher.len());
    // SAFETY: as above.
    unsafe { dt.pack_raw(pb, count, &mut out) };
    higher.copy_from_slice(&out);
    Ok(())
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
        let int = Datatype::predefined(Predef::Int);
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
            let mut higher = ints(&[3, -3, 0]);
            op.combine(&int, 3, &ints(&[1, 2, 0]), &mut higher).unwrap();
            assert_eq!(back(&higher), want, "{op:?}");
        }
    }

    #[test]
    fn replace_and_no_op_apply_to_pairs_and_complex_types() {
        for p in [
            Predef::TwoInt,
            Predef::DoubleInt,
            Predef::ShortInt,
            Predef::DoubleComplex,
        ] {
            let dt = Datatype::predefined(p);
            let lower: Vec<u8> = (0..2 * p.size() as u8).collect();
            let new: Vec<u8> = lower.iter().map(|b| b + 100).collect();
            let mut higher = new.clone();
            Op::Replace.combine(&dt, 2, &lower, &mut higher).unwrap();
            assert_eq!(higher, new, "{p:?}");
            Op::NoOp.combine(&dt, 2, &lower, &mut higher).unwrap();
            assert_eq!(higher, lower, "{p:?}");
        }
    }

    #[test]
    fn float_ops_and_refusals() {
        let d = Datatype::predefined(Predef::Double);
        let lower: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let mut higher: Vec<u8> = [2.0f64, 4.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        Op::Prod.combine(&d, 2, &lower, &mut higher).unwrap();
        assert_eq!(f64::from_ne_bytes(higher[..8].try_into().unwrap()), 3.0);
        assert_eq!(f64::from_ne_bytes(higher[8..].try_into().unwrap()), -8.0);
        let e = Op::Band.combine(&d, 2, &lower, &mut higher).unwrap_err();
        assert_eq!(e.class, ErrorClass::Op);
        let int = Datatype::predefined(Predef::Int);
        assert!(Op::Sum.combine(&int, 1, &[0u8; 4], &mut [0u8; 8]).is_err());
        assert!(Op::MaxLoc
            .combine(&int, 1, &[0u8; 4], &mut [0u8; 4])
            .is_err());
    }

    #[test]
    fn maxloc_and_minloc_take_the_lower_index_on_ties() {
        let di = Datatype::predefined(Predef::DoubleInt);
        let pair = |v: f64, i: i32| [v.to_ne_bytes().to_vec(), i.to_ne_bytes().to_vec()].concat();
        let lower = [pair(2.0, 5), pair(1.0, 3)].concat();
        let mut higher = [pair(2.0, 1), pair(7.0, 9)].concat();
        Op::MaxLoc.combine(&di, 2, &lower, &mut higher).unwrap();
        assert_eq!(higher, [pair(2.0, 1), pair(7.0, 9)].concat());
        Op::MinLoc.combine(&di, 2, &lower, &mut higher).unwrap();
        assert_eq!(higher, [pair(2.0, 1), pair(1.0, 3)].concat());
    }

    #[test]
    fn fortran_pairs_locate_with_an_index_of_the_values_type() {
        let two = Datatype::predefined(Predef::TwoDouble);
        assert_eq!((two.size(), two.extent()), (16, 16));
        let pair = |v: f64, i: f64| [v.to_ne_bytes(), i.to_ne_bytes()].concat();
        let lower = [pair(3.0, 2.0), pair(1.0, 4.0)].concat();
        let mut higher = [pair(3.0, 1.0), pair(0.5, 3.0)].concat();
        Op::MaxLoc.combine(&two, 2, &lower, &mut higher).unwrap();
        assert_eq!(higher, [pair(3.0, 1.0), pair(1.0, 4.0)].concat());
        let two = Datatype::predefined(Predef::TwoFloat);
        let pair = |v: f32, i: f32| [v.to_ne_bytes(), i.to_ne_bytes()].concat();
        let mut higher = pair(-1.0, 7.0);
        Op::MinLoc
            .combine(&two, 1, &pair(-2.0, 9.0), &mut higher)
            .unwrap();
        assert_eq!(higher, pair(-2.0, 9.0));
        assert!(Op::Sum
            .combine(&two, 1, &pair(1.0, 1.0), &mut higher)
            .is_err());
    }

    #[test]
    fn the_complex_product_multiplies() {
        let z = Datatype::predefined(Predef::DoubleComplex);
        let c = |re: f64, im: f64| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut higher = c(3.0, -1.0);
        Op::Prod.combine(&z, 1, &c(1.0, 2.0), &mut higher).unwrap();
        assert_eq!(higher, c(5.0, 5.0), "(1+2i)(3-i) = 5+5i");
        let z = Datatype::predefined(Predef::FloatComplex);
        let c = |re: f32, im: f32| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut higher = c(0.0, 1.0);
        Op::Prod.combine(&z, 1, &c(0.0, 1.0), &mut higher).unwrap();
        assert_eq!(higher, c(-1.0, 0.0), "i * i = -1");
        assert!(Op::Max.combine(&z, 1, &c(0.0, 1.0), &mut higher).is_err());
    }

    #[test]
    fn user_ops_see_the_layout_and_keep_the_order() {
        // `inout = in * 10 + inout` on the first int of {int, pad, int} elements: the order
        // of the operands shows, and the padding never reaches the packed data.
        let int = Datatype::predefined(Predef::Int);
        let t = Datatype::structure(&[1, 1], &[0, 8], &[int.clone(), int]).unwrap();
        let f = |a: *const u8, b: *mut u8, n: usize| {
            for i in 0..n {
                // SAFETY: the layout holds `n` elements of 12 bytes from each address.
                unsafe {
                    let x = (a.add(i * 12) as *const i32).read_unaligned();
                    let y = (b.add(i * 12) as *mut i32).read_unaligned();
                    (b.add(i * 12) as *mut i32).write_unaligned(x * 10 + y);
                }
            }
        };
        let op = Op::User {
            f: Rc::new(f),
            commute: false,
        };
        assert!(!op.is_commutative());
        let mut higher = ints(&[2, 8]);
        op.combine(&t, 1, &ints(&[1, 7]), &mut higher).unwrap();
        assert_eq!(back(&higher), vec![12, 8]);
    }
}
