//! A blocking wait sleeps: rank 0 waits for a message rank 1 sends only after a pause, and
//! reports how much CPU it burned meanwhile.

use clump::spmd::Spmd;
use clump::EventMask;
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

const PAUSE: Duration = Duration::from_millis(500);

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let got = Rc::new(Cell::new(false));
    let g = got.clone();
    spmd.ep
        .set_handler(1, move |_, _| g.set(true))
        .map_err(|e| e.to_string())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    if spmd.rank() == 1 {
        std::thread::sleep(PAUSE);
        spmd.ep.request(0, 1, &[]).map_err(|e| e.to_string())?;
        spmd.drain().map_err(|e| e.to_string())?;
    } else {
        spmd.bundle.set_event_mask(EventMask::NotEmpty);
        let (wall, cpu) = (Instant::now(), cpu_time());
        while !got.get() {
            spmd.bundle.wait().map_err(|e| e.to_string())?;
            spmd.bundle.poll().map_err(|e| e.to_string())?;
        }
        let (wall, cpu) = (wall.elapsed(), cpu_time() - cpu);
        if wall < PAUSE / 2 {
            return Err(format!(
                "wait returned after {wall:?}, before the message was sent"
            ));
        }
        println!(
            "wait: woke after {} ms, cpu {} ms",
            wall.as_millis(),
            cpu.as_millis()
        );
    }
    spmd.barrier().map_err(|e| e.to_string())?;
    Ok(format!("rank {}: sleep ok", spmd.rank()))
}

fn cpu_time() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::TimeValLike;
    let Ok(usage) = getrusage(UsageWho::RUSAGE_SELF) else {
        return Duration::ZERO;
    };
    let tv = |t: nix::sys::time::TimeVal| Duration::from_micros(t.num_microseconds() as u64);
    tv(usage.user_time()) + tv(usage.system_time())
}
