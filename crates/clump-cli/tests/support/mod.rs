//! What the multi-process tests share: starting a job of the scenario program through
//! the real launcher, checking its output, and a peer that dies with requests in flight.

#![allow(dead_code)] // each test file uses part of it

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The scenario program, `target/<profile>/clump-test-am`, brought up to date first: a
/// package outside the default members, which `cargo test --test NAME` does not build.
pub fn test_am() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args(["build", "-q", "-p", "clump-test-am"]);
        if !cfg!(debug_assertions) {
            cargo.arg("--release");
        }
        assert!(
            cargo.status().expect("cargo runs").success(),
            "building clump-test-am failed"
        );
        let clump = Path::new(env!("CARGO_BIN_EXE_clump"));
        clump.parent().unwrap().join("clump-test-am")
    })
}

/// Runs `clump run -n N PLACEMENT -- clump-test-am SCENARIO` with `env` added.
pub fn clump_run(n: u32, placement: &[&str], scenario: &[&str], env: &[(&str, &str)]) -> Output {
    clump_testkit::run(
        Path::new(env!("CARGO_BIN_EXE_clump")),
        n,
        placement,
        test_am(),
        scenario,
        env,
    )
}

/// Asserts the job succeeded and printed `needle` `ranks` times; returns its stdout.
pub fn assert_ok(out: &Output, ranks: u32, needle: &str) -> String {
    clump_testkit::assert_ok(out, needle, ranks as usize)
}

/// Starts a process that never polls (with `env`), sends it five requests from an
/// endpoint configured by `config`, kills it, and waits for the requests to come back.
/// Returns their reasons and first arguments in the order they came, how long that took
/// after the kill, and the endpoint (and its log) for what the test checks next.
pub fn requests_to_a_killed_peer(env: &[(&str, &str)], config: clump::config::Config) -> Returned {
    let mut victim = Command::new(test_am())
        .arg("victim")
        .envs(env.iter().copied())
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

    let bundle = clump::Bundle::with_config(config).unwrap();
    let ep = bundle.create_endpoint(tag).unwrap();
    ep.map(0, name, tag).unwrap();
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let r = log.clone();
    ep.set_return_handler(move |x| r.borrow_mut().push((x.reason, x.args[0])))
        .unwrap();
    for i in 0..5 {
        ep.request(0, 1, &[i]).unwrap(); // the victim never polls
    }
    assert_eq!(ep.outstanding(), 5);
    victim.kill().unwrap();
    victim.wait().unwrap();
    let killed = Instant::now();
    bundle.set_event_mask(clump::EventMask::NotEmpty);
    // A guard against a hang only: each test bounds `waited` as its case allows.
    while log.borrow().len() < 5 && killed.elapsed() < Duration::from_secs(120) {
        bundle.wait_timeout(Duration::from_millis(50)).unwrap();
        bundle.poll().unwrap();
    }
    Returned {
        waited: killed.elapsed(),
        bundle,
        ep,
        log,
    }
}

pub struct Returned {
    pub waited: Duration,
    pub bundle: clump::Bundle,
    pub ep: clump::Endpoint,
    pub log: std::rc::Rc<std::cell::RefCell<Vec<(clump::ReturnReason, u32)>>>,
}

impl Returned {
    /// Checks the five came back for `reason`, and that a later send comes back at once
    /// for `later`.
    pub fn check(&self, reason: clump::ReturnReason, later: clump::ReturnReason) {
        let mut got = self.log.borrow().clone();
        got.sort_by_key(|x| x.1);
        assert_eq!(got, (0..5).map(|i| (reason, i)).collect::<Vec<_>>());
        self.ep.request(0, 1, &[9]).unwrap();
        self.bundle.poll().unwrap();
        assert_eq!(self.log.borrow().last(), Some(&(later, 9)));
        assert_eq!(self.ep.outstanding(), 0);
    }
}
