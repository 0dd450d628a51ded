//! `clump info`: what this clump is and what this machine gives it, like `ompi_info`:
//! version and commit, every setting of clump's configuration table (all layers) with its
//! value and where it came from, misspelt `CLUMP_*` names, and
//! whether the optional kernel features work here.

use crate::about;
use clump::config::table::{Kind, Layer, Unset, TABLE};
use clump::config::Config;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct InfoArgs {}

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
    println!(
        "datagram seal (CLUMP_NET_AUTH): {}",
        clump::describe_datagram_seal()
    );
    if settings() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Every row of the configuration table, layer by layer, with its value and where it came
/// from; then the errors and the unknown `CLUMP_*` names. False if a value is bad.
fn settings() -> bool {
    println!("settings (a bad value stops every clump program at start-up):");
    let mut errors = Vec::new();
    for layer in [
        Layer::Core,
        Layer::Gas,
        Layer::Shmem,
        Layer::Mpi,
        Layer::Command,
        Layer::Tests,
    ] {
        println!("  {}:", layer.name());
        for var in TABLE.iter().filter(|v| v.layer == layer) {
            let (value, source) = match std::env::var_os(var.name) {
                Some(raw) => {
                    if let Err(e) = var.check(&raw) {
                        errors.push(e.to_string());
                    }
                    let shown = match var.kind {
                        Kind::SecretHex(_) => "(secret)".into(),
                        _ => raw.to_string_lossy().into_owned(),
                    };
                    (shown, "environment".to_owned())
                }
                None => match var.default {
                    Unset::Value(v) => (v.to_owned(), "default".to_owned()),
                    Unset::Chosen("unset") => ("(unset)".to_owned(), "default".to_owned()),
                    Unset::Chosen(how) => ("(chosen)".to_owned(), format!("default: {how}")),
                },
            };
            println!("    {:<27} {value:<12} {source}", var.name);
        }
    }
    // Rules between variables (a rank below the size, ...), once each value is good.
    if errors.is_empty() {
        if let Err(e) = Config::from_env() {
            errors.push(e.to_string());
        }
    }
    for e in &errors {
        println!("  error: {e}");
    }
    let names = std::env::vars_os().map(|(k, _)| k);
    for name in clump::config::unknown::unknown_names(names) {
        println!("  {}", clump::config::unknown::warning(&name));
    }
    errors.is_empty()
}

fn shm_size() -> String {
    let st = match nix::sys::statvfs::statvfs("/dev/shm") {
        Ok(st) => st,
        Err(e) => return format!("unavailable ({e})"),
    };
    let gib = |blocks: u64| (blocks * st.fragment_size()) as f64 / (1u64 << 30) as f64;
    format!(
        "{:.1} GiB, {:.1} GiB free",
        gib(st.blocks()),
        gib(st.blocks_available())
    )
}

/// Tries the real thing: a doorbell on a fresh UDP socket.
fn doorbell() -> String {
    let socket = match std::net::UdpSocket::bind("127.0.0.1:0") {
        Ok(s) => s,
        Err(e) => return format!("cannot tell (no UDP socket: {e})"),
    };
    match clump::transport::net::doorbell::Doorbell::attach(&socket) {
        Ok(_) => "works (network polls skip the socket while nothing came)".into(),
        Err(e) => format!(
            "not available ({e}): network polls follow the polling policy alone; \
             root or CAP_BPF enables it"
        ),
    }
}
