//! A stream of numbered medium requests from one rank to another, each checked where it
//! runs (its number next in order, its payload byte for byte) and answered, the answers
//! checked in order too: what the forged-traffic scenarios must leave intact.

use crate::check::{pattern, Failures};
use clump::spmd::Spmd;
use std::cell::Cell;
use std::rc::Rc;

/// How far the stream got: requests run here, answers received here.
pub struct Numbered {
    pub ran: Rc<Cell<u32>>,
    pub answered: Rc<Cell<u32>>,
    payload: usize,
}

impl Numbered {
    /// Sets handler 1 (a request, answered with handler 2) and handler 2 of `spmd`'s
    /// endpoint, for requests of `payload` bytes; mismatches go to `fails`.
    pub fn handlers(spmd: &Spmd, fails: &Failures, payload: usize) -> Result<Numbered, String> {
        let e = |r: clump::Result<()>| r.map_err(|e| e.to_string());
        let ran = Rc::new(Cell::new(0u32));
        let (f, n) = (fails.clone(), ran.clone());
        e(spmd.ep.set_handler(1, move |t, m| {
            let k = m.args[0];
            f.expect(k == n.get(), || {
                format!("request {k:#x} ran, expected {}", n.get())
            });
            f.expect(m.payload == pattern(1, payload, k).as_slice(), || {
                format!("payload of request {k:#x}")
            });
            n.set(k.wrapping_add(1));
            t.reply(2, &[k]).unwrap();
        }))?;
        let answered = Rc::new(Cell::new(0u32));
        let (f, a) = (fails.clone(), answered.clone());
        e(spmd.ep.set_handler(2, move |_, m| {
            f.expect(m.args[0] == a.get(), || {
                format!("reply {:#x}, expected {}", m.args[0], a.get())
            });
            a.set(a.get() + 1);
        }))?;
        Ok(Numbered {
            ran,
            answered,
            payload,
        })
    }

    /// Sends request number `k` to translation `to`.
    pub fn send(&self, spmd: &Spmd, to: u32, k: u32) -> Result<(), String> {
        spmd.ep
            .request_medium(to, 1, &[k], &pattern(1, self.payload, k))
            .map_err(|e| e.to_string())
    }
}
