//! The MPI and OpenSHMEM entry points: `clump mpicc` and `clump oshcc` (the C compiler
//! with clump's flags) and `clump mpiexec`/`clump mpirun`/`clump oshrun` (the launcher with
//! the usual `-n`/`-np`). The same programs answer when `clump` is called through a link
//! named `mpicc`, `oshcc`, `mpiexec`, `mpirun` or `oshrun`, which is how `scripts/install`
//! provides those commands.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitCode};

/// The wrapper a link name stands for, if `argv0` is one of them.
pub fn by_link_name(argv0: &OsString) -> Option<fn(Vec<OsString>) -> ExitCode> {
    match Path::new(argv0).file_name()?.to_str()? {
        "mpicc" => Some(mpicc),
        "oshcc" => Some(oshcc),
        "mpiexec" | "mpirun" | "oshrun" => Some(mpiexec),
        _ => None,
    }
}

/// `mpicc ARGS...`: `$MPICC_CC` (or `$CC`, or `cc`) with ARGS and `clump config --cflags
/// --libs`. `-show` prints the command instead of running it, as other wrappers do.
pub fn mpicc(args: Vec<OsString>) -> ExitCode {
    compiler("MPICC_CC", args)
}

/// `oshcc ARGS...`: as `mpicc`, with the compiler from `$OSHCC_CC` (or `$CC`, or `cc`);
/// libclump holds both interfaces.
pub fn oshcc(args: Vec<OsString>) -> ExitCode {
    compiler("OSHCC_CC", args)
}

/// The compiler named by `$<own_var>`, `$CC` or `cc`, run with ARGS and clump's flags.
fn compiler(own_var: &str, args: Vec<OsString>) -> ExitCode {
    let flags = match clump(&["config", "--cflags", "--libs"]).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => {
            return fail(&format!(
                "clump config failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
        Err(e) => return fail(&format!("cannot run clump config: {e}")),
    };
    let compiler = std::env::var_os(own_var)
        .or_else(|| std::env::var_os("CC"))
        .unwrap_or_else(|| "cc".into());
    let show = args.iter().any(|a| a == "-show" || a == "--showme");
    let args: Vec<OsString> = args
        .into_iter()
        .filter(|a| a != "-show" && a != "--showme")
        .collect();
    let mut cmd = Command::new(&compiler);
    cmd.args(&args).args(flags.split_whitespace());
    if show {
        let words: Vec<String> = std::iter::once(cmd.get_program())
            .chain(cmd.get_args())
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        println!("{}", words.join(" "));
        return ExitCode::SUCCESS;
    }
    fail(&format!(
        "cannot run {}: {}",
        compiler.to_string_lossy(),
        cmd.exec()
    ))
}

/// `mpiexec -n N PROGRAM ARGS...` (also `-np N`, `-n=N`): `clump run -n N PROGRAM ARGS...`;
/// `clump run`'s own options (`--hosts`, `--transport`, ...) pass through.
pub fn mpiexec(args: Vec<OsString>) -> ExitCode {
    let run_args = launcher_args(args);
    let err = clump(&["run"]).args(run_args).exec();
    fail(&format!("cannot run clump run: {err}"))
}

/// Rewrites the process-count spellings of mpiexec into `clump run`'s `-n`, up to the
/// program name; everything from the program on is the program's own.
fn launcher_args(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        match arg.to_str() {
            Some("-np") => out.push("-n".into()),
            Some(s) if s.starts_with("-np=") => out.push(format!("-n={}", &s[4..]).into()),
            Some(s) if s.starts_with('-') => out.push(arg),
            _ => {
                // The program: clump run takes it (and its arguments) after `--`.
                out.push("--".into());
                out.push(arg);
                out.extend(rest);
                break;
            }
        }
        // An option's value (the N of -n N, the K of --hosts K) follows it as a word.
        if let Some(last) = out.last().and_then(|a| a.to_str()) {
            if TAKES_VALUE.contains(&last) {
                if let Some(value) = rest.next() {
                    out.push(value);
                }
            }
        }
    }
    out
}

/// The options of `clump run` that take their value as the next word.
const TAKES_VALUE: &[&str] = &["-n", "--np", "--hosts", "--transport"];

fn clump(args: &[&str]) -> Command {
    let exe = std::env::current_exe().unwrap_or_else(|_| "clump".into());
    let mut cmd = Command::new(exe);
    cmd.args(args);
    cmd
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("clump: {msg}");
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::launcher_args;
    use std::ffi::OsString;

    fn rewrite(words: &[&str]) -> Vec<String> {
        let args = words.iter().map(OsString::from).collect();
        launcher_args(args)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn np_and_n_become_clump_runs_n_and_the_program_keeps_its_own_options() {
        assert_eq!(
            rewrite(&["-np", "4", "./a.out", "-np", "x"]),
            ["-n", "4", "--", "./a.out", "-np", "x"]
        );
        assert_eq!(
            rewrite(&["-n", "2", "--hosts", "2", "prog"]),
            ["-n", "2", "--hosts", "2", "--", "prog"]
        );
        assert_eq!(
            rewrite(&["-np=3", "--transport", "udp", "p"]),
            ["-n=3", "--transport", "udp", "--", "p"]
        );
        assert_eq!(
            rewrite(&["--np", "1", "--tag-output", "p", "a"]),
            ["--np", "1", "--tag-output", "--", "p", "a"]
        );
    }
}
