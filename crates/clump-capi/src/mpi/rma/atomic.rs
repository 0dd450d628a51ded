//! Accumulates and compare-and-swap element by element with the host's atomic
//! instructions, for elements of 1, 2, 4 or 8 bytes at addresses aligned to their width:
//! MPI's operations mapped onto clump-gas's one read-modify-write ([`clump_gas::rmw`]),
//! which OpenSHMEM and the global address space use too. Both ways an accumulate arrives
//! (an origin that maps the target's memory, and the target's handler serving a message)
//! come here, so the two never race and take no lock. The standard's atomicity is per
//! element of one predefined type, and whether an element goes this way depends only on
//! its type and address, so every accumulate on one location with one type takes the same
//! way; the rest (wider or misaligned elements) is serialized by the caller.

use super::super::handles::err;
use super::super::wired::Failure;
use clump_gas::rmw::{self, bits, put_bits, Rmw};
use clump_mpi::{Datatype, Op, Operator, Predef};

/// The C integer types, on which sums and bitwise operations are the machine's.
fn integer(t: Predef) -> bool {
    use Predef::*;
    matches!(
        t,
        Char | SignedChar
            | UnsignedChar
            | Wchar
            | Short
            | UnsignedShort
            | Int
            | Unsigned
            | Long
            | UnsignedLong
            | LongLong
            | UnsignedLongLong
            | Int8
            | Int16
            | Int32
            | Int64
            | Uint8
            | Uint16
            | Uint32
            | Uint64
            | Aint
            | Offset
            | Count
    )
}

/// The operation as one instruction on the element's bits `v`, when there is one.
fn native(op: &Op, v: u64, integer: bool) -> Option<Rmw> {
    Some(match op {
        Op::Predefined(Operator::NoOp) => Rmw::Load,
        Op::Predefined(Operator::Replace) => Rmw::Swap(v),
        Op::Predefined(Operator::Sum) if integer => Rmw::Add(v),
        Op::Predefined(Operator::Band) if integer => Rmw::And(v),
        Op::Predefined(Operator::Bor) if integer => Rmw::Or(v),
        Op::Predefined(Operator::Bxor) if integer => Rmw::Xor(v),
        _ => return None,
    })
}

/// `target = target op data` on the elements of predefined type `dt` at `addr`, each with
/// one atomic instruction or a compare-and-swap loop; the old contents go to `old` (as
/// long as `data`) when it is given. `None` when the elements cannot go so (the caller
/// serializes them another way); an operation that does not apply to the type fails on
/// the first element, before anything is written.
///
/// # Safety
/// `addr` must be valid for reads and writes of `data.len()` bytes for the call, and
/// every concurrent accumulate on them must come through here.
pub unsafe fn accumulate(
    addr: usize,
    data: &[u8],
    (dt, op): (&Datatype, &Op),
    mut old: Option<&mut [u8]>,
) -> Option<Result<(), Failure>> {
    let t = dt.element()?;
    let w = t.size();
    if w != t.extent()
        || !rmw::fits(addr, w)
        || !data.len().is_multiple_of(w)
        || old.as_ref().is_some_and(|o| o.len() != data.len())
    {
        return None;
    }
    let integer = integer(t);
    for (i, el) in data.chunks_exact(w).enumerate() {
        let at = addr + i * w;
        let v = bits(el);
        // Element `i` lies in the caller's bytes, aligned as `addr` is (`fits` checked the
        // width and alignment, `data` is whole elements); every concurrent accumulate on
        // it is atomic (the caller's contract).
        let before = match native(op, v, integer) {
            // SAFETY: as just said.
            Some(r) => unsafe { rmw::apply(at, w, r) }.map(Ok),
            // SAFETY: as just said.
            None => unsafe { rmw::update(at, w, |current| combined(dt, op, current, el)) },
        };
        // `None` cannot come: `fits` held for the first element, so for every one.
        let before = match before? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if let Some(old) = old.as_deref_mut() {
            put_bits(before, &mut old[i * w..(i + 1) * w]);
        }
    }
    Some(Ok(()))
}

/// `current op el` for one element whose bits `current` holds, as bits.
fn combined(dt: &Datatype, op: &Op, current: u64, el: &[u8]) -> Result<u64, Failure> {
    let w = el.len();
    let (mut prev, mut next) = ([0u8; 8], [0u8; 8]);
    put_bits(current, &mut prev[..w]);
    next[..w].copy_from_slice(el);
    op.combine(dt, 1, &prev[..w], &mut next[..w]).map_err(err)?;
    Ok(bits(&next[..w]))
}

/// Writes `new` at `addr` if it holds `expect`, in one instruction; the old contents, or
/// `None` when the element is not 1, 2, 4 or 8 bytes at an aligned address.
///
/// # Safety
/// As for [`accumulate`], for `expect.len()` bytes (`new` is as long).
pub unsafe fn compare_swap(addr: usize, expect: &[u8], new: &[u8]) -> Option<Vec<u8>> {
    let w = expect.len();
    if new.len() != w {
        return None;
    }
    let op = Rmw::CompareSwap {
        expect: bits(expect),
        new: bits(new),
    };
    // SAFETY: the caller's contract; `apply` checks the width and alignment.
    let old = unsafe { rmw::apply(addr, w, op) }?;
    let mut out = vec![0; w];
    put_bits(old, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn acc(words: &mut [u64], at: usize, data: &[u8], t: Predef, op: Operator) -> Option<Vec<u8>> {
        let addr = words.as_mut_ptr() as usize + at;
        let dt = Datatype::predefined(t);
        let mut old = vec![0; data.len()];
        // SAFETY: `words` is this test's own memory, `at + data.len()` inside it.
        unsafe { accumulate(addr, data, (&dt, &op.into()), Some(&mut old)) }.map(|r| r.unwrap())?;
        Some(old)
    }

    #[test]
    fn every_width_and_operation_combines_and_fetches() {
        let mut words = [0u64; 4];
        let five = 5i32.to_ne_bytes();
        assert_eq!(
            acc(&mut words, 4, &five, Predef::Int, Operator::Sum),
            Some(vec![0; 4])
        );
        assert_eq!(
            acc(&mut words, 4, &five, Predef::Int, Operator::Prod),
            Some(five.to_vec())
        );
        assert_eq!(words[0] >> 32, 25, "the other half is untouched");
        assert_eq!(words[0] as u32, 0);
        let d = 1.5f64.to_ne_bytes();
        acc(&mut words, 8, &d, Predef::Double, Operator::Sum).unwrap();
        acc(&mut words, 8, &d, Predef::Double, Operator::Sum).unwrap();
        assert_eq!(f64::from_bits(words[1]), 3.0);
        let old = acc(&mut words, 8, &d, Predef::Double, Operator::Max).unwrap();
        assert_eq!(old, 3.0f64.to_ne_bytes());
        acc(&mut words, 16, &[0xf0], Predef::Uint8, Operator::Bor).unwrap();
        acc(&mut words, 16, &[0x3c], Predef::Uint8, Operator::Bxor).unwrap();
        assert_eq!(words[2], 0xcc);
        acc(
            &mut words,
            18,
            &(-7i16).to_ne_bytes(),
            Predef::Short,
            Operator::Min,
        )
        .unwrap();
        assert_eq!((words[2] >> 16) as u16 as i16, -7);
        let fetched = acc(&mut words, 18, &[0, 0], Predef::Short, Operator::NoOp).unwrap();
        assert_eq!(fetched, (-7i16).to_ne_bytes());
        acc(
            &mut words,
            24,
            &9u64.to_ne_bytes(),
            Predef::Uint64,
            Operator::Replace,
        )
        .unwrap();
        assert_eq!(words[3], 9);
    }

    #[test]
    fn wide_or_misaligned_elements_are_left_to_the_caller() {
        let mut words = [0u64; 4];
        assert!(acc(&mut words, 2, &[0; 4], Predef::Int, Operator::Sum).is_none());
        assert!(acc(
            &mut words,
            0,
            &[0; 16],
            Predef::DoubleComplex,
            Operator::Sum
        )
        .is_none());
        assert!(acc(&mut words, 0, &[0; 16], Predef::DoubleInt, Operator::MaxLoc).is_none());
        let addr = words.as_mut_ptr() as usize;
        // SAFETY: this test's own memory.
        assert!(unsafe { compare_swap(addr + 4, &[0; 8], &[1; 8]) }.is_none());
        // SAFETY: as above.
        let old = unsafe { compare_swap(addr + 8, &[0; 8], &[1; 8]) }.unwrap();
        assert_eq!((old, words[1]), (vec![0; 8], u64::from_ne_bytes([1; 8])));
    }

    #[test]
    fn a_refused_operation_is_an_error() {
        let mut words = [0u64; 1];
        let addr = words.as_mut_ptr() as usize;
        let dt = Datatype::predefined(Predef::Float);
        // SAFETY: this test's own memory.
        let r = unsafe { accumulate(addr, &[0; 4], (&dt, &Operator::Band.into()), None) }.unwrap();
        assert!(r.is_err());
    }

    #[test]
    fn threads_summing_one_word_lose_nothing() {
        let word = AtomicU64::new(0);
        let addr = word.as_ptr() as usize;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    let dt = Datatype::predefined(Predef::Double);
                    for _ in 0..1000 {
                        // SAFETY: `word` outlives the scope; every access is atomic.
                        unsafe {
                            accumulate(
                                addr,
                                &1.0f64.to_ne_bytes(),
                                (&dt, &Operator::Sum.into()),
                                None,
                            )
                        }
                        .unwrap()
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(f64::from_bits(word.into_inner()), 4000.0);
    }
}
