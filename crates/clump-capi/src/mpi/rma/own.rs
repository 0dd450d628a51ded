//! Memory of its own for an `MPI_Win_allocate` part the global address space segment has
//! no room for (OSU's one-sided bandwidth programs ask 64 MiB, the segment's default
//! size): a region of shared memory laid out as a segment window is, its guard word
//! first. The processes of the host that reach this one's segment directly map it too;
//! the others reach it through the target's handler, as any window.

use super::super::abi::MPI_ERR_NO_MEM;
use super::super::wired::Failure;
use super::guard::GUARD_BYTES;
use am::SharedRegion;

/// A fresh region for `bytes` of window memory after the guard word (zeroed, as a new
/// region is). More than the host's memory and swap is refused here, as `malloc` refuses
/// it, rather than granted and then fatal when the program touches it.
pub fn create(bytes: usize) -> Result<SharedRegion, Failure> {
    let no_mem = |why: String| {
        (
            MPI_ERR_NO_MEM,
            format!(
                "cannot allocate {bytes} bytes of window memory: {why} (the global address \
                 space segment, CLUMP_GAS_SEGMENT bytes, has no room for it either)"
            ),
        )
    };
    if let Some(host) = host_memory().filter(|&m| bytes as u64 > m) {
        return Err(no_mem(format!(
            "the host has {host} bytes of memory and swap"
        )));
    }
    let len = bytes
        .checked_add(GUARD_BYTES)
        .ok_or_else(|| no_mem("too many bytes".into()))?;
    SharedRegion::create("clump-mpi-window", len).map_err(|e| no_mem(e.to_string()))
}

/// Maps the region of `bytes` of window memory that process `pid` made and holds open as
/// descriptor `fd`; `None` if it cannot (its window is then reached by messages).
pub fn map(pid: u32, fd: u32, bytes: usize) -> Option<SharedRegion> {
    SharedRegion::open(pid, fd, bytes.checked_add(GUARD_BYTES)?).ok()
}

/// The host's memory and swap in bytes, from `/proc/meminfo`.
fn host_memory() -> Option<u64> {
    meminfo_total(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemTotal` plus `SwapTotal` (kB) of a `/proc/meminfo` text, in bytes.
fn meminfo_total(text: &str) -> Option<u64> {
    let kb = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .and_then(|n| n.trim().parse::<u64>().ok())
    };
    Some((kb("MemTotal:")? + kb("SwapTotal:").unwrap_or(0)).saturating_mul(1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_has_its_memory_and_swap() {
        let text = "MemTotal:       24684032 kB\nMemFree:  1 kB\nSwapTotal:      1024 kB\n";
        assert_eq!(meminfo_total(text), Some((24684032 + 1024) * 1024));
        assert_eq!(meminfo_total("MemTotal: 8 kB\n"), Some(8192));
        assert_eq!(meminfo_total("MemFree: 8 kB\n"), None);
    }

    #[test]
    fn a_region_holds_its_guard_and_more_than_the_host_has_is_refused() {
        let r = create(100).unwrap();
        assert_eq!(r.len(), 100 + GUARD_BYTES);
        let peer = map(std::process::id(), r.fd().unwrap(), 100).unwrap();
        assert_eq!(peer.len(), r.len());
        assert!(map(std::process::id(), r.fd().unwrap(), 4096).is_none());
        let e = create(usize::MAX / 2).err().expect("refused");
        assert_eq!(e.0, MPI_ERR_NO_MEM);
        assert!(e.1.contains("CLUMP_GAS_SEGMENT"), "{}", e.1);
    }
}
