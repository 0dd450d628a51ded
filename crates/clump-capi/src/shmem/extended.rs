//! The C types of OpenSHMEM's (and MPI's, see `mpi::extended_ops`) reductions that Rust
//! lacks: `long double` (x86-64: 80-bit extended in 16 bytes) and its complex, and binary128
//! (MPI's only) with its complex. Rust moves
//! them as plain bytes; their arithmetic is C's own, compiled into libclump from
//! `csrc/extended_arith.c`, so results are exactly what a C program would compute. The
//! `double`/`float _Complex` types are pairs of Rust floats, which clump-coll's operators
//! combine.

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

/// `*out = *a OP *b` on one value of the C type behind the pointers.
type Binary = unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void);

extern "C" {
    fn clump_longdouble_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_min(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_max(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexld_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexld_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_longdouble_less(a: *const c_void, b: *const c_void) -> std::ffi::c_int;
    fn clump_quad_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_quad_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_quad_min(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_quad_max(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexq_sum(a: *const c_void, b: *const c_void, out: *mut c_void);
    fn clump_complexq_prod(a: *const c_void, b: *const c_void, out: *mut c_void);
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

/// C's arithmetic on `long double`.
pub mod longdouble {
    use super::{apply, LongDouble};

    pub fn sum(a: LongDouble, b: LongDouble) -> LongDouble {
        apply(super::clump_longdouble_sum, a, b)
    }
    pub fn prod(a: LongDouble, b: LongDouble) -> LongDouble {
        apply(super::clump_longdouble_prod, a, b)
    }
    pub fn min(a: LongDouble, b: LongDouble) -> LongDouble {
        apply(super::clump_longdouble_min, a, b)
    }
    pub fn max(a: LongDouble, b: LongDouble) -> LongDouble {
        apply(super::clump_longdouble_max, a, b)
    }
}

/// C's arithmetic on `long double _Complex`.
pub mod complexld {
    use super::{apply, ComplexLD};

    pub fn sum(a: ComplexLD, b: ComplexLD) -> ComplexLD {
        apply(super::clump_complexld_sum, a, b)
    }
    pub fn prod(a: ComplexLD, b: ComplexLD) -> ComplexLD {
        apply(super::clump_complexld_prod, a, b)
    }
}

/// IEEE binary128 (`_Float128`, Fortran's REAL(KIND=16)), as its bytes.
pub type Quad = [u8; 16];
/// Its complex: real part, imaginary part.
pub type ComplexQuad = [u8; 32];

/// The operations on binary128 values.
#[derive(Clone, Copy)]
pub enum QuadOp {
    Sum,
    Prod,
    Min,
    Max,
}

/// `a op b` on binary128 values.
pub fn quad(op: QuadOp, a: Quad, b: Quad) -> Quad {
    let f = match op {
        QuadOp::Sum => clump_quad_sum,
        QuadOp::Prod => clump_quad_prod,
        QuadOp::Min => clump_quad_min,
        QuadOp::Max => clump_quad_max,
    };
    apply(f, a, b)
}

/// `a * b` (`product`) or `a + b` on complex binary128 values (complex numbers have no
/// order, so no other operation).
pub fn complex_quad(product: bool, a: ComplexQuad, b: ComplexQuad) -> ComplexQuad {
    let f = if product {
        clump_complexq_prod
    } else {
        clump_complexq_sum
    };
    apply(f, a, b)
}
