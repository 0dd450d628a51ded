//! Distributed locks on a symmetric `long`: a ticket lock on PE 0's copy of it. The high
//! half counts tickets handed out, the low half the ticket now served, so waiters are
//! served in the order they came and a release is one atomic add.

use super::runtime::{run, Res, State};
use clump_gas::Rmw;
use std::ffi::c_void;
use std::os::raw::{c_int, c_long};

/// The PE whose copy of the lock word is the lock.
const HOME: u32 = 0;
const TICKET: u64 = 1 << 32;
const LOW: u64 = 0xffff_ffff;

impl State {
    fn lock_word(&self, lock: *mut c_long) -> Res<*const c_void> {
        self.locate(lock.cast(), size_of::<c_long>())?;
        Ok(lock.cast_const().cast())
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_set_lock(lock: *mut c_long) {
    run("shmem_set_lock", |s| {
        let word = s.lock_word(lock)?;
        let mine = s.rmw(word, HOME, Rmw::Add(TICKET))? >> 32;
        s.wait_for(|| Ok(s.rmw(word, HOME, Rmw::Load)? & LOW == mine))
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_test_lock(lock: *mut c_long) -> c_int {
    run("shmem_test_lock", |s| {
        let word = s.lock_word(lock)?;
        let now = s.rmw(word, HOME, Rmw::Load)?;
        if now >> 32 != now & LOW {
            return Ok(1); // held, or others wait for it
        }
        let expect = now;
        let got = s.rmw(
            word,
            HOME,
            Rmw::CompareSwap {
                expect,
                new: now + TICKET,
            },
        )?;
        Ok(if got == expect { 0 } else { 1 })
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_clear_lock(lock: *mut c_long) {
    run("shmem_clear_lock", |s| {
        let word = s.lock_word(lock)?;
        // What was written while holding the lock lands before the next holder enters.
        s.quiet()?;
        let now = s.rmw(word, HOME, Rmw::Load)?;
        if now >> 32 == now & LOW {
            return Err("the lock is not held".into());
        }
        // The served half counts up; wrapping it alone keeps the ticket half intact.
        if now & LOW == LOW {
            s.rmw(word, HOME, Rmw::And(!LOW))?;
        } else {
            s.rmw(word, HOME, Rmw::Add(1))?;
        }
        Ok(())
    })
}
