//! Deterministic seeded simulation of the reliability machine ([`super::reliable`]).
//!
//! Two to four machines, each one [`Reliable`](super::reliable::Reliable) endpoint, talk
//! all-to-all over a simulated network with a virtual clock that loses, duplicates,
//! delays (so reorders) and corrupts datagrams at the rates a scenario sets, and can cut
//! a link. Each machine sends request messages of every kind (short, medium in one or
//! many fragments, long, get) within a credit limit, as the AM layer would, and answers
//! each request it takes with a reply (short, medium, get reply, returned message). The
//! checks: every message is delivered exactly once, in order per channel, with the
//! right header and bytes (long and get-reply fragments checked as they land, in order
//! and once); nobody is declared unreachable unless its link was cut, and then in time.
//! A scenario may seal its datagrams as ports do by default (`auth.rs`): then the tag,
//! not a CRC, is what keeps corrupted ones from the machines.
//!
//! Everything derives from the scenario's seed, so a failure reruns identically: the
//! seed is printed at the start of each scenario (shown by the test harness on failure)
//! and `CLUMP_SIM_SEED` overrides it. `CLUMP_SOAK=1` makes the runs ten times longer.
//!
//! - `rng.rs`: the seeded generator (xoshiro256++) and hash.
//! - `network.rs`: the simulated network and its faults.
//! - `spec.rs`: what message number n from machine s to machine d is, header and bytes.
//! - `world.rs`: the machines, the workload, the event loop and the checks.
//! - `endpoints.rs`: whole endpoints: the AM layer's pure flow control and owed credits
//!   (`proto/`) over the machine, every request settled exactly once.
//! - `bulk.rs`: long-message streams through lossy links, goodput in virtual time.
//! - `scenarios.rs`: the tests.

mod bulk;
mod endpoints;
mod network;
mod rng;
mod scenarios;
mod spec;
mod world;
