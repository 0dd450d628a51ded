//! Starting a rank on another host: `ssh HOST CLUMP rank-agent` (or `CLUMP_RSH`), with
//! what the rank needs written to the agent's stdin, inside ssh: the job's key never
//! appears on a command line another user of the host could read. The launcher keeps
//! that stdin open for the life of the rank: its end (the launcher exited or was
//! killed, ssh or its connection failed) makes the agent end the rank.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::{Command, Stdio};

/// First line of a setup; a mismatch means a different clump on the other host.
const VERSION_LINE: &str = concat!("clump-rank-agent ", env!("CARGO_PKG_VERSION"));

/// Everything the agent needs to start its rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The host's name as the hostfile gives it (for messages).
    pub host: String,
    pub rank: u32,
    pub launcher: SocketAddr,
    pub token: u128,
    /// The launcher's working directory, where the rank starts when the host has it.
    pub cwd: OsString,
    pub program: OsString,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// `--bind-to core`: the rank's index among its host's ranks.
    pub core_index: Option<u32>,
}

impl Setup {
    pub fn encode(&self) -> Vec<u8> {
        let mut lines = vec![
            VERSION_LINE.to_owned(),
            format!("host {}", hex(self.host.as_bytes())),
            format!("rank {}", self.rank),
            format!("launcher {}", self.launcher),
            format!("token {:032x}", self.token),
            format!("cwd {}", hex(self.cwd.as_bytes())),
            format!("program {}", hex(self.program.as_bytes())),
        ];
        lines.extend(
            self.args
                .iter()
                .map(|a| format!("arg {}", hex(a.as_bytes()))),
        );
        lines.extend(
            self.env
                .iter()
                .map(|(k, v)| format!("env {} {}", hex(k.as_bytes()), hex(v.as_bytes()))),
        );
        lines.extend(self.core_index.map(|c| format!("core {c}")));
        lines.push("go\n".to_owned());
        lines.join("\n").into_bytes()
    }

    /// Reads a setup up to its `go` line.
    pub fn decode(input: &mut impl BufRead) -> Result<Setup, String> {
        let mut line = String::new();
        let mut next = |line: &mut String| -> Result<(), String> {
            line.clear();
            match input.read_line(line) {
                Ok(0) => Err("the launcher's setup ended early".into()),
                Ok(_) => Ok(()),
                Err(e) => Err(format!("cannot read the launcher's setup: {e}")),
            }
        };
        next(&mut line)?;
        if line.trim_end() != VERSION_LINE {
            return Err(format!(
                "this host's clump ({VERSION_LINE}) is not the launcher's ({})",
                line.trim_end()
            ));
        }
        let mut s = Setup {
            host: String::new(),
            rank: 0,
            launcher: SocketAddr::from(([0, 0, 0, 0], 0)),
            token: 0,
            cwd: OsString::new(),
            program: OsString::new(),
            args: Vec::new(),
            env: Vec::new(),
            core_index: None,
        };
        let bad = |line: &str| format!("malformed setup line {line:?}");
        loop {
            next(&mut line)?;
            let text = line.strip_suffix('\n').unwrap_or(&line);
            let (key, value) = text.split_once(' ').unwrap_or((text, ""));
            match key {
                "go" => return Ok(s),
                "host" => {
                    s.host = String::from_utf8(unhex(value).ok_or_else(|| bad(text))?)
                        .map_err(|_| bad(text))?
                }
                "rank" => s.rank = value.parse().map_err(|_| bad(text))?,
                "launcher" => s.launcher = value.parse().map_err(|_| bad(text))?,
                "token" => s.token = u128::from_str_radix(value, 16).map_err(|_| bad(text))?,
                "cwd" => s.cwd = os(value).ok_or_else(|| bad(text))?,
                "program" => s.program = os(value).ok_or_else(|| bad(text))?,
                "arg" => s.args.push(os(value).ok_or_else(|| bad(text))?),
                "env" => {
                    let (k, v) = value.split_once(' ').ok_or_else(|| bad(text))?;
                    let pair = (
                        os(k).ok_or_else(|| bad(text))?,
                        os(v).ok_or_else(|| bad(text))?,
                    );
                    s.env.push(pair);
                }
                "core" => s.core_index = Some(value.parse().map_err(|_| bad(text))?),
                _ => return Err(bad(text)),
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn os(text: &str) -> Option<OsString> {
    unhex(text).map(OsString::from_vec)
}

/// How ranks are started on other hosts: the remote shell, and the agent's command line.
pub struct Shell {
    words: Vec<String>,
    agent: String,
}

impl Shell {
    /// The remote shell is `CLUMP_RSH` split at white space, or `ssh`; the agent is
    /// `clump` (this one, which the other hosts have at the same path).
    pub fn new(rsh: Option<&OsStr>, clump: &Path) -> Result<Shell, String> {
        let words: Vec<String> = match rsh {
            Some(v) => v
                .to_str()
                .ok_or("CLUMP_RSH is not UTF-8")?
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            None => vec!["ssh".to_owned()],
        };
        if words.is_empty() {
            return Err("CLUMP_RSH is empty".into());
        }
        Ok(Shell {
            words,
            agent: agent_command_line(clump)?,
        })
    }

    /// The command that starts an agent on `host`, its stdin a pipe for the setup.
    /// OpenSSH's client gets options that make failures quick and clear: no password
    /// prompt (a background launcher cannot answer one), a bounded connect, and a lost
    /// host noticed in seconds.
    pub fn command(&self, host: &str) -> Command {
        let (program, args) = self.words.split_first().expect("checked in Shell::new");
        let mut cmd = Command::new(program);
        if Path::new(program).file_name() == Some(OsStr::new("ssh")) {
            cmd.args(["-x", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]);
            cmd.args(["-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=3"]);
        }
        cmd.args(args)
            .arg(host)
            .arg(&self.agent)
            .stdin(Stdio::piped());
        cmd
    }
}

/// The command line the remote shell runs: `clump` at this path, as the agent.
fn agent_command_line(clump: &Path) -> Result<String, String> {
    let path = clump
        .to_str()
        .ok_or_else(|| format!("{} is not UTF-8", clump.display()))?;
    Ok(format!("'{}' rank-agent", path.replace('\'', r"'\''")))
}

/// Writes the setup to the agent's stdin (kept open by the caller).
pub fn send(stdin: &mut impl Write, setup: &Setup) -> std::io::Result<()> {
    stdin.write_all(&setup.encode())?;
    stdin.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setups_roundtrip_with_any_bytes() {
        let s = Setup {
            host: "node-1".into(),
            rank: 7,
            launcher: "10.77.0.1:4242".parse().unwrap(),
            token: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            cwd: "/home/u/with space".into(),
            program: "./prog".into(),
            args: vec![
                "a b".into(),
                OsString::from_vec(vec![0xff, b'\n', 0]),
                "".into(),
            ],
            env: vec![("CLUMP_RANK".into(), "7".into()), ("X".into(), "".into())],
            core_index: Some(3),
        };
        let bytes = s.encode();
        let decoded = Setup::decode(&mut &bytes[..]).unwrap();
        assert_eq!(decoded, s);
    }

    #[test]
    fn bad_setups_are_refused() {
        let e = Setup::decode(&mut &b"clump-rank-agent 0.0.0-other\ngo\n"[..]).unwrap_err();
        assert!(e.contains("is not the launcher's"), "{e}");
        let head = format!("{VERSION_LINE}\n");
        let e = Setup::decode(&mut format!("{head}rank x\ngo\n").as_bytes()).unwrap_err();
        assert!(e.contains("malformed setup line \"rank x\""), "{e}");
        let e = Setup::decode(&mut format!("{head}rank 1\n").as_bytes()).unwrap_err();
        assert!(e.contains("ended early"), "{e}");
    }

    #[test]
    fn ssh_gets_options_for_clear_failures_other_shells_do_not() {
        let argv = |rsh: Option<&str>| {
            let shell = Shell::new(rsh.map(OsStr::new), Path::new("/c")).unwrap();
            let cmd = shell.command("h");
            let mut all = vec![cmd.get_program().to_string_lossy().into_owned()];
            all.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
            all.join(" ")
        };
        let ssh = argv(Some("/usr/bin/ssh -F cfg"));
        assert!(
            ssh.starts_with("/usr/bin/ssh -x -T -o BatchMode=yes"),
            "{ssh}"
        );
        assert!(ssh.ends_with("-F cfg h '/c' rank-agent"), "{ssh}");
        assert_eq!(argv(Some(" rsh  -l u ")), "rsh -l u h '/c' rank-agent");
        assert!(argv(None).starts_with("ssh -x"));
        assert!(Shell::new(Some(OsStr::new("  ")), Path::new("/c")).is_err());
    }

    #[test]
    fn the_agent_path_is_quoted_for_the_remote_shell() {
        let line = agent_command_line(Path::new("/opt/it's/clump")).unwrap();
        assert_eq!(line, r"'/opt/it'\''s/clump' rank-agent");
    }
}
