//! `mpiexec`/`mpirun`/`oshrun`: `clump run` under the names MPI and OpenSHMEM users type.
//! `clump run` itself takes mpirun's spellings (`-np N`, `-x VAR`); the launcher answers
//! `--version`/`-version`/`-V` and `--help`/`-help`/`-h` among the options before the
//! program (after it they are the program's).

use super::{clump_exe, fail};
use crate::about::VERSION;
use crate::run::OPTIONS_WITH_VALUES;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

#[derive(Debug, PartialEq, Eq)]
enum Question {
    Version,
    Help,
}

/// The version or help option among the launcher's options, if there is one.
fn question(args: &[OsString]) -> Option<Question> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.to_str()?;
        match text {
            "--version" | "-version" | "-V" => return Some(Question::Version),
            "--help" | "-help" | "-h" => return Some(Question::Help),
            "--" => return None,
            _ if !text.starts_with('-') => return None,
            // `-np` is mpirun's `--np` and `-hostfile` its `--hostfile`, which clump run
            // rewrites only later.
            _ if OPTIONS_WITH_VALUES.contains(&text)
                || OPTIONS_WITH_VALUES.contains(&format!("-{text}").as_str()) =>
            {
                words.next();
            }
            _ => {}
        }
    }
    None
}

pub fn main(name: &str, args: Vec<OsString>) -> ExitCode {
    let mut run = Command::new(clump_exe());
    run.arg("run");
    match question(&args) {
        Some(Question::Version) => {
            println!("{name} (clump) {VERSION}");
            return ExitCode::SUCCESS;
        }
        Some(Question::Help) => {
            println!(
                "Usage: {name} -n N [OPTIONS] PROGRAM [ARGS]...\n\
                 Starts N processes of PROGRAM as one job: `clump run`, which also takes\n\
                 mpirun's spellings (-np N, -npN, -x VAR). `{name} --version` prints the version.\n\
                 The options are clump run's:\n"
            );
            // The help clap prints for `clump run` follows on the same stdout.
            let _ = std::io::stdout().flush();
            run.arg("--help");
        }
        None => {
            run.args(args);
        }
    }
    let err = run.exec();
    fail(name, &format!("cannot run clump run: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(words: &str) -> Option<Question> {
        let args: Vec<OsString> = words.split(' ').map(OsString::from).collect();
        question(&args)
    }

    #[test]
    fn questions_are_answered_only_before_the_program() {
        assert_eq!(ask("--version"), Some(Question::Version));
        assert_eq!(ask("-version"), Some(Question::Version));
        assert_eq!(ask("-h"), Some(Question::Help));
        assert_eq!(ask("-np 2 -x --help -help"), Some(Question::Help));
        assert_eq!(ask("-np 2 ./prog --help"), None);
        assert_eq!(ask("-n 2 -- --version"), None);
        assert_eq!(ask("--transport udp -V"), Some(Question::Version));
        assert_eq!(ask("-hostfile -h -np 2 p"), None);
        assert_eq!(
            ask("-host a,b --hostfile hf -map-by node -V"),
            Some(Question::Version)
        );
    }
}
