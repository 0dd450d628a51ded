//! The counts a run reports are exactly what its communication pattern implies. EM3D's read
//! and get versions on 2 processes: each half step fetches every distinct remote neighbour
//! once (a short request and a short reply with the value) and ends with a barrier (one short
//! message on 2 processes); the set-up's collectives are left out. Over UDP all of it is
//! network traffic; on one host with accesses as Active Messages it is all local, and none of
//! it is a rank's traffic to itself.

use clump_apps::em3d::{Edge, Em3dParams};
use clump_apps::layout::{Grid, Layout};
use std::collections::HashSet;
use std::path::Path;

const PARAMS: Em3dParams = Em3dParams {
    nodes: 120,
    degree: 5,
    remote: 0.3,
    span: 1,
    steps: 3,
    seed: 1,
};

fn distinct_remote(edges: &[Edge], me: u32) -> u64 {
    let set: HashSet<_> = edges
        .iter()
        .filter(|e| e.to.rank != me)
        .map(|e| (e.to.rank, e.to.index))
        .collect();
    set.len() as u64
}

/// Per rank: the short messages the pattern implies.
fn expected(ranks: u32) -> Vec<u64> {
    (0..ranks)
        .map(|r| {
            let grid = Grid::new(ranks as usize, 1, Layout::Naive).unwrap();
            let part = PARAMS.generate(r, &grid);
            let fetched = distinct_remote(&part.e_edges, r) + distinct_remote(&part.h_edges, r);
            PARAMS.steps as u64 * (2 * fetched + 2)
        })
        .collect()
}

/// Runs EM3D and returns each rank's `RANK` line as (key, value) pairs.
fn run(version: &str, launcher_args: &[&str], env: &[(&str, &str)]) -> Vec<Vec<(String, u64)>> {
    let args = ["em3d", "--nodes", "120", "--degree", "5", "--remote", "0.3"];
    let steps = ["--steps", "3", "--seed", "1", "--version", version];
    let out = clump_testkit::run(
        &clump_testkit::launcher(),
        2,
        launcher_args,
        Path::new(env!("CARGO_BIN_EXE_clump-apps")),
        &[&args[..], &steps[..]].concat(),
        env,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter(|l| l.starts_with("RANK "))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
                .collect()
        })
        .collect()
}

fn field(rank: &[(String, u64)], key: &str) -> u64 {
    rank.iter().find(|(k, _)| k == key).map(|kv| kv.1).unwrap()
}

#[test]
fn em3d_reads_and_gets_count_exactly_their_requests_replies_and_barriers() {
    let want = expected(2);
    assert!(
        want.iter().all(|&w| w > 20),
        "the graph has remote edges: {want:?}"
    );
    for version in ["read", "get"] {
        let net = run(version, &["--transport", "udp"], &[]);
        let shm = run(version, &[], &[("CLUMP_GAS_LOCAL", "am")]);
        assert_eq!((net.len(), shm.len()), (2, 2));
        for r in 0..2 {
            let (n, s) = (&net[r], &shm[r]);
            assert_eq!(
                field(n, "net_messages"),
                want[r],
                "{version} rank {r}: {n:?}"
            );
            assert_eq!(field(n, "net_bulk_messages"), 0, "{version}: {n:?}");
            // Every reply carries one 8-byte value.
            assert_eq!(
                field(n, "net_bytes"),
                8 * (want[r] / 2 - 3),
                "{version}: {n:?}"
            );
            assert_eq!(field(n, "shm_messages"), 0, "{version}: {n:?}");
            assert_eq!(
                field(s, "shm_messages"),
                want[r],
                "{version} rank {r}: {s:?}"
            );
            assert_eq!(field(s, "self_messages") + field(s, "net_messages"), 0);
            assert_eq!(field(s, "direct_accesses"), 0, "{version}: {s:?}");
        }
    }
}
