//! What `clump info` says of the datagram seal (`CLUMP_NET_AUTH`, `auth.rs`) here: whether
//! the CPU has the AES instructions its MAC runs on (libaegis picks its code when the
//! program starts, a portable one where they are missing) and how long tagging a short
//! datagram and a 64 KiB one takes on this machine, so that a user can weigh its cost.

use crate::transport::net::auth::{DatagramKey, SEAL_LEN};
use std::time::Instant;

/// One line: the code the MAC runs and its time per datagram here.
pub fn describe() -> String {
    // Any key times the same; this one seals nothing that is sent.
    let key = DatagramKey::new(0x5eed);
    let short = seconds_per_tag(&key, 64, 2000);
    let long = seconds_per_tag(&key, 65_536, 40);
    let code = match aes_instructions() {
        Some(which) => format!("AEGIS on the CPU's AES instructions ({which})"),
        None => "AEGIS in portable code (this CPU has no AES instructions)".to_owned(),
    };
    let gb_s = 65_536.0 / long / 1e9;
    // Three figures, down to a slow CPU's fraction of a GB/s.
    let digits = if gb_s >= 10.0 { 0 } else if gb_s >= 1.0 { 1 } else { 3 };
    format!(
        "{code}: a 64-byte datagram in {:.0} ns, a 64 KiB one in {:.1} us ({gb_s:.digits$} GB/s)",
        short * 1e9,
        long * 1e6,
    )
}

/// Seconds to tag a datagram of `len` bytes: the best of 5 rounds of `n` (a shared
/// machine's other work only ever adds time).
fn seconds_per_tag(key: &DatagramKey, len: usize, n: u32) -> f64 {
    let mut datagram = vec![0u8; SEAL_LEN + len];
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..n {
                key.seal(std::hint::black_box(&mut datagram), &[]);
            }
            start.elapsed().as_secs_f64() / f64::from(n)
        })
        .fold(f64::MAX, f64::min)
}

/// The AES instructions libaegis's fast code needs, if this CPU has them.
fn aes_instructions() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("avx") {
        let wide = std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("avx2");
        return Some(if wide { "AES-NI and VAES" } else { "AES-NI" });
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("aes") {
        return Some("ARMv8 AES");
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_names_the_code_and_both_times() {
        let line = super::describe();
        assert!(line.starts_with("AEGIS "), "{line}");
        assert!(line.contains("a 64-byte datagram in ") && line.ends_with(" GB/s)"), "{line}");
    }
}
