//! Where each rank runs: on a virtual host of this machine (`--hosts K`), or on a host
//! of a hostfile or `--host` list, started over ssh unless it is this machine.

use super::hostfile::{self, Host};
use super::mapping;
use super::{BindTo, RunArgs, Transport};

/// One rank's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spot {
    /// `CLUMP_HOST`: ranks with the same value share memory, the others use the network.
    pub vhost: u32,
    /// The remote host it is started on (an index into `Layout::remote`), if any.
    pub remote: Option<u32>,
    /// `--bind-to core`: its index among the ranks started on its machine.
    pub core: Option<u32>,
}

#[derive(Debug)]
pub struct Layout {
    pub ranks: Vec<Spot>,
    /// Names of the hosts reached over ssh.
    pub remote: Vec<String>,
    /// `CLUMP_NET` for every rank; `None` leaves the launcher's environment alone.
    pub net: Option<bool>,
}

impl Layout {
    pub fn remote_name(&self, rank: u32) -> Option<&str> {
        let i = self.ranks[rank as usize].remote?;
        Some(&self.remote[i as usize])
    }
}

/// The layout `args` ask for. With one host the network stays off (nothing in the job
/// needs it, and polling it would cost every poll), unless `CLUMP_NET` says otherwise.
pub fn layout(args: &RunArgs) -> Result<Layout, String> {
    let np = args.np;
    let listed = listed_hosts(args)?;
    if listed.is_some() && args.hosts > 1 {
        return Err(
            "--hosts K makes virtual hosts of this machine; with --hostfile or \
                    --host the hosts are those listed"
                .into(),
        );
    }
    // Each rank's host (an index into `hosts`) and whether that host is this machine.
    let (host_of, names): (Vec<u32>, Vec<Option<String>>) = match &listed {
        Some(hosts) => {
            let host_of = mapping::map(hosts, np, args.map_by, args.oversubscribe)?;
            (host_of, hosts.iter().map(remote_name).collect())
        }
        None => {
            if args.hosts > np {
                return Err(format!("--hosts {} exceeds the {np} processes", args.hosts));
            }
            let block = |r: u32| (r as u64 * args.hosts as u64 / np as u64) as u32;
            (
                (0..np).map(block).collect(),
                vec![None; args.hosts as usize],
            )
        }
    };
    let vhost = virtual_hosts(args, &host_of, listed.is_some())?;
    let mut remote = Vec::new();
    let mut remote_of = vec![None; names.len()];
    for &h in &host_of {
        if let (Some(name), None) = (&names[h as usize], remote_of[h as usize]) {
            remote_of[h as usize] = Some(remote.len() as u32);
            remote.push(name.clone());
        }
    }
    // Virtual hosts of this machine are one machine: 0; remote host i is i + 1.
    let machine: Vec<u32> = host_of
        .iter()
        .map(|&h| remote_of[h as usize].map_or(0, |i| i + 1))
        .collect();
    let cores = mapping::local_indices(&machine);
    let ranks = (0..np as usize)
        .map(|r| Spot {
            vhost: vhost[r],
            remote: remote_of[host_of[r] as usize],
            core: (args.bind_to == BindTo::Core).then_some(cores[r]),
        })
        .collect();
    let net = match args.transport {
        Transport::Shm => Some(false),
        _ if vhost.iter().any(|v| *v != vhost[0]) => Some(true),
        _ if std::env::var_os("CLUMP_NET").is_some() => None,
        _ => Some(false),
    };
    Ok(Layout { ranks, remote, net })
}

/// The hosts of `--hostfile` or `--host`, if either is given.
fn listed_hosts(args: &RunArgs) -> Result<Option<Vec<Host>>, String> {
    match (&args.hostfile, args.host.is_empty()) {
        (Some(_), false) => Err("give --hostfile or --host, not both".into()),
        (Some(path), true) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "cannot read hostfile {}: {}",
                    path.display(),
                    super::os_error_text(&e)
                )
            })?;
            Ok(Some(hostfile::parse_file(
                &text,
                &path.display().to_string(),
            )?))
        }
        (None, false) => Ok(Some(hostfile::parse_list(&args.host)?)),
        (None, true) => Ok(None),
    }
}

/// Each rank's `CLUMP_HOST` under `--transport`: its host's (auto), one for all (shm,
/// which ranks on several hosts contradict), or one each (udp).
fn virtual_hosts(args: &RunArgs, host_of: &[u32], listed: bool) -> Result<Vec<u32>, String> {
    let several = host_of.iter().any(|h| *h != host_of[0]);
    Ok(match args.transport {
        Transport::Auto => host_of.to_vec(),
        Transport::Shm if several => {
            return Err(format!(
                "--transport shm puts every process on one host; {} contradicts it",
                if listed {
                    "ranks on several hosts".to_owned()
                } else {
                    format!("--hosts {}", args.hosts)
                }
            ))
        }
        Transport::Shm => vec![0; args.np as usize],
        Transport::Udp => (0..args.np).collect(),
    })
}

/// A listed host's name when it is another machine; `None` for this one (`localhost`,
/// or this machine's host name), whose ranks start without ssh.
fn remote_name(host: &Host) -> Option<String> {
    let me = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let local = host.name == "localhost" || host.name == me.trim();
    (!local).then(|| host.name.clone())
}
