//! Accumulates and compare-and-swap element by element with the host's atomic
//! instructions, for elements of 1, 2, 4 or 8 bytes at addresses aligned to their width.
//! Both ways an accumulate arrives (an origin that maps the target's memory, and the
//! target's handler serving a message) come here, so the two never race and take no lock.
//! The standard's atomicity is per element of one predefined type, and whether an element
//! goes this way depends only on its type and address, so every accumulate on one location
//! with one type takes the same way; the rest (wider or misaligned elements) is serialized
//! by the caller.

use super::super::handles::err;
use super::super::wired::Failure;
use clump_mpi::{Datatype, Op, Operator, Predef};
use std::sync::atomic::Ordering::{AcqRel, Acquire};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8};

/// An atomic cell of one width, over the bits of an element.
trait Word {
    type Bits: Copy;
    const WIDTH: usize;
    /// The word at `addr`.
    ///
    /// # Safety
    /// `addr` is aligned to the width and valid for reads and writes for the returned
    /// lifetime, and every concurrent access to it is atomic.
    unsafe fn at<'a>(addr: usize) -> &'a Self;
    fn of(bytes: &[u8]) -> Self::Bits;
    fn put(v: Self::Bits, out: &mut [u8]);
    fn load(&self) -> Self::Bits;
    fn cas(&self, current: Self::Bits, new: Self::Bits) -> Result<Self::Bits, Self::Bits>;
    /// The operation as one instruction, when there is one: the previous value.
    fn native(&self, op: &Op, v: Self::Bits, integer: bool) -> Option<Self::Bits>;
}

macro_rules! word {
    ($($a:ty => $u:ty),*) => {$(
        impl Word for $a {
            type Bits = $u;
            const WIDTH: usize = std::mem::size_of::<$u>();
            unsafe fn at<'a>(addr: usize) -> &'a Self {
                // SAFETY: the caller's contract (aligned, valid, only atomic accesses).
                unsafe { <$a>::from_ptr(addr as *mut $u) }
            }
            fn of(bytes: &[u8]) -> $u {
                <$u>::from_ne_bytes(bytes.try_into().expect("one element"))
            }
            fn put(v: $u, out: &mut [u8]) {
                out.copy_from_slice(&v.to_ne_bytes());
            }
            fn load(&self) -> $u {
                <$a>::load(self, Acquire)
            }
            fn cas(&self, current: $u, new: $u) -> Result<$u, $u> {
                self.compare_exchange(current, new, AcqRel, Acquire)
            }
            fn native(&self, op: &Op, v: $u, integer: bool) -> Option<$u> {
                Some(match op {
                    Op::Predefined(Operator::NoOp) => <$a>::load(self, Acquire),
                    Op::Predefined(Operator::Replace) => self.swap(v, AcqRel),
                    // Two's complement: one addition serves signed and unsigned types.
                    Op::Predefined(Operator::Sum) if integer => self.fetch_add(v, AcqRel),
                    Op::Predefined(Operator::Band) if integer => self.fetch_and(v, AcqRel),
                    Op::Predefined(Operator::Bor) if integer => self.fetch_or(v, AcqRel),
                    Op::Predefined(Operator::Bxor) if integer => self.fetch_xor(v, AcqRel),
                    _ => return None,
                })
            }
        }
    )*};
}
word!(AtomicU8 => u8, AtomicU16 => u16, AtomicU32 => u32, AtomicU64 => u64);

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

/// Whether `len` bytes at `addr` of elements `width` wide go element-wise atomically.
fn fits(addr: usize, len: usize, width: usize) -> bool {
    matches!(width, 1 | 2 | 4 | 8) && addr.is_multiple_of(width) && len.is_multiple_of(width)
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
    old: Option<&mut [u8]>,
) -> Option<Result<(), Failure>> {
    let t = dt.element()?;
    if t.size() != t.extent()
        || !fits(addr, data.len(), t.size())
        || old.as_ref().is_some_and(|o| o.len() != data.len())
    {
        return None;
    }
    let how = (dt, op, integer(t), old);
    // SAFETY: `fits` checked the alignment and whole elements; the rest is the caller's.
    Some(unsafe {
        match t.size() {
            1 => each::<AtomicU8>(addr, data, how),
            2 => each::<AtomicU16>(addr, data, how),
            4 => each::<AtomicU32>(addr, data, how),
            _ => each::<AtomicU64>(addr, data, how),
        }
    })
}

/// [`accumulate`] for one width.
///
/// # Safety
/// As for [`accumulate`], with `addr` aligned to `W::WIDTH` and `data` whole elements.
unsafe fn each<W: Word>(
    addr: usize,
    data: &[u8],
    (dt, op, integer, mut old): (&Datatype, &Op, bool, Option<&mut [u8]>),
) -> Result<(), Failure> {
    let w = W::WIDTH;
    for (i, el) in data.chunks_exact(w).enumerate() {
        // SAFETY: element `i` lies in the caller's bytes, aligned as `addr` is.
        let word = unsafe { W::at(addr + i * w) };
        let before = match word.native(op, W::of(el), integer) {
            Some(before) => before,
            None => {
                let mut current = word.load();
                loop {
                    let (mut prev, mut next) = ([0u8; 8], [0u8; 8]);
                    W::put(current, &mut prev[..w]);
                    next[..w].copy_from_slice(el);
                    op.combine(dt, 1, &prev[..w], &mut next[..w]).map_err(err)?;
                    match word.cas(current, W::of(&next[..w])) {
                        Ok(_) => break current,
                        Err(seen) => current = seen,
                    }
                }
            }
        };
        if let Some(old) = old.as_deref_mut() {
            W::put(before, &mut old[i * w..(i + 1) * w]);
        }
    }
    Ok(())
}

/// Writes `new` at `addr` if it holds `expect`, in one instruction; the old contents, or
/// `None` when the element is not 1, 2, 4 or 8 bytes at an aligned address.
///
/// # Safety
/// As for [`accumulate`], for `expect.len()` bytes (`new` is as long).
pub unsafe fn compare_swap(addr: usize, expect: &[u8], new: &[u8]) -> Option<Vec<u8>> {
    let w = expect.len();
    if !fits(addr, w, w) || new.len() != w {
        return None;
    }
    // SAFETY: `fits` checked the alignment; the rest is the caller's.
    Some(unsafe {
        match w {
            1 => swap_one::<AtomicU8>(addr, expect, new),
            2 => swap_one::<AtomicU16>(addr, expect, new),
            4 => swap_one::<AtomicU32>(addr, expect, new),
            _ => swap_one::<AtomicU64>(addr, expect, new),
        }
    })
}

/// # Safety
/// As for [`compare_swap`], with `addr` aligned to `W::WIDTH`.
unsafe fn swap_one<W: Word>(addr: usize, expect: &[u8], new: &[u8]) -> Vec<u8> {
    // SAFETY: the caller's contract.
    let word = unsafe { W::at(addr) };
    let (Ok(old) | Err(old)) = word.cas(W::of(expect), W::of(new));
    let mut out = vec![0; W::WIDTH];
    W::put(old, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
