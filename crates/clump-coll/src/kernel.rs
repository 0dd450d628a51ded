//! Element-wise reduction operators: `higher = lower OP higher` on packed elements, where
//! `lower` comes from the lower members (the order a non-commutative operation needs).
//! Integer sums and products wrap, as in MPI and C's unsigned arithmetic, rather than trap.
//! Types a face adds with arithmetic of its own (C's `long double`) stay with that face.

use bytemuck::Pod;

/// A predefined reduction operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Keeps `higher` (one-sided accumulate's `MPI_REPLACE` as the caller orders it).
    Replace,
    /// Takes `lower` (`MPI_NO_OP` as the caller orders it).
    NoOp,
}

/// An element type the operators know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    /// Fortran's INTEGER(KIND=16) (`MPI_INTEGER16`).
    I128,
    F32,
    F64,
    /// A complex number of two `f32` parts (real, imaginary).
    ComplexF32,
    ComplexF64,
    /// A (value, index) pair for MINLOC and MAXLOC.
    Loc(Loc),
}

/// The (value, index) pairs: C's with an `int` index, Fortran's with one of the value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    F32I32,
    F64I32,
    I64I32,
    I32I32,
    I16I32,
    F32F32,
    F64F64,
}

/// A Rust type whose values are elements of one [`Elem`].
pub trait Element: Pod {
    const ELEM: Elem;
}

macro_rules! element {
    ($($t:ty => $e:ident),*) => {$( impl Element for $t { const ELEM: Elem = Elem::$e; } )*};
}
element!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64,
    u64 => U64, i128 => I128, f32 => F32, f64 => F64, [f32; 2] => ComplexF32, [f64; 2] => ComplexF64);
#[cfg(target_pointer_width = "64")]
element!(isize => I64, usize => U64);
#[cfg(target_pointer_width = "32")]
element!(isize => I32, usize => U32);

/// `higher[i] = lower[i] op higher[i]` on typed slices of equal length; false when `op`
/// does not apply to `T`.
pub fn combine_slice<T: Element>(op: Op, lower: &[T], higher: &mut [T]) -> bool {
    combine(
        op,
        T::ELEM,
        bytemuck::cast_slice(lower),
        bytemuck::cast_slice_mut(higher),
    )
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
            _ => false,
        }
    }};
}

/// The same with a floating-point operation (none of the bitwise ones).
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

/// MAXLOC (`max`) or MINLOC on the pairs of `pair`.
fn locate_pair(pair: Loc, lower: &[u8], higher: &mut [u8], max: bool) {
    let i32_ = i32::from_ne_bytes;
    match pair {
        Loc::F32I32 => locate(lower, higher, f32::from_ne_bytes, i32_, max),
        Loc::F64I32 => locate(lower, higher, f64::from_ne_bytes, i32_, max),
        Loc::I64I32 => locate(lower, higher, i64::from_ne_bytes, i32_, max),
        Loc::I32I32 => locate(lower, higher, i32_, i32_, max),
        Loc::I16I32 => locate(lower, higher, i16::from_ne_bytes, i32_, max),
        Loc::F32F32 => locate(lower, higher, f32::from_ne_bytes, f32::from_ne_bytes, max),
        Loc::F64F64 => locate(lower, higher, f64::from_ne_bytes, f64::from_ne_bytes, max),
    }
}

/// MAXLOC (`max`) or MINLOC on packed (value, index) pairs whose value is `N` bytes read
/// as `T` and whose index is `M` bytes read as `U`: the better value, the lower index on a
/// tie.
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

/// The complex product on complex numbers of `N`-byte parts read as `T` (`B = 2N` bytes).
fn complex<const N: usize, const B: usize, T>(
    lower: &[u8],
    higher: &mut [u8],
    from: fn([u8; N]) -> T,
    to: fn(T) -> [u8; N],
) -> bool
where
    T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T> + std::ops::Sub<Output = T>,
{
    for (x, y) in lower.chunks_exact(B).zip(higher.chunks_exact_mut(B)) {
        let part = |z: &[u8], at: usize| from(z[at..at + N].try_into().expect("N"));
        let (a, b, c, d) = (part(x, 0), part(x, N), part(y, 0), part(y, N));
        y[..N].copy_from_slice(&to(a * c - b * d));
        y[N..].copy_from_slice(&to(a * d + b * c));
    }
    true
}

/// `higher = lower op higher` on packed elements of `elem` (whole elements, equal lengths);
/// false when `op` does not apply to `elem` (nothing is changed then). Called with empty
/// slices it only says whether `op` applies.
pub fn combine(op: Op, elem: Elem, lower: &[u8], higher: &mut [u8]) -> bool {
    use Elem::*;
    // Replace and no-op only move bytes, so they apply to every type.
    match op {
        Op::Replace => return true,
        Op::NoOp => {
            higher.copy_from_slice(lower);
            return true;
        }
        _ => {}
    }
    let max = op == Op::MaxLoc;
    match elem {
        Loc(pair) if matches!(op, Op::MaxLoc | Op::MinLoc) => {
            locate_pair(pair, lower, higher, max);
            true
        }
        Loc(_) => false,
        _ if matches!(op, Op::MaxLoc | Op::MinLoc) => false,
        I8 => int_op!(i8, op, lower, higher),
        U8 => int_op!(u8, op, lower, higher),
        I16 => int_op!(i16, op, lower, higher),
        U16 => int_op!(u16, op, lower, higher),
        I32 => int_op!(i32, op, lower, higher),
        U32 => int_op!(u32, op, lower, higher),
        I64 => int_op!(i64, op, lower, higher),
        U64 => int_op!(u64, op, lower, higher),
        I128 => int_op!(i128, op, lower, higher),
        F32 => float_op!(f32, op, lower, higher),
        F64 => float_op!(f64, op, lower, higher),
        // A complex sum is the sum of the parts; the product is the complex one; other
        // operations do not apply.
        ComplexF32 | ComplexF64 if op == Op::Sum => match elem {
            ComplexF32 => float_op!(f32, op, lower, higher),
            _ => float_op!(f64, op, lower, higher),
        },
        ComplexF32 if op == Op::Prod => {
            complex::<4, 8, f32>(lower, higher, f32::from_ne_bytes, f32::to_ne_bytes)
        }
        ComplexF64 if op == Op::Prod => {
            complex::<8, 16, f64>(lower, higher, f64::from_ne_bytes, f64::to_ne_bytes)
        }
        ComplexF32 | ComplexF64 => false,
    }
}

#[cfg(test)]
mod tests;
