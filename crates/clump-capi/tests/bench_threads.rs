//! `clump bench threads` end to end (it builds its programs with `clump mpicc`, so it
//! lives beside these tests, which have libclump built): one JSON object with a row per
//! thread count, each with clump's AM_PAR, clump's MPI and Open MPI figures and the
//! speedups they give, over shared memory and over the network. Shape only, never times.
//! Skips where Open MPI is not installed.

#[allow(dead_code)] // not every helper serves this test
mod support;

use support::bench_json;

#[test]
fn bench_threads_reports_am_par_clump_mpi_and_open_mpi_for_each_thread_count() {
    for transport in ["shm", "udp"] {
        let Some(doc) = bench_json(&[
            "threads",
            "--quick",
            "--json",
            "--rounds",
            "1",
            "--threads",
            "1,4",
            "--iters",
            "200",
            "--transport",
            transport,
        ]) else {
            return;
        };
        assert_eq!(doc["benchmark"], "threads");
        assert_eq!(doc["transport"], transport);
        assert_eq!(doc["iters"], 200);
        let rows = doc["figures"].as_array().unwrap();
        let counts: Vec<u64> = rows
            .iter()
            .map(|r| r["threads"].as_u64().unwrap())
            .collect();
        assert_eq!(counts, [1, 4], "{doc}");
        for row in rows {
            let rate = |side: &str| {
                let f = &row[side];
                assert!(f["lat_us"].as_f64().unwrap() > 0.0, "{side}: {row}");
                f["rate_per_s"].as_f64().unwrap()
            };
            let (am, mpi, ompi) = (rate("clump_am_par"), rate("clump_mpi"), rate("openmpi"));
            assert!(am > 0.0 && mpi > 0.0 && ompi > 0.0, "{row}");
            let close = |got: &serde_json::Value, want: f64| {
                (got.as_f64().unwrap() - want).abs() <= 1e-9 * want
            };
            assert!(close(&row["speedup_am_par"], am / ompi), "{row}");
            assert!(close(&row["speedup_clump_mpi"], mpi / ompi), "{row}");
        }
    }
}
