//! A process started without the launcher is a job of one: every operation, in both local
//! modes, and every bad use, checked in process.

use clump_gas::{Error, Gas, GasConfig, LocalMode, ReduceOp};

fn gas(local: LocalMode) -> Gas {
    Gas::init_with(GasConfig {
        segment_bytes: 1 << 20,
        local,
    })
    .expect("a job of one starts")
}

fn every_operation(local: LocalMode) {
    let mut g = gas(local);
    assert_eq!((g.rank(), g.size()), (0, 1));
    assert!(g.is_local(0));
    let n = 20_000; // 160 KB: more than one message carries
    let a = g.alloc::<u64>(n).unwrap();
    let b = g.alloc::<u64>(n).unwrap();
    let w = g.alloc::<u64>(2).unwrap();
    assert_eq!(a.len_per_rank(), n);
    assert!(g.local(&a).as_slice().iter().all(|&v| v == 0));

    let data: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
    g.write_bulk(a.at(0, 0), &data).unwrap();
    assert_eq!(g.local(&a).to_vec(), data);
    let mut back = vec![0; n];
    g.read_bulk(a.at(0, 0), &mut back).unwrap();
    assert_eq!(back, data);
    g.write(a.at(0, 5), 99).unwrap();
    assert_eq!(g.read(a.at(0, 5)).unwrap(), 99);

    g.get_bulk(a.at(0, 0), b.at(0, 0), n).unwrap();
    g.get(a.at(0, 5), b.at(0, 6)).unwrap();
    g.sync().unwrap();
    assert_eq!(g.local(&b).get(6), 99);
    assert_eq!(g.local(&b).get(7), data[7]);
    g.put(b.at(0, 0), 11).unwrap();
    g.put_bulk(b.at(0, 1), &[12, 13]).unwrap();
    g.sync().unwrap();
    assert_eq!(&g.local(&b).as_slice()[..3], &[11, 12, 13]);

    g.store(a.at(0, 0), 5).unwrap();
    g.store_bulk(a.at(0, 1), &data[..1000]).unwrap();
    g.store_sync(8 + 8000).unwrap();
    assert_eq!(g.local(&a).get(0), 5);
    assert_eq!(&g.local(&a).as_slice()[1..1001], &data[..1000]);
    g.store(a.at(0, 0), 6).unwrap();
    g.all_store_sync().unwrap();
    assert_eq!(g.local(&a).get(0), 6);

    assert_eq!(g.fetch_add(w.at(0, 0), 4).unwrap(), 0);
    assert_eq!(g.fetch_add(w.at(0, 0), 4).unwrap(), 4);
    assert_eq!(g.compare_swap(w.at(0, 0), 1, 50).unwrap(), 8);
    assert_eq!(g.compare_swap(w.at(0, 0), 8, 50).unwrap(), 8);
    assert_eq!(g.local(&w).get(0), 50);
    let mut view = g.local(&w);
    view.set(1, 9);
    assert_eq!(g.read(w.at(0, 1)).unwrap(), 9);

    let echo = g
        .register_rpc(|ctx, arg| [arg, &[ctx.source as u8]].concat())
        .unwrap();
    assert_eq!(g.rpc(0, echo, b"hi").unwrap(), b"hi\0");
    let huge = g
        .register_rpc(|_, _| vec![0; clump::MAX_MEDIUM + 1])
        .unwrap();
    assert!(matches!(g.rpc(0, huge, b""), Err(Error::Rpc(_))));

    g.barrier().unwrap();
    g.barrier_start().unwrap();
    g.barrier_end().unwrap();
    let mut d = [1.5f32, 2.0];
    g.broadcast(0, &mut d).unwrap();
    g.all_reduce(&mut d, ReduceOp::Sum).unwrap();
    assert_eq!(d, [1.5, 2.0]);
    let refused = g.all_reduce(&mut d, ReduceOp::Bxor);
    assert!(
        matches!(refused, Err(Error::BadCollective(_))),
        "{refused:?}"
    );
    assert_eq!(g.all_gather(&[3u32, 4]).unwrap(), [3, 4]);
    assert_eq!(g.all_to_all(&[7i64], 1).unwrap(), [7]);
    assert_eq!(g.all_to_allv(&[vec![1u8, 2]]).unwrap(), [vec![1, 2]]);
    g.poll().unwrap();

    let s = g.stats();
    match local {
        LocalMode::Direct => assert!(s.direct_accesses > 0 && s.shm_bytes < 1000),
        LocalMode::Am => assert!(s.direct_accesses == 0 && s.shm_bytes > 8 * n as u64),
    }
    assert_eq!(s.net_messages, 0);
}

#[test]
fn every_operation_direct() {
    every_operation(LocalMode::Direct);
}

#[test]
fn every_operation_as_active_messages() {
    every_operation(LocalMode::Am);
}

#[test]
fn bad_use_is_an_error() {
    for local in [LocalMode::Direct, LocalMode::Am] {
        let mut g = gas(local);
        let a = g.alloc::<u64>(4).unwrap();
        let b = g.alloc::<u64>(4).unwrap();
        assert!(matches!(
            g.read(a.at(1, 0)),
            Err(Error::BadRank { rank: 1, size: 1 })
        ));
        assert!(matches!(
            g.write(a.at(0, 4), 1),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.read_bulk(a.at(0, 2), &mut [0; 3]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.put_bulk(a.at(0, 0), &[0; 5]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.store_bulk(a.at(0, 1), &[0; 4]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.get_bulk(a.at(0, 0), b.at(0, 1), 4),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.fetch_add(a.at(0, 4), 1),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            g.compare_swap(a.at(3, 0), 0, 1),
            Err(Error::BadRank { .. })
        ));
        let id = g.register_rpc(|_, a| a.to_vec()).unwrap();
        assert!(matches!(g.rpc(2, id, b""), Err(Error::BadRank { .. })));
        assert!(matches!(
            g.rpc(0, id, &vec![0; clump::MAX_MEDIUM + 1]),
            Err(Error::BadSize(_))
        ));
        assert!(matches!(
            g.alloc::<u8>(1 << 20),
            Err(Error::SegmentFull { .. })
        ));
        assert!(matches!(
            g.alloc::<u64>(usize::MAX / 4),
            Err(Error::BadSize(_))
        ));
        assert!(matches!(g.all_to_all(&[1u8, 2], 1), Err(Error::BadSize(_))));
        assert!(matches!(g.all_to_allv::<u8>(&[]), Err(Error::BadSize(_))));
        assert!(matches!(
            g.broadcast(1, &mut [0u8]),
            Err(Error::BadRank { .. })
        ));
        assert!(matches!(g.barrier_end(), Err(Error::BadCollective(_))));
        g.barrier_start().unwrap();
        assert!(matches!(g.barrier_start(), Err(Error::BadCollective(_))));
        assert!(matches!(g.barrier(), Err(Error::BadCollective(_))));
        g.barrier_end().unwrap();
        // Nothing was written by the refused calls.
        assert!(g.local(&a).as_slice().iter().all(|&v| v == 0));
        assert!(g.local(&b).as_slice().iter().all(|&v| v == 0));
    }
}

#[test]
fn bad_configuration_is_an_error() {
    let tiny = GasConfig {
        segment_bytes: 10,
        local: LocalMode::Direct,
    };
    assert!(matches!(Gas::init_with(tiny), Err(Error::Config(_))));
}
