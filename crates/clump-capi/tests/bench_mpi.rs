//! `clump bench mpi` end to end (it builds its program with `clump mpicc`, so it lives
//! beside these tests, which have libclump built): one JSON object with `run`, every
//! figure's speedup in the direction its name says, the size range chosen, one plot per
//! benchmark. Shape only, never times. Skips where Open MPI is not installed.

#[allow(dead_code)] // not every helper serves this test
mod support;

use support::{bench_json, tree};

#[test]
fn bench_mpi_prints_one_object_with_speedups_within_the_chosen_sizes_and_plots() {
    let plots = tree().out.join("bench-mpi-plots");
    let _ = std::fs::remove_dir_all(&plots);
    let plots_arg = plots.to_string_lossy();
    let Some(doc) = bench_json(&[
        "mpi",
        "--quick",
        "--json",
        "--rounds",
        "1",
        "--min-bytes",
        "64",
        "--max-bytes",
        "64K",
        "--plot",
        &plots_arg,
    ]) else {
        return;
    };
    assert_eq!(doc["benchmark"], "mpi");
    assert_eq!(doc["quick"], true);
    assert_eq!(
        (doc["min_bytes"].as_u64(), doc["max_bytes"].as_u64()),
        (Some(64), Some(64 << 10))
    );
    assert!(doc["run"]["cores"].as_u64().unwrap() >= 1, "{doc}");
    let figures = doc["figures"].as_array().unwrap();
    let one_sided = [
        "put_lat/lock",
        "get_lat/fence",
        "put_bw/lock",
        "get_bw/fence",
        "acc_lat/lock",
        "fop_rate/lock",
        "fop_rate/fence",
    ];
    for bench in ["latency", "bandwidth", "msg_rate", "allreduce", "alltoall"]
        .into_iter()
        .chain(one_sided)
    {
        for t in ["shm", "network"] {
            assert!(
                figures
                    .iter()
                    .any(|f| f["bench"] == bench && f["transport"] == t),
                "no {bench} over {t}: {doc}"
            );
        }
    }
    for f in figures {
        let bytes = f["bytes"].as_u64().unwrap();
        let single = ["acc_lat", "fop_rate"]
            .iter()
            .any(|b| f["bench"].as_str().unwrap().starts_with(b));
        assert!(
            (64..=64 << 10).contains(&bytes) || (single && bytes == 8),
            "{f}"
        );
        let (clump, openmpi) = (f["clump"].as_f64().unwrap(), f["openmpi"].as_f64().unwrap());
        assert!(clump > 0.0 && openmpi > 0.0, "{f}");
        let expected = if ["MB/s", "Mop/s", "Mmsg/s"].contains(&f["unit"].as_str().unwrap()) {
            clump / openmpi
        } else {
            openmpi / clump
        };
        let speedup = f["speedup"].as_f64().unwrap();
        assert!((speedup - expected).abs() <= 1e-9 * expected, "{f}");
    }
    let sizes: Vec<u64> = figures
        .iter()
        .filter(|f| f["bench"] == "latency" && f["transport"] == "shm")
        .map(|f| f["bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(
        sizes,
        [64, 1024, 16384, 65536],
        "quick: times 16 from the least, the most last"
    );
    // The message rate counts the bandwidth run's messages: bandwidth / size, per size.
    for bw in figures.iter().filter(|f| f["bench"] == "bandwidth") {
        let rate = figures
            .iter()
            .find(|f| {
                f["bench"] == "msg_rate"
                    && f["transport"] == bw["transport"]
                    && f["bytes"] == bw["bytes"]
            })
            .unwrap_or_else(|| panic!("no message rate beside {bw}"));
        assert_eq!(rate["unit"], "Mmsg/s", "{rate}");
        let bytes = bw["bytes"].as_f64().unwrap();
        for who in ["clump", "openmpi"] {
            let (mb_s, m_s) = (bw[who].as_f64().unwrap(), rate[who].as_f64().unwrap());
            assert!(
                (mb_s / bytes - m_s).abs() <= 1e-3 * m_s + 1e-4,
                "{bw} {rate}"
            );
        }
    }
    for name in [
        "latency",
        "bandwidth",
        "message-rate",
        "allreduce",
        "alltoall",
        "put-latency",
        "get-latency",
        "put-bandwidth",
        "get-bandwidth",
    ] {
        let png = std::fs::read(plots.join(format!("mpi-{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
    }
    std::fs::remove_dir_all(&plots).unwrap();
}
