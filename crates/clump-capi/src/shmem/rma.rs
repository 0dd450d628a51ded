//! Remote memory access: put and get for every standard type, by size and by bytes, their
//! non-blocking and strided forms, single elements (`p`/`g`), each also on a context.
//! A put returns once the source may be reused; `shmem_quiet` completes it at the target.

use super::abi::TEAM_WORLD;
use super::runtime::{byte_len, dst_slice, run, src_slice, strides, Res, State};
use super::symmetric::Dir;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int, c_long};

impl State {
    /// The world PE of an access from C on a live context, whose `pe` numbers the
    /// context's team (the calling thread's private context learns that this access went
    /// through the lock).
    pub fn target(&self, ctx: Option<usize>, pe: c_int) -> Res<u32> {
        let team = self.ctx_team(ctx)?;
        if let Some(c) = ctx {
            super::private::went_locked(c);
        }
        if team == TEAM_WORLD {
            return self.pe(pe);
        }
        self.team_pe(team, pe)
    }

    /// Moves `len` bytes between this PE's `src`/`dest` and the object on `pe`.
    pub fn access(
        &self,
        dir: Dir,
        dest: *mut c_void,
        src: *const c_void,
        len: usize,
        pe: u32,
    ) -> Res<()> {
        // The local side (`src` of a put, `dest` of a get) is the C caller's buffer of `len`
        // bytes (shmem.h's contract), valid for the call and not touched meanwhile.
        match dir {
            Dir::Put => {
                // SAFETY: `src` is the caller's source buffer, as above.
                let src = unsafe { src_slice(src, len, "source")? };
                self.put(dest, src, pe)
            }
            Dir::Get => {
                // SAFETY: `dest` is the caller's destination buffer, as above.
                let dest = unsafe { dst_slice(dest, len, "dest")? };
                self.get(dest, src, pe)
            }
        }
    }
}

/// `n` elements of `size` bytes.
#[allow(clippy::too_many_arguments)] // the C call's own arguments, and what it is
pub fn contiguous(
    what: &str,
    ctx: Option<usize>,
    dir: Dir,
    dest: *mut c_void,
    src: *const c_void,
    n: usize,
    size: usize,
    pe: c_int,
) {
    if let (Some(c), Some(len)) = (ctx, n.checked_mul(size)) {
        if super::private::access(c, dir, dest, src, len, pe) {
            return;
        }
    }
    run(what, |s| {
        let pe = s.target(ctx, pe)?;
        s.access(dir, dest, src, byte_len(n, size)?, pe)
    })
}

/// `n` elements of `size` bytes, every `dst`-th at `dest` and every `sst`-th at `src`.
#[allow(clippy::too_many_arguments)] // the C call's own arguments, and what it is
pub fn strided(
    what: &str,
    ctx: Option<usize>,
    dir: Dir,
    dest: *mut c_void,
    src: *const c_void,
    (dst, sst): (isize, isize),
    n: usize,
    size: usize,
    pe: c_int,
) {
    run(what, |s| {
        let pe = s.target(ctx, pe)?;
        let (dst, sst) = strides(dst, sst)?;
        for i in 0..n {
            let from = src.wrapping_byte_add(byte_len(i * sst, size)?);
            let to = dest.wrapping_byte_add(byte_len(i * dst, size)?);
            s.access(dir, to, from, size, pe)?;
        }
        Ok(())
    })
}

/// `name` and its context form `ctx_name`, moving elements of `size` bytes `dir`.
macro_rules! contiguous_pair {
    ($name:ident, $ctx_name:ident, $dir:ident, $size:expr) => {
        #[pshmem::twin]
        pub extern "C" fn $name(dest: *mut c_void, src: *const c_void, n: usize, pe: c_int) {
            contiguous(stringify!($name), None, Dir::$dir, dest, src, n, $size, pe)
        }
        #[pshmem::twin]
        pub extern "C" fn $ctx_name(
            ctx: usize,
            dest: *mut c_void,
            src: *const c_void,
            n: usize,
            pe: c_int,
        ) {
            contiguous(
                stringify!($ctx_name),
                Some(ctx),
                Dir::$dir,
                dest,
                src,
                n,
                $size,
                pe,
            )
        }
    };
}

/// Like `contiguous_pair`, for the strided forms.
macro_rules! strided_pair {
    ($name:ident, $ctx_name:ident, $dir:ident, $size:expr) => {
        #[pshmem::twin]
        pub extern "C" fn $name(
            dest: *mut c_void,
            src: *const c_void,
            dst: isize,
            sst: isize,
            n: usize,
            pe: c_int,
        ) {
            strided(
                stringify!($name),
                None,
                Dir::$dir,
                dest,
                src,
                (dst, sst),
                n,
                $size,
                pe,
            )
        }
        #[pshmem::twin]
        pub extern "C" fn $ctx_name(
            ctx: usize,
            dest: *mut c_void,
            src: *const c_void,
            dst: isize,
            sst: isize,
            n: usize,
            pe: c_int,
        ) {
            strided(
                stringify!($ctx_name),
                Some(ctx),
                Dir::$dir,
                dest,
                src,
                (dst, sst),
                n,
                $size,
                pe,
            )
        }
    };
}

/// put, get, put_nbi, get_nbi (each also on a context) for `shmem_{pre}_OP{suf}`
/// elements of `size` bytes. A put returns once its source may be reused and a get with
/// its data, so the non-blocking forms are the blocking ones.
macro_rules! contiguous {
    ([$($pre:tt)?] [$($suf:tt)?] $size:expr) => {
        paste::paste! {
            contiguous_pair!([<shmem_ $($pre _)? put $($suf)?>], [<shmem_ctx_ $($pre _)? put $($suf)?>], Put, $size);
            contiguous_pair!([<shmem_ $($pre _)? put $($suf)? _nbi>], [<shmem_ctx_ $($pre _)? put $($suf)? _nbi>], Put, $size);
            contiguous_pair!([<shmem_ $($pre _)? get $($suf)?>], [<shmem_ctx_ $($pre _)? get $($suf)?>], Get, $size);
            contiguous_pair!([<shmem_ $($pre _)? get $($suf)? _nbi>], [<shmem_ctx_ $($pre _)? get $($suf)? _nbi>], Get, $size);
        }
    };
}

/// iput and iget (each also on a context) for `shmem_{pre}_iOP{suf}`.
macro_rules! strided_forms {
    ([$($pre:tt)?] [$($suf:tt)?] $size:expr) => {
        paste::paste! {
            strided_pair!([<shmem_ $($pre _)? iput $($suf)?>], [<shmem_ctx_ $($pre _)? iput $($suf)?>], Put, $size);
            strided_pair!([<shmem_ $($pre _)? iget $($suf)?>], [<shmem_ctx_ $($pre _)? iget $($suf)?>], Get, $size);
        }
    };
}

/// `p` and `g` (each also on a context) for `shmem_{name}_p` of C type `$t`.
macro_rules! single {
    ($($name:ident: $t:ty),* $(,)?) => {
        paste::paste! {
            $(
                contiguous!([$name] [] size_of::<$t>());
                strided_forms!([$name] [] size_of::<$t>());
                #[pshmem::twin]
                pub extern "C" fn [<shmem_ $name _p>](dest: *mut $t, value: $t, pe: c_int) {
                    contiguous(stringify!([<shmem_ $name _p>]), None, Dir::Put, dest.cast(), (&value as *const $t).cast(), 1, size_of::<$t>(), pe)
                }
                #[pshmem::twin]
                pub extern "C" fn [<shmem_ctx_ $name _p>](ctx: usize, dest: *mut $t, value: $t, pe: c_int) {
                    contiguous(stringify!([<shmem_ctx_ $name _p>]), Some(ctx), Dir::Put, dest.cast(), (&value as *const $t).cast(), 1, size_of::<$t>(), pe)
                }
                #[pshmem::twin]
                pub extern "C" fn [<shmem_ $name _g>](src: *const $t, pe: c_int) -> $t {
                    let mut v = <$t>::default();
                    contiguous(stringify!([<shmem_ $name _g>]), None, Dir::Get, (&mut v as *mut $t).cast(), src.cast(), 1, size_of::<$t>(), pe);
                    v
                }
                #[pshmem::twin]
                pub extern "C" fn [<shmem_ctx_ $name _g>](ctx: usize, src: *const $t, pe: c_int) -> $t {
                    let mut v = <$t>::default();
                    contiguous(stringify!([<shmem_ctx_ $name _g>]), Some(ctx), Dir::Get, (&mut v as *mut $t).cast(), src.cast(), 1, size_of::<$t>(), pe);
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

// long double moves as its 16 bytes. Rust has no type to pass it by value, so its p and g
// are inline functions of shmem.h over put and get.
contiguous!([longdouble] [] 16);
strided_forms!([longdouble] [] 16);
contiguous!([] [mem] 1);
contiguous!([] [8] 1);
contiguous!([] [16] 2);
contiguous!([] [32] 4);
contiguous!([] [64] 8);
contiguous!([] [128] 16);
strided_forms!([] [8] 1);
strided_forms!([] [16] 2);
strided_forms!([] [32] 4);
strided_forms!([] [64] 8);
strided_forms!([] [128] 16);
