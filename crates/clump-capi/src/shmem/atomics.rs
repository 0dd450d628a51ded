//! Atomic memory operations on 32- and 64-bit types. A 64-bit one is one atomic
//! instruction at the target (or on the mapped word of a same-host PE). A 32-bit one works
//! on the aligned 64-bit word around it: bitwise operations with the other half masked
//! out, the rest as a compare-and-swap loop, so that atomics of both widths on neighbouring
//! variables never tear each other.

use super::runtime::{dst_slice, run, Res, State};
use clump_gas::Rmw;
use std::ffi::c_void;
use std::os::raw::{c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong};

/// What an atomic does to a value of its type (as the low bits of a u64).
#[derive(Clone, Copy)]
pub enum Op {
    Fetch,
    Set(u64),
    Swap(u64),
    CompareSwap { cond: u64, value: u64 },
    Add(u64),
    And(u64),
    Or(u64),
    Xor(u64),
}

/// A type atomics work on: its width and its bits.
pub trait Amo: Copy {
    fn bits(self) -> u64;
    fn of_bits(bits: u64) -> Self;
}

macro_rules! amo_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Amo for $t {
            fn bits(self) -> u64 {
                self as $u as u64
            }
            fn of_bits(bits: u64) -> Self {
                bits as $u as $t
            }
        }
    )*};
}
amo_int!(i32 => u32, u32 => u32, i64 => u64, u64 => u64, isize => usize, usize => usize);

impl Amo for f32 {
    fn bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
    fn of_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl Amo for f64 {
    fn bits(self) -> u64 {
        f64::to_bits(self)
    }
    fn of_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

impl Op {
    /// The value `old` becomes (for the operations a compare-and-swap loop carries out).
    fn next(self, old: u64, mask: u64) -> u64 {
        match self {
            Op::Fetch => old,
            Op::Set(v) | Op::Swap(v) => v,
            Op::CompareSwap { cond, value } => {
                if old == cond {
                    value
                } else {
                    old
                }
            }
            Op::Add(v) => old.wrapping_add(v) & mask,
            Op::And(v) => old & v,
            Op::Or(v) => old | v,
            Op::Xor(v) => old ^ v,
        }
    }
}

impl State {
    /// Applies `op` to the `width`-byte object at `addr` on `pe`; returns its old value.
    pub fn atomic(&self, addr: *const c_void, pe: u32, width: usize, op: Op) -> Res<u64> {
        let a = addr as usize;
        if !a.is_multiple_of(width) {
            return Err(format!("{addr:p} is not aligned for a {width}-byte atomic"));
        }
        if width == 8 {
            let rmw = match op {
                Op::Fetch => Rmw::Load,
                Op::Set(v) | Op::Swap(v) => Rmw::Swap(v),
                Op::CompareSwap { cond, value } => Rmw::CompareSwap {
                    expect: cond,
                    new: value,
                },
                Op::Add(v) => Rmw::Add(v),
                Op::And(v) => Rmw::And(v),
                Op::Or(v) => Rmw::Or(v),
                Op::Xor(v) => Rmw::Xor(v),
            };
            return self.rmw(addr, pe, rmw);
        }
        // A 32-bit object: the aligned word around it, little-endian.
        let word = (a & !7) as *const c_void;
        let shift = (a & 7) * 8;
        let mask = 0xffff_ffffu64;
        let half = |w: u64| (w >> shift) & mask;
        let old = match op {
            Op::Fetch => self.rmw(word, pe, Rmw::Load)?,
            Op::And(v) => self.rmw(word, pe, Rmw::And((v & mask) << shift | !(mask << shift)))?,
            Op::Or(v) => self.rmw(word, pe, Rmw::Or((v & mask) << shift))?,
            Op::Xor(v) => self.rmw(word, pe, Rmw::Xor((v & mask) << shift))?,
            _ => {
                let mut seen = self.rmw(word, pe, Rmw::Load)?;
                loop {
                    let new = op.next(half(seen), mask);
                    if new == half(seen) {
                        break seen;
                    }
                    let wanted = (seen & !(mask << shift)) | (new & mask) << shift;
                    let got = self.rmw(
                        word,
                        pe,
                        Rmw::CompareSwap {
                            expect: seen,
                            new: wanted,
                        },
                    )?;
                    if got == seen {
                        break seen;
                    }
                    seen = got;
                }
            }
        };
        Ok(half(old))
    }
}

pub fn amo<T: Amo>(
    what: &str,
    ctx: Option<usize>,
    addr: *const T,
    pe: c_int,
    op: impl FnOnce() -> Op,
) -> T {
    run(what, |s| {
        let pe = s.target(ctx, pe)?;
        Ok(T::of_bits(s.atomic(
            addr.cast(),
            pe,
            size_of::<T>(),
            op(),
        )?))
    })
}

/// Stores a fetching atomic's result where its non-blocking form was told to.
pub fn deliver<T: Amo>(what: &str, fetch: *mut T, v: T) {
    run(what, |_| {
        // SAFETY: `fetch` is the C caller's result variable of type `T`, or NULL.
        let slot = unsafe { dst_slice(fetch.cast(), size_of::<T>(), "fetch")? };
        // SAFETY: `slot` is the caller's `size_of::<T>()` bytes at `fetch` (checked non-NULL).
        unsafe { slot.as_mut_ptr().cast::<T>().write_unaligned(v) };
        Ok(())
    })
}

/// Defines `shmem_{name}_atomic_{op}` and `shmem_ctx_{name}_atomic_{op}` returning `$ret`
/// from `amo(..., $op)` with the given C parameters.
macro_rules! amo_fn {
    ($name:ident: $t:ty, $op:ident ($($p:ident: $pt:ty),*) -> $ret:ty, |$v:ident| $body:expr) => {
        paste::paste! {
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _atomic_ $op>](dest: *mut $t, $($p: $pt,)* pe: c_int) -> $ret {
                let $v = amo(stringify!([<shmem_ $name _atomic_ $op>]), None, dest, pe, || $body);
                $v.into_ret()
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ctx_ $name _atomic_ $op>](ctx: usize, dest: *mut $t, $($p: $pt,)* pe: c_int) -> $ret {
                let $v = amo(stringify!([<shmem_ctx_ $name _atomic_ $op>]), Some(ctx), dest, pe, || $body);
                $v.into_ret()
            }
        }
    };
}

/// Defines the non-blocking form `shmem_{name}_atomic_{op}_nbi` of a fetching atomic.
macro_rules! amo_nbi {
    ($name:ident: $t:ty, $op:ident ($($p:ident: $pt:ty),*), $body:expr) => {
        paste::paste! {
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _atomic_ $op _nbi>](fetch: *mut $t, dest: *mut $t, $($p: $pt,)* pe: c_int) {
                let what = stringify!([<shmem_ $name _atomic_ $op _nbi>]);
                deliver(what, fetch, amo(what, None, dest, pe, || $body));
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ctx_ $name _atomic_ $op _nbi>](ctx: usize, fetch: *mut $t, dest: *mut $t, $($p: $pt,)* pe: c_int) {
                let what = stringify!([<shmem_ctx_ $name _atomic_ $op _nbi>]);
                deliver(what, fetch, amo(what, Some(ctx), dest, pe, || $body));
            }
        }
    };
}

/// A fetching atomic returns the old value; the others return nothing.
trait IntoRet<R> {
    fn into_ret(self) -> R;
}
impl<T: Amo> IntoRet<T> for T {
    fn into_ret(self) -> T {
        self
    }
}
impl<T: Amo> IntoRet<()> for T {
    fn into_ret(self) {}
}

/// fetch, set, swap (and their non-blocking forms): every type of the extended set.
macro_rules! extended {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        amo_fn!($name: $t, fetch () -> $t, |v| Op::Fetch);
        amo_fn!($name: $t, set (value: $t) -> (), |v| Op::Set(value.bits()));
        amo_fn!($name: $t, swap (value: $t) -> $t, |v| Op::Swap(value.bits()));
        amo_nbi!($name: $t, fetch (), Op::Fetch);
        amo_nbi!($name: $t, swap (value: $t), Op::Swap(value.bits()));
    )*};
}

/// compare-swap, inc, add and their fetching and non-blocking forms: the integer types.
macro_rules! standard {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        amo_fn!($name: $t, compare_swap (cond: $t, value: $t) -> $t,
            |v| Op::CompareSwap { cond: cond.bits(), value: value.bits() });
        amo_fn!($name: $t, fetch_inc () -> $t, |v| Op::Add(1));
        amo_fn!($name: $t, inc () -> (), |v| Op::Add(1));
        amo_fn!($name: $t, fetch_add (value: $t) -> $t, |v| Op::Add(value.bits()));
        amo_fn!($name: $t, add (value: $t) -> (), |v| Op::Add(value.bits()));
        amo_nbi!($name: $t, compare_swap (cond: $t, value: $t),
            Op::CompareSwap { cond: cond.bits(), value: value.bits() });
        amo_nbi!($name: $t, fetch_inc (), Op::Add(1));
        amo_nbi!($name: $t, fetch_add (value: $t), Op::Add(value.bits()));
    )*};
}

/// and, or, xor and their fetching and non-blocking forms: the unsigned and fixed types.
macro_rules! bitwise {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        amo_fn!($name: $t, fetch_and (value: $t) -> $t, |v| Op::And(value.bits()));
        amo_fn!($name: $t, and (value: $t) -> (), |v| Op::And(value.bits()));
        amo_fn!($name: $t, fetch_or (value: $t) -> $t, |v| Op::Or(value.bits()));
        amo_fn!($name: $t, or (value: $t) -> (), |v| Op::Or(value.bits()));
        amo_fn!($name: $t, fetch_xor (value: $t) -> $t, |v| Op::Xor(value.bits()));
        amo_fn!($name: $t, xor (value: $t) -> (), |v| Op::Xor(value.bits()));
        amo_nbi!($name: $t, fetch_and (value: $t), Op::And(value.bits()));
        amo_nbi!($name: $t, fetch_or (value: $t), Op::Or(value.bits()));
        amo_nbi!($name: $t, fetch_xor (value: $t), Op::Xor(value.bits()));
    )*};
}

extended! {
    float: f32, double: f64, int: c_int, long: c_long, longlong: c_longlong, uint: c_uint,
    ulong: c_ulong, ulonglong: c_ulonglong, int32: i32, int64: i64, uint32: u32, uint64: u64,
    size: usize, ptrdiff: isize,
}
standard! {
    int: c_int, long: c_long, longlong: c_longlong, uint: c_uint, ulong: c_ulong,
    ulonglong: c_ulonglong, int32: i32, int64: i64, uint32: u32, uint64: u64, size: usize,
    ptrdiff: isize,
}
bitwise! {
    uint: c_uint, ulong: c_ulong, ulonglong: c_ulonglong, int32: i32, int64: i64, uint32: u32,
    uint64: u64,
}

/// The names before OpenSHMEM 1.4 (`shmem_int_fadd`, ...), which many programs still use.
macro_rules! deprecated {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        paste::paste! {
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _fadd>](dest: *mut $t, value: $t, pe: c_int) -> $t {
                [<shmem_ $name _atomic_fetch_add>](dest, value, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _finc>](dest: *mut $t, pe: c_int) -> $t {
                [<shmem_ $name _atomic_fetch_inc>](dest, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _add>](dest: *mut $t, value: $t, pe: c_int) {
                [<shmem_ $name _atomic_add>](dest, value, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _inc>](dest: *mut $t, pe: c_int) {
                [<shmem_ $name _atomic_inc>](dest, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _cswap>](dest: *mut $t, cond: $t, value: $t, pe: c_int) -> $t {
                [<shmem_ $name _atomic_compare_swap>](dest, cond, value, pe)
            }
        }
    )*};
}
deprecated!(int: c_int, long: c_long, longlong: c_longlong);

/// The old names of swap, fetch and set, which OpenSHMEM 1.3 gave `float` and `double`
/// too (1.5 still lists them as deprecated).
macro_rules! deprecated_extended {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        paste::paste! {
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _swap>](dest: *mut $t, value: $t, pe: c_int) -> $t {
                [<shmem_ $name _atomic_swap>](dest, value, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _fetch>](src: *const $t, pe: c_int) -> $t {
                [<shmem_ $name _atomic_fetch>](src.cast_mut(), pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _set>](dest: *mut $t, value: $t, pe: c_int) {
                [<shmem_ $name _atomic_set>](dest, value, pe)
            }
        }
    )*};
}
deprecated_extended!(int: c_int, long: c_long, longlong: c_longlong, float: f32, double: f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_operations_keep_their_width() {
        assert_eq!((-1i32).bits(), 0xffff_ffff);
        assert_eq!(i32::of_bits(0xffff_fffe), -2);
        assert_eq!(Amo::bits(1.5f32), 1.5f32.to_bits() as u64);
        assert_eq!(f64::of_bits(Amo::bits(2.5f64)), 2.5);
        let m32 = 0xffff_ffff;
        assert_eq!(
            Op::Add(1).next(m32, m32),
            0,
            "a 32-bit add wraps in its half"
        );
        assert_eq!(Op::CompareSwap { cond: 3, value: 9 }.next(3, m32), 9);
        assert_eq!(Op::CompareSwap { cond: 3, value: 9 }.next(4, m32), 4);
        assert_eq!(Op::Swap(7).next(4, m32), 7);
    }
}
