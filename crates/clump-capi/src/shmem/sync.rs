//! Ordering and point-to-point synchronisation: quiet, fence, the world barrier, and the
//! wait/test family on this PE's symmetric variables, which other PEs update while this
//! one polls (running the handlers that carry their updates).

use super::abi::*;
use super::private;
use super::runtime::{gas_err, run, Res, State};
use std::ffi::c_void;
use std::os::raw::{c_int, c_long, c_longlong, c_short, c_uint, c_ulong, c_ulonglong, c_ushort};

impl State {
    /// Polls until `done` holds. What it watches is this PE's memory, which a same-host
    /// PE's put or atomic changes without a message: it looks a while, then sleeps a short
    /// time at a go, woken sooner by a message (an access from another host, or to a
    /// static variable).
    pub fn wait_for(&self, mut done: impl FnMut() -> Res<bool>) -> Res<()> {
        let mut failed = None;
        self.gas
            .borrow()
            .wait_for_store(|| {
                done().or_else(|why| {
                    failed = Some(why);
                    Ok(true)
                })
            })
            .map_err(gas_err)?;
        failed.map_or(Ok(()), Err)
    }
}

/// Whether `v cmp target` holds (`cmp` one of SHMEM_CMP_*).
pub fn compare(v: i128, cmp: c_int, target: i128) -> Res<bool> {
    Ok(match cmp {
        CMP_EQ => v == target,
        CMP_NE => v != target,
        CMP_GT => v > target,
        CMP_GE => v >= target,
        CMP_LT => v < target,
        CMP_LE => v <= target,
        _ => return Err(format!("{cmp} is not a SHMEM_CMP_ constant")),
    })
}

/// A type the wait and test calls compare, widened without loss.
pub trait Waitable: Copy {
    fn wide(self) -> i128;
}
macro_rules! waitable {
    ($($t:ty),*) => {$(
        impl Waitable for $t {
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
waitable!(i16, u16, i32, u32, i64, u64, isize, usize);

/// The variables a wait or test call watches, and what each is compared with.
pub struct Watch<T> {
    ivars: *const T,
    n: usize,
    status: *const c_int,
    cmp: c_int,
    target: Target<T>,
}

pub enum Target<T> {
    One(T),
    Each(*const T),
}

impl<T: Waitable> Watch<T> {
    pub fn new(
        ivars: *const T,
        n: usize,
        status: *const c_int,
        cmp: c_int,
        target: Target<T>,
    ) -> Self {
        Watch {
            ivars,
            n,
            status,
            cmp,
            target,
        }
    }

    /// Checks the pointers once: the variables symmetric, the comparison known.
    fn check(&self, s: &State) -> Res<()> {
        compare(0, self.cmp, 0)?;
        if self.n == 0 {
            return Ok(());
        }
        s.locate(self.ivars.cast::<c_void>(), self.n * size_of::<T>())?;
        if let Target::Each(values) = self.target {
            if values.is_null() {
                return Err("cmp_values is NULL".into());
            }
        }
        Ok(())
    }

    /// Whether variable `i` takes part (its status is 0, or there is no status array).
    fn watched(&self, i: usize) -> bool {
        // SAFETY: a non-NULL status array has `n` entries (shmem.h); i < n.
        self.status.is_null() || unsafe { self.status.add(i).read() } == 0
    }

    fn holds(&self, i: usize) -> Res<bool> {
        // SAFETY: `ivars` holds `n` variables (checked symmetric in `check`); i < n. The read
        // is volatile: other PEs change the variable behind the compiler's back.
        let v = unsafe { self.ivars.add(i).read_volatile() };
        let target = match self.target {
            Target::One(t) => t,
            // SAFETY: a vector form's `cmp_values` has `n` entries (checked non-NULL).
            Target::Each(values) => unsafe { values.add(i).read() },
        };
        compare(v.wide(), self.cmp, target.wide())
    }

    /// The watched variables, and those of them whose comparison holds now.
    fn scan(&self) -> Res<(usize, Vec<usize>)> {
        let mut watched = 0;
        let mut hits = Vec::new();
        for i in (0..self.n).filter(|&i| self.watched(i)) {
            watched += 1;
            if self.holds(i)? {
                hits.push(i);
            }
        }
        Ok((watched, hits))
    }
}

/// How many of the watched variables a call waits for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    All,
    Any,
    Some,
}

/// Waits (or with `block` false, looks once) until the variables meet `need`; returns the
/// variables whose comparison held and whether `need` was met.
pub fn watch<T: Waitable>(what: &str, w: Watch<T>, need: Need, block: bool) -> (Vec<usize>, bool) {
    run(what, |s| {
        w.check(s)?;
        let mut result = (Vec::new(), false);
        s.wait_for(|| {
            let (watched, hits) = w.scan()?;
            let met = match need {
                Need::All => hits.len() == watched,
                Need::Any | Need::Some => !hits.is_empty() || watched == 0,
            };
            result = (hits, met);
            Ok(met || !block)
        })?;
        if need == Need::Any {
            s.rotate_any(&mut result.0);
        }
        Ok(result)
    })
}

impl State {
    /// Puts first the hit an `_any` call returns: the first at or after where the last
    /// such call's choice ended, wrapping around, so every satisfied index has its turn.
    fn rotate_any(&self, hits: &mut [usize]) {
        let from = self.next_any.get();
        let k = hits.iter().position(|&i| i >= from).unwrap_or(0);
        hits.rotate_left(k);
        if let Some(&chosen) = hits.first() {
            self.next_any.set(chosen + 1);
        }
    }
}

/// Writes the indices a `_some` call found into the caller's array.
fn give_indices(indices: *mut usize, hits: &[usize]) -> usize {
    if !hits.is_empty() && indices.is_null() {
        super::runtime::fatal("shmem_wait_until_some/test_some", "indices is NULL");
    }
    for (k, &i) in hits.iter().enumerate() {
        // SAFETY: the caller's `indices` has room for `nelems` entries; hits.len() <= nelems.
        unsafe { indices.add(k).write(i) };
    }
    hits.len()
}

macro_rules! point_to_point {
    ($($name:ident: $t:ty),* $(,)?) => {
        paste::paste! {$(
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until>](ivar: *mut $t, cmp: c_int, value: $t) {
                watch(stringify!([<shmem_ $name _wait_until>]), Watch::new(ivar, 1, std::ptr::null(), cmp, Target::One(value)), Need::All, true);
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_all>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, value: $t) {
                watch(stringify!([<shmem_ $name _wait_until_all>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::All, true);
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_any>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, value: $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _wait_until_any>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::Any, true);
                hits.first().copied().unwrap_or(usize::MAX)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_some>](ivars: *mut $t, n: usize, indices: *mut usize, status: *const c_int, cmp: c_int, value: $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _wait_until_some>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::Some, true);
                give_indices(indices, &hits)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_all_vector>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, values: *const $t) {
                watch(stringify!([<shmem_ $name _wait_until_all_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::All, true);
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_any_vector>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, values: *const $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _wait_until_any_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::Any, true);
                hits.first().copied().unwrap_or(usize::MAX)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait_until_some_vector>](ivars: *mut $t, n: usize, indices: *mut usize, status: *const c_int, cmp: c_int, values: *const $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _wait_until_some_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::Some, true);
                give_indices(indices, &hits)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test>](ivar: *mut $t, cmp: c_int, value: $t) -> c_int {
                watch(stringify!([<shmem_ $name _test>]), Watch::new(ivar, 1, std::ptr::null(), cmp, Target::One(value)), Need::All, false).1 as c_int
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_all>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, value: $t) -> c_int {
                watch(stringify!([<shmem_ $name _test_all>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::All, false).1 as c_int
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_any>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, value: $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _test_any>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::Any, false);
                hits.first().copied().unwrap_or(usize::MAX)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_some>](ivars: *mut $t, n: usize, indices: *mut usize, status: *const c_int, cmp: c_int, value: $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _test_some>]), Watch::new(ivars, n, status, cmp, Target::One(value)), Need::Some, false);
                give_indices(indices, &hits)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_all_vector>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, values: *const $t) -> c_int {
                watch(stringify!([<shmem_ $name _test_all_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::All, false).1 as c_int
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_any_vector>](ivars: *mut $t, n: usize, status: *const c_int, cmp: c_int, values: *const $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _test_any_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::Any, false);
                hits.first().copied().unwrap_or(usize::MAX)
            }
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _test_some_vector>](ivars: *mut $t, n: usize, indices: *mut usize, status: *const c_int, cmp: c_int, values: *const $t) -> usize {
                let (hits, _) = watch(stringify!([<shmem_ $name _test_some_vector>]), Watch::new(ivars, n, status, cmp, Target::Each(values)), Need::Some, false);
                give_indices(indices, &hits)
            }
        )*}
    };
}

point_to_point! {
    short: c_short, ushort: c_ushort, int: c_int, long: c_long, longlong: c_longlong, uint: c_uint, ulong: c_ulong,
    ulonglong: c_ulonglong, int32: i32, int64: i64, uint32: u32, uint64: u64, size: usize,
    ptrdiff: isize,
}

/// `shmem_TYPE_wait`, from before OpenSHMEM 1.4: waits until the variable changes.
macro_rules! wait_changed {
    ($($name:ident: $t:ty),*) => {
        paste::paste! {$(
            #[pshmem::twin]
            pub extern "C" fn [<shmem_ $name _wait>](ivar: *mut $t, value: $t) {
                [<shmem_ $name _wait_until>](ivar, CMP_NE, value)
            }
        )*}
    };
}
wait_changed!(short: c_short, int: c_int, long: c_long, longlong: c_longlong);

/// The untyped `shmem_wait_until` of a `long`, from before OpenSHMEM 1.4 (still specified;
/// C11 programs reach it as `(shmem_wait_until)(...)`, since shmem.h's generic name of
/// the same spelling selects by type).
#[pshmem::twin]
pub extern "C" fn shmem_wait_until(ivar: *mut c_long, cmp: c_int, value: c_long) {
    shmem_long_wait_until(ivar, cmp, value)
}

/// The untyped `shmem_wait` of a `long` (as [`shmem_wait_until`]).
#[pshmem::twin]
pub extern "C" fn shmem_wait(ivar: *mut c_long, value: c_long) {
    shmem_long_wait(ivar, value)
}

#[pshmem::twin]
pub extern "C" fn shmem_quiet() {
    run("shmem_quiet", |s| s.quiet())
}

#[pshmem::twin]
pub extern "C" fn shmem_ctx_quiet(ctx: usize) {
    if private::quiet(ctx) {
        return;
    }
    run("shmem_ctx_quiet", |s| {
        if ctx == CTX_INVALID {
            return Ok(()); // the specification's no-op
        }
        s.check_ctx(Some(ctx))?;
        s.quiet()
    })
}

// A fence orders this PE's puts and atomics to each PE; it need not complete them. Each
// access to a PE takes one path, in order: a same-host heap is written directly (complete
// on return), another PE's heap is reached by Active Messages on the one endpoint, which
// run the requests from one sender in the order sent (the network protocol delivers in
// sequence), and global and static variables by remote calls that return only when done.
// So a fence waits for nothing (clump-gas's `fence`).
#[pshmem::twin]
pub extern "C" fn shmem_fence() {
    run("shmem_fence", |s| s.fence())
}

#[pshmem::twin]
pub extern "C" fn shmem_ctx_fence(ctx: usize) {
    if private::quiet(ctx) {
        return;
    }
    run("shmem_ctx_fence", |s| {
        if ctx == CTX_INVALID {
            return Ok(()); // the specification's no-op
        }
        s.check_ctx(Some(ctx))?;
        s.fence()
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_barrier_all() {
    run("shmem_barrier_all", |s| s.barrier_all())
}

#[pshmem::twin]
pub extern "C" fn shmem_sync_all() {
    run("shmem_sync_all", |s| {
        s.gas.borrow().barrier().map_err(gas_err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        assert!(compare(3, CMP_GT, 2).unwrap());
        assert!(!compare(2, CMP_GT, 2).unwrap());
        assert!(compare(2, CMP_GE, 2).unwrap());
        assert!(compare(-1, CMP_LT, 0).unwrap());
        assert!(compare(0, CMP_LE, 0).unwrap());
        assert!(compare(1, CMP_NE, 0).unwrap());
        assert!(
            compare(u64::MAX.wide(), CMP_GT, 0).unwrap(),
            "unsigned stays unsigned"
        );
        assert!(compare(0, 99, 0).is_err());
    }
}
