//! The collectives of OpenSHMEM before teams, on an active set: `PE_size` PEs from
//! `PE_start` every `2^logPE_stride`. The pSync and pWrk arrays they pass are checked but
//! not needed: the messages of each active set are kept apart by the set's own key.

use super::collectives::Bufs;
use super::extended::{ComplexD, ComplexF, LongDouble};
use super::reduce::operator;
use super::runtime::{gas_err, run, strides, Res, State};
use super::team_set::mix;
use clump_gas::Group;
use std::ffi::c_void;
use std::os::raw::{c_int, c_long, c_longlong, c_short};
use std::rc::Rc;

impl State {
    /// The group of an active set this PE is in, made on first use.
    fn active_set(
        &self,
        start: c_int,
        log_stride: c_int,
        size: c_int,
        p_sync: *const c_long,
    ) -> Res<Rc<Group>> {
        if p_sync.is_null() {
            return Err("pSync is NULL".into());
        }
        let bad = || {
            format!("active set (start {start}, log stride {log_stride}, size {size}) does not fit the job of {} PEs", self.npes())
        };
        if start < 0 || !(0..31).contains(&log_stride) || size < 1 {
            return Err(bad());
        }
        let stride = 1i64 << log_stride;
        let last = start as i64 + stride * (size as i64 - 1);
        if last >= self.npes() as i64 {
            return Err(bad());
        }
        let key = mix(&[3, start as u64, log_stride as u64, size as u64]);
        if let Some(g) = self.active_sets.borrow().get(&key) {
            return Ok(g.clone());
        }
        let members: Vec<u32> = (0..size as i64)
            .map(|i| (start as i64 + i * stride) as u32)
            .collect();
        if !members.contains(&self.me()) {
            return Err(format!(
                "PE {} is not in the active set it calls a collective on",
                self.me()
            ));
        }
        let g = Rc::new(self.gas.borrow().group(members, key).map_err(gas_err)?);
        self.active_sets.borrow_mut().insert(key, g.clone());
        Ok(g)
    }
}

/// A collective on an active set.
fn on_set(
    what: &str,
    set: (c_int, c_int, c_int, *const c_long),
    body: impl FnOnce(&State, &Group) -> Res<()>,
) {
    run(what, |s| {
        let g = s.active_set(set.0, set.1, set.2, set.3)?;
        body(s, &g)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_barrier(start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
    on_set(
        "shmem_barrier",
        (start, log_stride, size, p_sync),
        |s, g| {
            s.quiet()?;
            s.gas.borrow().group_barrier(g).map_err(gas_err)
        },
    )
}

/// `shmem_sync` on an active set (deprecated in 1.5; `shmem.h` maps the four-argument
/// `shmem_sync` here): a barrier that does not complete this PE's puts.
#[pshmem::twin]
pub extern "C" fn shmem_sync_deprecated(
    start: c_int,
    log_stride: c_int,
    size: c_int,
    p_sync: *mut c_long,
) {
    on_set("shmem_sync", (start, log_stride, size, p_sync), |s, g| {
        s.gas.borrow().group_barrier(g).map_err(gas_err)
    })
}

macro_rules! sized_sets {
    ($($bits:literal),*) => {
        paste::paste! {$(
            #[pshmem::twin]
            #[allow(clippy::too_many_arguments)] // OpenSHMEM's signature
            pub extern "C" fn [<shmem_broadcast $bits>](dest: *mut c_void, src: *const c_void, nelems: usize, root: c_int, start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
                let b = Bufs { dest, src, nelems, size: $bits / 8 };
                on_set(stringify!([<shmem_broadcast $bits>]), (start, log_stride, size, p_sync), |s, g| s.broadcast(g, b, root, true))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_collect $bits>](dest: *mut c_void, src: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
                let b = Bufs { dest, src, nelems, size: $bits / 8 };
                on_set(stringify!([<shmem_collect $bits>]), (start, log_stride, size, p_sync), |s, g| s.collect(g, b, false))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_fcollect $bits>](dest: *mut c_void, src: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
                let b = Bufs { dest, src, nelems, size: $bits / 8 };
                on_set(stringify!([<shmem_fcollect $bits>]), (start, log_stride, size, p_sync), |s, g| s.collect(g, b, true))
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_alltoall $bits>](dest: *mut c_void, src: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
                let b = Bufs { dest, src, nelems, size: $bits / 8 };
                on_set(stringify!([<shmem_alltoall $bits>]), (start, log_stride, size, p_sync), |s, g| s.alltoall(g, b, 1, 1))
            }
            #[pshmem::twin]
            #[allow(clippy::too_many_arguments)] // OpenSHMEM's signature
            pub extern "C" fn [<shmem_alltoalls $bits>](dest: *mut c_void, src: *const c_void, dst: isize, sst: isize, nelems: usize, start: c_int, log_stride: c_int, size: c_int, p_sync: *mut c_long) {
                let b = Bufs { dest, src, nelems, size: $bits / 8 };
                on_set(stringify!([<shmem_alltoalls $bits>]), (start, log_stride, size, p_sync), |s, g| {
                    let (dst, sst) = strides(dst, sst)?;
                    s.alltoall(g, b, dst, sst)
                })
            }
        )*}
    };
}
sized_sets!(32, 64);

/// `shmem_{name}_{op}_to_all` for each type and operation.
macro_rules! to_all {
    ($types:tt; $($op:ident),*) => {
        $( to_all!(@op $op, $types); )*
    };
    (@op $op:ident, [$($name:ident: $t:tt),* $(,)?]) => {
        paste::paste! {$(
            #[pshmem::twin]
            #[allow(clippy::too_many_arguments)] // OpenSHMEM's signature
            pub extern "C" fn [<shmem_ $name _ $op _to_all>](dest: *mut $t, src: *const $t, nreduce: c_int, start: c_int, log_stride: c_int, size: c_int, _p_wrk: *mut $t, p_sync: *mut c_long) {
                on_set(stringify!([<shmem_ $name _ $op _to_all>]), (start, log_stride, size, p_sync), |s, g| {
                    let n = usize::try_from(nreduce).map_err(|_| format!("nreduce {nreduce} is negative"))?;
                    s.reduce(g, dest, src, n, operator!($t, $op))
                })
            }
        )*}
    };
}
to_all!([short: c_short, int: c_int, long: c_long, longlong: c_longlong]; and, or, xor);
to_all!([short: c_short, int: c_int, long: c_long, longlong: c_longlong, float: f32,
    double: f64, longdouble: LongDouble]; max, min, sum, prod);
to_all!([complexd: ComplexD, complexf: ComplexF]; sum, prod);
