//! The shared-memory protocol: queue blocks in memory other processes of the host map.

pub mod bulk;
pub mod ring;
#[cfg(all(test, loom))]
mod ring_loom;

#[cfg(not(loom))]
pub mod block;
#[cfg(not(loom))]
pub mod cma;
#[cfg(not(loom))]
pub mod owned;
#[cfg(not(loom))]
pub mod packet;
#[cfg(not(loom))]
pub mod region;
#[cfg(not(loom))]
pub mod remote;
#[cfg(not(loom))]
pub mod segment;
#[cfg(not(loom))]
pub mod wake;
