//! A test program for the global address space: run under `clump run -n N`, every rank
//! checks every operation against values it can compute, and exits non-zero on a wrong
//! answer. `clump-test-gas all` runs the checks; `clump-test-gas bench` times accesses.

use clump_gas::{Gas, ReduceOp, Result, SharedGas};
use std::process::ExitCode;
use std::time::Instant;

fn check(cond: bool, what: &str) -> Result<()> {
    if !cond {
        return Err(clump_gas::Error::BadCollective(format!(
            "wrong answer: {what}"
        )));
    }
    Ok(())
}

fn pattern(rank: u32, i: usize) -> u64 {
    ((rank as u64) << 40) | (i as u64 * 7919)
}

fn all(gas: &mut Gas) -> Result<()> {
    let (me, n) = (gas.rank(), gas.size());
    let right = (me + 1) % n;
    let left = (me + n - 1) % n;
    // Bulk sizes above one message's limit exercise splitting.
    let big = 3 * clump::MAX_MEDIUM / 8 + 5;
    let a = gas.alloc::<u64>(big)?;
    let b = gas.alloc::<u64>(big)?;
    let words = gas.alloc::<u64>(4)?;

    let mine: Vec<u64> = (0..big).map(|i| pattern(me, i)).collect();
    gas.write_bulk(a.at(right, 0), &mine)?;
    gas.barrier()?;
    check(
        gas.local(&a).to_vec() == (0..big).map(|i| pattern(left, i)).collect::<Vec<_>>(),
        "write_bulk",
    )?;
    let mut back = vec![0u64; big];
    gas.read_bulk(a.at(right, 0), &mut back)?;
    check(back == mine, "read_bulk")?;
    check(
        gas.read(a.at(left, 3))? == pattern((left + n - 1) % n, 3),
        "read",
    )?;

    gas.get_bulk(a.at(left, 0), b.at(me, 0), big)?;
    gas.sync()?;
    let lefts_left = (left + n - 1) % n;
    check(
        gas.local(&b).to_vec() == (0..big).map(|i| pattern(lefts_left, i)).collect::<Vec<_>>(),
        "get_bulk",
    )?;
    gas.barrier()?;

    gas.put(b.at(right, 1), 1000 + me as u64)?;
    gas.put_bulk(b.at(right, 2), &mine[..big - 2])?;
    gas.sync()?;
    gas.barrier()?;
    check(gas.local(&b).get(1) == 1000 + left as u64, "put")?;
    check(
        gas.local(&b).as_slice()[2..]
            == (0..big - 2).map(|i| pattern(left, i)).collect::<Vec<_>>()[..],
        "put_bulk",
    )?;
    gas.barrier()?;

    // Separate accesses are not ordered (as in Split-C), so the two stores do not overlap.
    gas.store_bulk(a.at(right, 0), &mine[..big - 1])?;
    gas.store(a.at(right, big - 1), 7)?;
    gas.store_sync(big * 8)?;
    let got = gas.local(&a).to_vec();
    let wrong = (0..big - 1).find(|&i| got[i] != pattern(left, i));
    check(
        got[big - 1] == 7 && wrong.is_none(),
        &format!("store_sync: last {}, first wrong {wrong:?}", got[big - 1]),
    )?;
    // store_sync counts bytes from anyone: no rank's next stores may count toward this one.
    gas.barrier()?;
    for r in 0..n {
        gas.store(b.at(r, me as usize), 5 + me as u64)?;
    }
    gas.all_store_sync()?;
    check(
        (0..n as usize).all(|r| gas.local(&b).get(r) == 5 + r as u64),
        "all_store_sync",
    )?;

    // Every rank adds to rank 0's word at once: direct atomics from its host, the handler's
    // atomics for the others, on the same word.
    let adds = 300;
    for _ in 0..adds {
        gas.fetch_add(words.at(0, 0), 1)?;
    }
    gas.barrier()?;
    check(gas.read(words.at(0, 0))? == adds * n as u64, "fetch_add")?;
    let old = gas.compare_swap(words.at(right, 1), 0, 100 + me as u64)?;
    check(old == 0, "compare_swap old")?;
    gas.barrier()?;
    check(
        gas.local(&words).get(1) == 100 + left as u64,
        "compare_swap",
    )?;

    let square = gas.register_rpc(|ctx, arg| {
        let v = u64::from_le_bytes(arg.try_into().unwrap_or_default());
        (v * v + ctx.source as u64).to_le_bytes().to_vec()
    })?;
    let got = gas.rpc(right, square, &12u64.to_le_bytes())?;
    check(got == (144 + me as u64).to_le_bytes(), "rpc")?;

    gas.barrier_start()?;
    gas.barrier_end()?;
    let mut root_data = vec![if me == n - 1 { 77u32 } else { 0 }; 3];
    gas.broadcast(n - 1, &mut root_data)?;
    check(root_data == [77; 3], "broadcast")?;
    let mut sums = [me as i64, 1];
    gas.all_reduce(&mut sums, ReduceOp::Sum)?;
    check(
        sums == [(n as i64) * (n as i64 - 1) / 2, n as i64],
        "all_reduce sum",
    )?;
    let mut m = [me as f64];
    gas.all_reduce(&mut m, ReduceOp::Max)?;
    check(m == [(n - 1) as f64], "all_reduce max")?;
    let g = gas.all_gather(&[me, me * 2])?;
    check(
        g == (0..n).flat_map(|r| [r, r * 2]).collect::<Vec<_>>(),
        "all_gather",
    )?;
    let send: Vec<u32> = (0..n).map(|r| me * 100 + r).collect();
    let t = gas.all_to_all(&send, 1)?;
    check(
        t == (0..n).map(|r| r * 100 + me).collect::<Vec<_>>(),
        "all_to_all",
    )?;
    let v: Vec<Vec<u8>> = (0..n)
        .map(|r| vec![me as u8; r as usize + big % 7])
        .collect();
    let w = gas.all_to_allv(&v)?;
    check(
        (0..n).all(|r| w[r as usize] == vec![r as u8; me as usize + big % 7]),
        "all_to_allv",
    )?;

    groups(gas)?;

    check(gas.read(a.at(n, 0)).is_err(), "bad rank refused")?;
    check(
        gas.read(a.at(me, big)).is_err(),
        "past the allocation refused",
    )?;
    check(
        gas.fetch_add(words.at(me, 4), 1).is_err(),
        "atomic past the end refused",
    )?;
    gas.barrier()
}

/// Collectives over the even ranks and over the odd ones at once (the same key: their
/// members differ), then the new atomics.
fn groups(gas: &mut Gas) -> Result<()> {
    let (me, n) = (gas.rank(), gas.size());
    let mine: Vec<u32> = (me % 2..n).step_by(2).collect();
    let g = gas.group(mine.clone(), 7)?;
    check(g.ranks()[g.index() as usize] == me, "group index")?;
    gas.group_barrier(&g)?;
    let mut data = [me, 1];
    gas.group_reduce(&g, &mut data, ReduceOp::Max)?;
    check(data == [*mine.last().unwrap(), 1], "group reduce")?;
    let mut data = [me, 1];
    gas.group_reduce_with(&g, &mut data, |a, b| a.min(b))?;
    check(data == [mine[0], 1], "group reduce with a function")?;
    let mut root = [if g.index() == 0 { 55u16 } else { 0 }];
    gas.group_broadcast(&g, 0, &mut root)?;
    check(root == [55], "group broadcast")?;
    check(gas.group_all_gather(&g, &[me])? == mine, "group all_gather")?;
    let t = gas.group_all_to_all(&g, &vec![me; mine.len()], 1)?;
    check(t == mine, "group all_to_all")?;
    check(
        gas.group(vec![n], 8).is_err(),
        "group of a bad rank refused",
    )?;
    check(gas.group(vec![me, me], 8).is_err(), "rank twice refused")?;
    check(gas.group(mine.clone(), 0).is_err(), "key 0 refused")?;

    let w = gas.alloc::<u64>(1)?;
    gas.barrier()?;
    gas.fetch_or(w.at(0, 0), 1 << me)?;
    gas.barrier()?;
    let all = gas.atomic_load(w.at(0, 0))?;
    check(all == (1u64 << n) - 1, "fetch_or, atomic_load")?;
    gas.barrier()?;
    if me == 0 {
        check(gas.swap(w.at(0, 0), 0b1100)? == all, "swap")?;
        check(gas.fetch_and(w.at(0, 0), 0b0110)? == 0b1100, "fetch_and")?;
        check(gas.fetch_xor(w.at(0, 0), 0b0011)? == 0b0100, "fetch_xor")?;
        check(gas.atomic_load(w.at(0, 0))? == 0b0111, "atomic_load")?;
    }
    gas.barrier()
}

fn bench(gas: &mut Gas) -> Result<()> {
    let n = gas.size();
    let bytes = 1 << 20;
    let a = gas.alloc::<u8>(bytes)?;
    let b = gas.alloc::<u8>(bytes)?;
    gas.barrier()?;
    if gas.rank() == 0 && n > 1 {
        let peer = 1;
        let iters = 2000;
        let t = Instant::now();
        for i in 0..iters {
            gas.read(a.at(peer, i % 64))?;
        }
        let read_us = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        let src = vec![1u8; bytes];
        let reps = 20;
        let t = Instant::now();
        for _ in 0..reps {
            gas.put_bulk(a.at(peer, 0), &src)?;
            gas.sync()?;
        }
        let put = (bytes * reps) as f64 / t.elapsed().as_secs_f64() / 1e6;
        let t = Instant::now();
        for _ in 0..reps {
            gas.get_bulk(a.at(peer, 0), b.at(0, 0), bytes)?;
            gas.sync()?;
        }
        let get = (bytes * reps) as f64 / t.elapsed().as_secs_f64() / 1e6;
        println!(
            "gas bench local={:?} peer_local={} read_latency_us={read_us:.2} put_MBps={put:.0} get_MBps={get:.0}",
            gas.config().local,
            gas.is_local(peer)
        );
    }
    gas.barrier()
}

/// Threads of each rank sharing one `Gas`.
const THREADS: usize = 4;

/// `THREADS` threads per rank share the rank's `Gas`: each puts its own words into the
/// next rank, completes them with its own `sync`, gets them back and checks every word,
/// round after round, and adds to a counter of the next rank; then every word and every
/// addition is accounted for.
fn threads(mut gas: Gas) -> Result<()> {
    const WORDS: usize = 1000;
    const ROUNDS: u64 = 20;
    let (me, n) = (gas.rank(), gas.size());
    let right = (me + 1) % n;
    let a = gas.alloc::<u64>(THREADS * WORDS)?;
    let b = gas.alloc::<u64>(THREADS * WORDS)?;
    let counter = gas.alloc::<u64>(1)?;
    gas.barrier()?;
    let gas: SharedGas = gas.into_shared();
    let word = |t: usize, round: u64, i: usize| pattern(me, t * WORDS + i) ^ round;
    let run = |t: usize| -> Result<()> {
        for round in 0..ROUNDS {
            let mine: Vec<u64> = (0..WORDS).map(|i| word(t, round, i)).collect();
            gas.put_bulk(a.at(right, t * WORDS), &mine)?;
            gas.sync()?;
            gas.get_bulk(a.at(right, t * WORDS), b.at(me, t * WORDS), WORDS)?;
            gas.sync()?;
            let mut back = vec![0u64; WORDS];
            gas.read_bulk(b.at(me, t * WORDS), &mut back)?;
            check(
                back == mine,
                "a thread's put, then get, each completed by its sync",
            )?;
            gas.fetch_add(counter.at(right, 0), 1)?;
        }
        Ok(())
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS).map(|t| s.spawn(move || run(t))).collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("a thread of the test panicked"))
    })?;
    gas.barrier()?;
    let added = gas.read(counter.at(me, 0))?;
    check(
        added == THREADS as u64 * ROUNDS,
        "every thread's fetch_add arrived once",
    )?;
    println!("rank {me} gas ok threads={THREADS} rounds={ROUNDS}");
    Ok(())
}

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let run = || -> Result<()> {
        let mut gas = Gas::init()?;
        match mode.as_str() {
            "bench" => bench(&mut gas),
            "threads" => return threads(gas),
            _ => all(&mut gas),
        }?;
        println!("rank {} gas ok {:?}", gas.rank(), gas.stats());
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("clump-test-gas: {e}");
            ExitCode::FAILURE
        }
    }
}
