//! What `Gas::stats` counts, on a job of one in AM mode (every access is a message to this
//! rank itself): replies and acknowledgements beside their requests, reads with their data,
//! short and bulk apart, and the rank's traffic to itself named as such.

use clump_gas::{Gas, GasConfig, GasStats, LocalMode, SHORT_BYTES};

fn since(before: GasStats, g: &Gas) -> GasStats {
    let s = g.stats();
    GasStats {
        shm_messages: s.shm_messages - before.shm_messages,
        shm_bytes: s.shm_bytes - before.shm_bytes,
        shm_bulk_messages: s.shm_bulk_messages - before.shm_bulk_messages,
        shm_bulk_bytes: s.shm_bulk_bytes - before.shm_bulk_bytes,
        self_messages: s.self_messages - before.self_messages,
        self_bulk_messages: s.self_bulk_messages - before.self_bulk_messages,
        self_bulk_bytes: s.self_bulk_bytes - before.self_bulk_bytes,
        ..GasStats::default()
    }
}

/// `n` messages, `bulk` of them bulk carrying `bulk_bytes`, `bytes` in all, all to itself.
fn to_self(n: u64, bytes: u64, bulk: u64, bulk_bytes: u64) -> GasStats {
    GasStats {
        shm_messages: n,
        shm_bytes: bytes,
        shm_bulk_messages: bulk,
        shm_bulk_bytes: bulk_bytes,
        self_messages: n,
        self_bulk_messages: bulk,
        self_bulk_bytes: bulk_bytes,
        ..GasStats::default()
    }
}

#[test]
fn requests_replies_and_acknowledgements_are_counted_with_their_bytes() {
    let mut g = Gas::init_with(GasConfig {
        segment_bytes: 1 << 20,
        local: LocalMode::Am,
    })
    .expect("a job of one starts");
    let a = g.alloc::<u64>(100).unwrap();
    assert_eq!(SHORT_BYTES, 8);

    // A read: a short request and a short reply with the value.
    let s = g.stats();
    g.read(a.at(0, 3)).unwrap();
    assert_eq!(since(s, &g), to_self(2, 8, 0, 0));

    // A bulk get: a short request, a bulk reply with the data.
    let s = g.stats();
    g.get_bulk(a.at(0, 0), a.at(0, 50), 40).unwrap();
    g.sync().unwrap();
    assert_eq!(since(s, &g), to_self(2, 320, 1, 320));

    // A put: the data and a short acknowledgement.
    let s = g.stats();
    g.put(a.at(0, 1), 7).unwrap();
    g.sync().unwrap();
    assert_eq!(since(s, &g), to_self(2, 8, 0, 0));

    // A store: one message, no acknowledgement.
    let s = g.stats();
    g.store_bulk(a.at(0, 10), &[1u64, 2, 3]).unwrap();
    g.store_sync(24).unwrap();
    assert_eq!(since(s, &g), to_self(1, 24, 1, 24));

    // An atomic: a short request and the old value back.
    let s = g.stats();
    g.fetch_add(a.at(0, 0), 1).unwrap();
    assert_eq!(since(s, &g), to_self(2, 8, 0, 0));
    assert_eq!(g.stats().net_messages, 0);
}
