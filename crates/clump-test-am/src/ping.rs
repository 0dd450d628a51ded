//! One request from each rank to the next, which comes back answered or returned to
//! sender: a job whose ranks cannot reach each other (say, their datagram seals differ)
//! still ends, each rank saying what became of its request.

use crate::check::poll_until;
use clump::spmd::Spmd;
use std::cell::RefCell;
use std::rc::Rc;

pub fn run() -> Result<String, String> {
    let mut spmd = Spmd::init().map_err(|e| e.to_string())?;
    let (rank, size) = (spmd.rank(), spmd.size());
    let e = |r: clump::Result<()>| r.map_err(|e| e.to_string());
    let outcome = Rc::new(RefCell::new(None::<String>));
    e(spmd.ep.set_handler(1, |t, m| t.reply(2, m.args).unwrap()))?;
    let o = outcome.clone();
    e(spmd
        .ep
        .set_handler(2, move |_, _| *o.borrow_mut() = Some("answered".into())))?;
    let o = outcome.clone();
    e(spmd.ep.set_return_handler(move |x| {
        *o.borrow_mut() = Some(format!("returned ({:?})", x.reason));
    }))?;
    spmd.barrier().map_err(|e| e.to_string())?;
    e(spmd.ep.request((rank + 1) % size, 1, &[rank]))?;
    poll_until(&spmd, || outcome.borrow().is_some())?;
    spmd.barrier().map_err(|e| e.to_string())?;
    let what = outcome.borrow_mut().take().unwrap_or_default();
    Ok(format!("ping ok: rank {rank} {what}"))
}
