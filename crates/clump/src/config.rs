//! Every `CLUMP_*` environment variable clump reads, in one place.
//!
//! | variable        | meaning                                                   | default | range            |
//! |-----------------|-----------------------------------------------------------|---------|------------------|
//! | `CLUMP_RANK`    | this process's rank in the job (set by `clump run`)       | 0       | 0 ..= size-1     |
//! | `CLUMP_SIZE`    | number of processes in the job (set by `clump run`)       | 1       | 1 ..= 4096       |
//! | `CLUMP_BOOT`    | how a process joins its job: `clump` (the `clump run` launcher), `pmi2` (Slurm's `srun --mpi=pmi2`), `pmix` (`srun --mpi=pmix`, Open MPI's `mpirun`) | chosen from the environment: `CLUMP_BOOT_SOCKET`, then `PMIX_NAMESPACE`, then `PMI_FD`, else a job of one | `clump`, `pmi2`, `pmix` |
//! | `CLUMP_BOOT_SOCKET` | path of the launcher's bootstrap socket (set by `clump run`) | unset | a socket path |
//! | `CLUMP_BOOT_TIMEOUT` | seconds start-up waits while the launcher or process manager says nothing | 60 | 1 ..= 86400 |
//! | `CLUMP_JOB_ID`  | the job's secret identifier and default endpoint tag, 16 hex digits (set by `clump run`; under a process manager rank 0 draws it) | random (getrandom) | any 64-bit value |
//! | `CLUMP_JOB_KEY` | the job's secret key for `CLUMP_NET_AUTH`, 32 hex digits (set by `clump run`; under a process manager rank 0 draws it); never on the wire | random (getrandom) | any 128-bit value |
//! | `CLUMP_CREDITS` | requests one endpoint may have outstanding to one destination | 16 | 1 ..= 64       |
//! | `CLUMP_SPIN_US` | how long `wait` polls before it sleeps, in microseconds   | 50      | 0 ..= 1000000    |
//! | `CLUMP_HOST`    | this process's virtual host (set by `clump run --hosts`): processes of one host use shared memory, of different hosts UDP | 0 | 0 ..= 4095 |
//! | `CLUMP_NET`     | whether endpoints get a UDP socket and poll the network   | 1       | 0 or 1           |
//! | `CLUMP_NET_IP`  | the IPv4 address endpoints' UDP sockets bind to          | 127.0.0.1; under a process manager with more than one node, the address of the interface of the route to the other nodes | an IPv4 address |
//! | `CLUMP_NET_IFACE` | the network interface whose IPv4 address endpoints bind to (instead of `CLUMP_NET_IP`) | unset | an interface name |
//! | `CLUMP_NET_DATAGRAM` | largest UDP datagram sent, in bytes (a message larger than one is sent in fragments) | unset: what the path to each peer carries (its interface MTU less the IP and UDP headers: 65507 on loopback, 1472 on Ethernet) | 256 ..= 65507 |
//! | `CLUMP_NET_OFFLOAD` | whether runs of datagrams to one peer leave as one segmentation-offload super-datagram (`UDP_SEGMENT`) and arrive coalesced (`UDP_GRO`), where the kernel has them | 1 | 0 or 1 |
//! | `CLUMP_NET_TIMEOUT_MS` | how long a peer that owes an ack or an answer may stay silent before it is judged: under `clump run` the launcher is asked, and a peer whose process lives but does not poll (stopped, computing) is waited for, one that polls yet is not heard (a cut link) is unreachable, one whose process exited is gone; without a launcher (PMIx, PMI-2) it is unreachable. Its messages then return: `Unreachable` those never sent, `OutcomeUnknown` the others. Also the longest a free waits for acks of what its endpoint sent (`net/linger.rs`) | 10000 | 10 ..= 3600000 |
//! | `CLUMP_NET_HEARTBEAT` | whether a process under `clump run` tells the launcher, every `CLUMP_NET_TIMEOUT_MS`/8 (10 ms ..= 1 s) while it polls the network, that it lives and polls: the evidence that tells a cut link from a stopped peer | 1 | 0 or 1 |
//! | `CLUMP_NET_DOORBELL` | whether each socket gets a doorbell (an eBPF counter of queued datagrams, needs BPF rights) so that polls read it only when something came; without one the polls below ration their reads | 1 | 0 or 1 |
//! | `CLUMP_NET_REORDER_BYTES` | bytes of datagrams that arrived ahead of a missing one kept per peer (both channels); more are dropped and sent again by the peer | 4194304 (a full window both ways) | 0 ..= 1073741824 |
//! | `CLUMP_NET_REORDER_TOTAL` | the same over all peers of an endpoint, so that no volume of traffic grows it further | 33554432 | 0 ..= 17179869184 |
//! | `CLUMP_NET_AUTH` | whether every datagram carries a 128-bit SipHash-2-4 tag under the job's key, and datagrams without a right one are dropped (all ranks must agree) | 0 | 0 or 1 |
//! | `CLUMP_NET_POLL_IDLE` | an idle network is polled once every this many polls (001: 32) | 32 | 1 ..= 1024 |
//! | `CLUMP_NET_POLL_BUSY` | a busy network is polled once every this many polls (001: 8) | 8 | 1 ..= `CLUMP_NET_POLL_IDLE` |
//! | `CLUMP_NET_LOSS` | fault injection: percent of datagrams dropped on send    | 0       | 0 ..= 100 (decimals allowed) |
//! | `CLUMP_NET_DUP` | fault injection: percent of datagrams sent twice          | 0       | 0 ..= 100        |
//! | `CLUMP_NET_REORDER` | fault injection: percent of datagrams held back and sent after later ones | 0 | 0 ..= 100 |
//! | `CLUMP_NET_CORRUPT` | fault injection: percent of datagrams with one byte flipped | 0   | 0 ..= 100        |
//! | `CLUMP_NET_REPLAY` | fault injection: the first this many datagrams an endpoint sends are captured and sent again verbatim a batch later, from its socket and from a second socket (a replay by someone who captured the start of its streams) | 0 | 0 ..= 1000000 |
//! | `CLUMP_NET_SEED` | seed of the fault injector                               | the process id | any 64-bit value |
//!
//! A bad value is a clear error at start-up ([`Config::from_env`]), never a silent default.

use std::ffi::OsStr;
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

/// Default requests in flight from one endpoint to one destination.
pub const DEFAULT_CREDITS: u32 = 16;
/// Most requests in flight from one endpoint to one destination.
pub const MAX_CREDITS: u32 = 64;

impl Config {
    /// Reads every variable from the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads every variable through `lookup`, so tests need not touch the real environment.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Config, ConfigError> {
        let size = parse_u64(&lookup, "CLUMP_SIZE", 1, 1, MAX_JOB_SIZE as u64)? as u32;
        let rank = parse_u64(&lookup, "CLUMP_RANK", 0, 0, size as u64 - 1)? as u32;
        let boot = match lookup("CLUMP_BOOT") {
            None => BootMode::Auto,
            Some(v) => match text("CLUMP_BOOT", &v)?.trim() {
                "" | "auto" => BootMode::Auto,
                "clump" => BootMode::Clump,
                "pmi2" => BootMode::Pmi2,
                "pmix" => BootMode::Pmix,
                other => {
                    return Err(ConfigError {
                        name: "CLUMP_BOOT",
                        value: other.to_owned(),
                        why: "expected clump, pmi2 or pmix".into(),
                    })
                }
            },
        };
        let boot_socket = optional_text(&lookup, "CLUMP_BOOT_SOCKET")?;
        let boot_timeout =
            Duration::from_secs(parse_u64(&lookup, "CLUMP_BOOT_TIMEOUT", 60, 1, 86_400)?);
        let net_iface = optional_text(&lookup, "CLUMP_NET_IFACE")?;
        let net_ip_given = lookup("CLUMP_NET_IP").is_some();
        let net_given = lookup("CLUMP_NET").is_some();
        let job_id = match secret_hex(&lookup, "CLUMP_JOB_ID", 16)? {
            None => random_job_id(),
            Some(v) => v as u64,
        };
        let job_key = secret_hex(&lookup, "CLUMP_JOB_KEY", 32)?.unwrap_or_else(random_job_key);
        let credits = parse_u64(
            &lookup,
            "CLUMP_CREDITS",
            DEFAULT_CREDITS as u64,
            1,
            MAX_CREDITS as u64,
        )? as u32;
        let spin_us = parse_u64(&lookup, "CLUMP_SPIN_US", 50, 0, 1_000_000)?;
        let host = parse_u64(&lookup, "CLUMP_HOST", 0, 0, MAX_JOB_SIZE as u64 - 1)? as u32;
        let net = NetConfig::from_lookup(&lookup)?;
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
            credits,
            spin_before_sleep: Duration::from_micros(spin_us),
            host,
            net,
        })
    }
}

impl NetConfig {
    fn from_lookup(
        lookup: &impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<NetConfig, ConfigError> {
        let enabled = parse_u64(lookup, "CLUMP_NET", 1, 0, 1)? == 1;
        let bind_ip = match lookup("CLUMP_NET_IP") {
            None => Ipv4Addr::LOCALHOST,
            Some(v) => {
                let s = text("CLUMP_NET_IP", &v)?.trim();
                s.parse().map_err(|e| ConfigError {
                    name: "CLUMP_NET_IP",
                    value: s.to_owned(),
                    why: format!("expected an IPv4 address ({e})"),
                })?
            }
        };
        let max_datagram = match lookup("CLUMP_NET_DATAGRAM") {
            None => None,
            Some(_) => Some(parse_u64(lookup, "CLUMP_NET_DATAGRAM", 0, 256, 65_507)? as usize),
        };
        let offload = parse_u64(lookup, "CLUMP_NET_OFFLOAD", 1, 0, 1)? == 1;
        let timeout_ms = parse_u64(lookup, "CLUMP_NET_TIMEOUT_MS", 10_000, 10, 3_600_000)?;
        let poll_every_idle = parse_u64(lookup, "CLUMP_NET_POLL_IDLE", 32, 1, 1024)? as u32;
        let poll_every_busy =
            parse_u64(lookup, "CLUMP_NET_POLL_BUSY", 8, 1, poll_every_idle as u64)? as u32;
        let doorbell = parse_u64(lookup, "CLUMP_NET_DOORBELL", 1, 0, 1)? == 1;
        let auth = parse_u64(lookup, "CLUMP_NET_AUTH", 0, 0, 1)? == 1;
        let reorder_peer = parse_u64(
            lookup,
            "CLUMP_NET_REORDER_BYTES",
            DEFAULT_REORDER_PEER_BYTES as u64,
            0,
            1 << 30,
        )? as usize;
        let reorder_total = parse_u64(
            lookup,
            "CLUMP_NET_REORDER_TOTAL",
            DEFAULT_REORDER_TOTAL_BYTES as u64,
            0,
            16 << 30,
        )? as usize;
        let heartbeat = parse_u64(lookup, "CLUMP_NET_HEARTBEAT", 1, 0, 1)? == 1;
        let percent = |name| parse_percent(lookup, name);
        let faults = Faults {
            loss: percent("CLUMP_NET_LOSS")?,
            duplicate: percent("CLUMP_NET_DUP")?,
            reorder: percent("CLUMP_NET_REORDER")?,
            corrupt: percent("CLUMP_NET_CORRUPT")?,
            replay: parse_u64(lookup, "CLUMP_NET_REPLAY", 0, 0, 1_000_000)?,
            seed: parse_u64(
                lookup,
                "CLUMP_NET_SEED",
                std::process::id() as u64,
                0,
                u64::MAX,
            )?,
        };
        Ok(NetConfig {
            enabled,
            bind_ip,
            max_datagram,
            offload,
            timeout: Duration::from_millis(timeout_ms),
            poll_every_idle,
            poll_every_busy,
            doorbell,
            auth,
            reorder_peer,
            reorder_total,
            heartbeat,
            faults,
        })
    }
}

/// A secret of up to `digits` hex digits; `None` when unset. A bad value's error does
/// not repeat it: it may be most of a secret.
fn secret_hex(
    lookup: &impl Fn(&str) -> Option<std::ffi::OsString>,
    name: &'static str,
    digits: usize,
) -> Result<Option<u128>, ConfigError> {
    let Some(raw) = lookup(name) else {
        return Ok(None);
    };
    let s = text(name, &raw)?.trim();
    let bad = |why: String| ConfigError {
        name,
        value: "(secret)".into(),
        why: format!("expected up to {digits} hex digits{why}"),
    };
    if s.len() > digits {
        return Err(bad(String::new()));
    }
    u128::from_str_radix(s, 16)
        .map(Some)
        .map_err(|e| bad(format!(" ({e})")))
}

fn parse_percent(
    lookup: &impl Fn(&str) -> Option<std::ffi::OsString>,
    name: &'static str,
) -> Result<f64, ConfigError> {
    let Some(raw) = lookup(name) else {
        return Ok(0.0);
    };
    let s = text(name, &raw)?.trim();
    match s.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(ConfigError {
            name,
            value: s.to_owned(),
            why: "expected a percentage between 0 and 100".into(),
        }),
    }
}

impl Default for Config {
    fn default() -> Config {
        Config::from_lookup(|_| None).expect("defaults are valid")
    }
}

/// A variable's text, `None` when unset or empty.
fn optional_text(
    lookup: &impl Fn(&str) -> Option<std::ffi::OsString>,
    name: &'static str,
) -> Result<Option<String>, ConfigError> {
    match lookup(name) {
        None => Ok(None),
        Some(v) => Ok(Some(text(name, &v)?.trim().to_owned()).filter(|s| !s.is_empty())),
    }
}

fn text<'a>(name: &'static str, value: &'a OsStr) -> Result<&'a str, ConfigError> {
    value.to_str().ok_or_else(|| ConfigError {
        name,
        value: value.to_string_lossy().into_owned(),
        why: "not valid UTF-8".into(),
    })
}

fn parse_u64(
    lookup: &impl Fn(&str) -> Option<std::ffi::OsString>,
    name: &'static str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, ConfigError> {
    let Some(raw) = lookup(name) else {
        return Ok(default);
    };
    let s = text(name, &raw)?.trim();
    let bad = |why: String| ConfigError {
        name,
        value: s.to_owned(),
        why,
    };
    let v: u64 = s
        .parse()
        .map_err(|e| bad(format!("expected a whole number ({e})")))?;
    if v < min || v > max {
        return Err(bad(format!("must be between {min} and {max}")));
    }
    Ok(v)
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
            ("CLUMP_NET_AUTH", "1"),
        ])
        .unwrap();
        assert_eq!(c.job.job_key, 1 << 64 | 255);
        assert!(c.net.auth && !with(&[]).unwrap().net.auth);
        assert_ne!(with(&[]).unwrap().job.job_key, with(&[]).unwrap().job.job_key);
        let bad = with(&[("CLUMP_JOB_KEY", "secret-but-not-hex")]).unwrap_err();
        assert_eq!(bad.name, "CLUMP_JOB_KEY");
        assert!(!bad.to_string().contains("secret-but"), "a key is never echoed: {bad}");
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
        ])
        .unwrap();
        assert_eq!(c.host, 2);
        assert!(c.net.enabled);
        assert!(!c.net.doorbell);
        assert!(with(&[]).unwrap().net.doorbell);
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
        assert_eq!((bounded.net.reorder_peer, bounded.net.reorder_total), (0, 65536));
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
