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

#[cfg(not(loom))]
pub mod boot;
pub mod config;
pub(crate) mod shm;
pub(crate) mod sync;

#[cfg(not(loom))]
mod bundle;
#[cfg(not(loom))]
mod dispatch;
#[cfg(not(loom))]
mod endpoint;
#[cfg(not(loom))]
mod endpoint_query;
#[cfg(not(loom))]
mod error;
#[cfg(not(loom))]
mod message;
#[cfg(not(loom))]
pub mod name;
#[cfg(not(loom))]
pub mod net;
#[cfg(not(loom))]
mod net_dispatch;
#[cfg(not(loom))]
mod net_send;
#[cfg(not(loom))]
mod peer_segment;
#[cfg(not(loom))]
pub mod poll;
#[cfg(not(loom))]
mod program_segment;
#[cfg(not(loom))]
mod route;
#[cfg(not(loom))]
mod segment_fallback;
#[cfg(not(loom))]
mod send;
#[cfg(not(loom))]
pub mod spmd;
#[cfg(not(loom))]
mod token;

#[cfg(not(loom))]
pub use {
    bundle::{Bundle, EventMask},
    endpoint::{Endpoint, EndpointStats},
    error::{Error, Result, ReturnReason},
    message::{
        HandlerIndex, Kind, Message, Returned, ReturnedMessage, MAX_ARGS, MAX_HANDLERS, MAX_LONG,
        MAX_MEDIUM, MAX_SEGMENT, MAX_TRANSLATIONS,
    },
    name::{EndpointId, EndpointName},
    peer_segment::PeerSegment,
    shm::block::{REPLY_SLOTS as REPLY_QUEUE_SLOTS, REQUEST_SLOTS as REQUEST_QUEUE_SLOTS},
    shm::cma::describe as describe_cross_memory_attach,
    shm::region::Region as SharedRegion,
    token::Token,
};
