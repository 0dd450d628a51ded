//! clump: multi-protocol Active Messages (AM-II) for clusters of multicore machines.
//!
//! Processes exchange small messages that run a handler at the destination. An
//! [`Endpoint`] has a name other processes map into their translation tables, a tag that
//! guards it, a handler table and a segment; a [`Bundle`] polls and waits on endpoints.
//! Requests run request handlers, which may reply once through their [`Token`]; replies
//! run reply handlers, which send nothing. Undeliverable messages come back to handler 0
//! (see [`Endpoint::set_return_handler`]) with a [`ReturnReason`].
//!
//! ```no_run
//! let bundle = clump::Bundle::new()?;
//! let ep = bundle.create_endpoint(0x5eed)?;
//! ep.set_handler(1, |token, msg| { token.reply(2, &[msg.args[0] + 1]).unwrap(); })?;
//! ep.set_handler(2, |_token, msg| println!("got {}", msg.args[0]))?;
//! ep.map(0, ep.name(), 0x5eed)?;      // a translation to itself
//! ep.request(0, 1, &[41])?;
//! while ep.outstanding() > 0 { bundle.poll()?; }
//! # Ok::<(), clump::Error>(())
//! ```
//!
//! The tree follows paper 001's architecture: one AM layer (`am/`) above two complete
//! transports with the same verbs, shared memory (`transport/shm/`) and the network
//! (`transport/net/`), each with its send and poll sides; the endpoint's state split by owner (`endpoint/`); the
//! pure bookkeeping of credits, flights and owed answers (`proto/`). Imports only point
//! down that list (`tests/layers.rs` checks it).

/// The loom build (`--cfg loom`) model-checks the lock-free queues alone: this is the one
/// switch that leaves everything else out of it (used here and in `transport/`).
macro_rules! without_loom {
    ($($item:item)*) => { $( #[cfg(not(loom))] $item )* };
}
pub(crate) use without_loom;

/// Modules that only tests, the fuzzer and the benchmarks reach from outside: public
/// with the `testing` feature, crate-private otherwise (no program depends on them; what
/// only those users call is then unused, and not reported).
macro_rules! testing_pub {
    ($(mod $name:ident;)*) => {
        $(
            #[cfg(feature = "testing")]
            pub mod $name;
            #[cfg(not(feature = "testing"))]
            #[allow(dead_code)]
            pub(crate) mod $name;
        )*
    };
}
pub(crate) use testing_pub;

pub mod transport;
#[cfg(not(loom))]
pub use transport::shm::cma;
pub(crate) mod sync;

without_loom! {
    mod am;
    pub mod boot;
    pub mod config;
    pub mod cpu;
    mod endpoint;
    mod error;
    pub mod idle;
    mod message;
    pub mod name;
    pub mod poll;
    pub mod serial;
    mod proto;
    pub mod spmd;
    mod thread_finder;

    pub use {
        am::bundle::{Bundle, EventMask},
        am::endpoint::Endpoint,
        am::idle_wait::{IdleWait, MESSAGE_NAP, STORE_NAP},
        am::peer_segment::PeerSegment,
        endpoint::handlers::Token,
        endpoint::EndpointStats,
        error::{Error, Result, ReturnReason},
        message::{
            HandlerIndex, Kind, Message, Returned, ReturnedMessage, MAX_ARGS, MAX_HANDLERS, MAX_LONG,
            MAX_MEDIUM, MAX_SEGMENT, MAX_TRANSLATIONS,
        },
        name::{EndpointId, EndpointName},
        transport::shm::block::{REPLY_SLOTS as REPLY_QUEUE_SLOTS, REQUEST_SLOTS as REQUEST_QUEUE_SLOTS},
        transport::net::seal_speed::describe as describe_datagram_seal,
        transport::shm::cma::describe as describe_cross_memory_attach,
        transport::shm::region::Region as SharedRegion,
    };
}
