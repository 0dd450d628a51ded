//! Processes that die: one killed in the middle of a job, and one that a test kills while
//! messages to it are in flight.

use clump::spmd::Spmd;
use std::time::Duration;

/// Rank 0 streams requests to rank 1, which kills itself after a moment: the launcher
/// must end the job with a clear message.
pub fn stream_until_killed() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    spmd.ep
        .set_handler(1, |t, m| t.reply(2, m.args).unwrap())
        .map_err(|e| e.to_string())?;
    spmd.ep
        .set_handler(2, |_, _| {})
        .map_err(|e| e.to_string())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    loop {
        if spmd.rank() == 1 && start.elapsed() > Duration::from_millis(200) {
            let _ = nix::sys::signal::raise(nix::sys::signal::SIGKILL);
        }
        if spmd.rank() == 0 {
            spmd.ep.request(1, 1, &[7]).map_err(|e| e.to_string())?;
        }
        spmd.bundle.poll().map_err(|e| e.to_string())?;
        if start.elapsed() > Duration::from_secs(30) {
            return Err("the job was not torn down".into());
        }
    }
}

/// A job of one that prints its endpoint's name and tag, then never polls.
pub fn serve_without_polling() -> Result<String, String> {
    let spmd = Spmd::init().map_err(|e| e.to_string())?;
    spmd.ep
        .set_handler(1, |_, _| {})
        .map_err(|e| e.to_string())?;
    println!("{} {:x}", spmd.ep.name(), spmd.ep.tag());
    std::thread::sleep(Duration::from_secs(60));
    Ok("victim was not killed".into())
}

/// Two ranks on two hosts: rank 0 keeps requests in flight to rank 1 until the link
/// between them is cut (by the test, from outside); then they must come back (outcome
/// unknown, or unreachable if they never left) within the network timeout of the last
/// answer, and nothing may hang: rank 1 polls, so the launcher says the silence is the
/// network's.
pub fn survive_cut_link() -> Result<String, String> {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use std::time::Instant;
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let e = |r: clump::Result<()>| r.map_err(|e| e.to_string());
    let last_answer = Rc::new(Cell::new(None::<Instant>));
    let returns = Rc::new(RefCell::new(Vec::new()));
    e(spmd.ep.set_handler(1, |t, m| t.reply(2, m.args).unwrap()))?;
    let l = last_answer.clone();
    e(spmd
        .ep
        .set_handler(2, move |_, _| l.set(Some(Instant::now()))))?;
    let r = returns.clone();
    e(spmd
        .ep
        .set_return_handler(move |m| r.borrow_mut().push((m.reason, Instant::now()))))?;
    spmd.barrier().map_err(|e| e.to_string())?;
    if spmd.rank() == 0 {
        let timeout = clump::config::Config::from_env()
            .map_err(|e| e.to_string())?
            .net
            .timeout;
        let start = Instant::now();
        while returns.borrow().is_empty() || spmd.ep.outstanding() > 0 {
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "not settled within 60 s of the start: {} returned, {} still outstanding",
                    returns.borrow().len(),
                    spmd.ep.outstanding()
                ));
            }
            if spmd.ep.outstanding() < 8 && returns.borrow().is_empty() {
                e(spmd.ep.request(1, 1, &[7]))?;
            }
            spmd.bundle.poll().map_err(|e| e.to_string())?;
        }
        let last = last_answer.get().ok_or("no answer came before the cut")?;
        let got = returns.borrow();
        // Those that left may have run (their answers were lost at the cut): outcome
        // unknown; those that never left: unreachable.
        let expected = [
            clump::ReturnReason::OutcomeUnknown,
            clump::ReturnReason::Unreachable,
        ];
        if got.iter().any(|(r, _)| !expected.contains(r)) {
            return Err(format!("came back for other reasons: {got:?}"));
        }
        let after = got[0].1 - last;
        // The budget counts from the last progress; the coarse timer adds up to one
        // backoff step on top.
        if after > timeout + Duration::from_millis(1500) {
            return Err(format!(
                "returned {after:?} after the last answer (timeout {timeout:?})"
            ));
        }
        println!(
            "cut-link ok: {} requests returned ({} outcome unknown) {after:?} after the last answer",
            got.len(),
            got.iter()
                .filter(|(r, _)| *r == clump::ReturnReason::OutcomeUnknown)
                .count()
        );
    }
    spmd.barrier().map_err(|e| e.to_string())?;
    Ok(format!("rank {} done", spmd.rank()))
}
