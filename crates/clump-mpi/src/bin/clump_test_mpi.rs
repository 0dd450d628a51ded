//! Runs MPI checks under `clump run`: every result is compared with what it must be, and the
//! process exits non-zero on the first difference. Prints `mpi-check ok` at the end.

use clump_mpi::{
    self as mpi, Comm, Comparison, Datatype, Operator, Predef, ANY_SOURCE, ANY_TAG, PROC_NULL,
    UNDEFINED,
};

#[path = "clump_test_mpi/blocks.rs"]
mod blocks;
#[path = "clump_test_mpi/large.rs"]
mod large;
#[path = "clump_test_mpi/nonblocking.rs"]
mod nonblocking;
#[path = "clump_test_mpi/refuse.rs"]
mod refuse;
#[path = "clump_test_mpi/rendezvous.rs"]
mod rendezvous;
#[path = "clump_test_mpi/slots.rs"]
mod slots;

fn fail(what: String) -> ! {
    eprintln!("mpi-check FAILED: {what}");
    std::process::exit(1)
}

macro_rules! check {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            fail(format!($($msg)*))
        }
    };
}
pub(crate) use check;

fn pattern(len: usize, seed: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + seed * 7 + 1) as u8).collect()
}

fn ok<T>(r: mpi::Result<T>, what: &str) -> T {
    r.unwrap_or_else(|e| fail(format!("{what}: {e}")))
}

/// Sizes around both protocol thresholds, empty, and one large rendezvous message.
fn sizes() -> Vec<usize> {
    let t = ok(mpi::Thresholds::from_env(), "thresholds");
    let mut v = vec![0, 1, 7];
    for e in [t.eager_shm, t.eager_net] {
        v.extend([e.saturating_sub(1), e, e + 1]);
    }
    v.extend([200_000, 1 << 20]);
    v
}

fn ring(world: &Comm, byte: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    for (i, len) in sizes().into_iter().enumerate() {
        let out = pattern(len, r as usize + i);
        let mut inb = vec![0u8; len];
        let from = (r + n - 1) % n;
        // SAFETY: both buffers outlive the wait below.
        let mut rr = ok(
            unsafe { mpi::irecv(inb.as_mut_ptr(), len, byte, from, i as i32, world) },
            "irecv",
        );
        ok(
            mpi::send(&out, len, byte, (r + 1) % n, i as i32, world),
            "send",
        );
        let st = ok(mpi::wait(&mut rr), "wait");
        check!(rr.is_null(), "request not null after wait");
        check!(
            st.source == from && st.tag == i as i32,
            "ring status {st:?}"
        );
        check!(
            st.get_count(byte) == Some(len),
            "ring count {st:?} for {len}"
        );
        check!(
            inb == pattern(len, from as usize + i),
            "ring data of {len} bytes differs"
        );
    }
}

/// Every other rank sends small and large messages alternately before rank 0 receives:
/// they arrive unexpected and must match in the order sent, across the protocol switch.
fn order_and_any_source(world: &Comm, byte: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    let lens = [5usize, 300_000, 0, 70_000, 16];
    let bufs: Vec<Vec<u8>> = lens
        .iter()
        .enumerate()
        .map(|(i, &l)| pattern(l, i + r as usize))
        .collect();
    let mut sends = Vec::new();
    if r != 0 {
        for (b, &len) in bufs.iter().zip(&lens) {
            // SAFETY: `bufs` outlives the wait_all below.
            sends.push(ok(
                unsafe { mpi::isend(b.as_ptr(), len, byte, 0, 42, world) },
                "isend",
            ));
        }
    }
    // Large sends cannot finish before their receives are posted: so they wait unexpected.
    ok(mpi::barrier(world), "barrier");
    if r == 0 && n > 1 {
        // Some message is bound to come; the first from any sender has the first length.
        let st = loop {
            if let Some(st) = ok(mpi::iprobe(ANY_SOURCE, 42, world), "iprobe") {
                break st;
            }
        };
        check!(
            st.count_bytes == lens[0] && st.source != 0,
            "iprobe found {st:?}"
        );
        let again = ok(mpi::probe(st.source, 42, world), "probe");
        check!(again == st, "probe found {again:?}, iprobe {st:?}");
    }
    if r == 0 {
        let mut next = vec![0usize; n as usize];
        for _ in 0..(n - 1) as usize * lens.len() {
            let mut buf = vec![0u8; 1 << 20];
            let st = ok(
                mpi::recv(&mut buf, 1 << 20, byte, ANY_SOURCE, ANY_TAG, world),
                "recv",
            );
            let s = st.source as usize;
            check!(s != 0 && st.tag == 42, "any-source status {st:?}");
            let i = next[s];
            next[s] += 1;
            check!(
                st.count_bytes == lens[i],
                "message {i} of rank {s} has {} bytes",
                st.count_bytes
            );
            check!(
                buf[..lens[i]] == pattern(lens[i], i + s)[..],
                "message {i} of rank {s} differs"
            );
        }
    }
    ok(mpi::wait_all(&mut sends), "waitall");
}

/// An 8-byte standard send completes as it starts exactly when the eager limits allow
/// it (checked where both limits agree, wherever the peer runs): at a limit below 8
/// bytes it waits for its receive, which the peer posts only after the look.
fn eager_limits_kept(world: &Comm, byte: &Datatype) {
    let t = ok(mpi::Thresholds::from_env(), "thresholds");
    let eager = match (t.eager_shm >= 8, t.eager_net >= 8) {
        (true, true) => true,
        (false, false) => false,
        _ => return,
    };
    let r = world.rank();
    if world.size() < 2 || r > 1 {
        return ok(mpi::barrier(world), "barrier");
    }
    let out = [7u8; 8];
    let mut inb = [0u8; 8];
    if r == 0 {
        // SAFETY: `out` outlives the wait below.
        let mut req = ok(
            unsafe { mpi::isend(out.as_ptr(), 8, byte, 1, 31, world) },
            "isend",
        );
        let done = ok(mpi::test(&mut req), "test").is_some();
        check!(
            done == eager,
            "an 8-byte send at eager limits {} (shm) and {} (net) completed at once: {done}",
            t.eager_shm,
            t.eager_net
        );
        ok(mpi::barrier(world), "barrier");
        ok(mpi::wait(&mut req), "wait");
    } else {
        ok(mpi::barrier(world), "barrier");
        ok(mpi::recv(&mut inb, 8, byte, 0, 31, world), "recv");
        check!(inb == out, "eager-limit message differs");
    }
}

fn nonblocking_and_nulls(world: &Comm, int: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    let to = (r + 1) % n;
    let from = (r + n - 1) % n;
    let out: Vec<u8> = (0..1000i32).flat_map(|x| (x * r).to_ne_bytes()).collect();
    let mut inb = vec![0u8; out.len()];
    // SAFETY: both buffers outlive the waits below.
    let mut reqs = unsafe {
        [
            ok(
                mpi::irecv(inb.as_mut_ptr(), 1000, int, from, 9, world),
                "irecv",
            ),
            ok(mpi::isend(out.as_ptr(), 1000, int, to, 9, world), "isend"),
        ]
    };
    let mut polls = 0;
    while ok(mpi::test(&mut reqs[0]), "test").is_none() {
        polls += 1;
    }
    ok(mpi::wait_all(&mut reqs), "waitall");
    let want: Vec<u8> = (0..1000i32)
        .flat_map(|x| (x * from).to_ne_bytes())
        .collect();
    check!(inb == want, "non-blocking data differs after {polls} tests");
    let st = ok(
        mpi::recv(&mut [], 0, int, PROC_NULL, 0, world),
        "recv from PROC_NULL",
    );
    check!(
        st.source == PROC_NULL && st.count_bytes == 0,
        "PROC_NULL status {st:?}"
    );
    ok(
        mpi::send(&[], 0, int, PROC_NULL, 0, world),
        "send to PROC_NULL",
    );
    let e = mpi::send(&[], 0, int, n, 0, world).unwrap_err();
    check!(e.class == mpi::ErrorClass::Rank, "bad rank gave {e}");
    // A receive that nothing matches is cancelled.
    let mut b = [0u8; 4];
    // SAFETY: `b` outlives the wait below.
    let mut q = ok(
        unsafe { mpi::irecv(b.as_mut_ptr(), 1, int, ANY_SOURCE, 31_000, world) },
        "irecv",
    );
    check!(
        ok(mpi::cancel(&mut q), "cancel"),
        "cancel of an unmatched receive failed"
    );
    check!(
        ok(mpi::wait(&mut q), "wait").cancelled,
        "status not cancelled"
    );
    // Truncation is an error of its class.
    if n > 1 {
        let big = [1u8; 8];
        let byte = Datatype::predefined(Predef::Byte);
        let mut small = [0u8; 4];
        // SAFETY: `small` outlives the wait below.
        let mut q = ok(
            unsafe { mpi::irecv(small.as_mut_ptr(), 4, &byte, from, 77, world) },
            "irecv",
        );
        ok(mpi::send(&big, 8, &byte, to, 77, world), "send");
        let e = mpi::wait(&mut q).unwrap_err();
        check!(e.class == mpi::ErrorClass::Truncate, "truncation gave {e}");
    }
}

/// Synchronous sends (small ones take the rendezvous too), sendrecv around the ring with
/// large messages, and the any/some/all completion forms.
fn modes_and_completion(world: &Comm, byte: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    let to = (r + 1) % n;
    let from = (r + n - 1) % n;
    for len in [0usize, 3, 300_000] {
        let out = pattern(len, r as usize);
        let mut inb = vec![0u8; len];
        // SAFETY: `inb` outlives the wait below.
        let mut q = ok(
            unsafe { mpi::irecv(inb.as_mut_ptr(), len, byte, from, 5, world) },
            "irecv",
        );
        ok(mpi::ssend(&out, len, byte, to, 5, world), "ssend");
        ok(mpi::wait(&mut q), "wait");
        check!(
            inb == pattern(len, from as usize),
            "ssend data of {len} bytes differs"
        );

        let mut back = vec![0u8; len];
        let st = ok(
            mpi::sendrecv(&out, len, byte, to, 6, &mut back, len, byte, from, 6, world),
            "sendrecv",
        );
        check!(
            st.source == from && back == pattern(len, from as usize),
            "sendrecv of {len} bytes: {st:?}"
        );
    }
    let mut got = [[0u8; 4]; 3];
    let mut reqs: Vec<mpi::Request> = Vec::new();
    for (i, g) in got.iter_mut().enumerate() {
        // SAFETY: `got` outlives the waits below.
        reqs.push(ok(
            unsafe { mpi::irecv(g.as_mut_ptr(), 4, byte, from, 20 + i as i32, world) },
            "irecv",
        ));
    }
    // A receive nothing matches keeps testall false, until it is cancelled.
    let mut never = [0u8; 1];
    // SAFETY: `never` outlives the wait_all below.
    let mut pair = [
        ok(
            unsafe { mpi::irecv(never.as_mut_ptr(), 1, byte, from, 29_999, world) },
            "irecv",
        ),
        mpi::Request::null(),
    ];
    check!(
        ok(mpi::test_all(&mut pair), "testall").is_none(),
        "testall of a pending receive"
    );
    check!(ok(mpi::cancel(&mut pair[0]), "cancel"), "cancel");
    let sts = ok(mpi::test_all(&mut pair), "testall");
    check!(sts.is_some_and(|s| s[0].cancelled), "testall after cancel");
    for i in [2i32, 0, 1] {
        ok(mpi::send(&[i as u8; 4], 4, byte, to, 20 + i, world), "send");
    }
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let (i, st) = ok(mpi::wait_any(&mut reqs), "waitany");
        let i = i.unwrap_or_else(|| fail("waitany found only null requests".into()));
        check!(
            st.tag == 20 + i as i32 && reqs[i].is_null(),
            "waitany gave {i} {st:?}"
        );
        seen.push(i);
    }
    let rest = ok(mpi::wait_some(&mut reqs), "waitsome");
    check!(rest.len() == 1, "waitsome gave {rest:?}");
    check!(
        ok(mpi::wait_any(&mut reqs), "waitany").0.is_none(),
        "waitany over nulls"
    );
    for (i, g) in got.iter().enumerate() {
        check!(*g == [i as u8; 4], "request {i} got {g:?}");
    }
}

fn collectives(world: &Comm, int: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    for root in 0..n {
        let mut b = if r == root {
            pattern(100_000, root as usize)
        } else {
            vec![0; 100_000]
        };
        ok(mpi::bcast(&mut b, 25_000, int, root, world), "bcast");
        check!(
            b == pattern(100_000, root as usize),
            "bcast from {root} differs"
        );
    }
    let mine: Vec<u8> = [r + 1, -r, 7]
        .iter()
        .flat_map(|x| x.to_ne_bytes())
        .collect();
    let ints = |b: &[u8]| -> Vec<i32> {
        b.chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    let mut out = vec![0u8; 12];
    ok(
        mpi::allreduce(&mine, &mut out, 3, int, &Operator::Sum.into(), world),
        "allreduce sum",
    );
    check!(
        ints(&out) == vec![n * (n + 1) / 2, -(n * (n - 1) / 2), 7 * n],
        "sum {:?}",
        ints(&out)
    );
    ok(
        mpi::allreduce(&mine, &mut out, 3, int, &Operator::Max.into(), world),
        "allreduce max",
    );
    check!(ints(&out) == vec![n, 0, 7], "max {:?}", ints(&out));
    let d = Datatype::predefined(Predef::Double);
    let x = (r as f64 + 0.5).to_ne_bytes();
    let mut y = [0u8; 8];
    ok(
        mpi::allreduce(&x, &mut y, 1, &d, &Operator::Min.into(), world),
        "allreduce min",
    );
    check!(
        f64::from_ne_bytes(y) == 0.5,
        "min {}",
        f64::from_ne_bytes(y)
    );
    ok(mpi::barrier(world), "barrier");
}

/// Derived communicators: their ranks, their traffic kept apart from the parent's, and
/// collectives inside each.
fn communicators(world: &Comm, int: &Datatype) {
    let (r, n) = (world.rank(), world.size());
    let dup = ok(world.dup(), "dup");
    check!(dup.compare(world) == Comparison::Congruent, "dup compare");
    check!(world.compare(world) == Comparison::Ident, "ident compare");
    // The same tag on the parent and on the dup must not cross: each receive gets its own.
    let (to, from) = ((r + 1) % n, (r + n - 1) % n);
    let a = [r as u8];
    let b = [100 + r as u8];
    // SAFETY: the buffers outlive the waits below.
    let mut s1 = ok(
        unsafe {
            mpi::isend(
                a.as_ptr(),
                1,
                &Datatype::predefined(Predef::Byte),
                to,
                3,
                world,
            )
        },
        "isend world",
    );
    // SAFETY: as above.
    let mut s2 = ok(
        unsafe {
            mpi::isend(
                b.as_ptr(),
                1,
                &Datatype::predefined(Predef::Byte),
                to,
                3,
                &dup,
            )
        },
        "isend dup",
    );
    let byte = Datatype::predefined(Predef::Byte);
    let mut got = [0u8; 1];
    ok(mpi::recv(&mut got, 1, &byte, from, 3, &dup), "recv dup");
    check!(got[0] == 100 + from as u8, "dup got {}", got[0]);
    ok(mpi::recv(&mut got, 1, &byte, from, 3, world), "recv world");
    check!(got[0] == from as u8, "world got {}", got[0]);
    ok(mpi::wait(&mut s1), "wait");
    ok(mpi::wait(&mut s2), "wait");

    // Split into even and odd ranks, reversed by key; rank 1 stays out of any.
    let color = if r == 1 { UNDEFINED } else { r % 2 };
    let half = ok(world.split(color, -r), "split");
    check!(half.is_none() == (r == 1), "split membership");
    if let Some(h) = &half {
        let size = (0..n).filter(|&q| q != 1 && q % 2 == r % 2).count() as i32;
        let below = (0..n)
            .filter(|&q| q != 1 && q % 2 == r % 2 && q > r)
            .count() as i32;
        check!(
            h.size() == size && h.rank() == below,
            "split rank {} of {}",
            h.rank(),
            h.size()
        );
        let mut sum = [0u8; 4];
        ok(
            mpi::allreduce(&r.to_ne_bytes(), &mut sum, 1, int, &Operator::Sum.into(), h),
            "allreduce split",
        );
        let want: i32 = (0..n).filter(|&q| q != 1 && q % 2 == r % 2).sum();
        check!(
            i32::from_ne_bytes(sum) == want,
            "split sum {}",
            i32::from_ne_bytes(sum)
        );
        let g = h.get_group();
        let in_world = ok(
            g.translate_ranks(&[h.rank()], &world.get_group()),
            "translate",
        );
        check!(in_world == vec![r], "translate {in_world:?}");
    }

    // A communicator of the world group in reverse order, from a group range.
    let wg = world.get_group();
    let rev = ok(wg.range_incl(&[(n - 1, 0, -1)]), "range_incl");
    check!(
        rev.rank() == n - 1 - r
            && wg.compare(&rev)
                == if n == 1 {
                    mpi::Comparison::Ident
                } else {
                    Comparison::Similar
                },
        "reverse group"
    );
    let rc = ok(world.create(&rev), "create").unwrap_or_else(|| fail("not in own create".into()));
    check!(rc.rank() == n - 1 - r, "create rank");
    let mut root_rank = (r as u8).to_ne_bytes();
    ok(
        mpi::bcast(&mut root_rank, 1, &byte, 0, &rc),
        "bcast created",
    );
    check!(
        root_rank[0] == (n - 1) as u8,
        "created bcast root {}",
        root_rank[0]
    );
    let only0 = ok(wg.incl(&[0]), "incl");
    let c0 = ok(world.create(&only0), "create sub");
    check!(c0.is_some() == (r == 0), "create membership");
    check!(world.clone().free().is_err(), "world freed");
    for c in [Some(dup), half, Some(rc), c0].into_iter().flatten() {
        ok(c.free(), "free");
    }
    ok(mpi::barrier(world), "barrier");
}

fn main() {
    refuse::if_asked();
    ok(mpi::init(), "init");
    check!(mpi::initialized() && !mpi::finalized(), "init state");
    let world = ok(Comm::world(), "world");
    let me = ok(Comm::self_comm(), "self");
    check!(me.size() == 1 && me.rank() == 0, "self comm");
    check!(
        !mpi::processor_name().is_empty() && mpi::wtick() > 0.0,
        "environment"
    );
    let byte = Datatype::predefined(Predef::Byte);
    let int = Datatype::predefined(Predef::Int);
    ring(&world, &byte);
    ring(&me, &byte);
    rendezvous::edges(&world, &byte);
    order_and_any_source(&world, &byte);
    nonblocking_and_nulls(&world, &int);
    eager_limits_kept(&world, &byte);
    modes_and_completion(&world, &byte);
    collectives(&world, &int);
    collectives(&me, &int);
    communicators(&world, &int);
    communicators(&me, &int);
    blocks::block_collectives(&world);
    blocks::reductions_in_order(&world);
    blocks::derived_point_to_point(&world);
    large::large_reductions(&world);
    large::large_reductions(&me);
    slots::one_step_collectives(&world);
    slots::one_step_collectives(&me);
    nonblocking::against_blocking(&world);
    nonblocking::against_blocking(&me);
    nonblocking::in_rank_order(&world);
    nonblocking::completed_by_tests(&world);
    ok(mpi::finalize(), "finalize");
    check!(mpi::finalized(), "finalized");
    println!("mpi-check ok rank={} size={}", world.rank(), world.size());
}
