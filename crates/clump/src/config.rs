//! Every environment variable clump and its layers read, in one place: [`table::TABLE`]
//! names each with its layer, default and range (README's Configuration section is that
//! table), the upper layers get theirs read and checked by [`layers`], and [`unknown`]
//! finds `CLUMP_*` names no layer knows.
//!
//! A bad value is a clear error at start-up ([`Config::from_env`]), never a silent default.

pub mod layers;
pub mod table;
pub mod unknown;

use std::ffi::{OsStr, OsString};
use std::net::Ipv4Addr;
use std::time::Duration;

/// Largest job the launcher and bootstrap accept.
pub const MAX_JOB_SIZE: u32 = 4096;

/// A configuration value that could not be accepted.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {name}={value:?} is invalid: {why}")]
pub struct ConfigError {
    pub name: &'static str,
    pub value: String,
    pub why: String,
}

/// Which service a process joins its job through (`CLUMP_BOOT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootMode {
    /// Chosen from the environment the process was started with.
    Auto,
    /// The `clump run` launcher's socket.
    Clump,
    /// The PMI-2 wire protocol (Slurm's `srun --mpi=pmi2`).
    Pmi2,
    /// PMIx through the system's libpmix (`srun --mpi=pmix`, Open MPI's `mpirun`).
    Pmix,
}

/// Where this process stands in its job and how it joins it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobConfig {
    /// `CLUMP_RANK`; a process manager's own rank wins over it.
    pub rank: u32,
    /// `CLUMP_SIZE`; a process manager's own size wins over it.
    pub size: u32,
    pub boot: BootMode,
    /// Path of the launcher's bootstrap socket; `None` for a process started on its own.
    pub boot_socket: Option<String>,
    /// How long start-up waits while the launcher or process manager is silent.
    pub boot_timeout: Duration,
    pub job_id: u64,
    /// The key of the datagram MAC (`CLUMP_NET_AUTH`), secret like the job id.
    pub job_key: u128,
    /// `CLUMP_NET_IFACE`: the interface whose address endpoints bind to.
    pub net_iface: Option<String>,
    /// Whether `CLUMP_NET_IP` was given (then no address is chosen for it).
    pub net_ip_given: bool,
    /// Whether `CLUMP_NET` was given (else a job on one node goes without the network).
    pub net_given: bool,
}

/// Tunables of the AM layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub job: JobConfig,
    pub credits: u32,
    pub spin_before_sleep: Duration,
    /// The virtual host this process belongs to.
    pub host: u32,
    pub net: NetConfig,
}

/// Tunables of the network transport.
#[derive(Debug, Clone, PartialEq)]
pub struct NetConfig {
    pub enabled: bool,
    /// Requests in flight from one endpoint to one network destination.
    pub credits: u32,
    pub bind_ip: Ipv4Addr,
    /// Largest datagram sent; `None`: the largest the path to each peer carries.
    pub max_datagram: Option<usize>,
    /// Send super-datagrams (`UDP_SEGMENT`) and receive coalesced ones (`UDP_GRO`).
    pub offload: bool,
    pub timeout: Duration,
    /// Polls between network polls when the network is idle (the most)...
    pub poll_every_idle: u32,
    /// ... and when it is busy (the fewest).
    pub poll_every_busy: u32,
    /// Give sockets a doorbell where BPF allows it (`net/doorbell.rs`).
    pub doorbell: bool,
    /// Send to each peer from a socket connected to it (`net/udp/twins.rs`).
    pub connect: bool,
    /// Authenticate every datagram under the job's key (`net/auth.rs`).
    pub auth: bool,
    /// Out-of-order bytes kept per peer and over all peers (`reliable.rs`).
    pub reorder_peer: usize,
    pub reorder_total: usize,
    /// Beat to the launcher while polling (`boot/watch.rs`).
    pub heartbeat: bool,
    pub faults: Faults,
}

/// Faults the transport injects into the datagrams it sends, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Faults {
    pub loss: f64,
    pub duplicate: f64,
    pub reorder: f64,
    pub corrupt: f64,
    /// The first this many datagrams are captured and sent again later, from the same
    /// and from another source port.
    pub replay: u64,
    pub seed: u64,
}

impl Faults {
    pub fn any(&self) -> bool {
        self.loss > 0.0
            || self.duplicate > 0.0
            || self.reorder > 0.0
            || self.corrupt > 0.0
            || self.replay > 0
    }
}

/// Out-of-order bytes the network keeps per peer by default (`CLUMP_NET_REORDER_BYTES`):
/// a full window of datagrams in flight (`net::reliable::WINDOW_BYTES`) on both channels.
pub const DEFAULT_REORDER_PEER_BYTES: usize = 4 << 20;
/// ... and over all peers of an endpoint (`CLUMP_NET_REORDER_TOTAL`).
pub const DEFAULT_REORDER_TOTAL_BYTES: usize = 32 << 20;

/// Default requests in flight from one endpoint to one shared-memory destination: a
/// whole streaming window of MPI's (osu_mbw_mr's and `clump bench mpi`'s 64) goes out
/// without waiting for a credit to come back from the other core. The reply slots stay
/// bounded by the total (256); senders that together overfill a request queue (256
/// slots) wait on it as they would on credit.
pub const DEFAULT_CREDITS: u32 = 64;
/// Default requests in flight from one endpoint to one network destination. A credit
/// comes back once half a window is owed, so a stream moves half a window per round
/// trip: at 64, 32 per 8.6 us loopback round trip, 3.7 M/s, which leaves the 1.5 M/s
/// target room when a stream's round trip doubles (paper 002 sizes its window at the
/// bandwidth-delay product, 2.6 short messages, with slack: 4).
pub const DEFAULT_NET_CREDITS: u32 = 64;
/// Most requests in flight from one endpoint to one destination.
pub const MAX_CREDITS: u32 = 64;

impl Config {
    /// Reads every variable from the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads every variable through `lookup`, so tests need not touch the real environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Config, ConfigError> {
        let size = num(&lookup, "CLUMP_SIZE")? as u32;
        let rank = num(&lookup, "CLUMP_RANK")? as u32;
        if rank >= size {
            return Err(ConfigError {
                name: "CLUMP_RANK",
                value: rank.to_string(),
                why: format!("must be between 0 and {}", size - 1),
            });
        }
        let boot = match optional_text(&lookup, "CLUMP_BOOT")?.as_deref() {
            None | Some("auto") => BootMode::Auto,
            Some("clump") => BootMode::Clump,
            Some("pmi2") => BootMode::Pmi2,
            Some("pmix") => BootMode::Pmix,
            Some(other) => unreachable!("CLUMP_BOOT={other} passed the table's check"),
        };
        let boot_socket = optional_text(&lookup, "CLUMP_BOOT_SOCKET")?;
        let boot_timeout = Duration::from_secs(num(&lookup, "CLUMP_BOOT_TIMEOUT")?);
        let net_iface = optional_text(&lookup, "CLUMP_NET_IFACE")?;
        let net_ip_given = lookup("CLUMP_NET_IP").is_some();
        let net_given = lookup("CLUMP_NET").is_some();
        let job_id = match secret_hex(&lookup, "CLUMP_JOB_ID")? {
            None => random_job_id(),
            Some(v) => v as u64,
        };
        let job_key = secret_hex(&lookup, "CLUMP_JOB_KEY")?.unwrap_or_else(random_job_key);
        Ok(Config {
            job: JobConfig {
                rank,
                size,
                boot,
                boot_socket,
                boot_timeout,
                job_id,
                job_key,
                net_iface,
                net_ip_given,
                net_given,
            },
            credits: num(&lookup, "CLUMP_CREDITS")? as u32,
            spin_before_sleep: Duration::from_micros(num(&lookup, "CLUMP_SPIN_US")?),
            host: num(&lookup, "CLUMP_HOST")? as u32,
            net: NetConfig::from_lookup(&lookup)?,
        })
    }
}

impl NetConfig {
    fn from_lookup(lookup: &impl Fn(&str) -> Option<OsString>) -> Result<NetConfig, ConfigError> {
        let bind_ip = match optional_text(lookup, "CLUMP_NET_IP")? {
            None => Ipv4Addr::LOCALHOST,
            Some(s) => s.parse().expect("checked by the table"),
        };
        let flag = |name| num(lookup, name).map(|v| v == 1);
        let poll_every_idle = num(lookup, "CLUMP_NET_POLL_IDLE")? as u32;
        let poll_every_busy = num(lookup, "CLUMP_NET_POLL_BUSY")? as u32;
        if poll_every_busy > poll_every_idle {
            return Err(ConfigError {
                name: "CLUMP_NET_POLL_BUSY",
                value: poll_every_busy.to_string(),
                why: format!("must be between 1 and CLUMP_NET_POLL_IDLE ({poll_every_idle})"),
            });
        }
        let percent = |name| parse_percent(lookup, name);
        let faults = Faults {
            loss: percent("CLUMP_NET_LOSS")?,
            duplicate: percent("CLUMP_NET_DUP")?,
            reorder: percent("CLUMP_NET_REORDER")?,
            corrupt: percent("CLUMP_NET_CORRUPT")?,
            replay: num(lookup, "CLUMP_NET_REPLAY")?,
            seed: table::number_in(lookup, "CLUMP_NET_SEED")?.unwrap_or(std::process::id() as u64),
        };
        Ok(NetConfig {
            enabled: flag("CLUMP_NET")?,
            credits: num(lookup, "CLUMP_NET_CREDITS")? as u32,
            bind_ip,
            max_datagram: table::number_in(lookup, "CLUMP_NET_DATAGRAM")?.map(|n| n as usize),
            offload: flag("CLUMP_NET_OFFLOAD")?,
            timeout: Duration::from_millis(num(lookup, "CLUMP_NET_TIMEOUT_MS")?),
            poll_every_idle,
            poll_every_busy,
            doorbell: flag("CLUMP_NET_DOORBELL")?,
            connect: flag("CLUMP_NET_CONNECT")?,
            auth: flag("CLUMP_NET_AUTH")?,
            reorder_peer: num(lookup, "CLUMP_NET_REORDER_BYTES")? as usize,
            reorder_total: num(lookup, "CLUMP_NET_REORDER_TOTAL")? as usize,
            heartbeat: flag("CLUMP_NET_HEARTBEAT")?,
            faults,
        })
    }
}

/// A numeric variable with a default value in the table, checked against its range there.
fn num(lookup: &impl Fn(&str) -> Option<OsString>, name: &str) -> Result<u64, ConfigError> {
    Ok(table::number_in(lookup, name)?.expect("the table gives this variable a default"))
}

/// A secret of hex digits, checked by the table (whose errors do not repeat it); `None`
/// when unset.
fn secret_hex(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
) -> Result<Option<u128>, ConfigError> {
    let Some(raw) = lookup(name) else {
        return Ok(None);
    };
    table::var(name).check(&raw)?;
    let digits = text(table::var(name).name, &raw)?.trim();
    Ok(Some(
        u128::from_str_radix(digits, 16).expect("checked by the table"),
    ))
}

fn parse_percent(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
) -> Result<f64, ConfigError> {
    let Some(raw) = lookup(name) else {
        return Ok(0.0);
    };
    table::var(name).check(&raw)?;
    let value = text(table::var(name).name, &raw)?.trim();
    Ok(value.parse().expect("checked by the table"))
}

impl Default for Config {
    fn default() -> Config {
        Config::from_lookup(|_| None).expect("defaults are valid")
    }
}

/// A variable's text, checked by the table; `None` when unset or empty.
fn optional_text(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
) -> Result<Option<String>, ConfigError> {
    let var = table::var(name);
    match lookup(name) {
        None => Ok(None),
        Some(v) => {
            let t = text(var.name, &v)?.trim().to_owned();
            if t.is_empty() {
                return Ok(None);
            }
            var.check(&v)?;
            Ok(Some(t))
        }
    }
}

fn text<'a>(name: &'static str, value: &'a OsStr) -> Result<&'a str, ConfigError> {
    value.to_str().ok_or_else(|| ConfigError {
        name,
        value: value.to_string_lossy().into_owned(),
        why: "not valid UTF-8".into(),
    })
}

/// 64 bits from the kernel's secure random source (getrandom(2)): a job id is the key
/// of the job's virtual network, so nothing public (time, pid) may predict it.
pub fn random_job_id() -> u64 {
    // getrandom(2) fails only on kernels older than 3.17 without /dev/urandom, where
    // nothing else here would run either.
    getrandom::u64().expect("the kernel's random source (getrandom) is unavailable")
}

/// 128 bits from the kernel's secure random source: the key of the datagram MAC.
pub fn random_job_key() -> u128 {
    u128::from(random_job_id()) << 64 | u128::from(random_job_id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).map(|v| v.into()))
    }

    #[test]
    fn defaults_describe_a_job_of_one() {
        let c = with(&[]).unwrap();
        assert_eq!((c.job.rank, c.job.size, c.job.boot_socket), (0, 1, None));
        assert_eq!(c.credits, DEFAULT_CREDITS);
    }

    #[test]
    fn launcher_variables_are_read() {
        let c = with(&[
            ("CLUMP_RANK", "3"),
            ("CLUMP_SIZE", "4"),
            ("CLUMP_BOOT_SOCKET", "/tmp/x.sock"),
            ("CLUMP_JOB_ID", "00000000000000ff"),
            ("CLUMP_JOB_KEY", "000000000000000100000000000000ff"),
            ("CLUMP_NET_AUTH", "0"),
        ])
        .unwrap();
        assert_eq!(c.job.job_key, 1 << 64 | 255);
        // Sealed by default; 0 turns it off.
        assert!(!c.net.auth && with(&[]).unwrap().net.auth);
        assert_ne!(
            with(&[]).unwrap().job.job_key,
            with(&[]).unwrap().job.job_key
        );
        let bad = with(&[("CLUMP_JOB_KEY", "secret-but-not-hex")]).unwrap_err();
        assert_eq!(bad.name, "CLUMP_JOB_KEY");
        assert!(
            !bad.to_string().contains("secret-but"),
            "a key is never echoed: {bad}"
        );
        assert_eq!(c.job.rank, 3);
        assert_eq!(c.job.size, 4);
        assert_eq!(c.job.boot_socket.as_deref(), Some("/tmp/x.sock"));
        assert_eq!(c.job.job_id, 255);
        assert_eq!(c.job.boot, BootMode::Auto);
    }

    #[test]
    fn boot_mode_and_timeout_are_read_and_checked() {
        for (text, mode) in [
            ("clump", BootMode::Clump),
            ("pmi2", BootMode::Pmi2),
            ("pmix", BootMode::Pmix),
            ("auto", BootMode::Auto),
        ] {
            assert_eq!(with(&[("CLUMP_BOOT", text)]).unwrap().job.boot, mode);
        }
        let e = with(&[("CLUMP_BOOT", "/tmp/old.sock")]).unwrap_err();
        assert_eq!(e.name, "CLUMP_BOOT");
        assert!(e.to_string().contains("clump, pmi2 or pmix"), "{e}");
        let c = with(&[("CLUMP_BOOT_TIMEOUT", "5"), ("CLUMP_NET_IFACE", "eth1")]).unwrap();
        assert_eq!(c.job.boot_timeout, Duration::from_secs(5));
        assert_eq!(c.job.net_iface.as_deref(), Some("eth1"));
        assert!(!c.job.net_ip_given);
        assert!(
            with(&[("CLUMP_NET_IP", "10.1.2.3")])
                .unwrap()
                .job
                .net_ip_given
        );
        assert_eq!(
            with(&[("CLUMP_BOOT_TIMEOUT", "0")]).unwrap_err().name,
            "CLUMP_BOOT_TIMEOUT"
        );
    }

    #[test]
    fn job_ids_drawn_alone_are_random() {
        // Two draws in the same process and instant differ (a time or pid based id would
        // not); 64 random bits collide with chance 2^-64.
        let a = with(&[]).unwrap().job.job_id;
        let b = with(&[]).unwrap().job.job_id;
        assert_ne!(a, b);
    }

    #[test]
    fn bad_values_are_clear_errors() {
        let e = with(&[("CLUMP_RANK", "4"), ("CLUMP_SIZE", "4")]).unwrap_err();
        assert_eq!(e.name, "CLUMP_RANK");
        assert!(e.to_string().contains("between 0 and 3"), "{e}");
        assert_eq!(
            with(&[("CLUMP_CREDITS", "0")]).unwrap_err().name,
            "CLUMP_CREDITS"
        );
        assert_eq!(
            with(&[("CLUMP_SPIN_US", "fast")]).unwrap_err().name,
            "CLUMP_SPIN_US"
        );
        assert_eq!(
            with(&[("CLUMP_JOB_ID", "xyz")]).unwrap_err().name,
            "CLUMP_JOB_ID"
        );
    }

    #[test]
    fn network_variables_are_read_and_checked() {
        let c = with(&[
            ("CLUMP_HOST", "2"),
            ("CLUMP_NET_IP", "10.0.0.7"),
            ("CLUMP_NET_TIMEOUT_MS", "500"),
            ("CLUMP_NET_LOSS", "1.5"),
            ("CLUMP_NET_SEED", "9"),
            ("CLUMP_NET_DOORBELL", "0"),
            ("CLUMP_NET_CONNECT", "0"),
        ])
        .unwrap();
        assert_eq!(c.host, 2);
        assert!(c.net.enabled);
        assert!(!c.net.doorbell);
        assert!(!c.net.connect);
        assert!(with(&[]).unwrap().net.doorbell);
        assert!(with(&[]).unwrap().net.connect);
        assert!(with(&[]).unwrap().net.offload);
        assert_eq!(with(&[]).unwrap().net.max_datagram, None, "from the path");
        let fixed = with(&[("CLUMP_NET_DATAGRAM", "1472"), ("CLUMP_NET_OFFLOAD", "0")]).unwrap();
        assert_eq!(
            (fixed.net.max_datagram, fixed.net.offload),
            (Some(1472), false)
        );
        assert_eq!(c.net.bind_ip, Ipv4Addr::new(10, 0, 0, 7));
        assert_eq!(c.net.timeout, Duration::from_millis(500));
        assert_eq!((c.net.faults.loss, c.net.faults.seed), (1.5, 9));
        assert!(c.net.faults.any());
        assert!(!with(&[]).unwrap().net.faults.any());
        let bounded = with(&[
            ("CLUMP_NET_REORDER_BYTES", "0"),
            ("CLUMP_NET_REORDER_TOTAL", "65536"),
            ("CLUMP_NET_REPLAY", "2"),
        ])
        .unwrap();
        assert_eq!(
            (bounded.net.reorder_peer, bounded.net.reorder_total),
            (0, 65536)
        );
        assert!(bounded.net.faults.replay == 2 && bounded.net.faults.any());
        let defaults = with(&[]).unwrap().net;
        assert_eq!(
            (defaults.reorder_peer, defaults.reorder_total),
            (4 << 20, 32 << 20)
        );
        for (name, value) in [
            ("CLUMP_NET_REORDER_BYTES", "-1"),
            ("CLUMP_NET_REORDER_TOTAL", "17179869185"),
            ("CLUMP_NET_REPLAY", "1.5"),
            ("CLUMP_NET", "2"),
            ("CLUMP_NET_DOORBELL", "yes"),
            ("CLUMP_NET_IP", "localhost"),
            ("CLUMP_NET_LOSS", "101"),
            ("CLUMP_NET_DUP", "-1"),
            ("CLUMP_NET_DATAGRAM", "70000"),
            ("CLUMP_NET_OFFLOAD", "2"),
            ("CLUMP_HOST", "4096"),
        ] {
            assert_eq!(with(&[(name, value)]).unwrap_err().name, name);
        }
        // The busy rate may not be below the idle one.
        let e = with(&[("CLUMP_NET_POLL_IDLE", "4"), ("CLUMP_NET_POLL_BUSY", "8")]).unwrap_err();
        assert_eq!(e.name, "CLUMP_NET_POLL_BUSY");
    }
}
