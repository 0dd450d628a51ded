//! The AM layer between processes, through the real launcher (`clump run`) and the
//! scenario program `clump-test-am`, which checks every byte it receives.

mod support;

use support::{assert_ok, clump_run};

/// The number printed right after `key` on the first line of `text` that contains
/// `line` (ranks print in any order, and several may use the same key).
fn number_after(text: &str, line: &str, key: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.contains(line))?
        .split(key)
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn clump_shm_files() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|n: &String| n.contains("clump"))
        .collect()
}

#[test]
fn every_kind_at_and_around_its_limits_between_two_processes() {
    let out = clump_run(2, &[], &["kinds"], &[]);
    assert_ok(&out, 2, "kinds ok");
}

#[test]
fn every_kind_around_a_ring_of_four_processes() {
    let out = clump_run(4, &[], &["kinds"], &[]);
    assert_ok(&out, 4, "kinds ok");
}

#[test]
fn many_senders_fill_one_endpoint_and_every_message_arrives_once() {
    // A wide credit window lets 7 senders overrun the 256-slot queue and 16 bulk blocks.
    let out = clump_run(8, &[], &["flood", "3000"], &[("CLUMP_CREDITS", "64")]);
    let stdout = assert_ok(&out, 1, "flood ok: received=21000");
    let waits: u64 = number_after(&stdout, "flood ok:", "queue_full_waits=")
        .expect("rank 0 reports the queue-full waits");
    assert!(
        waits > 0,
        "the queue never filled, so the test proved nothing:\n{stdout}"
    );
}

#[test]
fn sixteen_processes_on_two_cores_finish() {
    let out = clump_run(16, &[], &["flood", "500"], &[]);
    assert_ok(&out, 1, "flood ok: received=7500");
}

#[test]
fn a_rank_maps_only_the_peers_it_talks_to() {
    let out = clump_run(32, &[], &["neighbours"], &[]);
    assert_ok(&out, 32, "neighbours ok");
}

#[test]
fn undeliverable_messages_return_with_their_reasons() {
    let out = clump_run(2, &[], &["errors"], &[]);
    assert_ok(&out, 2, "errors ok");
}

#[test]
fn a_blocking_wait_sleeps_instead_of_spinning() {
    let out = clump_run(2, &[], &["sleep"], &[]);
    let stdout = assert_ok(&out, 2, "sleep ok");
    let cpu_ms: u64 =
        number_after(&stdout, "wait: woke", "cpu ").expect("rank 0 reports its CPU time");
    // Half a second of waiting; a spinning wait would burn all of it.
    assert!(
        cpu_ms < 150,
        "the wait burned {cpu_ms} ms of CPU:\n{stdout}"
    );
}

#[test]
fn a_killed_process_ends_the_job_quickly_and_leaves_no_shared_memory() {
    let before = clump_shm_files();
    let out = clump_run(2, &[], &["stream-until-killed"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("rank 1") && stderr.contains("SIGKILL"),
        "stderr:\n{stderr}"
    );
    // Quickly: the launcher ended rank 0 on the kill, before rank 0 gave up by itself.
    assert!(
        stderr.contains("summary: rank 1 failed, rank 0 ended by the launcher;"),
        "stderr:\n{stderr}"
    );
    assert_eq!(
        clump_shm_files(),
        before,
        "shared-memory files were left behind"
    );
}

#[test]
fn requests_to_a_process_that_dies_come_back_as_peer_gone() {
    let r = support::requests_to_a_killed_peer(&[], clump::config::Config::default());
    // In flight when it died, they may have run; a later send never leaves.
    r.check(
        clump::ReturnReason::PeerGone,
        clump::ReturnReason::Unreachable,
    );
}
