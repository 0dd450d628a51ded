//! A handler leaves the endpoint's handler table before it is dropped: what it captured
//! may use the endpoint as it goes (here: clear another handler), whether the handler is
//! replaced or its endpoint freed.

use clump::config::Config;
use clump::{Bundle, Endpoint};
use std::cell::Cell;
use std::rc::Rc;

/// Clears handler `index` of `ep` when dropped, and counts that it was.
struct ClearsOnDrop {
    ep: Endpoint,
    index: usize,
    dropped: Rc<Cell<u32>>,
}

impl Drop for ClearsOnDrop {
    fn drop(&mut self) {
        self.ep.clear_handler(self.index).unwrap();
        self.dropped.set(self.dropped.get() + 1);
    }
}

fn endpoint() -> (Bundle, Endpoint) {
    let mut c = Config::default();
    c.net.enabled = false;
    let bundle = Bundle::with_config(c).unwrap();
    let ep = bundle.create_endpoint(0x7ab1e).unwrap();
    (bundle, ep)
}

/// Installs at 1 a handler that clears handler 2 when it is dropped.
fn install_clearing_handler(ep: &Endpoint) -> Rc<Cell<u32>> {
    let dropped = Rc::new(Cell::new(0));
    let guard = ClearsOnDrop {
        ep: ep.clone(),
        index: 2,
        dropped: dropped.clone(),
    };
    ep.set_handler(1, move |_, _| {
        let _ = &guard;
    })
    .unwrap();
    ep.set_handler(2, |_, _| {}).unwrap();
    dropped
}

#[test]
fn a_replaced_handler_may_use_its_endpoint_as_it_is_dropped() {
    let (bundle, ep) = endpoint();
    let dropped = install_clearing_handler(&ep);
    ep.set_handler(1, |_, _| {}).unwrap();
    assert_eq!(dropped.get(), 1);
    // Handler 2 is gone: a request to it comes back.
    ep.map(0, ep.name(), 0x7ab1e).unwrap();
    let returned = Rc::new(Cell::new(false));
    let r = returned.clone();
    ep.set_return_handler(move |_| r.set(true)).unwrap();
    ep.request(0, 2, &[]).unwrap();
    let start = std::time::Instant::now();
    while !returned.get() && start.elapsed().as_secs() < 10 {
        bundle.poll().unwrap();
    }
    assert!(
        returned.get(),
        "the request to the cleared handler did not come back"
    );
}

#[test]
fn freeing_an_endpoint_may_drop_handlers_that_use_it() {
    let (_bundle, ep) = endpoint();
    let dropped = install_clearing_handler(&ep);
    ep.free();
    assert_eq!(dropped.get(), 1);
}
