//! The predefined `MPI_Op`s on the C types Rust lacks: long double, its complex and its
//! value-index pair (`MPI_LONG_DOUBLE_INT`), and binary128 with its complex (Fortran's
//! `MPI_REAL16` and `MPI_COMPLEX32`); clump-coll combines the other complex types. The
//! arithmetic is C's own (`csrc/extended_arith.c`, shared with OpenSHMEM's reductions);
//! clump-mpi calls [`combine`] for these types once `MPI_Init` has handed it over.

use crate::shmem::extended::{
    complex_quad, complexld, less, longdouble, quad, ComplexQuad, LongDouble, Quad, QuadOp,
};
use bytemuck::Pod;
use clump_mpi::{Operator, Predef};

/// `higher[i] = f(lower[i], higher[i])` over packed values of `T`.
fn each<T: Pod>(lower: &[u8], higher: &mut [u8], f: impl Fn(T, T) -> T) -> bool {
    let n = std::mem::size_of::<T>();
    for (a, b) in lower.chunks_exact(n).zip(higher.chunks_exact_mut(n)) {
        let r = f(
            bytemuck::pod_read_unaligned(a),
            bytemuck::pod_read_unaligned(b),
        );
        b.copy_from_slice(bytemuck::bytes_of(&r));
    }
    true
}

/// `MPI_MAXLOC`/`MPI_MINLOC` on packed (long double, int) pairs: the better value, the
/// lower index on a tie.
fn locate(max: bool, lower: &[u8], higher: &mut [u8]) -> bool {
    for (a, b) in lower.chunks_exact(20).zip(higher.chunks_exact_mut(20)) {
        let va: LongDouble = bytemuck::pod_read_unaligned(&a[..16]);
        let vb: LongDouble = bytemuck::pod_read_unaligned(&b[..16]);
        let (a_wins, b_wins) = if max {
            (less(vb, va), less(va, vb))
        } else {
            (less(va, vb), less(vb, va))
        };
        let index = |x: &[u8]| i32::from_ne_bytes(x[16..20].try_into().expect("4 bytes"));
        if a_wins || (!b_wins && index(a) < index(b)) {
            b.copy_from_slice(a);
        }
    }
    true
}

/// The binary128 operation of `op`, if it has one.
fn quad_op(op: Operator) -> Option<QuadOp> {
    Some(match op {
        Operator::Sum => QuadOp::Sum,
        Operator::Prod => QuadOp::Prod,
        Operator::Min => QuadOp::Min,
        Operator::Max => QuadOp::Max,
        _ => return None,
    })
}

/// `higher = lower op higher` for `op` on packed elements of `t`; false when `op` does
/// not apply to `t` (or `t` is not one of these types).
pub fn combine(op: Operator, t: Predef, lower: &[u8], higher: &mut [u8]) -> bool {
    match (t, op) {
        (Predef::LongDouble, Operator::Sum) => each(lower, higher, longdouble::sum),
        (Predef::LongDouble, Operator::Prod) => each(lower, higher, longdouble::prod),
        (Predef::LongDouble, Operator::Min) => each(lower, higher, longdouble::min),
        (Predef::LongDouble, Operator::Max) => each(lower, higher, longdouble::max),
        (Predef::LongDoubleComplex, Operator::Sum) => each(lower, higher, complexld::sum),
        (Predef::LongDoubleComplex, Operator::Prod) => each(lower, higher, complexld::prod),
        (Predef::Float128, _) => match quad_op(op) {
            Some(q) => each(lower, higher, |a: Quad, b| quad(q, a, b)),
            None => false,
        },
        (Predef::Float128Complex, Operator::Sum | Operator::Prod) => {
            let product = matches!(op, Operator::Prod);
            each(lower, higher, |a: ComplexQuad, b| {
                complex_quad(product, a, b)
            })
        }
        (Predef::LongDoubleInt, Operator::MaxLoc | Operator::MinLoc) => {
            locate(matches!(op, Operator::MaxLoc), lower, higher)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1.5 and 2.5 as x86-64 long doubles (sign-exponent 0x3fff/0x4000, mantissa).
    fn ld(v: f64) -> [u8; 16] {
        let (exp, mant): (u16, u64) = match v {
            1.5 => (0x3fff, 0xc000_0000_0000_0000),
            2.5 => (0x4000, 0xa000_0000_0000_0000),
            4.0 => (0x4001, 0x8000_0000_0000_0000),
            _ => unreachable!(),
        };
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&mant.to_le_bytes());
        b[8..10].copy_from_slice(&exp.to_le_bytes());
        b
    }

    #[test]
    fn long_double_sums_and_locations_are_c_arithmetic() {
        let (a, mut b) = (ld(1.5), ld(2.5));
        assert!(combine(Operator::Sum, Predef::LongDouble, &a, &mut b));
        assert_eq!(b[..10], ld(4.0)[..10]);
        let mut pair = [0u8; 20];
        pair[..16].copy_from_slice(&ld(2.5));
        pair[16..].copy_from_slice(&7i32.to_ne_bytes());
        let mut other = [0u8; 20];
        other[..16].copy_from_slice(&ld(2.5));
        other[16..].copy_from_slice(&3i32.to_ne_bytes());
        assert!(combine(
            Operator::MaxLoc,
            Predef::LongDoubleInt,
            &pair,
            &mut other
        ));
        assert_eq!(other[16..], 3i32.to_ne_bytes()); // a tie keeps the lower index
        assert!(!combine(Operator::Band, Predef::LongDouble, &a, &mut b));
    }
}
