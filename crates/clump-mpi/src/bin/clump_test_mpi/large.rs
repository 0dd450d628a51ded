//! Allreduce of data larger than a shared-memory slot: counts around the slot's size and
//! spanning many parts, for a sum of doubles, a maximum of ints, an element of 12 bytes
//! (parts cut on whole elements) and a non-commutative user operation (in rank order), every
//! element checked; and (with `CLUMP_TEST_COUNT_MISMATCH=1`, for jobs on one host with the
//! shared-memory collectives, which check the count first) ranks that disagree on the count
//! all fail instead of waiting.

use super::{check, fail, ok};

use std::rc::Rc;

use clump_mpi::{self as mpi, Comm, Datatype, Op, Operator, Predef};

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks(8)
        .map(|c| f64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn bytes_of<T: Copy, const N: usize>(v: impl Iterator<Item = T>, to: fn(T) -> [u8; N]) -> Vec<u8> {
    v.flat_map(to).collect()
}

/// Element counts of 8 bytes around the slot's size, and some that take many parts.
fn counts() -> Vec<usize> {
    let cap = ok(mpi::Thresholds::from_env(), "thresholds").shm_coll / 8;
    vec![
        cap.saturating_sub(1),
        cap + 6,
        cap + 7,
        3 * cap + 1,
        100_003,
    ]
}

fn sum_of_doubles(comm: &Comm, count: usize) {
    let (r, n) = (comm.rank() as usize, comm.size() as usize);
    let d = Datatype::predefined(Predef::Double);
    let mine = bytes_of(
        (0..count).map(|i| ((i % 1000) * (r + 1)) as f64),
        f64::to_ne_bytes,
    );
    let mut out = vec![0u8; mine.len()];
    ok(
        mpi::allreduce(&mine, &mut out, count, &d, &Operator::Sum.into(), comm),
        "large sum",
    );
    for (i, v) in f64s(&out).into_iter().enumerate() {
        let want = ((i % 1000) * n * (n + 1) / 2) as f64;
        check!(v == want, "sum of {count}: element {i} is {v}, not {want}");
    }
}

fn max_of_ints(comm: &Comm, count: usize) {
    let (r, n) = (comm.rank(), comm.size());
    let int = Datatype::predefined(Predef::Int);
    let value = |rank: i32, i: usize| (i as i32 % 977) * ((rank + i as i32) % n + 1);
    let mine = bytes_of((0..count).map(|i| value(r, i)), i32::to_ne_bytes);
    let mut out = vec![0u8; mine.len()];
    ok(
        mpi::allreduce(&mine, &mut out, count, &int, &Operator::Max.into(), comm),
        "large max",
    );
    for (i, v) in i32s(&out).into_iter().enumerate() {
        let want = (0..n).map(|rank| value(rank, i)).max().expect("ranks");
        check!(v == want, "max of {count}: element {i} is {v}, not {want}");
    }
}

/// A sum over elements of three ints: 12 bytes, which a slot's size does not divide.
fn sum_of_triples(comm: &Comm, count: usize) {
    let (r, n) = (comm.rank(), comm.size());
    let int = Datatype::predefined(Predef::Int);
    let triple = ok(Datatype::contiguous(3, &int), "triple");
    let mine = bytes_of((0..3 * count).map(|k| k as i32 + r), i32::to_ne_bytes);
    let mut out = vec![0u8; mine.len()];
    ok(
        mpi::allreduce(&mine, &mut out, count, &triple, &Operator::Sum.into(), comm),
        "large triple sum",
    );
    for (k, v) in i32s(&out).into_iter().enumerate() {
        let want = k as i32 * n + n * (n - 1) / 2;
        check!(v == want, "triples of {count}: int {k} is {v}, not {want}");
    }
}

/// Affine maps `x -> m x + c` as pairs of ints, composed lower rank first: associative
/// but not commutative, so the result shows the order the ranks were combined in.
fn user_in_rank_order(comm: &Comm, count: usize) {
    let (r, n) = (comm.rank(), comm.size());
    let int = Datatype::predefined(Predef::Int);
    let map = ok(Datatype::contiguous(2, &int), "affine map");
    let compose = |a: *const u8, b: *mut u8, count: usize| {
        for i in 0..count {
            // SAFETY: `count` pairs of ints at each address (a contiguous type).
            unsafe {
                let (a, b) = ((a as *const i32).add(2 * i), (b as *mut i32).add(2 * i));
                let (m1, c1) = (a.read_unaligned(), a.add(1).read_unaligned());
                let (m2, c2) = (b.read_unaligned(), b.add(1).read_unaligned());
                b.write_unaligned(m1.wrapping_mul(m2));
                b.add(1)
                    .write_unaligned(m2.wrapping_mul(c1).wrapping_add(c2));
            }
        }
    };
    let op = Op::User {
        f: Rc::new(compose),
        commute: false,
    };
    let affine = |rank: i32, i: usize| [2 + (rank + i as i32) % 3, (rank + i as i32) % 5];
    let mine = bytes_of((0..count).flat_map(|i| affine(r, i)), i32::to_ne_bytes);
    let mut out = vec![0u8; mine.len()];
    ok(
        mpi::allreduce(&mine, &mut out, count, &map, &op, comm),
        "large user op",
    );
    for (i, got) in i32s(&out).chunks(2).enumerate() {
        let want = (1..n).fold(affine(0, i), |[m1, c1], rank| {
            let [m2, c2] = affine(rank, i);
            [m1.wrapping_mul(m2), m2.wrapping_mul(c1).wrapping_add(c2)]
        });
        check!(
            got == want,
            "user op of {count}: element {i} is {got:?}, not {want:?}"
        );
    }
}

/// Rank 0 passes one element more than the others: every rank gets a count error.
fn disagreeing_counts(comm: &Comm, count: usize) {
    let d = Datatype::predefined(Predef::Double);
    let count = count + (comm.rank() == 0) as usize;
    let mine = vec![0u8; count * 8];
    let mut out = vec![0u8; count * 8];
    let e = mpi::allreduce(&mine, &mut out, count, &d, &Operator::Sum.into(), comm);
    check!(
        e.as_ref().is_err_and(|e| e.class == mpi::ErrorClass::Count),
        "allreduce with counts that differ gave {e:?}"
    );
}

pub fn large_reductions(comm: &Comm) {
    for count in counts() {
        sum_of_doubles(comm, count);
        max_of_ints(comm, count);
        sum_of_triples(comm, count);
        if comm.size() <= 8 {
            user_in_rank_order(comm, count);
        }
    }
    if comm.size() > 1 && std::env::var("CLUMP_TEST_COUNT_MISMATCH").as_deref() == Ok("1") {
        for count in counts() {
            disagreeing_counts(comm, count);
        }
    }
    ok(mpi::barrier(comm), "barrier after large reductions");
}
