//! A compiler wrapper's command line: the options Open MPI's and MPICH's wrappers answer
//! themselves (`-show`, `-showme:*`, `-compile-info`, `-link-info`, `--version`, `--help`),
//! and otherwise the compiler run as `COMPILER COMPILE-FLAGS ARGS LINK-FLAGS`, the link
//! flags only when the compiler links (not with `-c`, `-S`, `-E`, `-M`, `-MM`), and no
//! flags at all when every argument is a question to the compiler (`-v`, `-dumpversion`,
//! `-print-prog-name=ld`, or none: what configure scripts probe with).

use super::compiler::{self, Compiler, RUNNING};
use super::flags::Flags;
use super::{clump_exe, fail, Wrapper};
use crate::about::VERSION;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    /// Run the compiler.
    Run,
    /// Print part of what would run (`-show`, `-showme:link`, ...).
    Show(Part),
    Help,
    /// The compiler's `--version`, then the wrapper's.
    Version,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The whole command (`-show`, `-showme`, `--showme`).
    Command,
    /// The command as if compiling only (`-compile-info`), or linking (`-link-info`).
    CompileInfo,
    LinkInfo,
    /// Open MPI's `--showme:` parts.
    CompileFlags,
    LinkFlags,
    Compiler,
    IncDirs,
    LibDirs,
    Libs,
    Version,
}

/// The `-showme:` / `--showme:` parts Open MPI's wrappers know (`help` is `--help`).
const SHOWME: &[(&str, Part)] = &[
    ("compile", Part::CompileFlags),
    ("link", Part::LinkFlags),
    ("command", Part::Compiler),
    ("incdirs", Part::IncDirs),
    ("libdirs", Part::LibDirs),
    ("libs", Part::Libs),
    ("version", Part::Version),
];

/// Arguments that only ask the compiler something: with nothing else, no flags are added.
fn is_question(arg: &OsString) -> bool {
    let Some(arg) = arg.to_str() else {
        return false;
    };
    matches!(
        arg,
        "-v" | "-V"
            | "-qversion"
            | "-version"
            | "-dumpversion"
            | "-dumpfullversion"
            | "-dumpmachine"
            | "-dumpspecs"
    ) || arg.starts_with("-print-")
        || arg.starts_with("--print-")
}

/// Whether the compiler links: none of the options that stop it earlier is given.
fn links(args: &[OsString]) -> bool {
    !args
        .iter()
        .any(|a| ["-c", "-S", "-E", "-M", "-MM", "-fsyntax-only"].contains(&&*a.to_string_lossy()))
}

/// Splits the wrapper's own options from the compiler's arguments (the last own option wins).
fn parse(args: Vec<OsString>) -> Result<(Request, Vec<OsString>), String> {
    let mut request = Request::Run;
    let mut rest = Vec::with_capacity(args.len());
    for arg in args {
        let Some(text) = arg.to_str() else {
            rest.push(arg);
            continue;
        };
        request = match text {
            "-show" | "-showme" | "--showme" => Request::Show(Part::Command),
            "-compile-info" | "-compile_info" => Request::Show(Part::CompileInfo),
            "-link-info" | "-link_info" => Request::Show(Part::LinkInfo),
            "--help" | "-help" | "-showme:help" | "--showme:help" => Request::Help,
            "--version" => Request::Version,
            _ => match text
                .strip_prefix("--showme:")
                .or(text.strip_prefix("-showme:"))
            {
                Some(part) => {
                    let found = SHOWME.iter().find(|(name, _)| *name == part);
                    let Some(&(_, part)) = found else {
                        let names: Vec<_> = SHOWME.iter().map(|(n, _)| *n).collect();
                        return Err(format!(
                            "unknown {text}: the parts are {} and help",
                            names.join(", ")
                        ));
                    };
                    Request::Show(part)
                }
                None => {
                    rest.push(arg);
                    continue;
                }
            },
        };
    }
    Ok((request, rest))
}

/// The command the wrapper runs for `args`; `questions_alone` keeps the flags off when
/// every argument is a question to the compiler.
fn command(
    compiler: &Compiler,
    flags: &Flags,
    args: &[OsString],
    link: bool,
    questions_alone: bool,
) -> Vec<OsString> {
    let mut words = compiler.words.clone();
    if questions_alone && args.iter().all(is_question) {
        words.extend(args.iter().cloned());
        return words;
    }
    words.extend(flags.compile.iter().map(OsString::from));
    words.extend(args.iter().cloned());
    if link {
        words.extend(flags.link.iter().map(OsString::from));
    }
    words
}

pub fn main(wrapper: &Wrapper, args: Vec<OsString>) -> ExitCode {
    let who = wrapper.name;
    let (request, args) = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => return fail(who, &e),
    };
    let env = |var: &str| std::env::var_os(var);
    let compiler = compiler::choose(wrapper.language, env, &clump_exe());
    if request == Request::Help {
        print!("{}", help(wrapper, &compiler));
        return ExitCode::SUCCESS;
    }
    let compiler = match compiler {
        Ok(c) => c,
        Err(e) => return fail(who, &e),
    };
    if request == Request::Version {
        return version(wrapper, &compiler);
    }
    let flags = match Flags::get(wrapper.link_query) {
        Ok(f) if wrapper.language == compiler::Language::Fortran => {
            match super::fortran_modules::add(f, &compiler) {
                Ok(f) => f,
                Err(e) => return fail(who, &e),
            }
        }
        Ok(f) => f,
        Err(e) => return fail(who, &e),
    };
    let link = links(&args);
    let show = |words: &[OsString]| {
        println!("{}", shell_words(words));
        ExitCode::SUCCESS
    };
    let strip = |words: &[String], prefix: &str| -> Vec<OsString> {
        words
            .iter()
            .filter_map(|w| w.strip_prefix(prefix))
            .map(|w| w.strip_prefix(':').unwrap_or(w).into())
            .collect()
    };
    let Request::Show(part) = request else {
        // Run: the compiler takes this process's place.
        let words = command(&compiler, &flags, &args, link, true);
        let err = Command::new(&words[0])
            .args(&words[1..])
            .env(RUNNING, who)
            .exec();
        return fail(who, &format!("cannot run {}: {err}", compiler.describe()));
    };
    let nonempty = !args.is_empty();
    match part {
        Part::Command => show(&command(&compiler, &flags, &args, link, nonempty)),
        Part::CompileInfo => show(&command(&compiler, &flags, &args, false, nonempty)),
        Part::LinkInfo => show(&command(&compiler, &flags, &args, true, nonempty)),
        Part::CompileFlags => show(&flags.compile.iter().map(OsString::from).collect::<Vec<_>>()),
        Part::LinkFlags => show(&flags.link.iter().map(OsString::from).collect::<Vec<_>>()),
        Part::Compiler => show(&compiler.words),
        Part::IncDirs => show(&strip(&flags.compile, "-I")),
        Part::LibDirs => show(&strip(&flags.link, "-L")),
        Part::Libs => show(&strip(&flags.link, "-l")),
        Part::Version => {
            let lang = wrapper.language.label();
            println!("{who}: clump {VERSION} (Language: {lang})");
            ExitCode::SUCCESS
        }
    }
}

/// `--version`: the compiler's own answer, then a line naming the wrapper (after, so that
/// tools reading the first line still find the compiler's).
fn version(wrapper: &Wrapper, compiler: &Compiler) -> ExitCode {
    let status = Command::new(&compiler.words[0])
        .args(&compiler.words[1..])
        .arg("--version")
        .env(RUNNING, wrapper.name)
        .status();
    match status {
        Ok(status) => {
            println!(
                "{}: the {} {} compiler wrapper of clump {VERSION}, running {}",
                wrapper.name,
                wrapper.interface,
                wrapper.language.label(),
                compiler.describe()
            );
            ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8))
        }
        Err(e) => fail(
            wrapper.name,
            &format!("cannot run {}: {e}", compiler.describe()),
        ),
    }
}

fn help(wrapper: &Wrapper, compiler: &Result<Compiler, String>) -> String {
    let name = wrapper.name;
    let lang = wrapper.language;
    let vars = lang.variables().join(", ");
    let default = lang.default_compiler();
    let now = match compiler {
        Ok(c) => c.describe(),
        Err(e) => format!("none: {e}"),
    };
    format!(
        "Usage: {name} [OPTION | COMPILER ARGUMENT]...
Compiles and links {iface} {label} programs against clump: runs the compiler with clump's
compile flags, your arguments, then the link flags (left out with -c, -S, -E, -M, -MM).

The compiler: the first of {vars} that is set, else {default};
never CC or CXX, so that `./configure CC={name}` works. A value may have words
(\"gcc -m64\"); naming a compiler wrapper there is an error.
The compiler now: {now}

Options the wrapper answers (all others go to the compiler):
  -show, -showme, --showme   print the command instead of running it
  -compile-info, -link-info  print the command for compiling only, or for linking
  -showme:compile            print the compile flags (also --showme:compile)
  -showme:link               print the link flags
  -showme:command            print the compiler
  -showme:incdirs, -showme:libdirs, -showme:libs, -showme:version
  --version                  print the compiler's version, then the wrapper's
  --help, -help              print this help (also -showme:help)
",
        iface = wrapper.interface,
        label = lang.label(),
    )
}

/// `words` as one line a shell reads back as the same words.
fn shell_words(words: &[OsString]) -> String {
    let quote = |w: &OsString| {
        let w = w.to_string_lossy();
        let plain = |c: char| c.is_ascii_alphanumeric() || "_-+=:,./@%".contains(c);
        if !w.is_empty() && w.chars().all(plain) {
            w.into_owned()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    fn run_words(args: &[&str]) -> Vec<String> {
        let compiler = Compiler {
            words: os(&["gcc", "-m64"]),
            source: Some("CLUMP_CC"),
        };
        let flags = Flags {
            compile: vec!["-I/p/include".into()],
            link: vec!["-L/p/lib".into(), "-lclump".into()],
        };
        let (request, args) = parse(os(args)).unwrap();
        assert_eq!(request, Request::Run);
        command(&compiler, &flags, &args, links(&args), true)
            .into_iter()
            .map(|w| w.into_string().unwrap())
            .collect()
    }

    #[test]
    fn compile_flags_come_first_and_link_flags_only_when_linking() {
        assert_eq!(
            run_words(&["a.c", "-o", "a"]),
            [
                "gcc",
                "-m64",
                "-I/p/include",
                "a.c",
                "-o",
                "a",
                "-L/p/lib",
                "-lclump"
            ]
        );
        assert_eq!(
            run_words(&["-c", "a.c"]),
            ["gcc", "-m64", "-I/p/include", "-c", "a.c"]
        );
        assert_eq!(
            run_words(&["-E", "a.c"]),
            ["gcc", "-m64", "-I/p/include", "-E", "a.c"]
        );
    }

    #[test]
    fn questions_to_the_compiler_get_no_flags() {
        assert_eq!(run_words(&[]), ["gcc", "-m64"]);
        assert_eq!(run_words(&["-v"]), ["gcc", "-m64", "-v"]);
        assert_eq!(
            run_words(&["-print-prog-name=ld"]),
            ["gcc", "-m64", "-print-prog-name=ld"]
        );
        assert_eq!(
            run_words(&["-v", "a.c"]).len(),
            7,
            "-v with a file compiles"
        );
    }

    #[test]
    fn the_wrappers_own_options_are_recognised() {
        let parsed = |w: &[&str]| parse(os(w)).unwrap();
        assert_eq!(
            parsed(&["-show", "a.c"]),
            (Request::Show(Part::Command), os(&["a.c"]))
        );
        assert_eq!(parsed(&["--showme:link"]).0, Request::Show(Part::LinkFlags));
        assert_eq!(
            parsed(&["-showme:compile"]).0,
            Request::Show(Part::CompileFlags)
        );
        assert_eq!(parsed(&["-link_info"]).0, Request::Show(Part::LinkInfo));
        assert_eq!(parsed(&["-showme:help"]).0, Request::Help);
        assert_eq!(parsed(&["--help=warnings"]).0, Request::Run);
        assert!(parse(os(&["-showme:nonsense"]))
            .unwrap_err()
            .contains("compile, link"));
    }

    #[test]
    fn shown_words_read_back_in_a_shell() {
        assert_eq!(
            shell_words(&os(&["gcc", "-DX=a b", "it's", "-I/p/inc"])),
            r"gcc '-DX=a b' 'it'\''s' -I/p/inc"
        );
    }
}
