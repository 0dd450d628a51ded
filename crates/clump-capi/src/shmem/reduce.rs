//! Reductions: `shmem_TYPE_OP_reduce` on teams and the older `shmem_TYPE_OP_to_all` on
//! active sets, element-wise over a binomial tree of the members. Integer sums and
//! products wrap, as in C's unsigned arithmetic, rather than trap.

use super::collectives::on_team;
use super::extended::{ComplexD, ComplexF, LongDouble};
use super::runtime::{byte_len, dst_slice, gas_err, src_slice, Res, State};
use bytemuck::Pod;
use clump_gas::{Gas, Group, ReduceOp};
use std::os::raw::{
    c_char, c_int, c_long, c_longlong, c_short, c_uchar, c_uint, c_ulong, c_ulonglong, c_ushort,
};

/// How a reduction combines a member's elements: an operator of clump-coll's, or (for C's
/// `long double`) C's own arithmetic.
pub trait Reducer<T>: Copy {
    /// Reduces every member's `data` over the global address space's messages.
    fn run(self, gas: &Gas, g: &Group, data: &mut [T]) -> clump_gas::Result<()>;
    /// `higher[i] = lower[i] op higher[i]` here (for [`State::reduce_direct`]).
    fn combine(self, lower: &[T], higher: &mut [T]) -> Res<()>;
}

impl<T: clump_gas::Reducible> Reducer<T> for ReduceOp {
    fn run(self, gas: &Gas, g: &Group, data: &mut [T]) -> clump_gas::Result<()> {
        gas.group_reduce(g, data, self)
    }

    fn combine(self, lower: &[T], higher: &mut [T]) -> Res<()> {
        if clump_gas::reduce_slice(self, lower, higher) {
            Ok(())
        } else {
            Err(format!("{self:?} does not apply to {:?}", T::ELEM))
        }
    }
}

impl<T: Pod> Reducer<T> for fn(T, T) -> T {
    fn run(self, gas: &Gas, g: &Group, data: &mut [T]) -> clump_gas::Result<()> {
        gas.group_reduce_with(g, data, self)
    }

    fn combine(self, lower: &[T], higher: &mut [T]) -> Res<()> {
        for (l, h) in lower.iter().zip(higher) {
            *h = self(*l, *h);
        }
        Ok(())
    }
}

impl State {
    /// Combines every member's `n` elements at `src` with `op` into every member's `dest`:
    /// straight between the heaps when the members share this host and the data is large.
    pub fn reduce<T: Pod>(
        &self,
        g: &Group,
        dest: *mut T,
        src: *const T,
        n: usize,
        op: impl Reducer<T>,
    ) -> Res<()> {
        let bytes = byte_len(n, size_of::<T>())?;
        let bufs = [(dest.cast_const().cast(), bytes), (src.cast(), bytes)];
        if self.direct(g, (bytes, Self::REDUCE_FROM), &bufs) {
            return self.reduce_direct(g, dest, src, n, op);
        }
        let mut data = vec![T::zeroed(); n];
        // SAFETY: `src` and `dest` are the C caller's buffers of `n` elements (shmem.h's
        // contract for a reduction), valid for the call and not touched by it meanwhile.
        let source = unsafe { src_slice(src.cast(), bytes, "source")? };
        bytemuck::cast_slice_mut(&mut data).copy_from_slice(source);
        op.run(&self.gas.borrow(), g, &mut data).map_err(gas_err)?;
        // SAFETY: as for `src` above.
        let dest = unsafe { dst_slice(dest.cast(), bytes, "dest")? };
        dest.copy_from_slice(bytemuck::cast_slice(&data));
        Ok(())
    }
}

/// The operator of OpenSHMEM's reduction `$op` on elements of `$t`: clump-coll's for every
/// type but `long double`, whose arithmetic is C's (`extended::longdouble`).
macro_rules! operator {
    (LongDouble, $op:ident) => {
        $crate::shmem::extended::longdouble::$op as fn([u8; 16], [u8; 16]) -> [u8; 16]
    };
    ($t:ty, and) => {
        ::clump_gas::ReduceOp::Band
    };
    ($t:ty, or) => {
        ::clump_gas::ReduceOp::Bor
    };
    ($t:ty, xor) => {
        ::clump_gas::ReduceOp::Bxor
    };
    ($t:ty, max) => {
        ::clump_gas::ReduceOp::Max
    };
    ($t:ty, min) => {
        ::clump_gas::ReduceOp::Min
    };
    ($t:ty, sum) => {
        ::clump_gas::ReduceOp::Sum
    };
    ($t:ty, prod) => {
        ::clump_gas::ReduceOp::Prod
    };
}
pub(crate) use operator;

/// `shmem_{name}_{op}_reduce` for each type and operation.
macro_rules! team_reduce {
    ($types:tt; $($op:ident),*) => {
        $( team_reduce!(@op $op, $types); )*
    };
    (@op $op:ident, [$($name:ident: $t:tt),* $(,)?]) => {
        paste::paste! {$(
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _ $op _reduce>](team: usize, dest: *mut $t, src: *const $t, nreduce: usize) -> c_int {
                on_team(stringify!([<shmem_ $name _ $op _reduce>]), team, |s, g| s.reduce(g, dest, src, nreduce, operator!($t, $op)))
            }
        )*}
    };
}

team_reduce!([uchar: c_uchar, ushort: c_ushort, uint: c_uint, ulong: c_ulong,
    ulonglong: c_ulonglong, int8: i8, int16: i16, int32: i32, int64: i64, uint8: u8,
    uint16: u16, uint32: u32, uint64: u64, size: usize]; and, or, xor);
team_reduce!([char: c_char, schar: i8, short: c_short, int: c_int, long: c_long,
    longlong: c_longlong, ptrdiff: isize, uchar: c_uchar, ushort: c_ushort, uint: c_uint,
    ulong: c_ulong, ulonglong: c_ulonglong, int8: i8, int16: i16, int32: i32, int64: i64,
    uint8: u8, uint16: u16, uint32: u32, uint64: u64, size: usize, float: f32, double: f64];
    max, min, sum, prod);
team_reduce!([longdouble: LongDouble]; max, min, sum, prod);
team_reduce!([complexd: ComplexD, complexf: ComplexF]; sum, prod);
