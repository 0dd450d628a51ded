//! The C types of OpenSHMEM's (and MPI's, see `mpi::extended_ops`) reductions that Rust
//! lacks: `long double` (x86-64: 80-bit extended in 16 bytes), its complex, and
//! `double`/`float _Complex`. Rust moves them as plain bytes or
//! pairs; their arithmetic is C's own, compiled into libclump from `csrc/extended_arith.c`,
//! so results are exactly what a C program would compute.

use super::ops::Arith;
use bytemuck::Pod;
use std::ffi::c_void;

/// x86-64's `long double`: the 10 bytes of the value and 6 of padding.
pub type LongDouble = [u8; 16];
/// `double _Complex`: real part, imaginary part.
pub type ComplexD = [f64; 2];
/// `float _Complex`: real part, imaginary part.
pub type ComplexF = [f32; 2];
/// `long double _Complex`: real part, imaginary part, each a [`LongDouble`].
pub type ComplexLD = [u8; 32];

/// Types reduced by sum and product only (complex numbers have no order).
pub trait SumProd: Pod {
    fn sum(self, o: Self) -> Self;
    fn prod(self, o: Self) -> Self;
}

/// `*out = *a OP *b` on one value of the C type behind the pointers.
type Binary = unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void);

extern "C" {
    fn clump_longdouble_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_min(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_max(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexd_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexd_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexf_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexf_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexld_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexld_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_less(a: *const c_void, b: *const c_void) -> std::ffi::c_int;
}

/// Whether `a < b` as long doubles.
pub fn less(a: LongDouble, b: LongDouble) -> bool {
    // SAFETY: the C function reads one long double from each pointer through memcpy; both
    // point at live 16-byte locals.
    unsafe { clump_longdouble_less(a.as_ptr().cast(), b.as_ptr().cast()) != 0 }
}

/// `a OP b` by the C function `op`, which works on values of `T`'s size.
fn apply<T: Pod>(op: Binary, a: T, b: T) -> T {
    let mut out = T::zeroed();
    // SAFETY: each `op` of this file reads one value of its C type from `a` and `b` and
    // writes one to `out` through memcpy (no alignment needed); `T` is chosen below to
    // have exactly that C type's size, and all three are live locals of this frame.
    unsafe {
        op(
            (&a as *const T).cast(),
            (&b as *const T).cast(),
            (&mut out as *mut T).cast(),
        )
    };
    out
}

impl Arith for LongDouble {
    fn sum(self, o: Self) -> Self {
        apply(clump_longdouble_sum, self, o)
    }
    fn prod(self, o: Self) -> Self {
        apply(clump_longdouble_prod, self, o)
    }
    fn min(self, o: Self) -> Self {
        apply(clump_longdouble_min, self, o)
    }
    fn max(self, o: Self) -> Self {
        apply(clump_longdouble_max, self, o)
    }
}

impl SumProd for ComplexD {
    fn sum(self, o: Self) -> Self {
        apply(clump_complexd_sum, self, o)
    }
    fn prod(self, o: Self) -> Self {
        apply(clump_complexd_prod, self, o)
    }
}

impl SumProd for ComplexLD {
    fn sum(self, o: Self) -> Self {
        apply(clump_complexld_sum, self, o)
    }
    fn prod(self, o: Self) -> Self {
        apply(clump_complexld_prod, self, o)
    }
}

impl SumProd for ComplexF {
    fn sum(self, o: Self) -> Self {
        apply(clump_complexf_sum, self, o)
    }
    fn prod(self, o: Self) -> Self {
        apply(clump_complexf_prod, self, o)
    }
}
