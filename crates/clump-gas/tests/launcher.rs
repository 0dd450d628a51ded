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
