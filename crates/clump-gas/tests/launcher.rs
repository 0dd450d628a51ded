//! Every GAS operation and bad use, checked byte by byte by `clump-test-gas` in jobs the
//! real launcher starts: one process, shared memory, UDP and two virtual hosts, with
//! same-host accesses direct and as Active Messages.

fn job(n: u32, placement: &[&str], local: &str) {
    clump_testkit::run_job(
        n,
        placement,
        env!("CARGO_BIN_EXE_clump-test-gas"),
        &[("CLUMP_GAS_LOCAL", local), ("CLUMP_GAS_SEGMENT", "8M")],
        "gas ok",
    );
}

#[test]
fn shared_memory_direct_and_am() {
    for local in ["direct", "am"] {
        for n in [1, 2, 4] {
            job(n, &[], local);
        }
    }
}

#[test]
fn udp_and_two_hosts() {
    for local in ["direct", "am"] {
        job(2, &["--transport", "udp"], local);
        job(4, &["--hosts", "2"], local);
    }
}

/// `clump-test-gas threads`: 4 threads per rank share one `Gas` (`SharedGas`), each
/// completing its own puts and gets with its own sync; every word and every fetch_add
/// accounted for, over shared memory (direct and as Active Messages), UDP and two hosts.
#[test]
fn threads_share_one_gas_and_each_syncs_its_own_accesses() {
    let placements: [(&[&str], &str); 4] = [
        (&[], "direct"),
        (&[], "am"),
        (&["--transport", "udp"], "am"),
        (&["--hosts", "2"], "am"),
    ];
    for (placement, local) in placements.repeat(clump_testkit::soak_runs()) {
        let out = clump_testkit::run(
            &clump_testkit::launcher(),
            2,
            placement,
            std::path::Path::new(env!("CARGO_BIN_EXE_clump-test-gas")),
            &["threads"],
            &[("CLUMP_GAS_LOCAL", local), ("CLUMP_GAS_SEGMENT", "8M")],
        );
        clump_testkit::assert_ok(&out, "gas ok threads=4", 2);
    }
}
