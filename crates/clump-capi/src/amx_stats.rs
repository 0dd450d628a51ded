//! AMUDP's statistics record, which amudp.rs fills and each endpoint's state keeps a
//! base of (`AMX_ResetEndpointStatistics`).

/// `amx_stats_t`: the counters of AMUDP's statistics that clump keeps (see amudp.h).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct AmxStats {
    pub requests_sent: u64,
    pub returned_messages: u64,
    pub credit_waits: u64,
    pub queue_full_waits: u64,
    pub deferred_replies: u64,
    pub messages_sent_net: u64,
    pub messages_delivered_net: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub duplicates: u64,
    pub out_of_order: u64,
}
