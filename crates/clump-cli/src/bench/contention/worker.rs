//! The ranks of `clump bench contention`: rank 0 is the server, ranks 1..=N the clients
//! (client c is rank c + 1). Two phases, each started at a barrier: first every client
//! sends to the server's SPMD endpoint (one virtual network, the job's tag); then each
//! client sends to an endpoint of its own at the server (N virtual networks, N tags, the
//! server polling the N endpoints in one bundle; each client maps only its own).
//!
//! Clients send 4-word short requests as fast as their credits allow; the server answers
//! each with a 4-word reply (002's figures 7 and 10). Only the server keeps time: it
//! counts each client's requests per slice of the measured window, and the first word of
//! every reply says whether the request it answers was counted, or that the phase is
//! over. So every client is counted over the same interval, the server's, and each
//! client's own count of counted replies checks the server's count of it.

use super::report::{self, Phase, Results};
use super::{ContentionArgs, Plan};
use crate::bench::pin::place;
use crate::bench::progress::Progress;
use crate::bench::rank::{barrier, err, gather_u64};
use crate::bench::wait::{drain, poll_until};
use clump::name::NAME_BYTES;
use clump::spmd::Spmd;
use clump::{Endpoint, EndpointName, Message, Token};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

/// At the server: the clients' requests. At the clients: the server's replies.
const H_REQUEST: u8 = 1;
const H_REPLY: u8 = 2;

/// The first word of a reply: what became of the request it answers.
const WARMING: u32 = 0;
const COUNTED: u32 = 1;
const STOP: u32 = 2;

pub fn run(sp: &mut Spmd, args: &ContentionArgs) -> Result<(), String> {
    let started = Instant::now();
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpus = place(sp, "contention", placement(sp.rank() as usize, available))?;
    if sp.rank() > 0 {
        return client(sp, sp.rank() - 1);
    }
    let clients = args.clients as usize;
    let (one_vnet, per_client_vnet) = server(sp, clients, &Plan::new(args))?;
    let results = Results {
        transport: args.transport.name().to_string(),
        quick: args.quick,
        clients,
        available,
        cpus,
        credits: clump::config::Config::from_env().map_or(0, |c| c.credits),
        one_vnet,
        per_client_vnet,
        seconds: started.elapsed().as_secs_f64(),
    };
    println!("{}", report::to_json(&results));
    Ok(())
}

/// Rank 0: both phases, then the clients' counts checked against its own.
fn server(sp: &mut Spmd, clients: usize, plan: &Plan) -> Result<(Phase, Phase), String> {
    let returned = Rc::new(Cell::new(0u64));
    let meter = Rc::new(Meter::new(clients));
    install_server(&sp.ep.clone(), &meter, None, &returned)?;
    let one_vnet = serve(sp, &meter, plan, 1)?;
    open_server_vnets(sp, &meter, &returned)?;
    let per_client_vnet = serve(sp, &meter, plan, clients)?;
    // Each client's counted replies in both phases, and its returned messages.
    let theirs = gather_u64(sp, &[0, 0, 0])?;
    for (p, phase) in [&one_vnet, &per_client_vnet].into_iter().enumerate() {
        for c in 0..clients {
            let (theirs, ours) = (theirs[c + 1][p], phase.client_total(c));
            if theirs != ours {
                return Err(format!(
                    "phase {}: client {c} had {theirs} requests counted, the server counted {ours}",
                    p + 1
                ));
            }
        }
    }
    let returned = returned.get() + theirs.iter().map(|t| t[2]).sum::<u64>();
    let faults = meter.faults.get();
    if faults + returned > 0 {
        return Err(format!(
            "{faults} requests reached the wrong endpoint or could not be answered, \
             {returned} messages came back: the figures are not valid"
        ));
    }
    Ok((one_vnet, per_client_vnet))
}

/// Client `me` (rank me + 1): both phases, then its counts to the server.
fn client(sp: &mut Spmd, me: u32) -> Result<(), String> {
    let returned = Rc::new(Cell::new(0u64));
    let replies = Rc::new(Replies::default());
    install_client(&sp.ep.clone(), &replies, &returned)?;
    let one_vnet = send(sp, &sp.ep.clone(), me, &replies, &returned)?;
    let ep = open_client_vnet(sp, me, &replies, &returned)?;
    let per_client_vnet = send(sp, &ep, me, &replies, &returned)?;
    gather_u64(sp, &[one_vnet, per_client_vnet, returned.get()])?;
    Ok(())
}

/// Where a rank runs, as the n-th allowed CPU: the server alone on the first, like 002's
/// server host; the clients spread over the others (sharing them under the scheduler's
/// fair share when they outnumber them, never the server's). Unpinned on a single CPU.
fn placement(rank: usize, available: usize) -> Option<usize> {
    (available >= 2).then(|| match rank {
        0 => 0,
        client => 1 + (client - 1) % (available - 1),
    })
}

/// The tag of client `c`'s virtual network: distinct for every client, and from the
/// job's own tag (an odd multiplier is a bijection, and never maps c + 1 to 0).
fn vnet_tag(job: u64, c: u32) -> u64 {
    job ^ u64::from(c + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn count_returns(ep: &Endpoint, returned: &Rc<Cell<u64>>) -> Result<(), String> {
    let returned = returned.clone();
    ep.set_return_handler(move |m| {
        eprintln!(
            "contention: a message came back: {:?} to handler {} ({})",
            m.kind, m.handler, m.reason
        );
        returned.set(returned.get() + 1);
    })
    .map_err(err)
}

/// The server's clock and counts for the phase under way, shared with its handlers.
struct Meter {
    clients: usize,
    /// What the reply to a request handled now says: WARMING, COUNTED or STOP.
    state: Cell<u32>,
    slice: Cell<usize>,
    /// Requests counted, per slice, per client.
    counts: RefCell<Vec<Vec<u64>>>,
    /// Requests that named no client or a client of another virtual network, and
    /// replies that failed.
    faults: Cell<u64>,
}

impl Meter {
    fn new(clients: usize) -> Meter {
        Meter {
            clients,
            state: Cell::new(WARMING),
            slice: Cell::new(0),
            counts: RefCell::new(Vec::new()),
            faults: Cell::new(0),
        }
    }

    /// Handles a request that reached the endpoint of client `vnet`'s virtual network, or
    /// the shared endpoint (`None`).
    fn handle(&self, t: &mut Token<'_>, m: &Message<'_>, vnet: Option<usize>) {
        let state = self.state.get();
        match m.args.first().map(|&c| c as usize) {
            Some(c) if c < self.clients && vnet.is_none_or(|v| v == c) => {
                if state == COUNTED {
                    self.counts.borrow_mut()[self.slice.get()][c] += 1;
                }
            }
            _ => self.faults.set(self.faults.get() + 1),
        }
        if t.reply(H_REPLY, &[state, 0, 0, 0]).is_err() {
            self.faults.set(self.faults.get() + 1);
        }
    }
}

fn install_server(
    ep: &Endpoint,
    meter: &Rc<Meter>,
    vnet: Option<usize>,
    returned: &Rc<Cell<u64>>,
) -> Result<(), String> {
    let meter = meter.clone();
    ep.set_handler(H_REQUEST as usize, move |t, m| meter.handle(t, m, vnet))
        .map_err(err)?;
    count_returns(ep, returned)
}

/// The server's side of the second phase's set-up: one endpoint per client in its bundle,
/// their names to everyone; each maps its client's endpoint, which makes it one of the
/// job's (the network admits only those).
fn open_server_vnets(
    sp: &mut Spmd,
    meter: &Rc<Meter>,
    returned: &Rc<Cell<u64>>,
) -> Result<(), String> {
    let mut names = Vec::new();
    let mut endpoints = Vec::new();
    for c in 0..meter.clients {
        let tag = vnet_tag(sp.job.job_id(), c as u32);
        let ep = sp.bundle.create_endpoint(tag).map_err(err)?;
        install_server(&ep, meter, Some(c), returned)?;
        names.extend(ep.name().to_bytes());
        endpoints.push((ep, tag));
    }
    let clients = sp
        .allgather(&names)
        .map_err(|e| format!("allgather: {e}"))?;
    for (c, (ep, tag)) in endpoints.iter().enumerate() {
        let client = clients
            .get(c + 1)
            .and_then(|b| EndpointName::from_bytes(b))
            .ok_or("a client sent no endpoint name")?;
        ep.map(0, client, *tag).map_err(err)?;
    }
    Ok(())
}

/// One phase at the server: warm-up, the measured slices, then STOP.
fn serve(sp: &mut Spmd, meter: &Meter, plan: &Plan, endpoints: usize) -> Result<Phase, String> {
    meter.state.set(WARMING);
    *meter.counts.borrow_mut() = vec![vec![0; meter.clients]; plan.slices as usize];
    barrier(sp)?;
    let bundle = sp.bundle.clone();
    let until = |end: Instant, what: &str| poll_until(&bundle, what, || Instant::now() >= end);
    until(Instant::now() + plan.warm, "the end of the warm-up")?;
    let t0 = Instant::now();
    let mut last = t0;
    let mut slice_secs = Vec::new();
    meter.state.set(COUNTED);
    let progress = Progress::new(
        format!("contention: {endpoints} server endpoint(s),"),
        plan.slices as usize,
    );
    for s in 0..plan.slices {
        progress.step(s as usize, "slice");
        meter.slice.set(s as usize);
        until(t0 + plan.slice * (s + 1), "the end of a slice")?;
        let now = Instant::now();
        slice_secs.push((now - last).as_secs_f64());
        last = now;
    }
    meter.state.set(STOP);
    // The clients' last requests are answered (STOP) while the server waits here.
    barrier(sp)?;
    Ok(Phase {
        server_endpoints: endpoints,
        slice_secs,
        counts: meter.counts.take(),
    })
}

/// What a client learned from the server's replies in the phase under way.
#[derive(Default)]
struct Replies {
    counted: Cell<u64>,
    stopped: Cell<bool>,
}

fn install_client(
    ep: &Endpoint,
    replies: &Rc<Replies>,
    returned: &Rc<Cell<u64>>,
) -> Result<(), String> {
    let replies = replies.clone();
    ep.set_handler(H_REPLY as usize, move |_, m| match m.args.first() {
        Some(&COUNTED) => replies.counted.set(replies.counted.get() + 1),
        Some(&STOP) => replies.stopped.set(true),
        _ => {}
    })
    .map_err(err)?;
    count_returns(ep, returned)
}

/// The client's side of the second phase's set-up: an endpoint with its own tag, mapped
/// to its endpoint at the server (translation 0).
fn open_client_vnet(
    sp: &mut Spmd,
    me: u32,
    replies: &Rc<Replies>,
    returned: &Rc<Cell<u64>>,
) -> Result<Endpoint, String> {
    let tag = vnet_tag(sp.job.job_id(), me);
    let ep = sp.bundle.create_endpoint(tag).map_err(err)?;
    install_client(&ep, replies, returned)?;
    let names = sp
        .allgather(&ep.name().to_bytes())
        .map_err(|e| format!("allgather: {e}"))?;
    let at = me as usize * NAME_BYTES;
    let server = names[0]
        .get(at..at + NAME_BYTES)
        .and_then(EndpointName::from_bytes)
        .ok_or("the server sent no endpoint name for this client")?;
    ep.map(0, server, tag).map_err(err)?;
    Ok(ep)
}

/// One phase at a client: requests to translation 0 of `ep` until a reply says STOP;
/// returns how many were counted.
fn send(
    sp: &mut Spmd,
    ep: &Endpoint,
    me: u32,
    replies: &Replies,
    returned: &Cell<u64>,
) -> Result<u64, String> {
    replies.counted.set(0);
    replies.stopped.set(false);
    barrier(sp)?;
    // A request waiting for credit polls, which runs the reply handlers.
    while !replies.stopped.get() && returned.get() == 0 {
        ep.request(0, H_REQUEST, &[me, 0, 0, 0]).map_err(err)?;
    }
    drain(&sp.bundle, ep)?;
    barrier(sp)?;
    Ok(replies.counted.get())
}
