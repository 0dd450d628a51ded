//! Checks of the block collectives, the prefix reductions, user and location operations,
//! and non-contiguous datatypes in point-to-point messages.

use super::{check, fail, ok};

use clump_mpi::{self as mpi, Comm, Datatype, Op, Operator, Predef};
use std::rc::Rc;

fn ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Gather, scatter, allgather and alltoall with a different length per rank, and a block
/// large enough to take the rendezvous protocol.
pub fn block_collectives(world: &Comm) {
    let (r, n) = (world.rank() as usize, world.size() as usize);
    let lens: Vec<usize> = (0..n)
        .map(|i| 4 * (i + 1) + if i == 1 { 100_000 } else { 0 })
        .collect();
    let block = |i: usize| -> Vec<u8> { (0..lens[i]).map(|k| (k * 7 + i * 13) as u8).collect() };
    for root in 0..n as i32 {
        let got = ok(mpi::gather(&block(r), &lens, root, world), "gather");
        if r as i32 == root {
            check!(got.len() == n, "gather gave {} blocks", got.len());
            for (i, b) in got.iter().enumerate() {
                check!(*b == block(i), "gather block {i} at root {root}");
            }
        } else {
            check!(got.is_empty(), "gather gave blocks off the root");
        }
        let all: Vec<Vec<u8>> = (0..n).map(block).collect();
        let mine = ok(
            mpi::scatter(
                if r as i32 == root { &all } else { &[] },
                lens[r],
                root,
                world,
            ),
            "scatter",
        );
        check!(mine == block(r), "scatter block at root {root}");
    }
    let everyone = ok(mpi::allgather(&block(r), &lens, world), "allgather");
    check!(
        everyone == (0..n).map(block).collect::<Vec<_>>(),
        "allgather"
    );
    // Rank r sends (r, j) repeated j + 1 times to rank j.
    let out: Vec<Vec<u8>> = (0..n)
        .map(|j| bytes(&vec![(r * 100 + j) as i32; j + 1]))
        .collect();
    let refs: Vec<&[u8]> = out.iter().map(Vec::as_slice).collect();
    let got = ok(
        mpi::alltoall(&refs, &vec![4 * (r + 1); n], world),
        "alltoall",
    );
    for (i, b) in got.iter().enumerate() {
        check!(
            ints(b) == vec![(i * 100 + r) as i32; r + 1],
            "alltoall from {i}"
        );
    }
}

/// Scan, exscan and reduce-scatter; a non-commutative user operation in rank order; and
/// MAXLOC on value-and-index pairs.
pub fn reductions_in_order(world: &Comm) {
    let (r, n) = (world.rank(), world.size());
    let int = Datatype::predefined(Predef::Int);
    let mine = bytes(&[r + 1]);
    let mut out = [0u8; 4];
    ok(
        mpi::scan(&mine, &mut out, 1, &int, &Operator::Sum.into(), world),
        "scan",
    );
    check!(
        ints(&out) == [(r + 1) * (r + 2) / 2],
        "scan {:?}",
        ints(&out)
    );
    let mut ex = bytes(&[-7]);
    ok(
        mpi::exscan(&mine, &mut ex, 1, &int, &Operator::Sum.into(), world),
        "exscan",
    );
    let want = if r == 0 { -7 } else { r * (r + 1) / 2 };
    check!(ints(&ex) == [want], "exscan {:?}", ints(&ex));
    let vector = bytes(&(0..2 * n).collect::<Vec<_>>());
    let part = ok(
        mpi::reduce_scatter(
            &vector,
            &vec![2; n as usize],
            &int,
            &Operator::Sum.into(),
            world,
        ),
        "reduce_scatter",
    );
    check!(
        ints(&part) == [2 * r * n, (2 * r + 1) * n],
        "reduce_scatter {:?}",
        ints(&part)
    );

    // "Append a digit": in op inout = in * 10 + inout shows the order of the operands.
    let append = |a: *const u8, b: *mut u8, count: usize| {
        for i in 0..count {
            // SAFETY: `count` ints at each address (the datatype is MPI_INT).
            unsafe {
                let x = (a as *const i32).add(i).read_unaligned();
                let y = (b as *mut i32).add(i).read_unaligned();
                let digits = 10i32.pow(y.max(1).ilog10() + 1);
                (b as *mut i32).add(i).write_unaligned(x * digits + y);
            }
        }
    };
    let op = Op::User {
        f: Rc::new(append),
        commute: false,
    };
    let digit = bytes(&[r % 9 + 1]);
    let expect = (0..n).fold(0i64, |acc, i| acc * 10 + (i % 9 + 1) as i64);
    if n <= 8 {
        ok(
            mpi::allreduce(&digit, &mut out, 1, &int, &op, world),
            "user allreduce",
        );
        check!(
            ints(&out)[0] as i64 == expect,
            "user op order {:?}",
            ints(&out)
        );
        for root in 0..n {
            let mut at_root = [0u8; 4];
            ok(
                mpi::reduce(&digit, &mut at_root, 1, &int, &op, root, world),
                "user reduce",
            );
            check!(
                r != root || ints(&at_root)[0] as i64 == expect,
                "user reduce at {root}"
            );
        }
    }
    let pair = Datatype::predefined(Predef::TwoInt);
    let mine = bytes(&[(r * 5) % 3, r]);
    let mut best = [0u8; 8];
    ok(
        mpi::allreduce(&mine, &mut best, 1, &pair, &Operator::MaxLoc.into(), world),
        "maxloc",
    );
    let values: Vec<i32> = (0..n).map(|i| (i * 5) % 3).collect();
    let top = *values.iter().max().unwrap();
    let first = values.iter().position(|&v| v == top).unwrap() as i32;
    check!(ints(&best) == [top, first], "maxloc {:?}", ints(&best));
    // An operation that does not apply to the type fails on every rank before anything
    // is sent, so no rank is left waiting.
    let e = mpi::allreduce(&mine, &mut best, 1, &pair, &Operator::Bxor.into(), world);
    check!(
        e.as_ref().is_err_and(|e| e.class == mpi::ErrorClass::Op),
        "BXOR on MPI_2INT gave {e:?}"
    );
}

/// A column of a matrix sent as a vector type and received into a contiguous buffer, and
/// the reverse, around a ring.
pub fn derived_point_to_point(world: &Comm) {
    let (r, n) = (world.rank(), world.size());
    let int = Datatype::predefined(Predef::Int);
    let column = ok(Datatype::vector(4, 1, 5, &int), "vector");
    let m: Vec<i32> = (0..20).map(|k| r * 1000 + k).collect();
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    let mut got = vec![0u8; 16];
    let st = ok(
        mpi::sendrecv(
            &bytes(&m),
            1,
            &column,
            right,
            40,
            &mut got,
            4,
            &int,
            left,
            40,
            world,
        ),
        "sendrecv column",
    );
    check!(st.get_count(&int) == Some(4), "column count {st:?}");
    check!(
        ints(&got)
            == [
                left * 1000,
                left * 1000 + 5,
                left * 1000 + 10,
                left * 1000 + 15
            ],
        "column {:?}",
        ints(&got)
    );
    let mut back = vec![0u8; 80];
    ok(
        mpi::sendrecv(
            &got, 4, &int, left, 41, &mut back, 1, &column, right, 41, world,
        ),
        "sendrecv into column",
    );
    let back = ints(&back);
    check!(
        back[5] == r * 1000 + 5 && back[1] == 0,
        "into column {back:?}"
    );
}
