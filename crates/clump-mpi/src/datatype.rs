//! Datatypes: a type map reduced to the byte runs of one element (in type-map order), with
//! its bounds, and pack/unpack between that layout and contiguous bytes. Messages and
//! collectives carry packed bytes; a contiguous type's packed bytes are the data itself.

use std::rc::Rc;

use crate::error::{Error, ErrorClass, Result};

/// The predefined element types (what reductions combine). The `*Int` pairs are the
/// value-and-index types of `MPI_MAXLOC`/`MPI_MINLOC`; packed, the value precedes the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Predef {
    Byte,
    Packed,
    Char,
    SignedChar,
    UnsignedChar,
    Wchar,
    Short,
    UnsignedShort,
    Int,
    Unsigned,
    Long,
    UnsignedLong,
    LongLong,
    UnsignedLongLong,
    Float,
    Double,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    CBool,
    Aint,
    Offset,
    Count,
    FloatComplex,
    DoubleComplex,
    FloatInt,
    DoubleInt,
    LongInt,
    TwoInt,
    ShortInt,
    /// Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION: (value, index) pairs of one type.
    TwoFloat,
    TwoDouble,
    /// C's `long double` (x86-64: the 80-bit extended format in 16 bytes), its complex,
    /// and its value-index pair: moved as bytes, combined by the C layer's arithmetic.
    LongDouble,
    LongDoubleComplex,
    LongDoubleInt,
    /// Fortran's INTEGER(KIND=16) (MPI_INTEGER16).
    Int128,
    /// IEEE binary128, Fortran's REAL(KIND=16) and COMPLEX(KIND=16) (MPI_REAL16,
    /// MPI_COMPLEX32): moved as bytes, combined by the C layer's arithmetic.
    Float128,
    Float128Complex,
}

impl Predef {
    /// Bytes of one element, packed.
    pub const fn size(self) -> usize {
        use Predef::*;
        match self {
            Byte | Packed | Char | SignedChar | UnsignedChar | Int8 | Uint8 | CBool => 1,
            Short | UnsignedShort | Int16 | Uint16 => 2,
            Int | Unsigned | Float | Int32 | Uint32 | Wchar => 4,
            Long | UnsignedLong | LongLong | UnsignedLongLong | Double | Int64 | Uint64 | Aint
            | Offset | Count | FloatComplex | FloatInt | TwoInt | TwoFloat => 8,
            DoubleInt | LongInt => 12,
            DoubleComplex | TwoDouble | LongDouble | Int128 | Float128 => 16,
            ShortInt => 6,
            LongDoubleInt => 20,
            LongDoubleComplex | Float128Complex => 32,
        }
    }

    /// Bytes one element spans in memory (more than its size for a padded pair type).
    pub const fn extent(self) -> usize {
        match self {
            Predef::DoubleInt | Predef::LongInt => 16,
            Predef::LongDoubleInt => 32,
            Predef::ShortInt => 8,
            p => p.size(),
        }
    }

    /// The byte runs of one element in memory and its extent (a C struct's padding).
    fn layout(self) -> (Vec<Block>, usize) {
        let run = |disp, len| Block { disp, len };
        let blocks = match self {
            Predef::DoubleInt | Predef::LongInt => vec![run(0, 12)],
            Predef::LongDoubleInt => vec![run(0, 20)],
            Predef::ShortInt => vec![run(0, 2), run(4, 4)],
            p => vec![run(0, p.size())],
        };
        (blocks, self.extent())
    }

    /// Predefined elements one element counts as (two for a value-index pair).
    fn parts(self) -> usize {
        use Predef::*;
        match self {
            FloatInt | DoubleInt | LongInt | TwoInt | ShortInt | TwoFloat | TwoDouble
            | LongDoubleInt => 2,
            _ => 1,
        }
    }

    /// The C alignment of the type, which rounds a struct's extent.
    fn align(self) -> usize {
        match self {
            Predef::ShortInt
            | Predef::FloatInt
            | Predef::TwoInt
            | Predef::TwoFloat
            | Predef::FloatComplex => 4,
            Predef::TwoDouble => 8,
            Predef::DoubleComplex => 8,
            Predef::LongDouble | Predef::LongDoubleComplex | Predef::LongDoubleInt => 16,
            Predef::Int128 | Predef::Float128 | Predef::Float128Complex => 16,
            p => p.size().min(8),
        }
    }

    pub fn name(self) -> &'static str {
        use Predef::*;
        match self {
            Byte => "MPI_BYTE",
            Packed => "MPI_PACKED",
            Char => "MPI_CHAR",
            SignedChar => "MPI_SIGNED_CHAR",
            UnsignedChar => "MPI_UNSIGNED_CHAR",
            Wchar => "MPI_WCHAR",
            Short => "MPI_SHORT",
            UnsignedShort => "MPI_UNSIGNED_SHORT",
            Int => "MPI_INT",
            Unsigned => "MPI_UNSIGNED",
            Long => "MPI_LONG",
            UnsignedLong => "MPI_UNSIGNED_LONG",
            LongLong => "MPI_LONG_LONG",
            UnsignedLongLong => "MPI_UNSIGNED_LONG_LONG",
            Float => "MPI_FLOAT",
            Double => "MPI_DOUBLE",
            Int8 => "MPI_INT8_T",
            Int16 => "MPI_INT16_T",
            Int32 => "MPI_INT32_T",
            Int64 => "MPI_INT64_T",
            Uint8 => "MPI_UINT8_T",
            Uint16 => "MPI_UINT16_T",
            Uint32 => "MPI_UINT32_T",
            Uint64 => "MPI_UINT64_T",
            CBool => "MPI_C_BOOL",
            Aint => "MPI_AINT",
            Offset => "MPI_OFFSET",
            Count => "MPI_COUNT",
            FloatComplex => "MPI_C_FLOAT_COMPLEX",
            DoubleComplex => "MPI_C_DOUBLE_COMPLEX",
            FloatInt => "MPI_FLOAT_INT",
            DoubleInt => "MPI_DOUBLE_INT",
            LongInt => "MPI_LONG_INT",
            TwoInt => "MPI_2INT",
            ShortInt => "MPI_SHORT_INT",
            TwoFloat => "MPI_2REAL",
            TwoDouble => "MPI_2DOUBLE_PRECISION",
            LongDouble => "MPI_LONG_DOUBLE",
            LongDoubleComplex => "MPI_C_LONG_DOUBLE_COMPLEX",
            LongDoubleInt => "MPI_LONG_DOUBLE_INT",
            Int128 => "MPI_INTEGER16",
            Float128 => "MPI_REAL16",
            Float128Complex => "MPI_COMPLEX32",
        }
    }
}

/// `len` bytes at `disp` from the start of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    disp: isize,
    len: usize,
}

/// `n` predefined elements of one kind from `disp`, each `kind.extent()` bytes after the
/// last: the typed view of the type map, which keeps the element boundaries that merged
/// byte runs lose (for `MPI_Get_elements` of a partial element and for external32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Elems {
    pub(crate) disp: isize,
    pub(crate) kind: Predef,
    pub(crate) n: usize,
}

/// A datatype: the byte runs of one element, its bounds and the element type it is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datatype {
    blocks: Rc<[Block]>,
    /// The predefined elements of one element, in type-map order.
    pub(crate) elems: Rc<[Elems]>,
    size: usize,
    lb: isize,
    ub: isize,
    /// Predefined elements in one element (what `MPI_Get_elements` counts).
    basics: usize,
    /// The one predefined type all of its data is, `None` for a mix.
    elem: Option<Predef>,
    align: usize,
    name: Rc<str>,
}

fn too_large() -> Error {
    Error::new(ErrorClass::Count, "datatype too large")
}

impl Datatype {
    pub fn predefined(p: Predef) -> Datatype {
        let (blocks, extent) = p.layout();
        Datatype {
            size: p.size(),
            blocks: blocks.into(),
            elems: [Elems {
                disp: 0,
                kind: p,
                n: 1,
            }]
            .into(),
            lb: 0,
            ub: extent as isize,
            basics: p.parts(),
            elem: Some(p),
            align: p.align(),
            name: p.name().into(),
        }
    }

    /// The type whose elements are `parts` (each a copy of a type at a byte displacement),
    /// in type-map order; bounds span those of the parts.
    fn from_parts<'a>(
        parts: impl Iterator<Item = (isize, &'a Datatype)> + Clone,
    ) -> Result<Datatype> {
        let mut blocks: Vec<Block> = Vec::new();
        let mut elems: Vec<Elems> = Vec::new();
        let (mut size, mut basics, mut align) = (0usize, 0usize, 1usize);
        let (mut lb, mut ub) = (isize::MAX, isize::MIN);
        let mut elem: Option<Option<Predef>> = None;
        for (shift, t) in parts {
            size = size.checked_add(t.size).ok_or_else(too_large)?;
            basics += t.basics;
            align = align.max(t.align);
            lb = lb.min(shift + t.lb);
            ub = ub.max(shift + t.ub);
            elem = Some(match elem {
                None => t.elem,
                Some(e) if e == t.elem => e,
                Some(_) => None,
            });
            for b in t.blocks.iter() {
                let disp = shift.checked_add(b.disp).ok_or_else(too_large)?;
                match blocks.last_mut() {
                    Some(last) if last.disp + last.len as isize == disp => last.len += b.len,
                    _ if b.len > 0 => blocks.push(Block { disp, len: b.len }),
                    _ => {}
                }
            }
            for e in t.elems.iter() {
                let disp = shift + e.disp;
                match elems.last_mut() {
                    Some(last)
                        if last.kind == e.kind
                            && last.disp + (last.n * last.kind.extent()) as isize == disp =>
                    {
                        last.n += e.n
                    }
                    _ => elems.push(Elems { disp, ..*e }),
                }
            }
        }
        if lb > ub {
            (lb, ub) = (0, 0);
        }
        Ok(Datatype {
            blocks: blocks.into(),
            elems: elems.into(),
            size,
            lb,
            ub,
            basics,
            elem: elem.flatten(),
            align,
            name: "".into(),
        })
    }

    /// `MPI_Type_contiguous`: `count` copies of `old` back to back.
    pub fn contiguous(count: usize, old: &Datatype) -> Result<Datatype> {
        Datatype::hvector(count, 1, old.extent(), old)
    }

    /// `MPI_Type_vector`: `count` blocks of `blocklen` elements, `stride` elements apart.
    pub fn vector(
        count: usize,
        blocklen: usize,
        stride: isize,
        old: &Datatype,
    ) -> Result<Datatype> {
        let stride = stride.checked_mul(old.extent()).ok_or_else(too_large)?;
        Datatype::hvector(count, blocklen, stride, old)
    }

    /// `MPI_Type_create_hvector`: as `vector` with the stride in bytes.
    pub fn hvector(
        count: usize,
        blocklen: usize,
        stride: isize,
        old: &Datatype,
    ) -> Result<Datatype> {
        let ext = old.extent();
        count.checked_mul(blocklen).ok_or_else(too_large)?;
        Datatype::from_parts((0..count).flat_map(move |i| {
            (0..blocklen).map(move |j| (i as isize * stride + j as isize * ext, old))
        }))
    }

    /// `MPI_Type_indexed`: blocks of `lens[i]` elements at `disps[i]` elements.
    pub fn indexed(lens: &[usize], disps: &[isize], old: &Datatype) -> Result<Datatype> {
        let bytes: Vec<isize> = disps.iter().map(|d| d * old.extent()).collect();
        Datatype::hindexed(lens, &bytes, old)
    }

    /// `MPI_Type_create_indexed_block`: blocks of `len` elements at `disps[i]` elements.
    pub fn indexed_block(len: usize, disps: &[isize], old: &Datatype) -> Result<Datatype> {
        Datatype::indexed(&vec![len; disps.len()], disps, old)
    }

    /// `MPI_Type_create_hindexed`: blocks of `lens[i]` elements at `disps[i]` bytes.
    pub fn hindexed(lens: &[usize], disps: &[isize], old: &Datatype) -> Result<Datatype> {
        Datatype::placed(lens, disps, &vec![old.clone(); lens.len()])
    }

    /// `MPI_Type_create_struct`: blocks of `lens[i]` elements of `types[i]` at `disps[i]`
    /// bytes; the extent is rounded up to the strictest alignment, as a C struct's is.
    pub fn structure(lens: &[usize], disps: &[isize], types: &[Datatype]) -> Result<Datatype> {
        let mut t = Datatype::placed(lens, disps, types)?;
        let extent = (t.extent() as usize).next_multiple_of(t.align);
        t.ub = t.lb + extent as isize;
        Ok(t)
    }

    /// Blocks of `lens[i]` elements of `types[i]` at `disps[i]` bytes.
    fn placed(lens: &[usize], disps: &[isize], types: &[Datatype]) -> Result<Datatype> {
        if lens.len() != disps.len() || lens.len() != types.len() {
            return Err(Error::new(
                ErrorClass::Arg,
                "type constructor arrays differ in length",
            ));
        }
        Datatype::from_parts(
            lens.iter()
                .zip(disps)
                .zip(types)
                .flat_map(|((&n, &d), t)| (0..n).map(move |j| (d + j as isize * t.extent(), t))),
        )
    }

    /// `MPI_Type_create_resized`: the same data with new bounds (the extent may be
    /// negative: elements then step backwards).
    pub fn resized(old: &Datatype, lb: isize, extent: isize) -> Result<Datatype> {
        let ub = lb.checked_add(extent).ok_or_else(too_large)?;
        Ok(Datatype {
            lb,
            ub,
            name: "".into(),
            ..old.clone()
        })
    }

    /// Bytes of data in one element of this type.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    pub fn lb(&self) -> isize {
        self.lb
    }

    pub fn extent(&self) -> isize {
        self.ub - self.lb
    }

    /// `MPI_Type_get_true_extent`: the lower bound and extent of the data itself.
    pub fn true_bounds(&self) -> (isize, isize) {
        let lo = self.blocks.iter().map(|b| b.disp).min().unwrap_or(0);
        let hi = self
            .blocks
            .iter()
            .map(|b| b.disp + b.len as isize)
            .max()
            .unwrap_or(0);
        (lo, hi - lo)
    }

    /// Whether a NULL buffer (`MPI_BOTTOM`) is valid for this type: its data lies at
    /// absolute addresses, all beyond the zero page no object can occupy.
    pub fn absolute(&self) -> bool {
        self.true_bounds().0 >= 4096
    }

    /// The predefined type its data is made of (what reductions combine), if only one.
    pub fn element(&self) -> Option<Predef> {
        self.elem
    }

    /// Predefined elements in one element of this type.
    pub fn basic_count(&self) -> usize {
        self.basics
    }

    /// How many predefined elements the first `bytes` packed bytes of a sequence of this
    /// type hold; `None` when they end inside one (`MPI_UNDEFINED`).
    pub fn elements_in(&self, bytes: u64) -> Option<u64> {
        if self.size == 0 {
            return (bytes == 0).then_some(0);
        }
        let size = self.size as u64;
        let (whole, mut rest) = (bytes / size, bytes % size);
        let mut n = whole.checked_mul(self.basics as u64)?;
        for e in self.elems.iter() {
            if rest == 0 {
                break;
            }
            let (each, parts) = (e.kind.size() as u64, e.kind.parts());
            let fit = (rest / each).min(e.n as u64);
            n += fit * parts as u64;
            rest -= fit * each;
            if fit < e.n as u64 {
                break;
            }
        }
        (rest == 0).then_some(n)
    }

    /// Whether `count` elements are `bytes(count)` bytes from the buffer's start.
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        self.size == 0
            || (self.blocks.len() == 1
                && self.blocks[0].disp == 0
                && self.lb == 0
                && self.extent() == self.size as isize)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn set_name(&mut self, name: &str) {
        self.name = name.into();
    }

    /// Packed bytes of `count` elements, checked against overflow.
    #[inline]
    pub fn bytes(&self, count: usize) -> Result<usize> {
        count
            .checked_mul(self.size())
            .ok_or_else(|| overflows(count))
    }

    /// The bytes `count` elements touch from the buffer's start, for a buffer given as a
    /// slice (so no data may lie before it).
    pub fn span(&self, count: usize) -> Result<usize> {
        if count == 0 || self.size == 0 {
            return Ok(0);
        }
        let (lo, ext) = self.true_bounds();
        let last = (count as isize - 1)
            .checked_mul(self.extent())
            .ok_or_else(too_large)?;
        if lo < 0 || last < 0 {
            return Err(Error::new(
                ErrorClass::Buffer,
                "the type reaches before the buffer's start",
            ));
        }
        Ok((last + lo + ext) as usize)
    }

    /// Each byte run of `count` elements: its offset from the buffer and its place in the
    /// packed bytes.
    pub fn runs(&self, count: usize) -> impl Iterator<Item = (isize, usize, usize)> + '_ {
        let ext = self.extent();
        (0..count)
            .flat_map(move |i| {
                self.blocks
                    .iter()
                    .map(move |b| (i as isize * ext + b.disp, b.len))
            })
            .scan(0usize, |at, (off, len)| {
                let packed = *at;
                *at += len;
                Some((off, packed, len))
            })
    }

    /// Appends the packed data of `count` elements at `buf` to `out`.
    ///
    /// # Safety
    /// Every byte the type map of `count` elements names from `buf` must be readable.
    pub unsafe fn pack_raw(&self, buf: *const u8, count: usize, out: &mut Vec<u8>) {
        out.reserve(self.size * count);
        if self.is_contiguous() {
            // SAFETY: as below; a contiguous type's data is one run.
            out.extend_from_slice(unsafe { std::slice::from_raw_parts(buf, self.size * count) });
            return;
        }
        for (off, _, len) in self.runs(count) {
            // SAFETY: the caller's contract covers every run of the type map.
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(buf.wrapping_offset(off), len)
            });
        }
    }

    /// Writes packed `data` into the elements at `buf`, as far as `data` reaches (a short
    /// message fills the first elements).
    ///
    /// # Safety
    /// Every byte the type map of `count` elements names from `buf` must be writable.
    pub unsafe fn unpack_raw(&self, data: &[u8], buf: *mut u8, count: usize) {
        if self.is_contiguous() {
            let n = data.len().min(self.size * count);
            // SAFETY: as below; a contiguous type's data is one run.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf, n) };
            return;
        }
        for (off, at, len) in self.runs(count) {
            if at >= data.len() {
                break;
            }
            let n = len.min(data.len() - at);
            // SAFETY: the caller's contract covers every run of the type map.
            unsafe {
                std::ptr::copy_nonoverlapping(data.as_ptr().add(at), buf.wrapping_offset(off), n)
            };
        }
    }

    /// The packed data of `count` elements in `buf`.
    pub fn pack(&self, buf: &[u8], count: usize) -> Result<Vec<u8>> {
        self.check_span(buf.len(), count)?;
        let mut out = Vec::new();
        // SAFETY: `check_span` proved every run lies inside `buf`.
        unsafe { self.pack_raw(buf.as_ptr(), count, &mut out) };
        Ok(out)
    }

    /// Writes packed `data` into `count` elements in `buf`.
    pub fn unpack(&self, data: &[u8], buf: &mut [u8], count: usize) -> Result<()> {
        self.check_span(buf.len(), count)?;
        // SAFETY: `check_span` proved every run lies inside `buf`.
        unsafe { self.unpack_raw(data, buf.as_mut_ptr(), count) };
        Ok(())
    }

    /// Whether a slice of `have` bytes holds `count` elements.
    pub(crate) fn check_span(&self, have: usize, count: usize) -> Result<()> {
        let need = self.span(count)?;
        if have < need {
            return Err(Error::new(
                ErrorClass::Buffer,
                format!("buffer of {have} bytes holds less than {count} elements ({need} bytes)"),
            ));
        }
        Ok(())
    }
}

/// The error of a count whose bytes overflow.
#[cold]
#[inline(never)]
fn overflows(count: usize) -> Error {
    Error::new(ErrorClass::Count, format!("count {count} overflows"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn sizes_and_contiguous() {
        let int = Datatype::predefined(Predef::Int);
        assert_eq!(int.size(), 4);
        assert_eq!(int.name(), "MPI_INT");
        let c = Datatype::contiguous(3, &int).unwrap();
        assert_eq!(c.size(), 12);
        assert!(c.is_contiguous());
        let cc = Datatype::contiguous(2, &c).unwrap();
        assert_eq!((cc.size(), cc.extent(), cc.basic_count()), (24, 24, 6));
        assert_eq!(cc.element(), Some(Predef::Int));
        assert_eq!(Datatype::predefined(Predef::Double).bytes(5).unwrap(), 40);
        assert!(Datatype::predefined(Predef::Double)
            .bytes(usize::MAX)
            .is_err());
    }

    #[test]
    fn vector_column_resized_packs_and_unpacks() {
        let int = Datatype::predefined(Predef::Int);
        let m: Vec<i32> = (0..20).collect(); // a 4x5 matrix
        let col = Datatype::vector(4, 1, 5, &int).unwrap();
        assert_eq!(
            (col.size(), col.extent(), col.is_contiguous()),
            (16, 64, false)
        );
        let col = Datatype::resized(&col, 0, 4).unwrap();
        let packed = col.pack(&ints(&m), 2).unwrap();
        assert_eq!(packed, ints(&[0, 5, 10, 15, 1, 6, 11, 16]));
        let mut back = vec![0u8; 80];
        col.unpack(&packed, &mut back, 2).unwrap();
        assert_eq!(&back[20..24], &5i32.to_ne_bytes());
        assert!(col.pack(&ints(&m[..10]), 2).is_err());
    }

    #[test]
    fn indexed_struct_and_pairs() {
        let int = Datatype::predefined(Predef::Int);
        let idx = Datatype::indexed(&[2, 1], &[0, 7], &int).unwrap();
        assert_eq!((idx.size(), idx.extent()), (12, 32));
        let flat: Vec<i32> = (0..10).collect();
        assert_eq!(idx.pack(&ints(&flat), 1).unwrap(), ints(&[0, 1, 7]));
        assert_eq!(
            Datatype::indexed_block(2, &[0, 7], &int).unwrap().size(),
            16
        );
        let dbl = Datatype::predefined(Predef::Double);
        let chr = Datatype::predefined(Predef::Char);
        let st = Datatype::structure(&[1, 1], &[0, 8], &[chr, dbl]).unwrap();
        assert_eq!((st.size(), st.extent(), st.element()), (9, 16, None));
        assert_eq!(st.true_bounds(), (0, 16));
        let di = Datatype::predefined(Predef::DoubleInt);
        assert_eq!((di.size(), di.extent(), di.basic_count()), (12, 16, 2));
        let si = Datatype::predefined(Predef::ShortInt);
        let mem = [1u8, 2, 0xee, 0xee, 3, 4, 5, 6];
        assert_eq!(si.pack(&mem, 1).unwrap(), vec![1, 2, 3, 4, 5, 6]);
        assert!(Datatype::structure(&[1], &[0, 1], &[int]).is_err());
    }
}
