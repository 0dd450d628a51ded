//! Checks of the non-blocking collectives: each against its blocking twin's result, many in
//! flight on one communicator at once (completed out of order, by wait, test loops and
//! the any/all forms), interleaved with blocking collectives and point-to-point traffic.

use super::{check, fail, ok};

use clump_mpi::{self as mpi, Comm, Datatype, Op, Operator, Predef, Request};
use std::cell::RefCell;
use std::rc::Rc;

/// Where a collective's result lands when its request completes.
type Slot<T> = Rc<RefCell<Option<T>>>;

fn slot<T>() -> Slot<T> {
    Rc::new(RefCell::new(None))
}

fn into<T: 'static>(s: &Slot<T>) -> Box<dyn FnOnce(T) -> mpi::Result<()>> {
    let s = s.clone();
    Box::new(move |v| {
        *s.borrow_mut() = Some(v);
        Ok(())
    })
}

fn take<T>(s: &Slot<T>, what: &str) -> T {
    s.borrow_mut()
        .take()
        .unwrap_or_else(|| fail(format!("{what}: no result after completion")))
}

fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// Every non-blocking collective against the blocking one, started together and
/// completed in reverse order; lengths differ per rank and one block takes rendezvous.
pub fn against_blocking(world: &Comm) {
    let (sum, max): (Op, Op) = (Operator::Sum.into(), Operator::Max.into());
    let (r, n) = (world.rank() as usize, world.size() as usize);
    let int = Datatype::predefined(Predef::Int);
    let lens: Vec<usize> = (0..n)
        .map(|i| 4 * (i + 1) + if i == 1 { 100_000 } else { 0 })
        .collect();
    let block = |i: usize, j: usize| -> Vec<u8> {
        (0..lens[i]).map(|k| (k * 7 + i * 13 + j) as u8).collect()
    };
    let mine = ints(&[r as i32 + 1, -(r as i32), 7, 3 * r as i32]);
    let counts: Vec<usize> = (0..n).map(|i| i % 3).collect();
    let scatter_data = ints(
        &(0..counts.iter().sum::<usize>() as i32)
            .map(|x| x * (r as i32 + 1))
            .collect::<Vec<_>>(),
    );
    let root = (n - 1) as i32;

    let (bc, ga, sc, ag, aa) = (slot(), slot(), slot(), slot(), slot());
    let (re, ar, rs, sn, ex) = (slot(), slot(), slot(), slot(), slot());
    let bdata = if r as i32 == root {
        block(root as usize, 5)
    } else {
        vec![0; lens[root as usize]]
    };
    let mut reqs = vec![
        ok(mpi::ibarrier(world), "ibarrier"),
        ok(mpi::ibcast(bdata, root, world, into(&bc)), "ibcast"),
        ok(
            mpi::igather(block(r, 0), &lens, root, world, into(&ga)),
            "igather",
        ),
        ok(
            mpi::iscatter(
                (0..n).map(|i| block(i, 2)).collect(),
                lens[r],
                0,
                world,
                into(&sc),
            ),
            "iscatter",
        ),
        ok(
            mpi::iallgather(block(r, 3), &lens, world, into(&ag)),
            "iallgather",
        ),
        ok(
            mpi::ialltoall(
                (0..n).map(|j| block(r, j)).collect(),
                &lens,
                world,
                into(&aa),
            ),
            "ialltoall",
        ),
        ok(
            mpi::ireduce(mine.clone(), 4, &int, &sum, root, world, into(&re)),
            "ireduce",
        ),
        ok(
            mpi::iallreduce(mine.clone(), 4, &int, &max, world, into(&ar)),
            "iallreduce",
        ),
        ok(
            mpi::ireduce_scatter(scatter_data.clone(), &counts, &int, &sum, world, into(&rs)),
            "ireduce_scatter",
        ),
        ok(
            mpi::iscan(mine.clone(), 4, &int, &sum, world, true, into(&sn)),
            "iscan",
        ),
        ok(
            mpi::iscan(mine.clone(), 4, &int, &sum, world, false, into(&ex)),
            "iexscan",
        ),
    ];
    // A blocking collective and a message while they are all in flight.
    ok(mpi::barrier(world), "barrier among non-blocking ones");
    for req in reqs.iter_mut().rev() {
        ok(mpi::wait(req), "wait");
    }

    let mut b = if r as i32 == root {
        block(root as usize, 5)
    } else {
        vec![0; lens[root as usize]]
    };
    ok(
        mpi::bcast(
            &mut b,
            lens[root as usize],
            &Datatype::predefined(Predef::Byte),
            root,
            world,
        ),
        "bcast",
    );
    check!(take(&bc, "ibcast") == b, "ibcast differs");
    let g = take(&ga, "igather");
    if r as i32 == root {
        check!(
            g == (0..n).map(|i| block(i, 0)).collect::<Vec<_>>(),
            "igather differs"
        );
    }
    check!(take(&sc, "iscatter") == block(r, 2), "iscatter differs");
    check!(
        take(&ag, "iallgather") == (0..n).map(|i| block(i, 3)).collect::<Vec<_>>(),
        "iallgather differs"
    );
    check!(
        take(&aa, "ialltoall") == (0..n).map(|i| block(i, r)).collect::<Vec<_>>(),
        "ialltoall differs"
    );
    let mut want = vec![0u8; 16];
    ok(
        mpi::reduce(&mine, &mut want, 4, &int, &sum, root, world),
        "reduce",
    );
    let got = take(&re, "ireduce");
    if r as i32 == root {
        check!(got == want, "ireduce differs");
    }
    ok(
        mpi::allreduce(&mine, &mut want, 4, &int, &max, world),
        "allreduce",
    );
    check!(take(&ar, "iallreduce") == want, "iallreduce differs");
    let blocking = ok(
        mpi::reduce_scatter(&scatter_data, &counts, &int, &sum, world),
        "reduce_scatter",
    );
    check!(
        take(&rs, "ireduce_scatter") == blocking,
        "ireduce_scatter differs"
    );
    ok(mpi::scan(&mine, &mut want, 4, &int, &sum, world), "scan");
    check!(take(&sn, "iscan") == want, "iscan differs");
    let got = take(&ex, "iexscan");
    if r > 0 {
        ok(
            mpi::exscan(&mine, &mut want, 4, &int, &sum, world),
            "exscan",
        );
        check!(got == want, "iexscan differs");
    } else {
        ok(
            mpi::exscan(&mine, &mut want, 4, &int, &sum, world),
            "exscan",
        );
    }
}

/// A non-commutative user operation combines in rank order, as the blocking one does.
pub fn in_rank_order(world: &Comm) {
    let (r, n) = (world.rank(), world.size());
    let int = Datatype::predefined(Predef::Int);
    // Pairs (digits, 10^len) joined as digit strings: associative, not commutative.
    let f: Rc<mpi::UserFn> = Rc::new(|a: *const u8, b: *mut u8, count: usize| {
        for i in (0..count).step_by(2) {
            // SAFETY: the operation's contract: `count` ints at each address.
            unsafe {
                let [x, px] = (a as *const i32).add(i).cast::<[i32; 2]>().read_unaligned();
                let y = (b as *mut i32).add(i).cast::<[i32; 2]>();
                let [v, pv] = y.read_unaligned();
                y.write_unaligned([x * pv + v, px * pv]);
            }
        }
    });
    let op = Op::User { f, commute: false };
    let digit = ints(&[r + 1, 10]);
    let (re, ar) = (slot(), slot());
    let mut reqs = [
        ok(
            mpi::ireduce(digit.clone(), 2, &int, &op, n - 1, world, into(&re)),
            "ireduce in order",
        ),
        ok(
            mpi::iallreduce(digit, 2, &int, &op, world, into(&ar)),
            "iallreduce in order",
        ),
    ];
    ok(mpi::wait_all(&mut reqs), "waitall");
    let want = ints(&[(1..=n).fold(0, |acc, d| acc * 10 + d), 10i32.pow(n as u32)]);
    check!(
        take(&ar, "iallreduce in order") == want,
        "iallreduce not in rank order"
    );
    let got = take(&re, "ireduce in order");
    if r == n - 1 {
        check!(got == want, "ireduce not in rank order");
    }
}

/// Many barriers and broadcasts in flight, completed by test loops and testany while this
/// rank also exchanges messages: every one completes, none early.
pub fn completed_by_tests(world: &Comm) {
    let (r, n) = (world.rank(), world.size());
    let results: Vec<Slot<Vec<u8>>> = (0..20).map(|_| slot()).collect();
    let mut reqs: Vec<Request> = Vec::new();
    for (k, s) in results.iter().enumerate() {
        reqs.push(ok(mpi::ibarrier(world), "ibarrier"));
        let root = k as i32 % n;
        let data = if r == root {
            vec![k as u8; 3 + k]
        } else {
            vec![0; 3 + k]
        };
        reqs.push(ok(mpi::ibcast(data, root, world, into(s)), "ibcast"));
    }
    let byte = Datatype::predefined(Predef::Byte);
    let out = [r as u8; 8];
    let mut back = [0u8; 8];
    let (to, from) = ((r + 1) % n, (r + n - 1) % n);
    ok(
        mpi::sendrecv(&out, 8, &byte, to, 9, &mut back, 8, &byte, from, 9, world),
        "sendrecv",
    );
    check!(back == [from as u8; 8], "sendrecv among collectives");
    let mut left = reqs.len();
    while left > 0 {
        if let Some((Some(_), _)) = ok(mpi::test_any(&mut reqs), "testany") {
            left -= 1;
        }
    }
    for (k, s) in results.iter().enumerate() {
        check!(
            take(s, "ibcast") == vec![k as u8; 3 + k],
            "ibcast {k} differs"
        );
    }
}
