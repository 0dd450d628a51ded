//! `clump run`: starts N processes of a program on this host as one job and serves
//! their bootstrap (rank, size, allgather, barrier, abort) until they have all exited.

mod argv;
mod children;
mod output;
mod scratch;
mod server;
mod supervise;
mod sys;

use children::{Children, Launch, Placement};
use clump::config::MAX_JOB_SIZE;
use scratch::Scratch;
use server::Server;
use std::ffi::OsString;
use std::os::unix::net::UnixListener;
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

    /// The program to start, followed by its arguments.
    #[arg(value_name = "PROGRAM", required = true, trailing_var_arg = true)]
    command: Vec<OsString>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Auto,
    Shm,
    Udp,
}

impl RunArgs {
    /// Where the ranks go. With one host the network stays off (nothing in the job needs
    /// it, and polling it would cost every poll), unless `CLUMP_NET` says otherwise.
    fn placement(&self) -> Result<Placement, String> {
        if self.hosts > self.np {
            return Err(format!(
                "--hosts {} exceeds the {} processes",
                self.hosts, self.np
            ));
        }
        let hosts = match self.transport {
            Transport::Auto => self.hosts,
            Transport::Shm if self.hosts > 1 => {
                return Err(format!(
                    "--transport shm puts every process on one host; --hosts {} contradicts it",
                    self.hosts
                ))
            }
            Transport::Shm => 1,
            Transport::Udp => self.np,
        };
        let user_net = std::env::var_os("CLUMP_NET").is_some();
        let net = match self.transport {
            Transport::Shm => Some(false),
            _ if hosts > 1 => Some(true),
            _ if user_net => None,
            _ => Some(false),
        };
        Ok(Placement { hosts, net })
    }
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
    let placement = args.placement().map_err(|e| (2, e))?;
    let env = passed_env(&args.env).map_err(|e| (2, e))?;
    warn_unknown_settings(&env);
    // Before anything that needs cleaning up, so that no Ctrl-C can skip the cleanup, and
    // before any child exists, so that no SIGCHLD is missed.
    let signal_fd = sys::install_signal_pipe()
        .map_err(|e| (1, format!("cannot install signal handlers: {e}")))?;
    // A socket and two pipes per rank, and the pipes' other ends while it starts.
    sys::ensure_fd_limit(64 + 5 * args.np as u64).map_err(|e| (1, e))?;
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
    let launch = Launch {
        program,
        args: program_args,
        size: args.np,
        job_id,
        job_key,
        socket: &socket,
        tag_output: args.tag_output,
        placement,
        env: &env,
    };
    let mut server = Server::new(listener, args.np, job_id)
        .map_err(|e| (1, format!("bootstrap socket: {e}")))?;
    let mut early = Vec::new();
    let mut children = Children::spawn(&launch, &mut || {
        early.extend(server.serve_now());
        sys::term_signal().is_none() // the supervisor then ends those started
    })
    .map_err(|e| cannot_start(program, &e))?;
    let code = Supervisor::new(&mut children, server, signal_fd, early).run();
    children.finish_output(Duration::from_secs(1));
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
