//! The one atomic read-modify-write of a word of 1, 2, 4 or 8 bytes that every face uses:
//! the global address space's atomics, OpenSHMEM's and MPI's one-sided accumulates. Both
//! ways an update reaches a word (a same-host process that maps it, and the owner's handler
//! serving a message) come here, so the two never race and take no lock. A value is the
//! word's bits, zero-extended to 64.

use std::sync::atomic::Ordering::{AcqRel, Acquire};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8};

/// An atomic read-modify-write of one word; each returns the value it found.
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

/// Bytes of [`Rmw::to_bytes`].
pub const RMW_BYTES: usize = 17;

impl Rmw {
    /// (code, operand, second operand), as a message carries them.
    pub fn encode(self) -> (u8, u64, u64) {
        match self {
            Rmw::Load => (0, 0, 0),
            Rmw::Swap(v) => (1, v, 0),
            Rmw::CompareSwap { expect, new } => (2, expect, new),
            Rmw::Add(v) => (3, v, 0),
            Rmw::And(v) => (4, v, 0),
            Rmw::Or(v) => (5, v, 0),
            Rmw::Xor(v) => (6, v, 0),
        }
    }

    /// The operation [`Rmw::encode`] gave `code`, `a` and `b` for; `None` for no code of it.
    pub fn decode(code: u32, a: u64, b: u64) -> Option<Rmw> {
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

    /// The code and both operands, little-endian: [`RMW_BYTES`] bytes.
    pub fn to_bytes(self) -> [u8; RMW_BYTES] {
        let (code, a, b) = self.encode();
        let mut out = [0; RMW_BYTES];
        out[0] = code;
        out[1..9].copy_from_slice(&a.to_le_bytes());
        out[9..].copy_from_slice(&b.to_le_bytes());
        out
    }

    /// The operation of [`Rmw::to_bytes`]'s first bytes; `None` if they are short or no
    /// operation's.
    pub fn from_bytes(bytes: &[u8]) -> Option<Rmw> {
        let (&code, rest) = bytes.split_first()?;
        let a = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let b = u64::from_le_bytes(rest.get(8..16)?.try_into().ok()?);
        Rmw::decode(code.into(), a, b)
    }
}

/// An atomic cell of one width, its bits carried in a `u64`.
trait Word {
    /// The word at `addr`.
    ///
    /// # Safety
    /// As for [`apply`].
    unsafe fn at<'a>(addr: usize) -> &'a Self;
    fn rmw(&self, op: Rmw) -> u64;
    fn load(&self) -> u64;
    fn cas(&self, current: u64, new: u64) -> Result<u64, u64>;
}

macro_rules! word {
    ($($a:ty => $u:ty),*) => {$(
        impl Word for $a {
            #[inline(always)]
            unsafe fn at<'a>(addr: usize) -> &'a Self {
                // SAFETY: the caller's contract (aligned, valid, only atomic accesses).
                unsafe { <$a>::from_ptr(addr as *mut $u) }
            }
            #[inline(always)]
            fn rmw(&self, op: Rmw) -> u64 {
                // Truncation to the width is the operation's: the word holds its low bits.
                (match op {
                    Rmw::Load => <$a>::load(self, Acquire),
                    Rmw::Swap(v) => self.swap(v as $u, AcqRel),
                    Rmw::CompareSwap { expect, new } => {
                        let (Ok(v) | Err(v)) =
                            self.compare_exchange(expect as $u, new as $u, AcqRel, Acquire);
                        v
                    }
                    // Two's complement: one addition serves signed and unsigned types.
                    Rmw::Add(v) => self.fetch_add(v as $u, AcqRel),
                    Rmw::And(v) => self.fetch_and(v as $u, AcqRel),
                    Rmw::Or(v) => self.fetch_or(v as $u, AcqRel),
                    Rmw::Xor(v) => self.fetch_xor(v as $u, AcqRel),
                }) as u64
            }
            #[inline]
            fn load(&self) -> u64 {
                <$a>::load(self, Acquire) as u64
            }
            #[inline]
            fn cas(&self, current: u64, new: u64) -> Result<u64, u64> {
                self.compare_exchange(current as $u, new as $u, AcqRel, Acquire)
                    .map(|v| v as u64)
                    .map_err(|v| v as u64)
            }
        }
    )*};
}
word!(AtomicU8 => u8, AtomicU16 => u16, AtomicU32 => u32, AtomicU64 => u64);

/// Whether a word of `width` bytes at `addr` has an atomic instruction here.
#[inline]
pub fn fits(addr: usize, width: usize) -> bool {
    matches!(width, 1 | 2 | 4 | 8) && addr.is_multiple_of(width)
}

/// Applies `op` to the `width`-byte word at `addr`; the value it held. `None`, having done
/// nothing, when the word has no atomic instruction ([`fits`]).
///
/// # Safety
/// `addr` must be valid for reads and writes of `width` bytes for the call, and every
/// concurrent access to them must be atomic (come through here, or be another atomic
/// instruction of the same width).
#[inline(always)] // one instruction's worth of work: a call would double it
pub unsafe fn apply(addr: usize, width: usize, op: Rmw) -> Option<u64> {
    if !fits(addr, width) {
        return None;
    }
    // SAFETY: `fits` checked the width and alignment; the rest is the caller's.
    Some(unsafe {
        match width {
            1 => AtomicU8::at(addr).rmw(op),
            2 => AtomicU16::at(addr).rmw(op),
            4 => AtomicU32::at(addr).rmw(op),
            _ => AtomicU64::at(addr).rmw(op),
        }
    })
}

/// Replaces the `width`-byte word at `addr` with `f(old)`, atomically (a compare-and-swap
/// loop: `f` may run more than once); the value it held. An error of `f` ends the update
/// with nothing written. `None`, having done nothing, as for [`apply`].
///
/// # Safety
/// As for [`apply`].
pub unsafe fn update<E>(
    addr: usize,
    width: usize,
    f: impl FnMut(u64) -> Result<u64, E>,
) -> Option<Result<u64, E>> {
    if !fits(addr, width) {
        return None;
    }
    // SAFETY: `fits` checked the width and alignment; the rest is the caller's.
    Some(unsafe {
        match width {
            1 => update_word(AtomicU8::at(addr), f),
            2 => update_word(AtomicU16::at(addr), f),
            4 => update_word(AtomicU32::at(addr), f),
            _ => update_word(AtomicU64::at(addr), f),
        }
    })
}

fn update_word<W: Word, E>(word: &W, mut f: impl FnMut(u64) -> Result<u64, E>) -> Result<u64, E> {
    let mut current = word.load();
    loop {
        match word.cas(current, f(current)?) {
            Ok(old) => return Ok(old),
            Err(seen) => current = seen,
        }
    }
}

/// The bits of a word of `bytes.len()` (1, 2, 4 or 8; 0 for another length) bytes in
/// memory order. Fixed widths, so the hot path copies no slice.
#[inline]
pub fn bits(bytes: &[u8]) -> u64 {
    match *bytes {
        [a] => a.into(),
        [a, b] => u16::from_ne_bytes([a, b]).into(),
        [a, b, c, d] => u32::from_ne_bytes([a, b, c, d]).into(),
        [a, b, c, d, e, f, g, h] => u64::from_ne_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    }
}

/// Writes the low `out.len()` (1, 2, 4 or 8; nothing for another length) bytes' worth of
/// `v` to `out` in memory order ([`bits`]'s inverse).
#[inline]
pub fn put_bits(v: u64, out: &mut [u8]) {
    match out.len() {
        1 => out.copy_from_slice(&(v as u8).to_ne_bytes()),
        2 => out.copy_from_slice(&(v as u16).to_ne_bytes()),
        4 => out.copy_from_slice(&(v as u32).to_ne_bytes()),
        8 => out.copy_from_slice(&v.to_ne_bytes()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip() {
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
            assert_eq!(Rmw::from_bytes(&op.to_bytes()), Some(op));
            let (c, a, b) = op.encode();
            assert_eq!(Rmw::decode(c.into(), a, b), Some(op));
        }
        assert_eq!(Rmw::from_bytes(&[9; 17]), None);
        assert_eq!(Rmw::from_bytes(&[1, 2]), None);
        assert_eq!(Rmw::decode(7, 0, 0), None);
    }

    #[test]
    fn every_width_applies_in_place_and_leaves_its_neighbours() {
        let mut words = [0u64; 2];
        let base = words.as_mut_ptr() as usize;
        // SAFETY: this test's own memory, every access through here.
        unsafe {
            assert_eq!(apply(base + 8, 8, Rmw::Add(7)), Some(0));
            assert_eq!(
                apply(base + 8, 8, Rmw::CompareSwap { expect: 7, new: 12 }),
                Some(7)
            );
            assert_eq!(apply(base + 8, 8, Rmw::And(10)), Some(12));
            assert_eq!(apply(base + 8, 8, Rmw::Load), Some(8));
            assert_eq!(apply(base + 4, 4, Rmw::Swap(u64::MAX)), Some(0));
            assert_eq!(apply(base + 2, 2, Rmw::Or(0x0101)), Some(0));
            assert_eq!(apply(base + 1, 1, Rmw::Xor(0xff)), Some(0));
            assert_eq!(
                apply(base + 1, 1, Rmw::Add(1)),
                Some(0xff),
                "wraps in its width"
            );
            assert_eq!(apply(base + 1, 1, Rmw::Load), Some(0));
            assert_eq!(apply(base + 3, 2, Rmw::Load), None, "misaligned");
            assert_eq!(apply(base, 16, Rmw::Load), None, "no such width");
        }
        assert_eq!(words[0], 0xffff_ffff_0101_0000);
        assert_eq!(words[1], 8);
    }

    #[test]
    fn an_update_combines_once_and_an_error_writes_nothing() {
        let mut word = 2.5f64.to_bits();
        let addr = &mut word as *mut u64 as usize;
        let twice = |v: u64| Ok::<_, ()>((f64::from_bits(v) * 2.0).to_bits());
        // SAFETY: this test's own word.
        let old = unsafe { update(addr, 8, twice) }.unwrap().unwrap();
        assert_eq!(f64::from_bits(old), 2.5);
        // SAFETY: as above.
        assert_eq!(unsafe { update(addr, 8, |_| Err("no")) }, Some(Err("no")));
        assert_eq!(f64::from_bits(word), 5.0);
    }

    #[test]
    fn threads_adding_to_one_word_lose_nothing() {
        let word = AtomicU64::new(0);
        let addr = word.as_ptr() as usize;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    for _ in 0..1000 {
                        let add = |v: u64| Ok::<_, ()>((f64::from_bits(v) + 1.0).to_bits());
                        // SAFETY: `word` outlives the scope; every access is atomic.
                        unsafe { update(addr, 8, add) }.unwrap().unwrap();
                    }
                });
            }
        });
        assert_eq!(f64::from_bits(word.into_inner()), 4000.0);
    }

    #[test]
    fn bits_follow_memory_order() {
        let v = 0x1122_3344u32;
        assert_eq!(bits(&v.to_ne_bytes()), 0x1122_3344);
        let mut out = [0; 2];
        put_bits(0xabcd, &mut out);
        assert_eq!(out, 0xabcdu16.to_ne_bytes());
    }
}
