//! `clump/amudp.h`: AMUDP's `AMX_` extensions (source ids, verbosity, endpoint
//! statistics) over clump's endpoints, so AMUDP programs build unchanged.

use crate::codes::{AmResult, Code, EnT, AM_OK, BAD_ARG, EN_T_BYTES, RESOURCE};
use crate::guard::{self, out};
use crate::state;
use crate::token::{AM_GetDestEndpoint, AM_GetSourceEndpoint};
use std::ffi::c_void;
use std::os::raw::c_int;

/// AMUDP's switch for printing errors as they are returned; read by programs, kept for
/// source compatibility (clump returns codes and `AM_ErrorName` names them).
#[no_mangle]
pub static mut AMX_VerboseErrors: c_int = 0;

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

/// The zero statistics a running sum starts from.
#[no_mangle]
pub static AMX_initial_stats: AmxStats = AmxStats {
    requests_sent: 0,
    returned_messages: 0,
    credit_waits: 0,
    queue_full_waits: 0,
    deferred_replies: 0,
    messages_sent_net: 0,
    messages_delivered_net: 0,
    datagrams_sent: 0,
    datagrams_received: 0,
    retransmits: 0,
    timeouts: 0,
    duplicates: 0,
    out_of_order: 0,
};

impl AmxStats {
    fn fields(&mut self) -> [&mut u64; 13] {
        [
            &mut self.requests_sent,
            &mut self.returned_messages,
            &mut self.credit_waits,
            &mut self.queue_full_waits,
            &mut self.deferred_replies,
            &mut self.messages_sent_net,
            &mut self.messages_delivered_net,
            &mut self.datagrams_sent,
            &mut self.datagrams_received,
            &mut self.retransmits,
            &mut self.timeouts,
            &mut self.duplicates,
            &mut self.out_of_order,
        ]
    }
}

const FIELD_NAMES: [&str; 13] = [
    "requests sent",
    "returned messages",
    "credit waits",
    "queue-full waits",
    "deferred replies",
    "network messages sent",
    "network messages delivered",
    "datagrams sent",
    "datagrams received",
    "retransmits",
    "timeouts",
    "duplicate datagrams",
    "out-of-order datagrams",
];

fn check(rc: c_int) -> AmResult {
    if rc == AM_OK {
        Ok(())
    } else {
        Err(Code(rc))
    }
}

/// The translation index the sender of the message `token` names is mapped at on the
/// receiving endpoint.
#[no_mangle]
pub extern "C" fn AMX_GetSourceId(token: *mut c_void, srcid: *mut c_int) -> c_int {
    guard::call(|| {
        let mut src = EnT {
            bytes: [0; EN_T_BYTES],
        };
        let mut ep: *mut c_void = std::ptr::null_mut();
        check(AM_GetSourceEndpoint(token, &mut src))?;
        check(AM_GetDestEndpoint(token, &mut ep))?;
        let endpoint = state::endpoint(ep)?;
        let n = endpoint.tables().num_translations;
        let index = (0..n as u32)
            .find(|&i| {
                endpoint
                    .ep
                    .translation(i)
                    .is_some_and(|(name, _)| EnT::from(name).bytes == src.bytes)
            })
            .ok_or(RESOURCE)?;
        out(srcid, index as c_int)
    })
}

#[no_mangle]
pub extern "C" fn AMX_GetEndpointStatistics(ep: *mut c_void, stats: *mut AmxStats) -> c_int {
    guard::call(|| {
        let endpoint = state::endpoint(ep)?;
        let s = endpoint.ep.stats();
        let mut v = AmxStats {
            requests_sent: s.requests_sent,
            returned_messages: s.returned,
            credit_waits: s.credit_waits,
            queue_full_waits: s.queue_full_waits,
            deferred_replies: s.deferred_replies,
            ..AmxStats::default()
        };
        if let Some(n) = endpoint.ep.net_stats() {
            v.messages_sent_net = n.protocol.messages_sent;
            v.messages_delivered_net = n.protocol.messages_delivered;
            v.datagrams_sent = n.socket.sent;
            v.datagrams_received = n.socket.received;
            v.retransmits = n.protocol.retransmits;
            v.timeouts = n.protocol.timeouts;
            v.duplicates = n.protocol.duplicates;
            v.out_of_order = n.protocol.out_of_order;
        }
        out(stats, v)
    })
}

#[no_mangle]
pub extern "C" fn AMX_AggregateStatistics(sum: *mut AmxStats, add: *const AmxStats) -> c_int {
    guard::call_uninit(|| {
        if sum.is_null() || add.is_null() {
            return Err(BAD_ARG);
        }
        // SAFETY: non-null, and the caller's contract is that both point to amx_stats_t.
        let (mut total, mut more) = unsafe { (sum.read_unaligned(), add.read_unaligned()) };
        for (t, m) in total.fields().into_iter().zip(more.fields()) {
            *t = t.saturating_add(*m);
        }
        out(sum, total)
    })
}

/// The statistics as text, one counter a line.
fn render(mut stats: AmxStats, global: bool) -> String {
    let scope = if global { "all endpoints" } else { "endpoint" };
    let mut text = format!("clump statistics ({scope}):\n");
    for (name, v) in FIELD_NAMES.iter().zip(stats.fields()) {
        text += &format!("  {name:<28} {v}\n");
    }
    text
}

#[no_mangle]
pub extern "C" fn AMX_DumpStatistics(
    fp: *mut libc::FILE,
    stats: *const AmxStats,
    global_analysis: c_int,
) -> c_int {
    guard::call_uninit(|| {
        if fp.is_null() || stats.is_null() {
            return Err(BAD_ARG);
        }
        // SAFETY: non-null, and the caller's contract is that it points to amx_stats_t.
        let text = render(unsafe { stats.read_unaligned() }, global_analysis != 0);
        let text = std::ffi::CString::new(text).map_err(|_| BAD_ARG)?;
        // SAFETY: fp is the caller's open FILE; text is NUL-terminated.
        if unsafe { libc::fputs(text.as_ptr(), fp) } < 0 {
            return Err(RESOURCE);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_adds_every_counter_and_dump_names_each() {
        let mut sum = AMX_initial_stats;
        let mut one = AmxStats::default();
        for (i, f) in one.fields().into_iter().enumerate() {
            *f = i as u64 + 1;
        }
        assert_eq!(AMX_AggregateStatistics(&mut sum, &one), 0);
        assert_eq!(AMX_AggregateStatistics(&mut sum, &one), 0);
        for (i, f) in sum.fields().into_iter().enumerate() {
            assert_eq!(*f, 2 * (i as u64 + 1));
        }
        let text = render(sum, true);
        assert!(text.contains("datagrams sent"), "{text}");
        assert_eq!(text.lines().count(), 14);
        assert_ne!(AMX_AggregateStatistics(std::ptr::null_mut(), &one), 0);
    }
}
