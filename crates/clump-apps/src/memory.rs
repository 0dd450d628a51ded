//! Memory per processor, as paper 001's Table 3 reports it: the most this process has held
//! in memory so far (the kernel's resident high-water mark, `VmHWM`). It counts the pages the
//! process touched, its share of the global address space's segment and of the message
//! queues included, so it bounds what the application needs from above.

/// The resident high-water mark in bytes, or `None` where `/proc/self/status` lacks it.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    high_water_mark(&status)
}

/// `VmHWM` of a `/proc/<pid>/status` text, in bytes (the kernel writes it in kB).
fn high_water_mark(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark_in_bytes() {
        let status =
            "Name:\tclump-apps\nVmPeak:\t  90000 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(high_water_mark(status), Some(5 << 20));
        assert_eq!(high_water_mark("VmRSS:\t4000 kB\n"), None);
        assert_eq!(high_water_mark("VmHWM:\tmany kB\n"), None);
        // This process has touched some memory.
        assert!(peak_resident_bytes().unwrap() > 0);
    }
}
