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
            // SAFETY: sending a signal to ourselves has no memory-safety preconditions.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
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
