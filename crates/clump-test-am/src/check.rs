//! Shared helpers: byte patterns that tell messages apart, and a failure log.

use std::cell::RefCell;
use std::rc::Rc;

/// A payload that differs for every (who, size, salt), so misplaced bytes are caught.
pub fn pattern(who: u32, size: usize, salt: u32) -> Vec<u8> {
    (0..size)
        .map(|i| {
            (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(who * 131 + salt * 7 + size as u32) as u8
        })
        .collect()
}

/// Arguments that differ per (who, count, salt).
pub fn words(who: u32, n: usize, salt: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| who.wrapping_mul(1_000_003) ^ (i * 7919 + salt))
        .collect()
}

/// Collects mismatches seen inside handlers (which cannot return errors).
#[derive(Clone, Default)]
pub struct Failures(Rc<RefCell<Vec<String>>>);

impl Failures {
    pub fn expect(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.borrow_mut().push(what());
        }
    }
    pub fn into_result(self, what: &str) -> Result<(), String> {
        let f = self.0.borrow();
        if f.is_empty() {
            Ok(())
        } else {
            Err(format!("{what}: {} failures, first: {}", f.len(), f[0]))
        }
    }
}

pub fn poll_until(spmd: &clump::spmd::Spmd, mut done: impl FnMut() -> bool) -> Result<(), String> {
    let start = std::time::Instant::now();
    while !done() {
        if spmd.bundle.poll().map_err(|e| e.to_string())? == 0 {
            std::thread::yield_now();
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            return Err("timed out waiting for messages".into());
        }
    }
    Ok(())
}
