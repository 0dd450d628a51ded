//! Put with signal: the data, then (once it has landed) an update of a 64-bit signal
//! word at the target, which `shmem_signal_wait_until` watches.

use super::abi::*;
use super::runtime::{byte_len, run};
use super::symmetric::Dir;
use super::sync::{watch, Need, Target, Watch};
use clump_gas::Rmw;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_long};

#[allow(clippy::too_many_arguments)] // the C call's own arguments, and what it is
pub fn put_signal(
    what: &str,
    ctx: Option<usize>,
    dest: *mut c_void,
    src: *const c_void,
    n: usize,
    size: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: c_int,
    pe: c_int,
) {
    run(what, |s| {
        let pe = s.target(ctx, pe)?;
        let op = match sig_op {
            SIGNAL_SET => Rmw::Swap(signal),
            SIGNAL_ADD => Rmw::Add(signal),
            _ => {
                return Err(format!(
                    "{sig_op} is not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD"
                ))
            }
        };
        s.access(Dir::Put, dest, src, byte_len(n, size)?, pe)?;
        // The signal must not overtake the data.
        s.quiet()?;
        s.rmw(sig_addr.cast_const().cast(), pe, op)?;
        Ok(())
    })
}

macro_rules! signalled {
    ([$($pre:tt)?] [$($suf:tt)?] $size:expr) => {
        paste::paste! {
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $($pre _)? put $($suf)? _signal>](dest: *mut c_void, src: *const c_void, n: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int) {
                put_signal(stringify!([<shmem_ $($pre _)? put $($suf)? _signal>]), None, dest, src, n, $size, sig_addr, signal, sig_op, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? put $($suf)? _signal>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int) {
                put_signal(stringify!([<shmem_ctx_ $($pre _)? put $($suf)? _signal>]), Some(ctx), dest, src, n, $size, sig_addr, signal, sig_op, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $($pre _)? put $($suf)? _signal_nbi>](dest: *mut c_void, src: *const c_void, n: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int) {
                put_signal(stringify!([<shmem_ $($pre _)? put $($suf)? _signal_nbi>]), None, dest, src, n, $size, sig_addr, signal, sig_op, pe)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? put $($suf)? _signal_nbi>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int) {
                put_signal(stringify!([<shmem_ctx_ $($pre _)? put $($suf)? _signal_nbi>]), Some(ctx), dest, src, n, $size, sig_addr, signal, sig_op, pe)
            }
        }
    };
}

macro_rules! signalled_types {
    ($($name:ident: $t:ty),* $(,)?) => {$( signalled!([$name] [] size_of::<$t>()); )*};
}
super::rma::standard_types!(signalled_types);
signalled!([longdouble] [] 16);
signalled!([] [mem] 1);
signalled!([] [8] 1);
signalled!([] [16] 2);
signalled!([] [32] 4);
signalled!([] [64] 8);
signalled!([] [128] 16);

#[pshmem::twin]
pub extern "C" fn shmem_signal_fetch(sig_addr: *const u64) -> u64 {
    run("shmem_signal_fetch", |s| {
        s.rmw(sig_addr.cast(), s.me(), Rmw::Load)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_signal_wait_until(sig_addr: *mut u64, cmp: c_int, value: u64) -> u64 {
    watch(
        "shmem_signal_wait_until",
        Watch::new(sig_addr, 1, std::ptr::null(), cmp, Target::One(value)),
        Need::All,
        true,
    );
    shmem_signal_fetch(sig_addr)
}
