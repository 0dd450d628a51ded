//! Remote memory access: put and get for every standard type, by size and by bytes, their
//! non-blocking and strided forms, single elements (`p`/`g`), each also on a context.
//! A put returns once the source may be reused; `shmem_quiet` completes it at the target.
//! A get returns with the data, so its non-blocking form is the blocking one.

use super::runtime::{byte_len, dst_slice, run, src_slice};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_long};

pub fn put(
    what: &str,
    ctx: Option<usize>,
    dest: *mut c_void,
    src: *const c_void,
    n: usize,
    size: usize,
    pe: c_int,
) {
    run(what, |s| {
        s.check_ctx(ctx)?;
        let pe = s.pe(pe)?;
        s.put(dest, src_slice(src, byte_len(n, size)?, "source")?, pe)
    })
}

pub fn get(
    what: &str,
    ctx: Option<usize>,
    dest: *mut c_void,
    src: *const c_void,
    n: usize,
    size: usize,
    pe: c_int,
) {
    run(what, |s| {
        s.check_ctx(ctx)?;
        let pe = s.pe(pe)?;
        s.get(dst_slice(dest, byte_len(n, size)?, "dest")?, src, pe)
    })
}

/// Element strides from C, which must be positive.
fn strides(dst: isize, sst: isize) -> Result<(usize, usize), String> {
    match (usize::try_from(dst), usize::try_from(sst)) {
        (Ok(d), Ok(s)) if d > 0 && s > 0 => Ok((d, s)),
        _ => Err(format!("strides {dst} and {sst} must be positive")),
    }
}

#[allow(clippy::too_many_arguments)] // the C call's own arguments, and what it is
pub fn iput(
    what: &str,
    ctx: Option<usize>,
    dest: *mut c_void,
    src: *const c_void,
    dst: isize,
    sst: isize,
    n: usize,
    size: usize,
    pe: c_int,
) {
    run(what, |s| {
        s.check_ctx(ctx)?;
        let pe = s.pe(pe)?;
        let (dst, sst) = strides(dst, sst)?;
        for i in 0..n {
            let from = src.wrapping_byte_add(byte_len(i * sst, size)?);
            let to = dest.wrapping_byte_add(byte_len(i * dst, size)?);
            s.put(to, src_slice(from, size, "source")?, pe)?;
        }
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)] // the C call's own arguments, and what it is
pub fn iget(
    what: &str,
    ctx: Option<usize>,
    dest: *mut c_void,
    src: *const c_void,
    dst: isize,
    sst: isize,
    n: usize,
    size: usize,
    pe: c_int,
) {
    run(what, |s| {
        s.check_ctx(ctx)?;
        let pe = s.pe(pe)?;
        let (dst, sst) = strides(dst, sst)?;
        for i in 0..n {
            let from = src.wrapping_byte_add(byte_len(i * sst, size)?);
            let to = dest.wrapping_byte_add(byte_len(i * dst, size)?);
            s.get(dst_slice(to, size, "dest")?, from, pe)?;
        }
        Ok(())
    })
}

/// put, get, put_nbi, get_nbi (each also on a context) for `shmem_{pre}_OP{suf}`
/// elements of `size` bytes.
macro_rules! contiguous {
    ([$($pre:tt)?] [$($suf:tt)?] $size:expr) => {
        paste::paste! {
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? put $($suf)?>](dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                put(stringify!([<shmem_ $($pre _)? put $($suf)?>]), None, dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? put $($suf)?>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                put(stringify!([<shmem_ctx_ $($pre _)? put $($suf)?>]), Some(ctx), dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? put $($suf)? _nbi>](dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                put(stringify!([<shmem_ $($pre _)? put $($suf)? _nbi>]), None, dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? put $($suf)? _nbi>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                put(stringify!([<shmem_ctx_ $($pre _)? put $($suf)? _nbi>]), Some(ctx), dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? get $($suf)?>](dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                get(stringify!([<shmem_ $($pre _)? get $($suf)?>]), None, dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? get $($suf)?>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                get(stringify!([<shmem_ctx_ $($pre _)? get $($suf)?>]), Some(ctx), dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? get $($suf)? _nbi>](dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                get(stringify!([<shmem_ $($pre _)? get $($suf)? _nbi>]), None, dest, src, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? get $($suf)? _nbi>](ctx: usize, dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
                get(stringify!([<shmem_ctx_ $($pre _)? get $($suf)? _nbi>]), Some(ctx), dest, src, n, $size, pe)
            }
        }
    };
}

/// iput and iget (each also on a context) for `shmem_{pre}_iOP{suf}`.
macro_rules! strided {
    ([$($pre:tt)?] [$($suf:tt)?] $size:expr) => {
        paste::paste! {
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? iput $($suf)?>](dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, n: usize, pe: c_int) {
                iput(stringify!([<shmem_ $($pre _)? iput $($suf)?>]), None, dest, src, dst, sst, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? iput $($suf)?>](ctx: usize, dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, n: usize, pe: c_int) {
                iput(stringify!([<shmem_ctx_ $($pre _)? iput $($suf)?>]), Some(ctx), dest, src, dst, sst, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ $($pre _)? iget $($suf)?>](dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, n: usize, pe: c_int) {
                iget(stringify!([<shmem_ $($pre _)? iget $($suf)?>]), None, dest, src, dst, sst, n, $size, pe)
            }
            #[no_mangle]
            pub extern "C" fn [<shmem_ctx_ $($pre _)? iget $($suf)?>](ctx: usize, dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, n: usize, pe: c_int) {
                iget(stringify!([<shmem_ctx_ $($pre _)? iget $($suf)?>]), Some(ctx), dest, src, dst, sst, n, $size, pe)
            }
        }
    };
}

/// `p` and `g` (each also on a context) for `shmem_{name}_p` of C type `$t`.
macro_rules! single {
    ($($name:ident: $t:ty),* $(,)?) => {
        paste::paste! {
            $(
                contiguous!([$name] [] size_of::<$t>());
                strided!([$name] [] size_of::<$t>());
                #[no_mangle]
                pub extern "C" fn [<shmem_ $name _p>](dest: *mut $t, value: $t, pe: c_int) {
                    put(stringify!([<shmem_ $name _p>]), None, dest.cast(), (&value as *const $t).cast(), 1, size_of::<$t>(), pe)
                }
                #[no_mangle]
                pub extern "C" fn [<shmem_ctx_ $name _p>](ctx: usize, dest: *mut $t, value: $t, pe: c_int) {
                    put(stringify!([<shmem_ctx_ $name _p>]), Some(ctx), dest.cast(), (&value as *const $t).cast(), 1, size_of::<$t>(), pe)
                }
                #[no_mangle]
                pub extern "C" fn [<shmem_ $name _g>](src: *const $t, pe: c_int) -> $t {
                    let mut v = <$t>::default();
                    get(stringify!([<shmem_ $name _g>]), None, (&mut v as *mut $t).cast(), src.cast(), 1, size_of::<$t>(), pe);
                    v
                }
                #[no_mangle]
                pub extern "C" fn [<shmem_ctx_ $name _g>](ctx: usize, src: *const $t, pe: c_int) -> $t {
                    let mut v = <$t>::default();
                    get(stringify!([<shmem_ctx_ $name _g>]), Some(ctx), (&mut v as *mut $t).cast(), src.cast(), 1, size_of::<$t>(), pe);
                    v
                }
            )*
        }
    };
}

/// Invokes `$m!` with OpenSHMEM's standard RMA types (name: C type), long double aside.
macro_rules! standard_types {
    ($m:ident) => {
        $m! {
            float: f32, double: f64, char: c_char, schar: i8, short: i16, int: c_int,
            long: c_long, longlong: i64, uchar: u8, ushort: u16, uint: u32, ulong: u64,
            ulonglong: u64, int8: i8, int16: i16, int32: i32, int64: i64, uint8: u8,
            uint16: u16, uint32: u32, uint64: u64, size: usize, ptrdiff: isize,
        }
    };
}
pub(crate) use standard_types;

standard_types!(single);

// long double moves as its 16 bytes; Rust has no type to pass it by value, so it has no p/g.
contiguous!([longdouble] [] 16);
strided!([longdouble] [] 16);
contiguous!([] [mem] 1);
contiguous!([] [8] 1);
contiguous!([] [16] 2);
contiguous!([] [32] 4);
contiguous!([] [64] 8);
contiguous!([] [128] 16);
strided!([] [8] 1);
strided!([] [16] 2);
strided!([] [32] 4);
strided!([] [64] 8);
strided!([] [128] 16);
