//! The AM semantics between endpoints of one process, over each transport: every test
//! runs twice, once with the endpoints on one host (shared memory: the same path as
//! between processes, every endpoint has its own queue block) and once with each
//! endpoint on a virtual host of its own (UDP over loopback, one socket per endpoint).

use clump::config::Config;
use clump::{Bundle, Endpoint, Error, Kind, ReturnReason, ReturnedMessage, MAX_ARGS, MAX_MEDIUM};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

const TAG: u64 = 0x7a6;

/// The transport the endpoints of a test reach each other through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Via {
    Shm,
    /// UDP with each socket's doorbell where this process may load BPF programs.
    Udp,
    /// UDP without doorbells: polls ration their socket reads (001's policy alone).
    UdpRationed,
}

fn config(via: Via) -> Config {
    let mut c = Config::default();
    c.job.job_id = 0x600d;
    // One job, one key: each default config draws its own, and sealed datagrams
    // (`CLUMP_NET_AUTH`, on by default) under another job's key are dropped.
    c.job.job_key = 0x600d_0000_600d;
    c.net.enabled = via != Via::Shm;
    c.net.doorbell = via == Via::Udp;
    c.net.timeout = Duration::from_millis(500);
    c
}

thread_local! {
    static NEXT_HOST: Cell<u32> = const { Cell::new(1) };
}

/// An endpoint polled by `bundle`: on the bundle's host (shared memory), or alone on a
/// virtual host of its own (UDP).
fn endpoint(bundle: &Bundle, via: Via, tag: u64) -> Endpoint {
    endpoint_with(bundle, via, tag, config(via))
}

/// An endpoint as [`endpoint`] makes, configured by `c`.
fn endpoint_with(bundle: &Bundle, via: Via, tag: u64, mut c: Config) -> Endpoint {
    if via == Via::Shm {
        return bundle.create_endpoint(tag).unwrap();
    }
    c.host = NEXT_HOST.with(|h| h.replace(h.get() + 1));
    // The endpoint leaves its first bundle before that bundle's end would free it.
    let home = Bundle::with_config(c).unwrap();
    let ep = home.create_endpoint(tag).unwrap();
    bundle.adopt(&ep).unwrap();
    ep
}

fn pair_with(via: Via, c: Config) -> (Bundle, Endpoint, Endpoint) {
    let bundle = Bundle::with_config(c.clone()).unwrap();
    let a = endpoint_with(&bundle, via, TAG, c.clone());
    let b = endpoint_with(&bundle, via, TAG, c);
    a.map(0, b.name(), TAG).unwrap();
    b.map(0, a.name(), TAG).unwrap();
    (bundle, a, b)
}

fn pair(via: Via) -> (Bundle, Endpoint, Endpoint) {
    pair_with(via, config(via))
}

fn poll_until(bundle: &Bundle, mut done: impl FnMut() -> bool) {
    // A guard against a hang only, with room for a machine loaded twentyfold.
    let deadline = Instant::now() + Duration::from_secs(300);
    while Instant::now() < deadline {
        if done() {
            return;
        }
        bundle.poll().unwrap();
    }
    panic!("condition not reached");
}

type Log<T> = Rc<RefCell<Vec<T>>>;

fn log<T>() -> Log<T> {
    Rc::new(RefCell::new(Vec::new()))
}

fn record_returns(ep: &Endpoint) -> Log<ReturnedMessage> {
    let got = log();
    let g = got.clone();
    ep.set_return_handler(move |r| g.borrow_mut().push(r.to_message()))
        .unwrap();
    got
}

fn short_request_and_reply_with_every_argument_count(via: Via) {
    let (bundle, a, b) = pair(via);
    b.set_handler(1, |t, m| {
        let sum: u32 = m.args.iter().sum();
        let mut back = m.args.to_vec();
        back.push(sum);
        back.truncate(MAX_ARGS);
        t.reply(2, &back).unwrap();
    })
    .unwrap();
    let got: Log<Vec<u32>> = log();
    let g = got.clone();
    a.set_handler(2, move |t, m| {
        assert!(!t.is_request());
        g.borrow_mut().push(m.args.to_vec())
    })
    .unwrap();
    for n in 0..=MAX_ARGS {
        let args: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
        a.request(0, 1, &args).unwrap();
    }
    poll_until(&bundle, || got.borrow().len() == MAX_ARGS + 1);
    for (n, reply) in got.borrow().iter().enumerate() {
        let args: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
        let mut want = args.clone();
        want.push(args.iter().sum());
        want.truncate(MAX_ARGS);
        assert_eq!(reply, &want);
    }
    assert_eq!(a.outstanding(), 0);
    assert!(matches!(
        a.request(0, 1, &[0; MAX_ARGS + 1]),
        Err(Error::BadArg(_))
    ));
}

fn medium_payloads_at_and_around_the_limit_arrive_intact(via: Via) {
    let (bundle, a, b) = pair(via);
    let got: Log<Vec<u8>> = log();
    let g = got.clone();
    b.set_handler(3, move |t, m| {
        assert_eq!(m.kind, Kind::Medium);
        g.borrow_mut().push(m.payload.to_vec());
        t.reply_medium(4, &[m.payload.len() as u32], m.payload)
            .unwrap();
    })
    .unwrap();
    let echoed: Log<Vec<u8>> = log();
    let e = echoed.clone();
    a.set_handler(4, move |_, m| e.borrow_mut().push(m.payload.to_vec()))
        .unwrap();
    let sizes = [0, 1, 8, 4095, 4096, 8192, MAX_MEDIUM - 1, MAX_MEDIUM];
    for &n in &sizes {
        let payload: Vec<u8> = (0..n).map(|i| (i * 31 + n) as u8).collect();
        a.request_medium(0, 3, &[n as u32], &payload).unwrap();
    }
    poll_until(&bundle, || echoed.borrow().len() == sizes.len());
    for (i, &n) in sizes.iter().enumerate() {
        let payload: Vec<u8> = (0..n).map(|i| (i * 31 + n) as u8).collect();
        assert_eq!(got.borrow()[i], payload, "request of {n} bytes");
        assert_eq!(echoed.borrow()[i], payload, "reply of {n} bytes");
    }
    assert!(matches!(
        a.request_medium(0, 3, &[], &vec![0; MAX_MEDIUM + 1]),
        Err(Error::BadArg(_))
    ));
}

fn long_messages_land_in_the_segment_and_out_of_range_ones_return(via: Via) {
    let (bundle, a, b) = pair(via);
    b.set_segment(1 << 20).unwrap();
    a.set_segment(1 << 20).unwrap();
    let returns = record_returns(&a);
    let got: Log<(u64, Vec<u8>)> = log();
    let g = got.clone();
    b.set_handler(5, move |t, m| {
        g.borrow_mut().push((m.offset, m.payload.to_vec()));
        t.reply_long(6, &[], &m.payload[..16.min(m.payload.len())], 100)
            .unwrap();
    })
    .unwrap();
    let replies = log();
    let r = replies.clone();
    a.set_handler(6, move |_, m: &clump::Message| {
        r.borrow_mut().push(m.payload.to_vec())
    })
    .unwrap();
    let data: Vec<u8> = (0..(1 << 20)).map(|i: usize| (i % 251) as u8).collect();
    a.request_long(0, 5, &[], &data, 0).unwrap();
    // The next message overwrites the end of this one: let its handler see it first.
    poll_until(&bundle, || replies.borrow().len() == 1);
    a.request_long(0, 5, &[], &data[..10], (1 << 20) - 10)
        .unwrap();
    a.request_long(0, 5, &[9], &data[..11], (1 << 20) - 10)
        .unwrap(); // one byte too far
    poll_until(&bundle, || {
        replies.borrow().len() == 2 && returns.borrow().len() == 1
    });
    assert_eq!(got.borrow()[0], (0, data.clone()));
    assert_eq!(got.borrow()[1].1, data[..10].to_vec());
    let mut seg = vec![0u8; 16];
    a.read_segment(100, &mut seg).unwrap();
    assert_eq!(seg, data[..16].to_vec());
    let r = &returns.borrow()[0];
    assert_eq!(
        (r.reason, r.request, r.kind, r.args().to_vec()),
        (ReturnReason::BadSegmentOffset, true, Kind::Long, vec![9])
    );
}

fn a_handler_may_replace_its_segment_while_it_reads_a_long_payload(via: Via) {
    let (bundle, a, b) = pair(via);
    b.set_segment(1 << 16).unwrap();
    let got: Log<Vec<u8>> = log();
    let g = got.clone();
    b.set_handler(1, move |t, m| {
        t.endpoint().set_segment(4096).unwrap(); // the old mapping must stay readable
        g.borrow_mut().push(m.payload.to_vec());
    })
    .unwrap();
    a.request_long(0, 1, &[], &[7u8; 1 << 15], 1 << 15).unwrap();
    a.free(); // drops the sender's cached handle: only the handler's guard keeps the mapping
    poll_until(&bundle, || got.borrow().len() == 1);
    assert_eq!(got.borrow()[0], vec![7u8; 1 << 15]);
    assert_eq!(b.segment_len(), 4096);
}

fn get_pulls_remote_bytes_then_runs_a_local_handler(via: Via) {
    let (bundle, a, b) = pair(via);
    a.set_segment(4096).unwrap();
    b.set_segment(4096).unwrap();
    b.write_segment(1000, b"remote bytes").unwrap();
    let got: Log<(Vec<u32>, Vec<u8>)> = log();
    let g = got.clone();
    a.set_handler(7, move |t, m| {
        assert_eq!(m.kind, Kind::Get);
        assert!(t.reply(1, &[]).is_err(), "a get completion cannot reply");
        g.borrow_mut().push((m.args.to_vec(), m.payload.to_vec()))
    })
    .unwrap();
    let returns = record_returns(&a);
    a.get(0, 7, &[42], 1000, 12, 8).unwrap();
    a.get(0, 7, &[43], 4090, 12, 8).unwrap(); // past the remote segment
    assert!(matches!(
        a.get(0, 7, &[], 0, 12, 4090),
        Err(Error::BadArg(_))
    )); // past the local one
    poll_until(&bundle, || {
        got.borrow().len() == 1 && returns.borrow().len() == 1
    });
    assert_eq!(got.borrow()[0], (vec![42], b"remote bytes".to_vec()));
    assert_eq!(returns.borrow()[0].reason, ReturnReason::BadSegmentOffset);
    assert_eq!(returns.borrow()[0].args(), [43]);
}

fn bad_tag_and_bad_handler_come_back_with_their_arguments(via: Via) {
    let (bundle, a, b) = pair(via);
    let returns = record_returns(&a);
    a.map(1, b.name(), TAG + 1).unwrap();
    a.request(1, 1, &[1, 2, 3]).unwrap();
    a.request_medium(0, 99, &[4], b"payload").unwrap();
    poll_until(&bundle, || returns.borrow().len() == 2);
    let r = returns.borrow();
    assert_eq!(
        (r[0].reason, r[0].args().to_vec()),
        (ReturnReason::BadTag, vec![1, 2, 3])
    );
    assert_eq!(
        (r[1].reason, r[1].kind, r[1].handler, r[1].args().to_vec()),
        (ReturnReason::BadHandler, Kind::Medium, 99, vec![4])
    );
    assert_eq!(r[1].payload, b"payload".to_vec());
    assert_eq!(
        a.outstanding(),
        0,
        "returned messages give their credit back"
    );
    let _ = b;
}

fn reply_rules_are_enforced(via: Via) {
    let (bundle, a, b) = pair(via);
    let outcomes: Log<String> = log();
    let o = outcomes.clone();
    b.set_handler(1, move |t, _| {
        t.reply(2, &[]).unwrap();
        o.borrow_mut()
            .push(format!("{:?}", t.reply(2, &[]).unwrap_err()));
    })
    .unwrap();
    let o = outcomes.clone();
    a.set_handler(2, move |t, _| {
        o.borrow_mut()
            .push(format!("{:?}", t.reply(2, &[]).unwrap_err()))
    })
    .unwrap();
    a.request(0, 1, &[]).unwrap();
    poll_until(&bundle, || outcomes.borrow().len() == 2);
    assert_eq!(
        *outcomes.borrow(),
        vec![
            "AlreadyReplied".to_string(),
            "ReplyFromReplyHandler".to_string()
        ]
    );
    assert!(matches!(
        a.set_handler(0, |_, _| {}),
        Err(Error::BadHandlerIndex(0))
    ));
    assert!(matches!(
        a.request(0, 0, &[]),
        Err(Error::BadHandlerIndex(0))
    ));
    assert!(matches!(a.request(9, 1, &[]), Err(Error::NoTranslation(9))));
}

fn a_freed_endpoint_returns_queued_and_later_requests(via: Via) {
    let (bundle, a, b) = pair(via);
    b.set_handler(1, |_, _| {}).unwrap();
    let returns = record_returns(&a);
    a.request(0, 1, &[1]).unwrap(); // queued at b, never polled
    b.free();
    a.request(0, 1, &[2]).unwrap();
    poll_until(&bundle, || returns.borrow().len() == 2);
    let mut r: Vec<(u32, ReturnReason)> = returns
        .borrow()
        .iter()
        .map(|r| (r.args()[0], r.reason))
        .collect();
    r.sort_by_key(|x| x.0);
    // Over the network a freed endpoint's socket is closed: what is sent after the free
    // comes back once the peer's silence is judged, as sent with no word of its fate.
    let later = match via {
        Via::Shm => ReturnReason::EndpointGone,
        Via::Udp | Via::UdpRationed => ReturnReason::OutcomeUnknown,
    };
    assert_eq!(r, vec![(1, ReturnReason::EndpointGone), (2, later)]);
    assert!(matches!(b.request(0, 1, &[]), Err(Error::EndpointFreed)));
}

fn one_way_requests_beyond_the_credit_window_all_arrive(via: Via) {
    let (bundle, a, b) = pair(via);
    let count = Rc::new(RefCell::new(0u64));
    let c = count.clone();
    b.set_handler(1, move |_, m| {
        assert_eq!(m.args[0] as u64, *c.borrow());
        *c.borrow_mut() += 1;
    })
    .unwrap();
    for i in 0..10_000u32 {
        a.request(0, 1, &[i]).unwrap();
    }
    poll_until(&bundle, || {
        *count.borrow() == 10_000 && a.outstanding() == 0
    });
}

/// A sender may put a whole window in flight before it waits: `CLUMP_CREDITS` to a
/// destination over shared memory, the larger `CLUMP_NET_CREDITS` over the network (a
/// credit comes back once half a window is owed, a network round trip later).
fn a_sender_fills_its_routes_window_before_it_waits(via: Via) {
    let (bundle, a, b) = pair(via);
    let window = match via {
        Via::Shm => clump::config::DEFAULT_CREDITS,
        Via::Udp | Via::UdpRationed => clump::config::DEFAULT_NET_CREDITS,
    };
    let count = Rc::new(Cell::new(0u32));
    let c = count.clone();
    b.set_handler(1, move |_, _| c.set(c.get() + 1)).unwrap();
    for i in 0..window {
        assert!(a.can_send_now(0), "request {i} of a window of {window}");
        a.request(0, 1, &[i]).unwrap();
    }
    assert!(!a.can_send_now(0), "a full window of {window} waits");
    poll_until(&bundle, || count.get() == window && a.outstanding() == 0);
}

/// A streaming window of MPI's (64 non-blocking sends, as osu_mbw_mr and `clump bench
/// mpi` post) goes out over every route without waiting for a credit: over shared memory
/// a wait is a round trip to the other core and back per half window.
fn an_mpi_streaming_window_goes_out_without_waiting_for_credit(via: Via) {
    let (bundle, a, b) = pair(via);
    let count = Rc::new(Cell::new(0u32));
    let c = count.clone();
    b.set_handler(1, move |_, _| c.set(c.get() + 1)).unwrap();
    for i in 0..64 {
        assert!(a.can_send_now(0), "request {i} of a window of 64");
        a.request(0, 1, &[i]).unwrap();
    }
    assert_eq!(a.stats().credit_waits, 0);
    poll_until(&bundle, || count.get() == 64 && a.outstanding() == 0);
}

/// With its route's window full, a try sends nothing and says so (MPI queues the message
/// instead of waiting); once the credits are back it sends.
fn a_try_past_the_window_sends_nothing_until_credits_come_back(via: Via) {
    let (bundle, a, b) = pair(via);
    let window = match via {
        Via::Shm => clump::config::DEFAULT_CREDITS,
        Via::Udp | Via::UdpRationed => clump::config::DEFAULT_NET_CREDITS,
    };
    let got = log();
    let g = got.clone();
    b.set_handler(1, move |_, m| g.borrow_mut().push(m.args[0]))
        .unwrap();
    for i in 0..window {
        assert!(
            a.try_request(0, 1, &[i]).unwrap(),
            "request {i} of a window of {window}"
        );
    }
    assert!(!a.try_request(0, 1, &[window]).unwrap());
    assert!(!a.try_request_medium(0, 1, &[window], &[7; 100]).unwrap());
    assert!(!a.can_send_now(0));
    poll_until(&bundle, || {
        got.borrow().len() == window as usize && a.outstanding() == 0
    });
    assert!(a.try_request_medium(0, 1, &[window], &[7; 100]).unwrap());
    poll_until(&bundle, || got.borrow().len() == window as usize + 1);
    assert_eq!(
        *got.borrow(),
        (0..=window).collect::<Vec<_>>(),
        "nothing refused was sent"
    );
}

/// A medium try that would wait, for credit or (over shared memory) for one of the bulk
/// blocks every sender to the destination shares, sends nothing and says so: MPI's
/// `Isend` of a few hundred bytes to a receiver that does not poll must not block once
/// the destination's blocks are in use (MPICH's sendrecv3 did, for its partner's sleep).
fn a_medium_try_that_would_wait_for_a_payload_block_sends_nothing(via: Via) {
    let (bundle, a, b) = pair(via);
    let got = log();
    let g = got.clone();
    b.set_handler(1, move |_, m| g.borrow_mut().push(m.args[0]))
        .unwrap();
    let payload = [7u8; 400];
    let mut sent = 0u32;
    while sent < 1000 && a.try_request_medium(0, 1, &[sent], &payload).unwrap() {
        sent += 1;
    }
    assert!(sent < 1000, "a try says when it would wait");
    assert_eq!(a.stats().queue_full_waits, 0, "a try never waits");
    assert_eq!(a.stats().credit_waits, 0, "a try never waits");
    poll_until(&bundle, || {
        got.borrow().len() == sent as usize && a.outstanding() == 0
    });
    assert!(a.try_request_medium(0, 1, &[sent], &payload).unwrap());
    poll_until(&bundle, || got.borrow().len() == sent as usize + 1);
    assert_eq!(*got.borrow(), (0..=sent).collect::<Vec<_>>());
}

fn virtual_networks_do_not_see_each_other(via: Via) {
    let bundle = Bundle::with_config(config(via)).unwrap();
    let net1 = [endpoint(&bundle, via, 1), endpoint(&bundle, via, 1)];
    let net2 = [endpoint(&bundle, via, 2), endpoint(&bundle, via, 2)];
    let seen: Log<(u64, u32)> = log();
    for (tag, net) in [(1u64, &net1), (2, &net2)] {
        net[0].map(0, net[1].name(), tag).unwrap();
        let s = seen.clone();
        net[1]
            .set_handler(1, move |_, m| s.borrow_mut().push((tag, m.args[0])))
            .unwrap();
    }
    let returns = record_returns(&net1[0]);
    net1[0].map(1, net2[1].name(), 1).unwrap(); // knows the name but not the tag
    net1[0].request(0, 1, &[10]).unwrap();
    net2[0].request(0, 1, &[20]).unwrap();
    net1[0].request(1, 1, &[30]).unwrap();
    poll_until(&bundle, || {
        seen.borrow().len() == 2 && returns.borrow().len() == 1
    });
    let mut s = seen.borrow().clone();
    s.sort();
    assert_eq!(s, vec![(1, 10), (2, 20)]);
    assert_eq!(returns.borrow()[0].reason, ReturnReason::BadTag);
}

fn a_request_handler_may_send_requests(via: Via) {
    let (bundle, a, b) = pair(via);
    let c = endpoint(&bundle, via, TAG);
    b.map(1, c.name(), TAG).unwrap();
    let seen: Log<u32> = log();
    let s = seen.clone();
    c.set_handler(1, move |_, m| s.borrow_mut().push(m.args[0]))
        .unwrap();
    b.set_handler(1, |t, m| {
        // Forward to c, then reply to a.
        t.endpoint().request(1, 1, &[m.args[0] * 2]).unwrap();
        t.reply(2, &[]).unwrap();
    })
    .unwrap();
    let replies = Rc::new(RefCell::new(0));
    let r = replies.clone();
    a.set_handler(2, move |_, _| *r.borrow_mut() += 1).unwrap();
    for i in 0..100 {
        a.request(0, 1, &[i]).unwrap();
    }
    poll_until(&bundle, || {
        *replies.borrow() == 100 && seen.borrow().len() == 100
    });
    assert_eq!(
        *seen.borrow(),
        (0..100).map(|i| i * 2).collect::<Vec<u32>>()
    );
}

/// AM-II: a reply handler sends nothing. Every kind of request from one is refused with
/// its own error (and sends nothing); the same requests outside it go.
fn a_reply_handler_may_not_send_requests(via: Via) {
    let (bundle, a, b) = pair(via);
    a.set_segment(64).unwrap();
    b.set_segment(64).unwrap();
    let ran: Log<u32> = log();
    let r = ran.clone();
    b.set_handler(1, move |t, m| {
        r.borrow_mut().push(m.args[0]);
        if m.args[0] == 0 {
            t.reply(2, &[]).unwrap();
        }
    })
    .unwrap();
    let refused: Log<String> = log();
    let (o, from) = (refused.clone(), a.clone());
    a.set_handler(2, move |t, _| {
        let ep = t.endpoint();
        let tries = [
            from.request(0, 1, &[1]),
            ep.request(0, 1, &[1]),
            from.request_medium(0, 1, &[1], b"abc"),
            from.request_long(0, 1, &[1], b"abc", 0),
            from.get(0, 1, &[1], 0, 8, 0),
        ];
        for e in tries {
            o.borrow_mut().push(format!("{:?}", e.unwrap_err()));
        }
    })
    .unwrap();
    a.request(0, 1, &[0]).unwrap();
    poll_until(&bundle, || refused.borrow().len() == 5);
    assert!(
        refused
            .borrow()
            .iter()
            .all(|e| e == "RequestFromReplyHandler"),
        "{:?}",
        refused.borrow()
    );
    // Outside the reply handler the same request goes.
    a.request(0, 1, &[3]).unwrap();
    poll_until(&bundle, || ran.borrow().len() == 2);
    assert_eq!(
        *ran.borrow(),
        [0, 3],
        "nothing the reply handler tried was sent"
    );
}

fn freeing_the_sender_from_a_handler_while_it_waits_for_credit_is_an_error_not_a_panic(via: Via) {
    let mut c = Config {
        credits: 1,
        ..config(via)
    };
    c.net.credits = 1;
    let (_bundle, a, b) = pair_with(via, c);
    b.set_handler(1, |t, _| t.reply(2, &[]).unwrap()).unwrap();
    a.set_handler(2, |t, _| t.endpoint().free()).unwrap();
    a.request(0, 1, &[]).unwrap();
    // No credit left: this send polls, the reply handler frees `a` meanwhile.
    assert!(matches!(a.request(0, 1, &[]), Err(Error::EndpointFreed)));
}

fn wait_sleeps_until_a_message_arrives(via: Via) {
    let (bundle, a, b) = pair(via);
    b.set_handler(1, |_, _| {}).unwrap();
    assert!(matches!(
        bundle.wait_timeout(std::time::Duration::from_millis(1)),
        Err(Error::NoEvents)
    ));
    bundle.set_event_mask(clump::EventMask::NotEmpty);
    assert!(!bundle
        .wait_timeout(std::time::Duration::from_millis(20))
        .unwrap());
    a.request(0, 1, &[]).unwrap();
    assert!(bundle
        .wait_timeout(std::time::Duration::from_secs(5))
        .unwrap());
    assert!(bundle.poll().unwrap() >= 1);
}

#[test]
fn a_program_that_bounces_messages_without_polling_is_stopped_before_memory_grows() {
    let (bundle, a, b) = pair(Via::Shm);
    let returns = record_returns(&a);
    b.free();
    let mut accepted = 0;
    let refused = loop {
        match a.request(0, 1, &[accepted]) {
            Ok(()) => accepted += 1,
            Err(e) => break e,
        }
        assert!(
            accepted <= 100_000,
            "the returned messages grow without bound"
        );
    };
    assert!(
        matches!(refused, Error::ReturnsPending(n) if n as u32 == accepted),
        "{refused}"
    );
    // A poll runs handler 0 for every one of them, in order; then sends go on.
    poll_until(&bundle, || returns.borrow().len() == accepted as usize);
    let args: Vec<u32> = returns.borrow().iter().map(|r| r.args()[0]).collect();
    assert_eq!(args, (0..accepted).collect::<Vec<_>>());
    a.request(0, 1, &[0]).unwrap();
}

/// A translation on this host is mapped by its first message, not by `map`: one to an
/// endpoint freed before that message, or to a process that has exited, is accepted and
/// the message comes back with the reason.
#[test]
fn a_translation_is_mapped_on_first_use_and_returns_what_cannot_arrive() {
    let bundle = Bundle::with_config(config(Via::Shm)).unwrap();
    let a = endpoint(&bundle, Via::Shm, TAG);
    let b = endpoint(&bundle, Via::Shm, TAG);
    let returns = record_returns(&a);
    a.map(0, b.name(), TAG).unwrap();
    b.free();
    let mut exited = std::process::Command::new("true").spawn().unwrap();
    let mut gone = a.name();
    gone.id.pid = exited.id();
    exited.wait().unwrap();
    a.map(1, gone, TAG).unwrap();
    assert!(a.is_local(1), "on this host, though not mapped yet");
    a.request(0, 1, &[1]).unwrap();
    a.request(1, 1, &[2]).unwrap();
    assert!(a.peer_segment(1).is_none());
    poll_until(&bundle, || returns.borrow().len() == 2);
    let reasons: Vec<(u32, ReturnReason)> = returns
        .borrow()
        .iter()
        .map(|r| (r.args()[0], r.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            (1, ReturnReason::EndpointGone),
            (2, ReturnReason::Unreachable)
        ]
    );
}

#[test]
fn sockets_get_a_doorbell_where_bpf_allows_and_none_when_told_not_to() {
    let bundle = Bundle::with_config(config(Via::Shm)).unwrap();
    let rationed = endpoint(&bundle, Via::UdpRationed, TAG);
    assert!(!rationed.net_stats().unwrap().doorbell);
    let belled = endpoint(&bundle, Via::Udp, TAG);
    let probe = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let allowed = clump::transport::net::doorbell::Doorbell::attach(&probe);
    assert_eq!(
        belled.net_stats().unwrap().doorbell,
        allowed.is_ok(),
        "{:?}",
        allowed.err()
    );
}

/// Each test, over each transport.
/// Same-host peers expose their segment for direct access (one copy, no message), with
/// every range checked; network peers do not.
fn a_same_host_peer_segment_is_directly_accessible_and_range_checked(via: Via) {
    let (_bundle, a, b) = pair(via);
    assert!(a.peer_segment(0).is_none(), "no segment yet");
    b.set_segment(4096).unwrap();
    assert_eq!(a.is_local(0), via == Via::Shm);
    assert!(!a.is_local(7), "an unmapped translation is not local");
    let Some(seg) = a.peer_segment(0) else {
        assert_ne!(
            via,
            Via::Shm,
            "a same-host peer's segment must be reachable"
        );
        return;
    };
    assert_eq!(seg.len(), 4096);
    seg.write(4090, b"abcdef").unwrap();
    let mut seen = [0u8; 6];
    b.read_segment(4090, &mut seen).unwrap();
    assert_eq!(&seen, b"abcdef");
    b.write_segment(0, &[9, 8, 7]).unwrap();
    let mut back = [0u8; 3];
    seg.read(0, &mut back).unwrap();
    assert_eq!(back, [9, 8, 7]);
    assert!(matches!(seg.write(4091, b"abcdef"), Err(Error::BadArg(_))));
    assert!(matches!(
        seg.read(usize::MAX, &mut back),
        Err(Error::BadArg(_))
    ));
}

macro_rules! over_each {
    ($($name:ident),* $(,)?) => {
        mod shm {
            $(#[test]
            fn $name() {
                super::$name(super::Via::Shm)
            })*
        }
        mod udp {
            $(#[test]
            fn $name() {
                super::$name(super::Via::Udp)
            })*
        }
        mod udp_rationed {
            $(#[test]
            fn $name() {
                super::$name(super::Via::UdpRationed)
            })*
        }
    };
}

over_each!(
    short_request_and_reply_with_every_argument_count,
    medium_payloads_at_and_around_the_limit_arrive_intact,
    long_messages_land_in_the_segment_and_out_of_range_ones_return,
    a_handler_may_replace_its_segment_while_it_reads_a_long_payload,
    get_pulls_remote_bytes_then_runs_a_local_handler,
    bad_tag_and_bad_handler_come_back_with_their_arguments,
    reply_rules_are_enforced,
    a_freed_endpoint_returns_queued_and_later_requests,
    one_way_requests_beyond_the_credit_window_all_arrive,
    a_sender_fills_its_routes_window_before_it_waits,
    an_mpi_streaming_window_goes_out_without_waiting_for_credit,
    a_try_past_the_window_sends_nothing_until_credits_come_back,
    a_medium_try_that_would_wait_for_a_payload_block_sends_nothing,
    virtual_networks_do_not_see_each_other,
    a_request_handler_may_send_requests,
    a_reply_handler_may_not_send_requests,
    freeing_the_sender_from_a_handler_while_it_waits_for_credit_is_an_error_not_a_panic,
    wait_sleeps_until_a_message_arrives,
    a_same_host_peer_segment_is_directly_accessible_and_range_checked,
);

/// Endpoints `a` and `b` in bundles of their own (one thread), mapped to each other;
/// `b`'s handler 1 counts its runs in `ran`.
struct TwoBundles {
    home_a: Bundle,
    home_b: Bundle,
    a: Endpoint,
    /// Kept alive: dropping it would free the endpoint the requests go to.
    b: Endpoint,
    ran: Rc<Cell<u32>>,
}

fn two_bundles(via: Via) -> TwoBundles {
    let (home_a, home_b) = (
        Bundle::with_config(config(via)).unwrap(),
        Bundle::with_config(config(via)).unwrap(),
    );
    let a = endpoint(&home_a, via, TAG);
    let b = endpoint(&home_b, via, TAG);
    a.map(0, b.name(), TAG).unwrap();
    b.map(0, a.name(), TAG).unwrap();
    let ran = Rc::new(Cell::new(0));
    let r = ran.clone();
    b.set_handler(1, move |_, _| r.set(r.get() + 1)).unwrap();
    TwoBundles {
        home_a,
        home_b,
        a,
        b,
        ran,
    }
}

/// Over the network the credits of requests whose handlers did not reply are held back
/// for a request to carry them; they still go back when the endpoint that owes them is
/// never polled again, from the polls of any other bundle of the thread.
fn held_credits_go_back_though_their_endpoint_is_never_polled_again(via: Via) {
    let TwoBundles {
        home_a,
        home_b,
        a,
        b: _b,
        ran,
    } = two_bundles(via);
    for i in 0..3 {
        a.request(0, 1, &[i]).unwrap();
    }
    poll_until(&home_b, || ran.get() == 3);
    // Only `a`'s bundle polls from here on: the credits come back as answers, not as
    // requests returned after `b` went silent.
    let returns = record_returns(&a);
    poll_until(&home_a, || a.outstanding() == 0);
    home_a.poll().unwrap(); // runs handler 0 for whatever came back
    assert!(returns.borrow().is_empty(), "{:?}", returns.borrow());
}

#[test]
fn held_credits_go_back_over_udp() {
    held_credits_go_back_though_their_endpoint_is_never_polled_again(Via::Udp);
}

#[test]
fn held_credits_go_back_over_udp_rationed() {
    held_credits_go_back_though_their_endpoint_is_never_polled_again(Via::UdpRationed);
}

/// Small requests held for their endpoint's next poll (the first of a burst goes at once,
/// the rest wait to share a datagram) still go when only another bundle of the thread
/// polls: from its polls, once the credit delay has run out.
fn held_requests_go_from_the_polls_of_another_bundle(via: Via) {
    let TwoBundles {
        home_a,
        home_b,
        a,
        b: _b,
        ran,
    } = two_bundles(via);
    for round in 1..=3 {
        for i in 0..5 {
            a.request(0, 1, &[i]).unwrap();
        }
        // `a`'s bundle never polls: the four held behind the first go from `b`'s.
        poll_until(&home_b, || ran.get() == 5 * round);
    }
}

#[test]
fn held_requests_go_from_another_bundle_over_udp() {
    held_requests_go_from_the_polls_of_another_bundle(Via::Udp);
}

#[test]
fn held_requests_go_from_another_bundle_over_udp_rationed() {
    held_requests_go_from_the_polls_of_another_bundle(Via::UdpRationed);
}

/// An endpoint on a virtual host of its own whose socket loses datagrams as `faults` says.
fn lossy_endpoint(host: u32, faults: clump::config::Faults) -> (Bundle, Endpoint) {
    let mut c = config(Via::Udp);
    c.host = host;
    c.net.faults = faults;
    let bundle = Bundle::with_config(c).unwrap();
    let ep = bundle.create_endpoint(TAG).unwrap();
    (bundle, ep)
}

/// A request whose first copy is lost (as when it reaches a peer that has not mapped its
/// sender yet), sent by an endpoint freed at once, still arrives: the freed endpoint keeps
/// its socket until the retransmission is acknowledged. The peer polls in a thread of its
/// own, as another process would.
#[test]
fn a_request_sent_just_before_its_endpoint_is_freed_arrives_though_its_first_copy_was_lost() {
    let (name_tx, name_rx) = std::sync::mpsc::channel();
    let peer = std::thread::spawn(move || {
        let (bundle, b) = lossy_endpoint(902, Default::default());
        let got = Rc::new(Cell::new(None));
        let g = got.clone();
        b.set_handler(1, move |_, m| g.set(Some(m.args[0])))
            .unwrap();
        name_tx.send(b.name()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while got.get().is_none() && Instant::now() < deadline {
            bundle.poll().unwrap();
        }
        got.get()
    });
    // Seed 55 at 5% loses the first datagram and none of the next eleven.
    let faults = clump::config::Faults {
        loss: 5.0,
        seed: 55,
        ..Default::default()
    };
    let (_bundle, a) = lossy_endpoint(901, faults);
    let returns = record_returns(&a);
    a.map(0, name_rx.recv().unwrap(), TAG).unwrap();
    a.request(0, 1, &[42]).unwrap();
    assert_eq!(
        a.net_stats().unwrap().socket.injected_losses,
        1,
        "the first copy is lost"
    );
    a.free();
    let delivered = peer.join().unwrap();
    // Delivered, or (had the peer not answered within the silence timeout) back at
    // handler 0 before the free returned: never lost.
    let returned: Vec<_> = returns
        .borrow()
        .iter()
        .map(|r| (r.args()[0], r.reason))
        .collect();
    match delivered {
        Some(arg) => assert_eq!((arg, returned.len()), (42, 0), "{returned:?}"),
        None => assert_eq!(returned, [(42, ReturnReason::OutcomeUnknown)]),
    }
}

/// A request that never gets through (every datagram lost) comes back to handler 0 as
/// `OutcomeUnknown` before the free of its endpoint returns, once the silence timeout
/// has passed: never dropped with the socket.
#[test]
fn a_request_a_freed_endpoint_cannot_deliver_returns_before_the_free_returns() {
    let (_peer_bundle, b) = lossy_endpoint(903, Default::default());
    let all_lost = clump::config::Faults {
        loss: 100.0,
        ..Default::default()
    };
    let (_bundle, a) = lossy_endpoint(904, all_lost);
    let returns = record_returns(&a);
    a.map(0, b.name(), TAG).unwrap();
    a.request(0, 1, &[7]).unwrap();
    a.free();
    let returned: Vec<_> = returns
        .borrow()
        .iter()
        .map(|r| (r.args()[0], r.reason))
        .collect();
    assert_eq!(returned, [(7, ReturnReason::OutcomeUnknown)]);
}

#[test]
fn polling_shared_memory_requests_alone_runs_them_and_leaves_the_rest_to_the_full_poll() {
    let (bundle, a, b) = pair(Via::Shm);
    let got: Log<u32> = Rc::new(RefCell::new(Vec::new()));
    let g = got.clone();
    b.set_handler(1, move |_, m| g.borrow_mut().push(m.args[0]))
        .unwrap();
    assert!(!b.shm_request_waiting());
    assert_eq!(b.poll_shm_requests(), 0);
    for i in 0..3 {
        a.request(0, 1, &[i]).unwrap();
    }
    assert!(b.shm_request_waiting() && !a.shm_request_waiting());
    assert_eq!(b.poll_shm_requests(), 3);
    assert_eq!(*got.borrow(), vec![0, 1, 2]);
    assert!(!b.shm_request_waiting());
    assert_eq!(a.outstanding(), 3, "no credit came back yet");
    // The credits owed go back from a full poll that finds the queue empty.
    poll_until(&bundle, || a.outstanding() == 0);
    b.free();
    assert_eq!(b.poll_shm_requests(), 0, "a freed endpoint runs nothing");
}

#[test]
fn replies_that_find_the_requesters_queue_full_wait_and_arrive_in_order() {
    // The requester's reply queue holds 256 packets; with as many credits one translation
    // can have all of them in flight.
    const QUEUE: u32 = 256;
    let mut c = config(Via::Shm);
    c.credits = QUEUE;
    let (bundle, a, b) = pair_with(Via::Shm, c);
    b.set_handler(1, |t, m| t.reply(2, m.args).unwrap())
        .unwrap();
    let got: Log<u32> = log();
    let g = got.clone();
    a.set_handler(2, move |_, m| g.borrow_mut().push(m.args[0]))
        .unwrap();
    for i in 0..QUEUE {
        a.request(0, 1, &[i]).unwrap();
    }
    while b.poll_shm_requests() > 0 {}
    // One full poll runs a batch of the replies; the requester keeps the last slot it
    // read until its next poll, so as many new requests need one slot more than it gave
    // back: the last reply finds the queue full and waits at the replier.
    bundle.poll().unwrap();
    let ran = got.borrow().len() as u32;
    assert!(ran > 0 && ran < QUEUE, "{ran} replies in one poll");
    for i in QUEUE..QUEUE + ran {
        a.request(0, 1, &[i]).unwrap();
    }
    while b.poll_shm_requests() > 0 {}
    assert!(
        b.stats().deferred_replies > 0,
        "a reply found the queue full"
    );
    poll_until(&bundle, || got.borrow().len() as u32 == QUEUE + ran);
    assert_eq!(*got.borrow(), (0..QUEUE + ran).collect::<Vec<_>>());
    assert_eq!(a.outstanding(), 0);
}
