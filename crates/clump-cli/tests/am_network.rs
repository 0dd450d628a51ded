//! The AM layer between processes on different virtual hosts, through the real launcher:
//! `--hosts K` (shared memory within a host, UDP between hosts) and `--transport udp`
//! (UDP between all), with the transport's fault injector dropping, duplicating,
//! reordering and corrupting datagrams. The scenario program checks every byte and that
//! every message arrives exactly once, in order.

mod support;

use std::time::Duration;
use support::{assert_ok, clump_run};

/// Faults for the transport of every rank: a few percent of each kind.
const FAULTS: &[(&str, &str)] = &[
    ("CLUMP_NET_LOSS", "3"),
    ("CLUMP_NET_DUP", "3"),
    ("CLUMP_NET_REORDER", "3"),
    ("CLUMP_NET_CORRUPT", "1"),
];

#[test]
fn every_kind_between_two_virtual_hosts() {
    // Ranks 0,1 on host 0 and 2,3 on host 1: both protocols in one job.
    let out = clump_run(4, &["--hosts", "2"], &["kinds"], &[]);
    assert_ok(&out, 4, "kinds ok");
}

#[test]
fn every_kind_over_udp_between_all_processes() {
    let out = clump_run(3, &["--transport", "udp"], &["kinds"], &[]);
    assert_ok(&out, 3, "kinds ok");
}

#[test]
fn every_kind_over_udp_through_loss_duplication_reordering_and_corruption() {
    let out = clump_run(2, &["--transport", "udp"], &["kinds"], FAULTS);
    assert_ok(&out, 2, "kinds ok");
}

#[test]
fn many_senders_over_udp_arrive_exactly_once_in_order_through_faults() {
    let out = clump_run(
        4,
        &["--transport", "udp"],
        &["flood", "3000", "200"],
        FAULTS,
    );
    assert_ok(&out, 1, "flood ok: received=9000");
}

#[test]
fn many_senders_of_two_hosts_into_one_endpoint() {
    let out = clump_run(5, &["--hosts", "2"], &["flood", "2000", "200"], &[]);
    assert_ok(&out, 1, "flood ok: received=8000");
}

#[test]
fn replayed_datagrams_run_no_handler_twice() {
    // Each rank's first 64 datagrams (its streams' starts) come again a batch later,
    // from its own port and from a new one; the flood checks each message once, in order.
    let out = clump_run(
        4,
        &["--transport", "udp"],
        &["flood", "3000", "200"],
        &[("CLUMP_NET_REPLAY", "64")],
    );
    assert_ok(&out, 1, "flood ok: received=9000");
}

#[test]
fn forged_datagrams_from_many_ports_get_no_state_and_change_no_result() {
    let bound = 1 << 20;
    // Unsealed (a trusted network), so that the forgers' datagrams reach the admission.
    let (stdout, stat) = forge(&[
        ("CLUMP_NET_REORDER_TOTAL", &bound.to_string()),
        ("CLUMP_NET_AUTH", "0"),
    ]);
    let forged = field(&stdout, "rank 1: forged ");
    // Rank 1 is rank 0's only peer; the forgers' datagrams that arrived were refused.
    assert_eq!(stat("peers"), 1, "{stdout}");
    assert!(forged >= 30_000 && stat("refused") > 0, "{stdout}");
    assert!(stat("reorder_peak") <= bound, "{stdout}");
    // Each of rank 1's 1000 requests ran once (the handler checks their order).
    assert_eq!(stat("delivered"), 1000, "{stdout}");
}

#[test]
fn with_the_datagram_mac_forged_datagrams_are_dropped_before_the_protocol() {
    let (stdout, stat) = forge(&[("CLUMP_NET_AUTH", "1")]);
    // The forgers know the job id but not the key: their datagrams never reach the
    // admission check, and rank 1's real ones all pass.
    assert!(stat("unauthenticated") > 0, "{stdout}");
    assert_eq!((stat("refused"), stat("peers")), (0, 1), "{stdout}");
    assert_eq!(stat("delivered"), 1000, "{stdout}");
}

#[test]
fn forged_in_sequence_requests_from_the_peers_own_port_are_dropped_and_counted() {
    // Two virtual hosts, the default settings: the seal is on between hosts.
    let out = clump_run(2, &["--hosts", "2"], &["spoof"], &[]);
    let stdout = assert_ok(&out, 2, "spoof ok");
    let forged = field(&stdout, "rank 1 forged=");
    let dropped = field(&stdout, "rank 0 auth=true unauthenticated=");
    // None of the forged requests ran and each real one ran once, in order (the
    // handlers check both); every forged datagram that arrived was counted.
    assert!(
        forged >= 1000 && (1..=forged).contains(&dropped),
        "{stdout}"
    );
    assert_eq!(field(&stdout, " delivered="), 1000, "{stdout}");
}

#[test]
fn ranks_whose_datagram_seals_differ_say_so() {
    // As an MPMD launch can make it: rank 1 alone turns the seal off. Each side drops
    // the other's datagrams, says why, and its request comes back after the timeout.
    let only_rank_1 = r#"[ "$CLUMP_RANK" = 1 ] && export CLUMP_NET_AUTH=0; exec "$0" ping"#;
    let out = clump_testkit::run(
        std::path::Path::new(env!("CARGO_BIN_EXE_clump")),
        2,
        &["--hosts", "2"],
        std::path::Path::new("/bin/sh"),
        &["-c", only_rank_1, support::test_am().to_str().unwrap()],
        &[("CLUMP_NET_TIMEOUT_MS", "300")],
    );
    let stdout = assert_ok(&out, 2, "returned (OutcomeUnknown)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (rank, said) in [
        (0, "carry no seal (CLUMP_NET_AUTH=1 here): dropped"),
        (1, "are sealed (CLUMP_NET_AUTH=0 here): dropped"),
    ] {
        assert!(
            stderr.contains(said) && stderr.contains("the same CLUMP_NET_AUTH"),
            "rank {rank} does not say {said:?}: {stdout}{stderr}"
        );
    }
}

/// Runs the forge scenario on 2 ranks over UDP with `env`; returns its output and the
/// receiver's (rank 0's) figures by name.
fn forge(env: &[(&str, &str)]) -> (String, impl Fn(&str) -> u64) {
    let out = clump_run(2, &["--transport", "udp"], &["forge"], env);
    let stdout = assert_ok(&out, 2, "forge ok");
    let receiver = stdout
        .lines()
        .find(|l| l.contains("forge ok: rank 0"))
        .unwrap()
        .to_owned();
    (stdout, move |name: &str| {
        field(&receiver, &format!(" {name}="))
    })
}

/// The number right after `key` in `text`.
fn field(text: &str, key: &str) -> u64 {
    let rest = text
        .split(key)
        .nth(1)
        .unwrap_or_else(|| panic!("no {key:?} in {text}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {key:?} in {text}"))
}

#[test]
fn undeliverable_messages_come_back_over_the_network() {
    let out = clump_run(
        2,
        &["--transport", "udp"],
        &["errors"],
        &[("CLUMP_NET_TIMEOUT_MS", "300")],
    );
    assert_ok(&out, 2, "errors ok");
}

#[test]
fn requests_to_a_killed_peer_come_back_outcome_unknown_within_the_timeout() {
    let job = "00000000000c1a55";
    let mut config = clump::config::Config::default();
    config.job.job_id = u64::from_str_radix(job, 16).unwrap();
    config.net.timeout = Duration::from_millis(300);
    let r =
        support::requests_to_a_killed_peer(&[("CLUMP_JOB_ID", job), ("CLUMP_HOST", "1")], config);
    // The configured 300 ms, not the default 10 s: the timeout plus the coarse timer's
    // last backoff, with room for a machine loaded twentyfold.
    assert!(r.waited < Duration::from_secs(9), "took {:?}", r.waited);
    // No launcher to ask: the five left and no answer came, so whether they ran is not
    // known; a send after that never leaves.
    r.check(
        clump::ReturnReason::OutcomeUnknown,
        clump::ReturnReason::Unreachable,
    );
}

#[test]
fn a_rank_stopped_for_twice_the_timeout_is_waited_for_and_the_job_completes() {
    let out = clump_run(
        2,
        &["--transport", "udp"],
        &["stop-resume"],
        &[("CLUMP_NET_TIMEOUT_MS", "500")],
    );
    assert_ok(&out, 2, "stop-resume ok");
}

/// A stop of a whole number of timeouts ends when the peer judges the silence again:
/// the resumed rank has told the launcher it polls before its datagrams arrive. It is
/// still waited for. Under `CLUMP_SOAK=1`, 30 runs in a row of each, and of a 20 s stop
/// at the default timeout (10 s).
#[test]
fn a_rank_stopped_for_two_three_and_four_timeouts_is_waited_for() {
    let soak = std::env::var("CLUMP_SOAK").as_deref() == Ok("1");
    let runs = if soak { 30 } else { 1 };
    let mut cases = vec![("300", "2"), ("300", "3"), ("300", "4")];
    if soak {
        cases.push(("10000", "2"));
    }
    for (timeout_ms, timeouts) in cases {
        for run in 0..runs {
            let out = clump_run(
                2,
                &["--transport", "udp"],
                &["stop-resume", timeouts],
                &[("CLUMP_NET_TIMEOUT_MS", timeout_ms)],
            );
            eprintln!(
                "stop of {timeouts} x {timeout_ms} ms, run {run}: {:?}",
                out.status
            );
            assert_ok(&out, 2, "stop-resume ok");
        }
    }
}

#[test]
fn requests_to_a_killed_rank_come_back_peer_gone_before_the_timeout() {
    // A timeout far longer than the test may take: only the launcher's word that the
    // process died can return the requests in time.
    let out = clump_run(
        2,
        &["--transport", "udp"],
        &["peer-gone"],
        &[("CLUMP_NET_TIMEOUT_MS", "120000")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("peer-gone ok"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // The killed rank fails the job, as a crash should.
    assert!(!out.status.success());
    assert!(stderr.contains("rank 1"), "{stderr}");
}

#[test]
fn heavy_loss_delays_but_never_returns_messages_to_live_peers() {
    for loss in ["20", "50"] {
        let out = clump_run(
            3,
            &["--transport", "udp"],
            &["flood", "150", "200"],
            &[("CLUMP_NET_LOSS", loss), ("CLUMP_NET_TIMEOUT_MS", "2000")],
        );
        assert_ok(&out, 1, "flood ok: received=300");
    }
}

#[test]
fn the_launcher_refuses_contradictory_placements() {
    for placement in [
        &["--transport", "shm", "--hosts", "2"][..],
        &["--hosts", "3"][..],
    ] {
        let out = clump_run(2, placement, &["kinds"], &[]);
        assert_eq!(out.status.code(), Some(2), "{placement:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--hosts"), "{stderr}");
    }
}
