//! The `external32` data representation (MPI 4.1 §19.1.11): every predefined element in
//! big-endian order at its canonical size (a C `long` is 4 bytes, `wchar_t` 2, `long
//! double` IEEE binary128), so packed data reads the same on every machine.

use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};

/// How one field of a predefined element is stored, in memory and in external32.
#[derive(Clone, Copy)]
enum Field {
    /// An integer of `mem` bytes in memory, `ext` in external32 (narrowed or widened).
    Integer {
        mem: usize,
        ext: usize,
        signed: bool,
    },
    /// An IEEE float of this many bytes, byte-swapped.
    Ieee(usize),
    /// x86-64's 80-bit extended `long double` (16 bytes in memory) as binary128.
    Extended,
}

use Field::*;

const fn sint(mem: usize, ext: usize) -> Field {
    Integer {
        mem,
        ext,
        signed: true,
    }
}

const fn uint(bytes: usize) -> Field {
    unarrow(bytes, bytes)
}

const fn unarrow(mem: usize, ext: usize) -> Field {
    Integer {
        mem,
        ext,
        signed: false,
    }
}

/// The fields of one element of `p` and where each lies in memory.
fn fields(p: Predef) -> impl Iterator<Item = (usize, Field)> {
    use Predef::*;
    let (first, second) = match p {
        Byte | Packed | Char | Uint8 | UnsignedChar | CBool => (uint(1), None),
        SignedChar | Int8 => (sint(1, 1), None),
        Wchar => (unarrow(4, 2), None),
        Short | Int16 => (sint(2, 2), None),
        UnsignedShort | Uint16 => (uint(2), None),
        Int | Int32 => (sint(4, 4), None),
        Unsigned | Uint32 => (uint(4), None),
        Long => (sint(8, 4), None),
        UnsignedLong => (unarrow(8, 4), None),
        LongLong | Int64 | Aint | Offset | Count => (sint(8, 8), None),
        UnsignedLongLong | Uint64 => (uint(8), None),
        Int128 => (sint(16, 16), None),
        Float => (Ieee(4), None),
        Double => (Ieee(8), None),
        Float128 => (Ieee(16), None),
        LongDouble => (Extended, None),
        FloatComplex | TwoFloat => (Ieee(4), Some((4, Ieee(4)))),
        DoubleComplex | TwoDouble => (Ieee(8), Some((8, Ieee(8)))),
        Float128Complex => (Ieee(16), Some((16, Ieee(16)))),
        LongDoubleComplex => (Extended, Some((16, Extended))),
        FloatInt => (Ieee(4), Some((4, sint(4, 4)))),
        DoubleInt => (Ieee(8), Some((8, sint(4, 4)))),
        LongInt => (sint(8, 4), Some((8, sint(4, 4)))),
        TwoInt => (sint(4, 4), Some((4, sint(4, 4)))),
        ShortInt => (sint(2, 2), Some((4, sint(4, 4)))),
        LongDoubleInt => (Extended, Some((16, sint(4, 4)))),
    };
    std::iter::once((0, first)).chain(second)
}

impl Field {
    fn mem(self) -> usize {
        match self {
            Integer { mem, .. } => mem,
            Ieee(n) => n,
            Extended => 16,
        }
    }

    fn ext(self) -> usize {
        match self {
            Integer { ext, .. } => ext,
            Ieee(n) => n,
            Extended => 16,
        }
    }

    /// Appends the external32 form of the field at `mem` to `out`.
    fn pack(self, mem: &[u8], out: &mut Vec<u8>) {
        match self {
            Integer {
                mem: m,
                ext,
                signed,
            } => {
                let v = widen(&mem[..m], signed);
                out.extend_from_slice(&v.to_be_bytes()[16 - ext..]);
            }
            Ieee(n) => out.extend(mem[..n].iter().rev()),
            Extended => out.extend_from_slice(&x87_to_quad(&mem[..16]).to_be_bytes()),
        }
    }

    /// Writes the field from its external32 bytes `ext` into `mem`.
    fn unpack(self, ext: &[u8], mem: &mut [u8]) {
        match self {
            Integer {
                mem: m,
                ext: e,
                signed,
            } => {
                let v = widen_be(&ext[..e], signed);
                mem[..m].copy_from_slice(&v.to_le_bytes()[..m]);
            }
            Ieee(n) => {
                for (d, s) in mem[..n].iter_mut().zip(ext[..n].iter().rev()) {
                    *d = *s;
                }
            }
            Extended => {
                let q = u128::from_be_bytes(ext[..16].try_into().expect("16 bytes"));
                mem[..16].copy_from_slice(&quad_to_x87(q));
            }
        }
    }
}

/// A little-endian integer of up to 16 bytes, sign- or zero-extended.
fn widen(le: &[u8], signed: bool) -> i128 {
    let mut b = [0u8; 16];
    b[..le.len()].copy_from_slice(le);
    let shift = 128 - 8 * le.len() as u32;
    let v = i128::from_le_bytes(b) << shift;
    if signed {
        v >> shift
    } else {
        ((v as u128) >> shift) as i128
    }
}

/// As [`widen`] from big-endian bytes.
fn widen_be(be: &[u8], signed: bool) -> i128 {
    let le: Vec<u8> = be.iter().rev().copied().collect();
    widen(&le, signed)
}

/// The 80-bit extended value (sign and 15-bit exponent over an explicit 64-bit
/// significand) as binary128: the exponent bias is the same and so is the scale of
/// subnormals, so the fraction moves up and the integer bit is implied.
fn x87_to_quad(mem: &[u8]) -> u128 {
    let mant = u64::from_le_bytes(mem[..8].try_into().expect("8 bytes"));
    let se = u16::from_le_bytes([mem[8], mem[9]]) as u128;
    let fraction = (mant & !(1 << 63)) as u128;
    (se << 112) | (fraction << 49)
}

/// The inverse of [`x87_to_quad`], the fraction cut to the 63 bits x87 keeps.
fn quad_to_x87(q: u128) -> [u8; 16] {
    let se = (q >> 112) as u16;
    let integer = if se & 0x7fff != 0 { 1u64 << 63 } else { 0 };
    let mant = integer | ((q >> 49) as u64 & !(1 << 63));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&mant.to_le_bytes());
    out[8..10].copy_from_slice(&se.to_le_bytes());
    out
}

/// Bytes of one element of `p` in memory from its start to the end of its last field
/// (its padding after that may lie outside the buffer).
fn span(p: Predef) -> usize {
    fields(p).map(|(at, f)| at + f.mem()).max().unwrap_or(0)
}

/// Bytes of one element of `p` in external32.
fn size32(p: Predef) -> usize {
    fields(p).map(|(_, f)| f.ext()).sum()
}

fn short(what: &str) -> Error {
    Error::new(
        ErrorClass::Truncate,
        format!("external32 {what} ends early"),
    )
}

impl Datatype {
    /// Bytes `count` elements of this type take in external32.
    pub fn external32_size(&self, count: usize) -> Result<usize> {
        let one: usize = self.elems.iter().map(|e| e.n * size32(e.kind)).sum();
        one.checked_mul(count)
            .ok_or_else(|| Error::new(ErrorClass::Count, format!("count {count} overflows")))
    }

    /// Each predefined element of `count` elements: its offset from the buffer and kind.
    fn each_element(&self, count: usize) -> impl Iterator<Item = (isize, Predef)> + '_ {
        let ext = self.extent();
        (0..count).flat_map(move |i| {
            self.elems.iter().flat_map(move |e| {
                let step = e.kind.extent() as isize;
                (0..e.n).map(move |j| (i as isize * ext + e.disp + j as isize * step, e.kind))
            })
        })
    }

    /// Appends the external32 form of `count` elements at `buf` to `out`.
    ///
    /// # Safety
    /// Every byte the type map of `count` elements names from `buf` must be readable.
    pub unsafe fn pack_external_raw(&self, buf: *const u8, count: usize, out: &mut Vec<u8>) {
        for (off, kind) in self.each_element(count) {
            // SAFETY: the element lies in the type map, which the caller's contract covers.
            let mem = unsafe { std::slice::from_raw_parts(buf.wrapping_offset(off), span(kind)) };
            for (at, f) in fields(kind) {
                f.pack(&mem[at..], out);
            }
        }
    }

    /// Writes `count` elements at `buf` from their external32 form in `data`; the bytes
    /// read.
    ///
    /// # Safety
    /// Every byte the type map of `count` elements names from `buf` must be writable.
    pub unsafe fn unpack_external_raw(
        &self,
        data: &[u8],
        buf: *mut u8,
        count: usize,
    ) -> Result<usize> {
        let mut at = 0;
        for (off, kind) in self.each_element(count) {
            let n = size32(kind);
            let src = data.get(at..at + n).ok_or_else(|| short("data"))?;
            // SAFETY: as in `pack_external_raw`, writable by the caller's contract.
            let mem =
                unsafe { std::slice::from_raw_parts_mut(buf.wrapping_offset(off), span(kind)) };
            let mut from = 0;
            for (place, f) in fields(kind) {
                f.unpack(&src[from..], &mut mem[place..]);
                from += f.ext();
            }
            at += n;
        }
        Ok(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(t: &Datatype, mem: &[u8], count: usize) -> Vec<u8> {
        let mut out = Vec::new();
        // SAFETY: `mem` covers the type map of `count` elements (the callers' layouts).
        unsafe { t.pack_external_raw(mem.as_ptr(), count, &mut out) };
        assert_eq!(out.len(), t.external32_size(count).unwrap());
        let mut back = vec![0u8; mem.len()];
        // SAFETY: as above.
        let read = unsafe { t.unpack_external_raw(&out, back.as_mut_ptr(), count) }.unwrap();
        assert_eq!(read, out.len());
        assert_eq!(back, mem);
        out
    }

    #[test]
    fn integers_are_big_endian_and_long_is_four_bytes() {
        let int = Datatype::predefined(Predef::Int);
        let v: Vec<u8> = [1i32, -2].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(
            round_trip(&int, &v, 2),
            [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]
        );
        let long = Datatype::predefined(Predef::Long);
        let v = (-3i64).to_ne_bytes();
        assert_eq!(round_trip(&long, &v, 1), [0xff, 0xff, 0xff, 0xfd]);
        assert_eq!(
            Datatype::predefined(Predef::Wchar)
                .external32_size(3)
                .unwrap(),
            6
        );
    }

    #[test]
    fn long_double_becomes_binary128() {
        let ld = Datatype::predefined(Predef::LongDouble);
        // 1.5 in x87: significand 0xC000..., exponent 0x3fff.
        let mut mem = [0u8; 16];
        mem[..8].copy_from_slice(&0xC000_0000_0000_0000u64.to_le_bytes());
        mem[8..10].copy_from_slice(&0x3fffu16.to_le_bytes());
        let out = round_trip(&ld, &mem, 1);
        assert_eq!(&out[..3], &[0x3f, 0xff, 0x80]);
        assert!(out[3..].iter().all(|&b| b == 0));
    }

    #[test]
    fn a_struct_keeps_its_element_boundaries() {
        let (c, d, s) = (
            Datatype::predefined(Predef::Char),
            Datatype::predefined(Predef::Double),
            Datatype::predefined(Predef::ShortInt),
        );
        let st = Datatype::structure(&[1, 1, 1], &[0, 8, 16], &[c, d, s]).unwrap();
        let mut mem = vec![0u8; 2 * 24];
        mem[0] = 7;
        mem[8..16].copy_from_slice(&2.0f64.to_ne_bytes());
        mem[16..18].copy_from_slice(&(-1i16).to_ne_bytes());
        mem[20..24].copy_from_slice(&9i32.to_ne_bytes());
        let out = round_trip(&st, &mem, 2);
        assert_eq!(out.len(), 2 * (1 + 8 + 6));
        assert_eq!(&out[..3], &[7, 0x40, 0]);
        assert_eq!(&out[9..15], &[0xff, 0xff, 0, 0, 0, 9]);
        let mut back = vec![0u8; 48];
        // SAFETY: `back` covers two elements.
        let cut = unsafe { st.unpack_external_raw(&out[..20], back.as_mut_ptr(), 2) };
        assert!(cut.is_err());
    }
}
