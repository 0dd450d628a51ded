//! `clump rank-agent`: what the launcher's ssh starts on another host, one per rank.
//! It reads the rank's setup from stdin, starts the rank with a bootstrap socket of its
//! own whose connections it carries to the launcher over TCP, and exits with the rank's
//! status. When its stdin ends (the launcher is gone, or ended the job by ending ssh),
//! or a connection to the launcher fails (its host no longer answers), it ends the
//! rank: SIGTERM, then SIGKILL after a grace. If the agent itself is killed,
//! the rank dies with it. Nothing is left on the host: the scratch directory goes with
//! the agent, the rank's shared memory with its processes.

use super::children::await_threads;
use super::remote::Setup;
use super::scratch::Scratch;
use super::{relay, sys};
use std::io::BufRead;
use std::os::unix::net::UnixListener;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, Once, OnceLock};
use std::time::Duration;

/// Time the rank gets between SIGTERM and SIGKILL once the launcher is gone.
const GRACE: Duration = Duration::from_secs(2);
/// Longest wait, once the rank has exited, for its connections to carry their last bytes.
const LAST_WORDS: Duration = Duration::from_secs(1);

pub fn main() -> ExitCode {
    let mut stdin = std::io::BufReader::new(std::io::stdin());
    let setup = match Setup::decode(&mut stdin) {
        Ok(s) => s,
        Err(e) => return fail("", 1, &e),
    };
    match run(&setup, stdin) {
        Ok(code) => ExitCode::from(code),
        Err((code, why)) => fail(&setup.host, code, &why),
    }
}

fn fail(host: &str, code: u8, why: &str) -> ExitCode {
    let at = if host.is_empty() {
        String::new()
    } else {
        format!(" on host {host}")
    };
    super::say(&format!("rank agent{at}: {why}"));
    ExitCode::from(code)
}

fn run(s: &Setup, mut stdin: impl BufRead + Send + 'static) -> Result<u8, (u8, String)> {
    // The launcher's directory when this host has it (a shared file system), else here.
    let _ = std::env::set_current_dir(&s.cwd);
    let mut env = s.env.clone();
    if !env.iter().any(|(k, _)| k == "CLUMP_NET_IP") {
        env.push(("CLUMP_NET_IP".into(), bind_ip(s)?.to_string().into()));
    }
    let scratch =
        Scratch::create().map_err(|e| (1, format!("cannot create a scratch directory: {e}")))?;
    let socket = scratch.socket_path();
    let listener = UnixListener::bind(&socket)
        .map_err(|e| (1, format!("cannot listen on {}: {e}", socket.display())))?;
    let (launcher, token, host) = (s.launcher, s.token, s.host.clone());
    let carriers = Arc::new(Mutex::new(Vec::new()));
    let carriers2 = carriers.clone();
    // The rank's pid, once it runs: a connection to the launcher that fails ends it.
    let rank_pid = Arc::new(OnceLock::new());
    let pid_for_relay = rank_pid.clone();
    let on_broken: relay::OnBroken = Arc::new(move || {
        if let Some(&pid) = pid_for_relay.get() {
            end_rank(pid);
        }
    });
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let broken = Some(on_broken.clone());
            match relay::connect(launcher, token).and_then(|tcp| relay::splice(conn, tcp, broken)) {
                Ok(threads) => carriers2
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(threads),
                Err(e) => super::say(&format!(
                    "rank agent on host {host}: cannot reach the launcher at {launcher}: {e}"
                )),
            }
        }
    });
    let mut cmd = Command::new(&s.program);
    cmd.args(&s.args)
        .envs(env)
        .env("CLUMP_BOOT_SOCKET", &socket)
        .process_group(0)
        .stdin(Stdio::null());
    sys::die_with_parent(&mut cmd);
    if let Some(i) = s.core_index {
        sys::bind_to_cpu(&mut cmd, i).map_err(|e| (1, format!("--bind-to core: {e}")))?;
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| super::cannot_start(&s.program, &e))?;
    let pid = child.id();
    let _ = rank_pid.set(pid);
    std::thread::spawn(move || {
        // Anything after the setup is unexpected; the end is what counts.
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
        end_rank(pid);
    });
    let status = child
        .wait()
        .map_err(|e| (1, format!("cannot wait for rank {}: {e}", s.rank)))?;
    // What the rank sent last (an abort, say) reaches the launcher before its status.
    let threads = std::mem::take(&mut *carriers.lock().unwrap_or_else(|e| e.into_inner()));
    await_threads(threads, LAST_WORDS);
    drop(scratch);
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, sig) => {
            let sig = sig.unwrap_or(0);
            super::say(&format!(
                "rank {} on host {} was killed by signal {sig} ({})",
                s.rank,
                s.host,
                sys::signal_name(sig)
            ));
            (128 + sig) as u8
        }
    })
}

/// Ends the rank (once, whoever asks first): SIGTERM, then SIGKILL after the grace.
fn end_rank(pid: u32) {
    static ENDING: Once = Once::new();
    ENDING.call_once(|| {
        std::thread::spawn(move || {
            sys::signal_group(pid, libc::SIGTERM);
            std::thread::sleep(GRACE);
            sys::signal_group(pid, libc::SIGKILL);
        });
    });
}

/// The address the rank's endpoints bind to: that of `CLUMP_NET_IFACE` when passed on,
/// else the one this host reaches the launcher from.
fn bind_ip(s: &Setup) -> Result<std::net::Ipv4Addr, (u8, String)> {
    let iface = s
        .env
        .iter()
        .find(|(k, _)| k == "CLUMP_NET_IFACE")
        .map(|(_, v)| v.to_string_lossy().into_owned());
    let launcher = s.launcher.ip().to_string();
    clump::boot::source_toward(&launcher, iface.as_deref()).map_err(|e| (1, e.to_string()))
}
