//! The element operators of OpenSHMEM's reductions: arithmetic (sum, prod, min, max) and
//! bitwise (and, or, xor), for every type the interface names (the extended types in
//! extended.rs add their own).

use bytemuck::Pod;

pub trait Arith: Pod {
    fn sum(self, o: Self) -> Self;
    fn prod(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
}

pub trait Bits: Pod {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn sum(self, o: Self) -> Self { self.wrapping_add(o) }
            fn prod(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn min(self, o: Self) -> Self { Ord::min(self, o) }
            fn max(self, o: Self) -> Self { Ord::max(self, o) }
        }
        impl Bits for $t {
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
        }
    )*};
}
integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            fn sum(self, o: Self) -> Self { self + o }
            fn prod(self, o: Self) -> Self { self * o }
            fn min(self, o: Self) -> Self { <$t>::min(self, o) }
            fn max(self, o: Self) -> Self { <$t>::max(self, o) }
        }
    )*};
}
floats!(f32, f64);
