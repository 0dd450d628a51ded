//! `clump/amudp.h`: AMUDP's `AMX_` extensions (source ids, verbosity, endpoint
//! statistics) over clump's endpoints, so AMUDP programs build unchanged.

use crate::amx_stats::AmxStats;
use crate::codes::{AmResult, Code, EnT, AM_OK, BAD_ARG, EN_T_BYTES, RESOURCE};
use crate::guard::{self, out, out_if};
use crate::state;
use crate::token::{message_info, AM_GetDestEndpoint, AM_GetSourceEndpoint};
use std::ffi::{c_char, c_void};
use std::os::raw::c_int;

/// AMUDP's switch for printing errors as they are returned; read by programs, kept for
/// source compatibility (clump returns codes and `AM_ErrorName` names them).
#[no_mangle]
pub static mut AMX_VerboseErrors: c_int = 0;

/// AMUDP's switches for silencing its informational output and for yielding while a send
/// waits for resources: clump prints no informational output, and its waits back off to
/// sleeping by themselves. Kept so that programs that set them build.
#[no_mangle]
pub static mut AMUDP_SilentMode: c_int = 0;
#[no_mangle]
pub static mut AMUDP_PoliteSync: c_int = 0;

/// `amudp_category_t`: AMUDP's message categories, as `AMX_GetTokenInfo` reports them.
const CATEGORY_SHORT: c_int = 0;
const CATEGORY_MEDIUM: c_int = 1;
const CATEGORY_LONG: c_int = 2;

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
    fn subtract(&mut self, mut base: AmxStats) {
        for (v, b) in self.fields().into_iter().zip(base.fields()) {
            *v = v.saturating_sub(*b);
        }
    }

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

/// The handler index, category (`amudp_category_t`: short, medium, long; a get's
/// completion is long) and request-or-reply of the message `token` stands for. Each
/// out-pointer may be NULL.
#[no_mangle]
pub extern "C" fn AMX_GetTokenInfo(
    token: *mut c_void,
    handler: *mut u8,
    category: *mut c_int,
    is_req: *mut c_int,
) -> c_int {
    guard::call(|| {
        let shared = am::serial::is_shared();
        let (index, kind, request) = message_info(token, shared)?;
        out_if(handler, index);
        out_if(
            category,
            match kind {
                am::Kind::Short => CATEGORY_SHORT,
                am::Kind::Medium => CATEGORY_MEDIUM,
                am::Kind::Long | am::Kind::Get => CATEGORY_LONG,
            },
        );
        out_if(is_req, c_int::from(request));
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn AMX_GetEndpointStatistics(ep: *mut c_void, stats: *mut AmxStats) -> c_int {
    guard::call(|| {
        let endpoint = state::endpoint(ep)?;
        let mut v = counters(&endpoint.ep);
        let base = endpoint.tables().stats_base;
        v.subtract(base);
        out(stats, v)
    })
}

/// Starts the endpoint's counters again from zero (for the program's view).
#[no_mangle]
pub extern "C" fn AMUDP_ResetEndpointStatistics(ep: *mut c_void) -> c_int {
    guard::call(|| {
        let endpoint = state::endpoint(ep)?;
        let now = counters(&endpoint.ep);
        endpoint.tables().stats_base = now;
        Ok(())
    })
}

/// The counters clump keeps for `ep`, since it was allocated.
fn counters(ep: &am::Endpoint) -> AmxStats {
    let s = ep.stats();
    let mut v = AmxStats {
        requests_sent: s.requests_sent,
        returned_messages: s.returned,
        credit_waits: s.credit_waits,
        queue_full_waits: s.queue_full_waits,
        deferred_replies: s.deferred_replies,
        ..AmxStats::default()
    };
    if let Some(n) = ep.net_stats() {
        v.messages_sent_net = n.protocol.messages_sent;
        v.messages_delivered_net = n.protocol.messages_delivered;
        v.datagrams_sent = n.socket.sent;
        v.datagrams_received = n.socket.received;
        v.retransmits = n.protocol.retransmits;
        v.timeouts = n.protocol.timeouts;
        v.duplicates = n.protocol.duplicates;
        v.out_of_order = n.protocol.out_of_order;
    }
    v
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

thread_local! {
    /// The text of the last `AMX_DumpStatistics` on this thread, which it returns.
    static DUMP: std::cell::RefCell<std::ffi::CString> = std::cell::RefCell::default();
}

/// Writes the statistics as text to `fp` (a `FILE *`; NULL writes nothing) and returns
/// that text, valid until this thread's next call; NULL if `stats` is NULL or the text
/// cannot be written.
#[no_mangle]
pub extern "C" fn AMX_DumpStatistics(
    fp: *mut c_void,
    stats: *const AmxStats,
    global_analysis: c_int,
) -> *const c_char {
    let mut text = std::ptr::null();
    let rc = guard::call_uninit(|| {
        if stats.is_null() {
            return Err(BAD_ARG);
        }
        // SAFETY: non-null, and the caller's contract is that it points to amx_stats_t.
        let rendered = render(unsafe { stats.read_unaligned() }, global_analysis != 0);
        let rendered = std::ffi::CString::new(rendered).map_err(|_| BAD_ARG)?;
        // SAFETY: fp, when not NULL, is the caller's open FILE; the text is NUL-terminated.
        if !fp.is_null() && unsafe { libc::fputs(rendered.as_ptr(), fp.cast()) } < 0 {
            return Err(RESOURCE);
        }
        text = DUMP.with(|d| {
            *d.borrow_mut() = rendered;
            d.borrow().as_ptr()
        });
        Ok(())
    });
    if rc == AM_OK {
        text
    } else {
        std::ptr::null()
    }
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
