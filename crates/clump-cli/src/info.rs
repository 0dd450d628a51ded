//! `clump info`: what this clump is and what this machine gives it, like `ompi_info`:
//! version and commit, the effective `CLUMP_*` settings and where each came from, and
//! whether the optional kernel features work here.

use crate::about;
use clump::config::Config;
use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct InfoArgs {}

/// Every variable a user may set, with its effective value in `Config`.
type Row = (&'static str, fn(&Config) -> String);
const SETTINGS: &[Row] = &[
    ("CLUMP_RANK", |c| c.job.rank.to_string()),
    ("CLUMP_SIZE", |c| c.job.size.to_string()),
    ("CLUMP_BOOT", |c| format!("{:?}", c.job.boot).to_lowercase()),
    ("CLUMP_BOOT_TIMEOUT", |c| {
        c.job.boot_timeout.as_secs().to_string()
    }),
    ("CLUMP_CREDITS", |c| c.credits.to_string()),
    ("CLUMP_SPIN_US", |c| {
        c.spin_before_sleep.as_micros().to_string()
    }),
    ("CLUMP_HOST", |c| c.host.to_string()),
    ("CLUMP_NET", |c| u8::from(c.net.enabled).to_string()),
    ("CLUMP_NET_IP", |c| c.net.bind_ip.to_string()),
    ("CLUMP_NET_IFACE", |c| {
        c.job.net_iface.clone().unwrap_or_else(|| "(unset)".into())
    }),
    ("CLUMP_NET_DATAGRAM", |c| {
        c.net
            .max_datagram
            .map_or_else(|| "path".to_owned(), |n| n.to_string())
    }),
    ("CLUMP_NET_OFFLOAD", |c| u8::from(c.net.offload).to_string()),
    ("CLUMP_NET_TIMEOUT_MS", |c| {
        c.net.timeout.as_millis().to_string()
    }),
    ("CLUMP_NET_DOORBELL", |c| {
        u8::from(c.net.doorbell).to_string()
    }),
    ("CLUMP_NET_POLL_IDLE", |c| c.net.poll_every_idle.to_string()),
    ("CLUMP_NET_POLL_BUSY", |c| c.net.poll_every_busy.to_string()),
    ("CLUMP_NET_LOSS", |c| c.net.faults.loss.to_string()),
    ("CLUMP_NET_DUP", |c| c.net.faults.duplicate.to_string()),
    ("CLUMP_NET_REORDER", |c| c.net.faults.reorder.to_string()),
    ("CLUMP_NET_CORRUPT", |c| c.net.faults.corrupt.to_string()),
    ("CLUMP_NET_SEED", |c| c.net.faults.seed.to_string()),
];

pub fn main(_args: InfoArgs) -> ExitCode {
    println!("clump {} (commit {})", about::VERSION, about::COMMIT);
    let load = about::load_average().map_or("unknown".into(), |l| {
        format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2])
    });
    println!(
        "host: {}, {} cores, load average {load}",
        about::host_name(),
        about::cores()
    );
    println!("/dev/shm: {}", shm_size());
    println!("eBPF socket doorbell: {}", doorbell());
    println!(
        "cross-memory attach (process_vm_readv): {}",
        clump::describe_cross_memory_attach()
    );
    println!("settings (CLUMP_*; a bad value stops every clump program at start-up):");
    match Config::from_env() {
        Ok(config) => {
            for (name, value) in SETTINGS {
                let source = if std::env::var_os(name).is_some() {
                    "environment"
                } else {
                    "default"
                };
                println!("  {name:<22} {:<12} {source}", value(&config));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("  error: {e}");
            ExitCode::from(1)
        }
    }
}

fn shm_size() -> String {
    let path = CString::new("/dev/shm").unwrap();
    // SAFETY: statvfs(3) writes one struct into the zeroed local it is given and reads
    // a NUL-terminated path that lives across the call.
    let (r, st) = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(path.as_ptr(), &mut st), st)
    };
    if r != 0 {
        return format!("unavailable ({})", std::io::Error::last_os_error());
    }
    let gib = |blocks: u64| (blocks * st.f_frsize) as f64 / (1u64 << 30) as f64;
    format!(
        "{:.1} GiB, {:.1} GiB free",
        gib(st.f_blocks),
        gib(st.f_bavail)
    )
}

/// Tries the real thing: a doorbell on a fresh UDP socket.
fn doorbell() -> String {
    let socket = match std::net::UdpSocket::bind("127.0.0.1:0") {
        Ok(s) => s,
        Err(e) => return format!("cannot tell (no UDP socket: {e})"),
    };
    match clump::net::doorbell::Doorbell::attach(socket.as_raw_fd()) {
        Ok(_) => "works (network polls skip the socket while nothing came)".into(),
        Err(e) => format!(
            "not available ({e}): network polls follow the polling policy alone; \
             root or CAP_BPF enables it"
        ),
    }
}
