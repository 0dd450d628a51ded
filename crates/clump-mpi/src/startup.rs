//! `MPI_Init`: joining the job, installing the protocol's handlers, learning where the
//! ranks run, mapping the collectives' slots and binding to a core. Kept apart from the
//! runtime it builds, so that the runtime does not import the protocols that use it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use clump::spmd::Spmd;

use crate::engine::{Action, Engine};
use crate::error::{Error, ErrorClass, Result};
use crate::idle;
use crate::rendezvous;
use crate::runtime::{
    self, arg, envelope, inline_data, wide, Runtime, Thresholds, H_CTS, H_DATA, H_EAGER,
    H_EAGER_INLINE, H_EAGER_SHORT, H_FIN, H_PUSH, H_RTS, H_WROTE, INLINE_MAX, RTS_ARGS,
};
use crate::short_eager;
use crate::single_copy::{self, Source};
use crate::slots::{self, Slots};

type Shared = Rc<RefCell<Engine>>;

/// Joins the job and installs the protocol handlers.
pub fn init() -> Result<()> {
    if runtime::is_initialized() {
        return Err(Error::new(ErrorClass::Other, "MPI is already initialized"));
    }
    let vars = runtime::vars()?;
    let thresholds = Thresholds::of(&vars);
    let mut spmd = Spmd::init()?;
    let engine = Rc::new(RefCell::new(Engine::new(
        thresholds.unexpected_bytes,
        spmd.size() as usize,
    )));
    // Cleared once the kernel refuses a cross-memory copy (set after init's exchange).
    let single_copy = Rc::new(Cell::new(false));
    eager_handlers(&spmd.ep, &engine)?;
    rendezvous_handlers(&spmd.ep, &engine, &single_copy)?;
    crate::cancel::handlers(&spmd.ep, &engine)?;
    slots::reserve(&spmd, thresholds.shm_coll)?;
    let place = crate::placement::learn(&mut spmd)?;
    let slots = Slots::map(&mut spmd, &place.host_leaders)?;
    // Counted before binding, which leaves one.
    let cores = clump::cpu::allowed().map_or(0, |c| c.len());
    single_copy.set(vars.single_copy);
    if single_copy.get() {
        single_copy::admit_peers();
    }
    if vars.bind {
        clump::cpu::to_own_core(place.machine_index, place.on_machine);
    }
    let local: Vec<bool> = (0..spmd.size()).map(|r| spmd.ep.is_local(r)).collect();
    let rt = Runtime {
        me: spmd.rank(),
        pid: std::process::id(),
        all_local: local.iter().all(|&l| l),
        local,
        spin: idle::spin_budget(thresholds.spin_us, place.on_machine, cores),
        host_leaders: place.host_leaders,
        processor_name: crate::placement::processor_name(place.host_on_machine),
        spmd: RefCell::new(spmd),
        engine,
        thresholds,
        start: Instant::now(),
        next_ctx: Cell::new(2),
        single_copy,
        split: place.on_machine <= cores,
        slots,
        colls: RefCell::default(),
        nbc_calls: RefCell::default(),
        idups: RefCell::default(),
        fixed_tag: Cell::new(None),
        sendq: Default::default(),
    };
    rt.spmd.borrow_mut().barrier()?;
    runtime::install(rt);
    Ok(())
}

/// The handlers of eager messages: with a payload, inline in the arguments, short.
fn eager_handlers(ep: &clump::Endpoint, engine: &Shared) -> Result<()> {
    let e = engine.clone();
    ep.set_handler(H_EAGER, move |_t, m| {
        e.borrow_mut()
            .arrive_eager(envelope(m.args), arg(m.args, 3), m.payload);
    })?;
    let e = engine.clone();
    ep.set_handler(H_EAGER_INLINE, move |_t, m| {
        let mut bytes = [0u8; INLINE_MAX];
        let mut e = e.borrow_mut();
        match inline_data(m.args, &mut bytes) {
            Some(data) => e.arrive_eager(envelope(m.args), arg(m.args, 3), data),
            None => e.malformed("an inline eager message with a bad length"),
        }
    })?;
    let e = engine.clone();
    ep.set_handler(H_EAGER_SHORT, move |_t, m| {
        let mut bytes = [0u8; short_eager::MAX];
        let mut e = e.borrow_mut();
        match short_eager::decode(m.args, &mut bytes) {
            Some((env, data)) => e.arrive_eager_next(env, data),
            None => e.malformed("a short eager message with bad arguments"),
        }
    })?;
    Ok(())
}

/// The handlers of the rendezvous protocol: request and clear to send, the sender's
/// write of its part, the data chunks and the end.
fn rendezvous_handlers(
    ep: &clump::Endpoint,
    engine: &Shared,
    single_copy: &Rc<Cell<bool>>,
) -> Result<()> {
    let e = engine.clone();
    ep.set_handler(H_RTS, move |_t, m| {
        // A sender of this host names its process and buffer after the request's own args.
        let from = (m.args.len() > RTS_ARGS).then(|| Source {
            pid: arg(m.args, RTS_ARGS),
            addr: wide(m.args, RTS_ARGS + 1),
        });
        e.borrow_mut().arrive_rts(
            envelope(m.args),
            arg(m.args, 3),
            (wide(m.args, 4) as usize, wide(m.args, 6)),
            m.payload,
            from,
        );
    })?;
    let e = engine.clone();
    ep.set_handler(H_CTS, move |_t, m| {
        // A clear to send for a part of the message names its range.
        let range =
            (m.args.len() >= 8).then(|| (wide(m.args, 4) as usize, wide(m.args, 6) as usize));
        e.borrow_mut().actions.push(Action::Data {
            send_id: wide(m.args, 0),
            recv_id: wide(m.args, 2),
            range,
        });
    })?;
    let e = engine.clone();
    let allowed = single_copy.clone();
    ep.set_handler(H_PUSH, move |t, m| {
        let mut e = e.borrow_mut();
        if m.args.len() < 11 {
            return e.malformed("a request to write with too few arguments");
        }
        // Written at once, even while this process waits for credit to send: the
        // receiver is reading the rest meanwhile. The answer is the reply (no credit).
        if let Some(wrote) = rendezvous::push(&mut e, &allowed, m.args) {
            if let Err(err) = t.reply(H_WROTE as u8, &wrote) {
                e.fault.get_or_insert(err.into());
            }
        }
    })?;
    let e = engine.clone();
    ep.set_handler(H_WROTE, move |_t, m| {
        e.borrow_mut()
            .landed(wide(m.args, 0), wide(m.args, 2) as usize)
    })?;
    let e = engine.clone();
    ep.set_handler(H_DATA, move |_t, m| {
        e.borrow_mut()
            .data(wide(m.args, 0), wide(m.args, 2) as usize, m.payload);
    })?;
    let e = engine.clone();
    ep.set_handler(H_FIN, move |_t, m| e.borrow_mut().complete(wide(m.args, 0)))?;
    Ok(())
}
