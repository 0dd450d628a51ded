//! Death decided by evidence, over the network: a rank stopped for longer than the
//! network timeout is waited for, and one that is killed is reported gone at once.

use clump::spmd::Spmd;
use clump::ReturnReason;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Requests rank 0 sends in `stop-resume`.
const REQUESTS: u32 = 400;

fn e(r: clump::Result<()>) -> Result<(), String> {
    r.map_err(|e| e.to_string())
}

fn net_timeout() -> Result<Duration, String> {
    Ok(clump::config::Config::from_env()
        .map_err(|e| e.to_string())?
        .net
        .timeout)
}

/// Rank 0 streams requests to rank 1, which stops itself (SIGSTOP) midway for `timeouts`
/// network timeouts; a helper process resumes it. Every request must be answered
/// exactly once and none returned: a stopped process is not a dead one.
pub fn stop_resume(timeouts: u32) -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let ran = Rc::new(Cell::new(0u32));
    let answered = Rc::new(Cell::new(0u32));
    let returned = Rc::new(RefCell::new(Vec::new()));
    let r = ran.clone();
    e(spmd.ep.set_handler(1, move |t, m| {
        r.set(r.get() + 1);
        t.reply(2, m.args).unwrap()
    }))?;
    let a = answered.clone();
    e(spmd.ep.set_handler(2, move |_, _| a.set(a.get() + 1)))?;
    let back = returned.clone();
    e(spmd
        .ep
        .set_return_handler(move |m| back.borrow_mut().push((m.reason, m.args[0]))))?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let stop = timeouts * net_timeout()?;
    let start = Instant::now();
    if spmd.rank() == 1 {
        // Answer a first share, then stop; the helper resumes this process.
        while ran.get() < REQUESTS / 4 {
            spmd.bundle.poll().map_err(|e| e.to_string())?;
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!("rank 1: {} requests ran: stuck", ran.get()));
            }
        }
        let resume = format!(
            "sleep {}; kill -CONT {}",
            stop.as_secs_f64(),
            std::process::id()
        );
        std::process::Command::new("sh")
            .args(["-c", &resume])
            .spawn()
            .map_err(|e| format!("the helper that resumes this process: {e}"))?;
        let _ = nix::sys::signal::raise(nix::sys::signal::SIGSTOP);
    } else {
        let mut sent = 0;
        while answered.get() + (returned.borrow().len() as u32) < REQUESTS {
            if sent < REQUESTS && spmd.ep.outstanding() < 8 {
                e(spmd.ep.request(1, 1, &[sent]))?;
                sent += 1;
            }
            spmd.bundle.poll().map_err(|e| e.to_string())?;
            if start.elapsed() > stop + Duration::from_secs(60) {
                return Err(format!("{} answered of {REQUESTS}: stuck", answered.get()));
            }
        }
        // Said now, not after the barrier: a peer given up never reaches it.
        if !returned.borrow().is_empty() {
            return Err(format!("rank 0: came back: {:?}", returned.borrow()));
        }
    }
    spmd.barrier().map_err(|e| e.to_string())?;
    let got = returned.borrow();
    if !got.is_empty() {
        return Err(format!("rank {}: came back: {got:?}", spmd.rank()));
    }
    match spmd.rank() {
        0 if answered.get() != REQUESTS => Err(format!("{} answered", answered.get())),
        1 if ran.get() != REQUESTS => Err(format!("{} requests ran", ran.get())),
        _ => Ok(format!(
            "stop-resume ok: rank {}, {REQUESTS} requests each answered once, none returned, stopped {stop:?}",
            spmd.rank()
        )),
    }
}

/// Rank 0 sends requests to rank 1, which never polls and is killed (SIGKILL by
/// itself); they must come back "peer gone" long before the network timeout would end
/// them. Rank 0 reports and exits; the launcher then ends the job (rank 1 failed).
pub fn peer_gone() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let returned = Rc::new(RefCell::new(Vec::new()));
    e(spmd.ep.set_handler(1, |_, _| {}))?;
    let back = returned.clone();
    e(spmd
        .ep
        .set_return_handler(move |m| back.borrow_mut().push(m.reason)))?;
    spmd.barrier().map_err(|e| e.to_string())?;
    if spmd.rank() == 1 {
        std::thread::sleep(Duration::from_millis(300));
        let _ = nix::sys::signal::raise(nix::sys::signal::SIGKILL);
    }
    for i in 0..4 {
        e(spmd.ep.request(1, 1, &[i]))?;
    }
    let start = Instant::now();
    let timeout = net_timeout()?;
    while returned.borrow().len() < 4 {
        spmd.bundle.poll().map_err(|e| e.to_string())?;
        if start.elapsed() > timeout {
            return Err(format!("only {:?} came back", returned.borrow()));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let got = returned.borrow();
    if got.iter().any(|r| *r != ReturnReason::PeerGone) {
        return Err(format!("came back for other reasons: {got:?}"));
    }
    println!(
        "peer-gone ok: 4 requests came back peer gone {:?} after they were sent (timeout {timeout:?})",
        start.elapsed()
    );
    std::process::exit(0);
}
