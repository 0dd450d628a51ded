//! Checks of the one-step collectives through shared-memory slots: many calls in a row (the
//! slots' turns), contributions that fit on some ranks and not on others (every rank must
//! then take the messages), and more communicators than have slots.

use super::{check, fail, ok};

use clump_mpi::{self as mpi, Comm, Datatype, Operator, Predef};

fn long(b: &[u8]) -> i64 {
    i64::from_ne_bytes(b.try_into().expect("8 bytes"))
}

/// Allreduce, alltoall and barrier alternating for many rounds, each with its own data.
fn rounds(comm: &Comm, rounds: i64) {
    let (r, n) = (comm.rank() as i64, comm.size() as i64);
    let ty = Datatype::predefined(Predef::LongLong);
    for round in 0..rounds {
        let mut sum = [0u8; 8];
        let mine = ((r + 1) * (round + 1)).to_ne_bytes();
        ok(
            mpi::allreduce(&mine, &mut sum, 1, &ty, &Operator::Sum.into(), comm),
            "allreduce",
        );
        let want = n * (n + 1) / 2 * (round + 1);
        check!(long(&sum) == want, "round {round}: sum {}", long(&sum));
        let blocks: Vec<[u8; 8]> = (0..n)
            .map(|to| (r * 1000 + to + round).to_ne_bytes())
            .collect();
        let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
        let got = ok(mpi::alltoall(&refs, &vec![8; n as usize], comm), "alltoall");
        for (from, b) in got.iter().enumerate() {
            let want = from as i64 * 1000 + r + round;
            check!(long(b) == want, "round {round}: from {from} {}", long(b));
        }
        if round % 7 == 0 {
            ok(mpi::barrier(comm), "barrier");
        }
    }
}

/// Alltoall of contiguous buffers with blocks around the size where a rank's contribution
/// stops fitting its slot, every byte checked.
fn contiguous_alltoall(comm: &Comm) {
    let (r, n) = (comm.rank() as usize, comm.size() as usize);
    let fit = ok(mpi::Thresholds::from_env(), "thresholds")
        .shm_coll
        .saturating_sub(8 * n)
        / n;
    let byte = |from: usize, to: usize, k: usize| (from * 7 + to * 3 + k) as u8;
    for len in [0, 1, fit, fit + 8, fit + 64, 3 * fit + 5] {
        let send: Vec<u8> = (0..n * len).map(|i| byte(r, i / len, i % len)).collect();
        let mut recv = vec![0u8; n * len];
        ok(
            mpi::alltoall_contiguous(&send, &mut recv, comm),
            "contiguous alltoall",
        );
        for (i, &b) in recv.iter().enumerate() {
            let (from, k) = (i / len, i % len);
            check!(
                b == byte(from, r, k),
                "contiguous alltoall of {len}: byte {k} from {from}"
            );
        }
    }
    let e = mpi::alltoall_contiguous(&[0u8; 3], &mut [0u8; 3], comm);
    check!(
        n == 1 || n == 3 || e.is_err(),
        "alltoall of 3 bytes among {n} ranks gave {e:?}"
    );
}

pub fn one_step_collectives(world: &Comm) {
    rounds(world, 300);
    contiguous_alltoall(world);

    // Rank r sends blocks of r * 3/4 of a slot: rank 0's contribution fits its slot, the
    // others' do not, so every rank must take the messages.
    let unit = ok(mpi::Thresholds::from_env(), "thresholds").shm_coll * 3 / 4;
    let (r, n) = (world.rank() as usize, world.size() as usize);
    let block = |from: usize, to: usize| -> Vec<u8> {
        (0..from * unit)
            .map(|k| (k + 5 * to + from) as u8)
            .collect()
    };
    let mine: Vec<Vec<u8>> = (0..n).map(|to| block(r, to)).collect();
    let refs: Vec<&[u8]> = mine.iter().map(|b| &b[..]).collect();
    let lens: Vec<usize> = (0..n).map(|from| from * unit).collect();
    let got = ok(mpi::alltoall(&refs, &lens, world), "uneven alltoall");
    for (from, b) in got.iter().enumerate() {
        check!(*b == block(from, r), "uneven alltoall from {from}");
    }

    // More communicators than have slots: the later ones take the messages.
    let comms: Vec<Comm> = (0..20).map(|_| ok(world.dup(), "dup")).collect();
    for c in comms.iter().rev() {
        rounds(c, 3);
    }
    for c in comms {
        ok(c.free(), "free");
    }
}
