//! Datatypes. This version handles contiguous data of the predefined C types and
//! contiguous blocks of them.

use crate::error::{Error, ErrorClass, Result};

/// The predefined element types the reductions know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Predef {
    Byte,
    Char,
    SignedChar,
    UnsignedChar,
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
}

impl Predef {
    pub fn size(self) -> usize {
        use Predef::*;
        match self {
            Byte | Char | SignedChar | UnsignedChar | Int8 | Uint8 | CBool => 1,
            Short | UnsignedShort | Int16 | Uint16 => 2,
            Int | Unsigned | Float | Int32 | Uint32 => 4,
            Long | UnsignedLong | LongLong | UnsignedLongLong | Double | Int64 | Uint64 => 8,
        }
    }

    pub fn name(self) -> &'static str {
        use Predef::*;
        match self {
            Byte => "MPI_BYTE",
            Char => "MPI_CHAR",
            SignedChar => "MPI_SIGNED_CHAR",
            UnsignedChar => "MPI_UNSIGNED_CHAR",
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
        }
    }
}

/// A datatype: `count` elements of one predefined type laid out contiguously.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datatype {
    elem: Predef,
    count: usize,
    name: String,
}

impl Datatype {
    pub fn predefined(p: Predef) -> Datatype {
        Datatype {
            elem: p,
            count: 1,
            name: p.name().to_string(),
        }
    }

    /// `MPI_Type_contiguous`: `count` copies of `old` back to back.
    pub fn contiguous(count: usize, old: &Datatype) -> Result<Datatype> {
        let count = count
            .checked_mul(old.count)
            .ok_or_else(|| Error::new(ErrorClass::Count, "contiguous type too large"))?;
        Ok(Datatype {
            elem: old.elem,
            count,
            name: String::new(),
        })
    }

    /// Bytes of data in one element of this type.
    pub fn size(&self) -> usize {
        self.elem.size() * self.count
    }

    pub fn extent(&self) -> usize {
        self.size()
    }

    /// The predefined type its data is made of (what reductions combine).
    pub fn element(&self) -> Predef {
        self.elem
    }

    /// Elements of the predefined type in one element of this type.
    pub fn element_count(&self) -> usize {
        self.count
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn set_name(&mut self, name: &str) {
        self.name = name.to_string();
    }

    /// Bytes of `count` elements, checked against overflow.
    pub fn bytes(&self, count: usize) -> Result<usize> {
        count
            .checked_mul(self.size())
            .ok_or_else(|| Error::new(ErrorClass::Count, format!("count {count} overflows")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_contiguous() {
        let int = Datatype::predefined(Predef::Int);
        assert_eq!(int.size(), 4);
        assert_eq!(int.name(), "MPI_INT");
        let c = Datatype::contiguous(3, &int).unwrap();
        assert_eq!(c.size(), 12);
        let cc = Datatype::contiguous(2, &c).unwrap();
        assert_eq!(cc.size(), 24);
        assert_eq!(cc.element_count(), 6);
        assert_eq!(Datatype::predefined(Predef::Double).bytes(5).unwrap(), 40);
        assert!(Datatype::predefined(Predef::Double)
            .bytes(usize::MAX)
            .is_err());
    }
}
