//! MPI's reduction operations on packed data: `higher = lower OP higher`, element by
//! element, where `lower` comes from the lower ranks (the order a non-commutative operation
//! needs). The predefined ones are clump-coll's operators, shared with clump-gas and
//! OpenSHMEM; user functions and C's long double types are MPI's own.

use std::fmt;
use std::rc::Rc;
use std::sync::OnceLock;

pub use clump_coll::kernel::Op as Operator;
use clump_coll::kernel::{self, Elem, Loc};

use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};

/// A user function (`MPI_User_function`): `inout[i] = in[i] op inout[i]` for `count`
/// elements laid out as the datatype says, at raw addresses (the type map may reach
/// before the first element).
pub type UserFn = dyn Fn(*const u8, *mut u8, usize);

/// Arithmetic on element types Rust lacks (long double, its complex and value-index
/// pair, complex products), supplied by the C layer, which has C's: `higher = lower op
/// higher` on packed elements of the type; false when the operation does not apply.
pub type Extended = fn(Operator, Predef, &[u8], &mut [u8]) -> bool;

static EXTENDED: OnceLock<Extended> = OnceLock::new();

/// Hands clump-mpi the arithmetic of [`Extended`] (once; later calls change nothing).
pub fn set_extended(f: Extended) {
    let _ = EXTENDED.set(f);
}

fn extended(op: Operator, t: Predef, lower: &[u8], higher: &mut [u8]) -> bool {
    EXTENDED.get().is_some_and(|f| f(op, t, lower, higher))
}

/// A reduction operation: a predefined one or a user function (`MPI_Op_create`).
#[derive(Clone)]
pub enum Op {
    /// One of clump-coll's operators: the one list of predefined operations that MPI,
    /// OpenSHMEM and the global address space share (`MPI_REPLACE` and `MPI_NO_OP`
    /// among them).
    Predefined(Operator),
    User {
        f: Rc<UserFn>,
        commute: bool,
    },
}

impl From<Operator> for Op {
    fn from(op: Operator) -> Op {
        Op::Predefined(op)
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::User { commute, .. } => write!(f, "User(commute: {commute})"),
            Op::Predefined(op) => write!(f, "{op:?}"),
        }
    }
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
        let Op::Predefined(k) = *self else {
            return false;
        };
        match element(t) {
            Some(e) => kernel::combine(k, e, lower, higher),
            // Replace and no-op only move bytes, so they apply to C's long double types too
            // (the element named here is never read).
            None if matches!(k, Operator::Replace | Operator::NoOp) => {
                kernel::combine(k, Elem::U8, lower, higher)
            }
            None => extended(k, t, lower, higher),
        }
    }
}

/// The element type of `t` for the shared operators; none for the C types Rust lacks.
fn element(t: Predef) -> Option<Elem> {
    use Predef::*;
    Some(match t {
        Char | SignedChar | Int8 => Elem::I8,
        Byte | Packed | UnsignedChar | Uint8 | CBool => Elem::U8,
        Short | Int16 => Elem::I16,
        UnsignedShort | Uint16 => Elem::U16,
        Int | Int32 | Wchar => Elem::I32,
        Unsigned | Uint32 => Elem::U32,
        Long | LongLong | Int64 | Aint | Offset | Count => Elem::I64,
        UnsignedLong | UnsignedLongLong | Uint64 => Elem::U64,
        Int128 => Elem::I128,
        Float => Elem::F32,
        Double => Elem::F64,
        FloatComplex => Elem::ComplexF32,
        DoubleComplex => Elem::ComplexF64,
        FloatInt => Elem::Loc(Loc::F32I32),
        DoubleInt => Elem::Loc(Loc::F64I32),
        LongInt => Elem::Loc(Loc::I64I32),
        TwoInt => Elem::Loc(Loc::I32I32),
        ShortInt => Elem::Loc(Loc::I16I32),
        TwoFloat => Elem::Loc(Loc::F32F32),
        TwoDouble => Elem::Loc(Loc::F64F64),
        LongDouble | LongDoubleComplex | LongDoubleInt | Float128 | Float128Complex => return None,
    })
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
            (Op::from(Operator::Sum), vec![4, -1, 0]),
            (Op::from(Operator::Prod), vec![3, -6, 0]),
            (Op::from(Operator::Min), vec![1, -3, 0]),
            (Op::from(Operator::Max), vec![3, 2, 0]),
            (Op::from(Operator::Land), vec![1, 1, 0]),
            (Op::from(Operator::Lor), vec![1, 1, 0]),
            (Op::from(Operator::Lxor), vec![0, 0, 0]),
            (Op::from(Operator::Band), vec![1, 2 & -3, 0]),
            (Op::from(Operator::Bor), vec![3, 2 | -3, 0]),
            (Op::from(Operator::Bxor), vec![2, 2 ^ -3, 0]),
            (Op::from(Operator::Replace), vec![3, -3, 0]),
            (Op::from(Operator::NoOp), vec![1, 2, 0]),
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
            Op::from(Operator::Replace)
                .combine(&dt, 2, &lower, &mut higher)
                .unwrap();
            assert_eq!(higher, new, "{p:?}");
            Op::from(Operator::NoOp)
                .combine(&dt, 2, &lower, &mut higher)
                .unwrap();
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
        Op::from(Operator::Prod)
            .combine(&d, 2, &lower, &mut higher)
            .unwrap();
        assert_eq!(f64::from_ne_bytes(higher[..8].try_into().unwrap()), 3.0);
        assert_eq!(f64::from_ne_bytes(higher[8..].try_into().unwrap()), -8.0);
        let e = Op::from(Operator::Band)
            .combine(&d, 2, &lower, &mut higher)
            .unwrap_err();
        assert_eq!(e.class, ErrorClass::Op);
        let int = Datatype::predefined(Predef::Int);
        assert!(Op::from(Operator::Sum)
            .combine(&int, 1, &[0u8; 4], &mut [0u8; 8])
            .is_err());
        assert!(Op::from(Operator::MaxLoc)
            .combine(&int, 1, &[0u8; 4], &mut [0u8; 4])
            .is_err());
    }

    #[test]
    fn maxloc_and_minloc_take_the_lower_index_on_ties() {
        let di = Datatype::predefined(Predef::DoubleInt);
        let pair = |v: f64, i: i32| [v.to_ne_bytes().to_vec(), i.to_ne_bytes().to_vec()].concat();
        let lower = [pair(2.0, 5), pair(1.0, 3)].concat();
        let mut higher = [pair(2.0, 1), pair(7.0, 9)].concat();
        Op::from(Operator::MaxLoc)
            .combine(&di, 2, &lower, &mut higher)
            .unwrap();
        assert_eq!(higher, [pair(2.0, 1), pair(7.0, 9)].concat());
        Op::from(Operator::MinLoc)
            .combine(&di, 2, &lower, &mut higher)
            .unwrap();
        assert_eq!(higher, [pair(2.0, 1), pair(1.0, 3)].concat());
    }

    #[test]
    fn fortran_pairs_locate_with_an_index_of_the_values_type() {
        let two = Datatype::predefined(Predef::TwoDouble);
        assert_eq!((two.size(), two.extent()), (16, 16));
        let pair = |v: f64, i: f64| [v.to_ne_bytes(), i.to_ne_bytes()].concat();
        let lower = [pair(3.0, 2.0), pair(1.0, 4.0)].concat();
        let mut higher = [pair(3.0, 1.0), pair(0.5, 3.0)].concat();
        Op::from(Operator::MaxLoc)
            .combine(&two, 2, &lower, &mut higher)
            .unwrap();
        assert_eq!(higher, [pair(3.0, 1.0), pair(1.0, 4.0)].concat());
        let two = Datatype::predefined(Predef::TwoFloat);
        let pair = |v: f32, i: f32| [v.to_ne_bytes(), i.to_ne_bytes()].concat();
        let mut higher = pair(-1.0, 7.0);
        Op::from(Operator::MinLoc)
            .combine(&two, 1, &pair(-2.0, 9.0), &mut higher)
            .unwrap();
        assert_eq!(higher, pair(-2.0, 9.0));
        assert!(Op::from(Operator::Sum)
            .combine(&two, 1, &pair(1.0, 1.0), &mut higher)
            .is_err());
    }

    #[test]
    fn the_complex_product_multiplies() {
        let z = Datatype::predefined(Predef::DoubleComplex);
        let c = |re: f64, im: f64| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut higher = c(3.0, -1.0);
        Op::from(Operator::Prod)
            .combine(&z, 1, &c(1.0, 2.0), &mut higher)
            .unwrap();
        assert_eq!(higher, c(5.0, 5.0), "(1+2i)(3-i) = 5+5i");
        let z = Datatype::predefined(Predef::FloatComplex);
        let c = |re: f32, im: f32| [re.to_ne_bytes(), im.to_ne_bytes()].concat();
        let mut higher = c(0.0, 1.0);
        Op::from(Operator::Prod)
            .combine(&z, 1, &c(0.0, 1.0), &mut higher)
            .unwrap();
        assert_eq!(higher, c(-1.0, 0.0), "i * i = -1");
        assert!(Op::from(Operator::Max)
            .combine(&z, 1, &c(0.0, 1.0), &mut higher)
            .is_err());
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
