//! The AM layer between processes on different virtual hosts, through the real launcher:
//! `--hosts K` (shared memory within a host, UDP between hosts) and `--transport udp`
//! (UDP between all), with the transport's fault injector dropping, duplicating,
//! reordering and corrupting datagrams. The scenario program checks every byte and that
//! every message arrives exactly once, in order.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn clump_run(n: u32, placement: &[&str], scenario: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clump"));
    cmd.args(["run", "-n", &n.to_string()])
        .args(placement)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_clump-test-am"))
        .args(scenario)
        .envs(env.iter().copied());
    cmd.output().expect("clump run starts")
}

fn assert_ok(out: &Output, ranks: u32, needle: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "job failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert_eq!(
        stdout.matches(needle).count(),
        ranks as usize,
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

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
fn requests_to_a_killed_peer_come_back_unreachable_within_the_timeout() {
    let job = "00000000000c1a55";
    let mut victim = Command::new(env!("CARGO_BIN_EXE_clump-test-am"))
        .arg("victim")
        .env("CLUMP_JOB_ID", job)
        .env("CLUMP_HOST", "1")
        .stdout(Stdio::piped())
        .spawn()
        .expect("victim starts");
    let mut line = String::new();
    BufReader::new(victim.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut words = line.split_whitespace();
    let name: clump::EndpointName = words.next().unwrap().parse().unwrap();
    let tag = u64::from_str_radix(words.next().unwrap(), 16).unwrap();

    let mut config = clump::config::Config::default();
    config.job.job_id = u64::from_str_radix(job, 16).unwrap();
    config.net.timeout = Duration::from_millis(300);
    let bundle = clump::Bundle::with_config(config).unwrap();
    let ep = bundle.create_endpoint(tag).unwrap();
    ep.map(0, name, tag).unwrap();
    let returned = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let r = returned.clone();
    ep.set_return_handler(move |x| r.borrow_mut().push((x.reason, x.args.to_vec())))
        .unwrap();
    for i in 0..5 {
        ep.request(0, 1, &[i]).unwrap();
    }
    victim.kill().unwrap();
    victim.wait().unwrap();
    let killed = Instant::now();
    bundle.set_event_mask(clump::EventMask::NotEmpty);
    while returned.borrow().len() < 5 && killed.elapsed() < Duration::from_secs(10) {
        bundle.wait_timeout(Duration::from_millis(50)).unwrap();
        bundle.poll().unwrap();
    }
    let waited = killed.elapsed();
    let got = returned.borrow().clone();
    assert_eq!(got.len(), 5, "returned: {got:?}");
    assert!(got
        .iter()
        .all(|(reason, _)| *reason == clump::ReturnReason::Unreachable));
    let mut args: Vec<u32> = got.iter().map(|(_, a)| a[0]).collect();
    args.sort();
    assert_eq!(args, vec![0, 1, 2, 3, 4]);
    // The timeout plus the coarse timer's last backoff, with room for a loaded machine.
    assert!(waited < Duration::from_secs(3), "took {waited:?}");
    // Later sends to it return at once.
    ep.request(0, 1, &[9]).unwrap();
    bundle.poll().unwrap();
    assert_eq!(returned.borrow().len(), 6);
    assert_eq!(ep.outstanding(), 0);
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
