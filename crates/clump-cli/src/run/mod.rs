//! `clump run`: starts N processes of a program as one job, on this host or over ssh on
//! the hosts of a hostfile, and serves their bootstrap (rank, size, allgather, barrier,
//! abort) until they have all exited.

mod agent;
mod argv;
mod children;
mod deadline;
mod hostfile;
mod hosts;
mod mapping;
mod output;
mod relay;
mod remote;
mod scratch;
mod server;
mod supervise;
mod sys;

pub use agent::main as rank_agent;
use children::{Between, Children, Launch, Remote};
use clump::config::MAX_JOB_SIZE;
use hosts::Layout;
use mapping::MapBy;
use scratch::Scratch;
use server::Server;
use std::ffi::OsString;
use std::net::Ipv4Addr;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use supervise::Supervisor;

pub use argv::rewrite as mpirun_spellings;
pub use argv::TAKES_VALUE as OPTIONS_WITH_VALUES;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Number of processes to start.
    #[arg(short = 'n', long = "np", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=MAX_JOB_SIZE as i64))]
    np: u32,

    /// Prefix every line the processes print with "[RANK] " (lines of different
    /// processes never mix, tagged or not).
    #[arg(long)]
    tag_output: bool,

    /// Place the processes on K virtual hosts of this machine (in blocks of ranks):
    /// processes of one host talk through shared memory, of different hosts over UDP.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=MAX_JOB_SIZE as i64))]
    hosts: u32,

    /// How processes reach each other: `auto` (shared memory within a virtual host, UDP
    /// between hosts), `udp` (the network between all processes, as if each had a host
    /// of its own) or `shm` (one host, no network).
    #[arg(long, value_enum, default_value_t = Transport::Auto)]
    transport: Transport,

    /// Pass an environment variable to every process: `VAR=value`, or `VAR` for the
    /// launcher's own value (mpirun's `-x`). May be repeated.
    #[arg(short = 'x', long = "env", value_name = "VAR[=value]")]
    env: Vec<OsString>,

    /// Start the processes on the hosts of FILE, over ssh (`CLUMP_RSH` names another
    /// remote shell): one host a line, `host slots=N [max_slots=M]` or `host:N`.
    #[arg(long, short = 'f', visible_alias = "machinefile", value_name = "FILE")]
    hostfile: Option<PathBuf>,

    /// Start the processes on these hosts: `a,b:2` (one slot without `:N`). May be repeated.
    #[arg(long, short = 'H', value_name = "HOST[:N],...")]
    host: Vec<String>,

    /// How processes fill the listed hosts: `slot` (each host's slots in turn) or `node`
    /// (one per host, round robin).
    #[arg(long, value_enum, default_value_t = MapBy::Slot)]
    map_by: MapBy,

    /// Bind each process to a core of its host (`core`), or not (`none`).
    #[arg(long, value_enum, default_value_t = BindTo::None)]
    bind_to: BindTo,

    /// Place more processes than the listed hosts have slots (round robin, within
    /// each host's `max_slots`).
    #[arg(long)]
    oversubscribe: bool,

    /// The program to start, followed by its arguments.
    #[arg(value_name = "PROGRAM", required = true, trailing_var_arg = true)]
    command: Vec<OsString>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindTo {
    Core,
    None,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Auto,
    Shm,
    Udp,
}

/// Exit status when the program is not found, as shells use.
const NOT_FOUND: u8 = 127;
/// Exit status when the program is found but cannot be run, as shells use.
const NOT_EXECUTABLE: u8 = 126;

pub fn main(args: RunArgs) -> ExitCode {
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err((code, msg)) => {
            say(&msg);
            ExitCode::from(code)
        }
    }
}

/// One line on stderr. Unlike `eprintln!`, never panics when stderr is closed: a launcher
/// that died there would leave its ranks behind.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "clump run: {line}");
}

fn run(args: &RunArgs) -> Result<u8, (u8, String)> {
    let (program, program_args) = args.command.split_first().expect("clap requires PROGRAM");
    let layout = hosts::layout(args).map_err(|e| (2, e))?;
    let env = passed_env(&args.env).map_err(|e| (2, e))?;
    let limit = deadline::from_env().map_err(|e| (2, e))?;
    warn_unknown_settings(&env);
    // Before anything that needs cleaning up, so that no Ctrl-C can skip the cleanup, and
    // before any child exists, so that no SIGCHLD is missed.
    let signal = sys::install_signal_pipe()
        .map_err(|e| (1, format!("cannot install signal handlers: {e}")))?;
    // A socket and two pipes per rank, and the pipes' other ends while it starts; and for
    // a rank on another host, its ssh's pipes and connections.
    let per_rank = 5 + if layout.remote.is_empty() { 0 } else { 6 };
    sys::ensure_fd_limit(64 + per_rank * args.np as u64).map_err(|e| (1, e))?;
    // The job's secret (its endpoints' tag): from the kernel's random source, and passed
    // to the ranks only in their environment, which other users cannot read.
    let job_id = clump::config::random_job_id();
    let job_key = clump::config::random_job_key();
    // Dropped last, so the directory goes whatever way this function returns.
    let scratch =
        Scratch::create().map_err(|e| (1, format!("cannot create a scratch directory: {e}")))?;
    let socket = scratch.socket_path();
    let listener = UnixListener::bind(&socket)
        .map_err(|e| (1, format!("cannot listen on {}: {e}", socket.display())))?;
    let remote = remote_service(&layout, &socket).map_err(|e| (1, e))?;
    let launch = Launch {
        program,
        args: program_args,
        size: args.np,
        job_id,
        job_key,
        socket: &socket,
        tag_output: args.tag_output,
        layout: &layout,
        env: &env,
        remote: remote.as_ref(),
    };
    let mut server = Server::new(listener, args.np, job_id)
        .map_err(|e| (1, format!("bootstrap socket: {e}")))?;
    let mut welcome = Welcome {
        server: &mut server,
        early: Vec::new(),
    };
    let mut children =
        Children::spawn(&launch, &mut welcome).map_err(|e| cannot_start(program, &e))?;
    let early = welcome.early;
    let code = Supervisor::new(&mut children, server, signal, early, limit).run();
    if !children.finish_output(Duration::from_secs(1)) {
        say("stopped passing on output: a process the ranks started still holds it open");
    }
    scratch::sweep_shm();
    drop(scratch);
    Ok(code)
}

/// Once for the whole job (its ranks, started by this launcher, stay quiet): the
/// `CLUMP_*` names of the launcher's environment and of `-x` that no layer reads.
fn warn_unknown_settings(passed: &[(OsString, OsString)]) {
    use clump::config::unknown;
    let names = std::env::vars_os().map(|(k, _)| k);
    let names = names.chain(passed.iter().map(|(k, _)| k.clone()));
    for name in unknown::unknown_names(names) {
        say(&unknown::warning(&name));
    }
}

/// The TCP bootstrap service for ranks on other hosts, bound to `CLUMP_NET_IP`, or to
/// `CLUMP_NET_IFACE`'s address, or to the address this machine reaches the first of them
/// from; `None` when every rank runs here.
fn remote_service(layout: &Layout, socket: &Path) -> Result<Option<Remote>, String> {
    let Some(first) = layout.remote.first() else {
        return Ok(None);
    };
    let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let ip = match var("CLUMP_NET_IP") {
        Some(ip) => ip
            .parse::<Ipv4Addr>()
            .map_err(|_| format!("CLUMP_NET_IP={ip:?} is not an IPv4 address"))?,
        None => clump::boot::source_toward(first, var("CLUMP_NET_IFACE").as_deref())
            .map_err(|e| format!("cannot choose an address the hosts reach: {e}"))?,
    };
    let token = clump::config::random_job_key();
    let service = relay::serve(ip, token, socket.to_owned())
        .map_err(|e| format!("cannot listen on {ip} for the other hosts: {e}"))?;
    let clump = std::env::current_exe()
        .map_err(|e| format!("cannot find this clump's path for the other hosts: {e}"))?;
    let shell = remote::Shell::new(std::env::var_os("CLUMP_RSH").as_deref(), &clump)?;
    let cwd = std::env::current_dir()
        .map(|d| d.into_os_string())
        .unwrap_or_default();
    // ssh carries no environment: the launcher's clump settings go along, except an
    // address of this machine and the launcher's own.
    let own = ["CLUMP_NET_IP", "CLUMP_RSH", "CLUMP_BOOT_SOCKET"];
    let forwarded = std::env::vars_os()
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|k| k.starts_with("CLUMP_") && !own.contains(&k))
        })
        .collect();
    Ok(Some(Remote {
        service,
        token,
        shell,
        cwd,
        forwarded,
        local_ip: var("CLUMP_NET_IP").is_none().then_some(ip),
    }))
}

/// The launcher's work while it starts the ranks: welcoming those already running.
struct Welcome<'a> {
    server: &'a mut Server,
    /// Events to act on once all have started.
    early: Vec<server::Event>,
}

impl Between for Welcome<'_> {
    fn serve(&mut self) -> bool {
        self.early.extend(self.server.serve_now());
        sys::term_signal().is_none() // the supervisor then ends those started
    }

    fn joined(&self, rank: u32) -> bool {
        self.server.joined(rank)
    }
}

/// The status and message for a program that could not be started, as a shell says it.
fn cannot_start(program: &OsString, e: &std::io::Error) -> (u8, String) {
    let name = program.to_string_lossy();
    let (code, why) = if std::path::Path::new(program).is_dir() {
        (NOT_EXECUTABLE, "is a directory".to_owned())
    } else if e.kind() == std::io::ErrorKind::PermissionDenied {
        (NOT_EXECUTABLE, "not executable".to_owned())
    } else {
        (NOT_FOUND, os_error_text(e))
    };
    (code, format!("cannot start {name}: {why}"))
}

/// `-x`/`--env` values as (name, value) pairs; a bare name takes the launcher's value.
fn passed_env(specs: &[OsString]) -> Result<Vec<(OsString, OsString)>, String> {
    specs
        .iter()
        .map(|spec| {
            let text = spec
                .to_str()
                .ok_or_else(|| format!("--env {}: not UTF-8", spec.to_string_lossy()))?;
            let (name, value) = match text.split_once('=') {
                Some((name, value)) => (name, OsString::from(value)),
                None => (
                    text,
                    std::env::var_os(text).ok_or_else(|| {
                        format!("-x {text}: {text} is not set in the launcher's environment")
                    })?,
                ),
            };
            if name.is_empty() {
                return Err(format!("--env {text}: no variable name before '='"));
            }
            Ok((OsString::from(name), value))
        })
        .collect()
}

/// "No such file or directory" rather than std's "No such file or directory (os error 2)".
fn os_error_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_owned(),
        _ => text,
    }
}
