//! Whether a process this thread wakes, or is woken by, shares its CPU. On a loaded machine
//! two processes that exchange messages often settle on one CPU (the scheduler places a
//! woken process on its last CPU or its waker's). Then a wait that spins first
//! (`CLUMP_SPIN_US`) only delays the process it waits for, which cannot run until the
//! spin ends: every hop of a collective cost that whole spin (about 70 µs, against 15
//! without it). So a sleeper records the CPU it went to sleep on
//! (`BlockHeader::sleep_cpu`), a wake-up carries the CPU of its sender (`wake.rs`), and a
//! thread that woke a process asleep on its CPU, or was woken from its CPU, sleeps at its
//! next wait without spinning.

use std::cell::Cell;

thread_local! {
    /// This thread woke, or was woken by, a process on the CPU it runs on.
    static SHARED_CPU: Cell<bool> = const { Cell::new(false) };
}

/// The CPU the calling thread runs on (`u32::MAX` if the system cannot say).
pub fn this_cpu() -> u32 {
    nix::sched::sched_getcpu().map_or(u32::MAX, |c| c as u32)
}

/// A process this thread just woke, or was just woken by, ran on `cpu`.
pub fn note_peer_on(cpu: u32) {
    if cpu != u32::MAX && cpu == this_cpu() {
        SHARED_CPU.set(true);
    }
}

/// Whether this thread woke, or was woken by, a process on its own CPU since it last
/// asked: its next wait should sleep without spinning first.
pub fn take_shared_cpu() -> bool {
    SHARED_CPU.replace(false)
}

/// Keeps the calling thread on the CPU it runs on, so that tests compare like with like.
#[cfg(test)]
pub fn pin_this_thread() {
    let mut only = nix::sched::CpuSet::new();
    only.set(this_cpu() as usize).unwrap();
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &only).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_peer_on_this_cpu_counts_and_once() {
        pin_this_thread();
        let cpu = this_cpu();
        assert!(!take_shared_cpu());
        note_peer_on(u32::MAX);
        note_peer_on(cpu.wrapping_add(1));
        assert!(!take_shared_cpu(), "a peer on another CPU");
        note_peer_on(cpu);
        assert!(take_shared_cpu());
        assert!(!take_shared_cpu(), "asked once, forgotten");
    }
}
