//! The short round trip over shared memory, where its fast path hands over to the
//! general one: a replier answering requesters in turn (the last one answered changes
//! on every reply), a destination whose tag changes between two round trips, handlers
//! replaced or cleared from inside a handler, and a requester that sends again from its
//! reply handler.

use clump::config::Config;
use clump::{Bundle, Endpoint, ReturnReason, ReturnedMessage};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

const TAG: u64 = 0x5407;
const ECHO: u8 = 1;
const ECHOED: u8 = 2;

fn bundle() -> Bundle {
    let mut c = Config::default();
    c.job.job_id = 0x5407;
    c.net.enabled = false;
    Bundle::with_config(c).unwrap()
}

fn poll_until(bundle: &Bundle, mut done: impl FnMut() -> bool) {
    // A guard against a hang only, with room for a machine loaded twentyfold.
    let deadline = Instant::now() + Duration::from_secs(300);
    while !done() {
        assert!(Instant::now() < deadline, "condition not reached");
        bundle.poll().unwrap();
    }
}

type Log<T> = Rc<RefCell<Vec<T>>>;

/// Echoes a request's arguments back with its first word incremented.
fn install_echo(ep: &Endpoint) {
    ep.set_handler(ECHO as usize, |t, m| {
        let mut args = m.args.to_vec();
        args[0] += 1;
        t.reply(ECHOED, &args).unwrap();
    })
    .unwrap();
}

/// Records the arguments of each reply `ep` receives.
fn record_replies(ep: &Endpoint) -> Log<Vec<u32>> {
    let log: Log<Vec<u32>> = Rc::default();
    let l = log.clone();
    ep.set_handler(ECHOED as usize, move |_, m| {
        l.borrow_mut().push(m.args.to_vec())
    })
    .unwrap();
    log
}

fn record_returns(ep: &Endpoint) -> Log<ReturnedMessage> {
    let log: Log<ReturnedMessage> = Rc::default();
    let l = log.clone();
    ep.set_return_handler(move |r| l.borrow_mut().push(r.to_message()))
        .unwrap();
    log
}

/// Endpoints `a` and `b` of one bundle, `a` mapping `b` at translation 0 and `b`
/// echoing, after one round trip (so the fast path has seen both), with `a`'s replies.
fn after_one_round_trip() -> (Bundle, Endpoint, Endpoint, Log<Vec<u32>>) {
    let bundle = bundle();
    let a = bundle.create_endpoint(TAG).unwrap();
    let b = bundle.create_endpoint(TAG).unwrap();
    install_echo(&b);
    let replies = record_replies(&a);
    a.map(0, b.name(), TAG).unwrap();
    a.request(0, ECHO, &[1, 0]).unwrap();
    poll_until(&bundle, || replies.borrow().len() == 1);
    (bundle, a, b, replies)
}

#[test]
fn a_replier_answering_requesters_in_turn_sends_each_its_own_reply() {
    let bundle = bundle();
    let server = bundle.create_endpoint(TAG).unwrap();
    install_echo(&server);
    let clients: Vec<Endpoint> = (0..3)
        .map(|_| bundle.create_endpoint(TAG).unwrap())
        .collect();
    let logs: Vec<_> = clients.iter().map(record_replies).collect();
    for c in &clients {
        c.map(0, server.name(), TAG).unwrap();
    }
    // Every round: each client sends one request, so the server's last requester
    // changes from one reply to the next; then two in a row from the same client.
    for round in 0..20u32 {
        for (i, c) in clients.iter().enumerate() {
            c.request(0, ECHO, &[round * 10, i as u32]).unwrap();
        }
        clients[0].request(0, ECHO, &[round * 10 + 5, 0]).unwrap();
        let want = (round as usize + 1) * 2;
        poll_until(&bundle, || logs[0].borrow().len() == want);
        poll_until(&bundle, || {
            logs[1..]
                .iter()
                .all(|l| l.borrow().len() == round as usize + 1)
        });
    }
    for (i, log) in logs.iter().enumerate() {
        let log = log.borrow();
        assert!(
            log.iter().all(|args| args[1] == i as u32),
            "a reply reached the wrong requester: {log:?}"
        );
        // Each request's own reply: its first word plus one (the extra requests of
        // client 0 end in 5).
        let ends: Vec<u32> = log.iter().map(|args| args[0] % 10).collect();
        let want = if i == 0 {
            [1, 6].repeat(20)
        } else {
            vec![1; 20]
        };
        assert_eq!(ends, want);
    }
    assert!(clients.iter().all(|c| c.outstanding() == 0));
}

#[test]
fn a_tag_changed_between_round_trips_returns_the_next_request() {
    let (bundle, a, b, replies) = after_one_round_trip();
    let returns = record_returns(&a);
    b.set_tag(TAG + 1).unwrap();
    a.request(0, ECHO, &[3, 4]).unwrap();
    poll_until(&bundle, || returns.borrow().len() == 1);
    let r = &returns.borrow()[0];
    assert_eq!(
        (r.reason, r.handler, r.args().to_vec()),
        (ReturnReason::BadTag, ECHO, vec![3, 4])
    );
    assert_eq!(replies.borrow().len(), 1);
    assert_eq!(a.outstanding(), 0);
}

#[test]
fn a_requester_whose_tag_changed_gets_no_reply_and_the_replier_hears_of_it() {
    let (bundle, a, b, replies) = after_one_round_trip();
    let rejected = record_returns(&b);
    // The request carries the requester's tag of when it was sent; the reply is refused
    // once the tag has changed, and the requester still gets its credit back.
    a.request(0, ECHO, &[2, 0]).unwrap();
    a.set_tag(TAG + 7).unwrap();
    poll_until(&bundle, || {
        rejected.borrow().len() == 1 && a.outstanding() == 0
    });
    let r = &rejected.borrow()[0];
    assert_eq!(
        (r.reason, r.request, r.handler, r.args().to_vec()),
        (ReturnReason::ReplyRejected, false, ECHOED, vec![3, 0])
    );
    assert_eq!(replies.borrow().len(), 1);
}

#[test]
fn handlers_replaced_or_cleared_from_inside_a_handler_take_effect_at_the_next_request() {
    let bundle = bundle();
    let (a, b) = (
        bundle.create_endpoint(TAG).unwrap(),
        bundle.create_endpoint(TAG).unwrap(),
    );
    let replies = record_replies(&a);
    let returns = record_returns(&a);
    a.map(0, b.name(), TAG).unwrap();
    // The first handler replaces itself (dropping the closure that is running) and
    // clears handler 3; the one it installs answers with a different word.
    b.set_handler(3, |t, _| t.reply(ECHOED, &[30]).unwrap())
        .unwrap();
    b.set_handler(ECHO as usize, |t, _| {
        let ep = t.endpoint();
        ep.set_handler(ECHO as usize, |t, _| t.reply(ECHOED, &[2]).unwrap())
            .unwrap();
        ep.clear_handler(3).unwrap();
        t.reply(ECHOED, &[1]).unwrap();
    })
    .unwrap();
    a.request(0, ECHO, &[]).unwrap();
    poll_until(&bundle, || replies.borrow().len() == 1);
    a.request(0, ECHO, &[]).unwrap();
    a.request(0, 3, &[9]).unwrap();
    poll_until(&bundle, || {
        replies.borrow().len() == 2 && returns.borrow().len() == 1
    });
    assert_eq!(*replies.borrow(), vec![vec![1], vec![2]]);
    let r = &returns.borrow()[0];
    assert_eq!(
        (r.reason, r.handler, r.args().to_vec()),
        (ReturnReason::BadHandler, 3, vec![9])
    );
    assert_eq!(a.outstanding(), 0);
}

/// A chain of round trips, each request sent as soon as the reply before it ran: its
/// credit is back by then. AM-II's reply handler sends nothing, so the chain goes on
/// from the program (a request from the reply handler itself is refused).
#[test]
fn a_chain_of_round_trips_goes_on_from_each_reply() {
    let bundle = bundle();
    let (a, b) = (
        bundle.create_endpoint(TAG).unwrap(),
        bundle.create_endpoint(TAG).unwrap(),
    );
    install_echo(&b);
    a.map(0, b.name(), TAG).unwrap();
    let seen: Log<u32> = Rc::default();
    let (s, ep) = (seen.clone(), a.clone());
    a.set_handler(ECHOED as usize, move |_, m| {
        s.borrow_mut().push(m.args[0]);
        assert!(matches!(
            ep.request(0, ECHO, &[m.args[0]]),
            Err(clump::Error::RequestFromReplyHandler)
        ));
    })
    .unwrap();
    a.request(0, ECHO, &[0]).unwrap();
    for n in 1..=200u32 {
        poll_until(&bundle, || seen.borrow().len() == n as usize);
        assert_eq!(a.outstanding(), 0, "the credit is back when the reply ran");
        if n < 200 {
            a.request(0, ECHO, &[n]).unwrap();
        }
    }
    assert_eq!(*seen.borrow(), (1..=200).collect::<Vec<u32>>());
}
