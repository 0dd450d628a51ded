//! What a thread's exit leaves usable. The C faces free what a program left open from a
//! thread-local destructor, and Rust runs those in no order the program controls: by the
//! time one runs, every thread-local of clump may be gone. Endpoints, bundles and the job
//! membership must still work then (send what they owe, close, join), since their state
//! is theirs, not the thread's.

use clump::boot::Job;
use clump::config::Config;
use clump::Bundle;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::mpsc::{channel, Sender};
use std::time::{Duration, Instant};

const TAG: u64 = 0x7e1;
const NOTE: u8 = 1;
const ECHO: u8 = 2;
const ECHOED: u8 = 3;

fn config(host: u32) -> Config {
    let mut c = Config::default();
    c.job.job_id = 0x7e1;
    c.job.job_key = 0x7e1_0000_07e1;
    (c.job.rank, c.job.size, c.job.boot_socket) = (0, 1, None);
    c.net.timeout = Duration::from_millis(500);
    c.host = host;
    c
}

/// Two bundles on two virtual hosts (UDP over loopback): `a` sends to `b`, whose note
/// handler does not reply, so that `b` holds the credits back for a later request.
struct Pair {
    bundles: [Bundle; 2],
    a: clump::Endpoint,
    b: clump::Endpoint,
    echoed: Rc<Cell<u32>>,
}

impl Pair {
    fn new() -> Pair {
        let bundles = [
            Bundle::with_config(config(0)).unwrap(),
            Bundle::with_config(config(1)).unwrap(),
        ];
        let a = bundles[0].create_endpoint(TAG).unwrap();
        let b = bundles[1].create_endpoint(TAG).unwrap();
        a.map(0, b.name(), TAG).unwrap();
        b.map(0, a.name(), TAG).unwrap();
        b.set_handler(NOTE as usize, |_, _| {}).unwrap();
        b.set_handler(ECHO as usize, |t, m| t.reply(ECHOED, m.args).unwrap())
            .unwrap();
        let echoed = Rc::new(Cell::new(0));
        let e = echoed.clone();
        a.set_handler(ECHOED as usize, move |_, _| e.set(e.get() + 1))
            .unwrap();
        Pair {
            bundles,
            a,
            b,
            echoed,
        }
    }

    fn poll_until(&self, done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !done() {
            assert!(Instant::now() < deadline, "no progress");
            for bundle in &self.bundles {
                bundle.poll().unwrap();
            }
        }
    }

    /// Notes that leave `b` owing credits, then one round trip.
    fn exercise(&self) {
        for i in 0..4 {
            self.a.request(0, NOTE, &[i]).unwrap();
        }
        let before = self.echoed.get();
        self.a.request(0, ECHO, &[7]).unwrap();
        self.poll_until(|| self.echoed.get() == before + 1);
        // Notes whose credits `b` holds back when the thread's locals die.
        for i in 0..4 {
            self.a.request(0, NOTE, &[i]).unwrap();
        }
        self.poll_until(|| self.a.outstanding() <= 4 && self.b.pending_requests() == 0);
    }

    /// Closes both endpoints: `b` sends what it still owes as it goes.
    fn close(self) {
        self.poll_until(|| self.a.outstanding() == 0);
        self.b.free();
        self.a.free();
    }
}

type Last = Box<dyn FnOnce()>;

/// Runs `setup` on a new thread, then what it returns in a thread-local destructor as the
/// thread exits, after the destructors of every thread-local `setup` touched (registered
/// after this one, they run before it); returns what that last step panicked with.
fn at_thread_exit(setup: impl FnOnce() -> Last + Send + 'static) -> Option<String> {
    struct AtExit(RefCell<Option<(Last, Sender<Option<String>>)>>);
    impl Drop for AtExit {
        fn drop(&mut self) {
            let Some((last, tell)) = self.0.borrow_mut().take() else {
                return;
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(last));
            let _ = tell.send(outcome.err().map(|e| {
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into())
            }));
        }
    }
    thread_local! {
        static AT_EXIT: AtExit = const { AtExit(RefCell::new(None)) };
    }
    let (tell, told) = channel();
    std::thread::spawn(move || {
        // Registered first, so destroyed last.
        AT_EXIT.with(|_| {});
        let last = setup();
        AT_EXIT.with(|x| *x.0.borrow_mut() = Some((last, tell)));
    })
    .join()
    .expect("the thread");
    told.recv_timeout(Duration::from_secs(300))
        .expect("the destructor ran")
}

#[test]
fn endpoints_owing_credits_close_after_their_threads_locals_died() {
    let failed = at_thread_exit(|| {
        let pair = Pair::new();
        pair.exercise();
        Box::new(move || {
            pair.exercise();
            pair.close();
        })
    });
    assert_eq!(failed, None);
}

#[test]
fn a_bundle_made_after_the_threads_locals_died_works() {
    let failed = at_thread_exit(|| {
        Pair::new().exercise();
        Box::new(|| {
            let pair = Pair::new();
            pair.exercise();
            pair.close();
        })
    });
    assert_eq!(failed, None);
}

#[test]
fn the_job_is_joined_and_left_after_the_threads_locals_died() {
    let failed = at_thread_exit(|| {
        let held = Job::process_with(&config(0).job).unwrap();
        Box::new(move || {
            let again = Job::process_with(&config(0).job).unwrap();
            assert_eq!((again.rank(), again.size()), (0, 1));
            drop(held);
            drop(again);
        })
    });
    assert_eq!(failed, None);
}
