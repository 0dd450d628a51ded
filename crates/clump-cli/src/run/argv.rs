//! mpirun spellings of `clump run`'s options, rewritten before clap sees them:
//! `-np N`, `-npN` and `-nN` become `--np N`. Only the launcher's own options are
//! looked at: everything from the program on is left as it is.

use std::ffi::OsString;

/// Launcher options that take a value (the next argument unless written `--opt=value`).
pub const TAKES_VALUE: &[&str] = &["-n", "--np", "--hosts", "--transport", "-x", "--env"];

/// Rewrites `argv` (the whole command line) when its subcommand is `run`.
pub fn rewrite(argv: Vec<OsString>) -> Vec<OsString> {
    if argv.get(1).is_none_or(|a| a != "run") {
        return argv;
    }
    let mut out: Vec<OsString> = argv[..2].to_vec();
    let mut rest = argv.into_iter().skip(2);
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str() else {
            out.push(arg);
            break;
        };
        if text == "--" || !text.starts_with('-') {
            out.push(arg);
            break;
        }
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if text == "-np" {
            out.push("--np".into());
        } else if let Some(n) = text.strip_prefix("-np").filter(|n| digits(n)) {
            out.push(format!("--np={n}").into());
        } else if let Some(n) = text.strip_prefix("-n").filter(|n| digits(n)) {
            out.push(format!("--np={n}").into());
        } else {
            let value_follows = TAKES_VALUE.contains(&text);
            out.push(arg);
            if value_follows {
                out.extend(rest.next());
            }
        }
    }
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use std::ffi::OsString;

    fn args(s: &str) -> Vec<OsString> {
        s.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn mpirun_spellings_become_np() {
        assert_eq!(
            rewrite(args("clump run -np 2 p")),
            args("clump run --np 2 p")
        );
        assert_eq!(
            rewrite(args("clump run -np2 p")),
            args("clump run --np=2 p")
        );
        assert_eq!(rewrite(args("clump run -n2 p")), args("clump run --np=2 p"));
        assert_eq!(
            rewrite(args("clump run --tag-output -x A -np 4 p")),
            args("clump run --tag-output -x A --np 4 p")
        );
    }

    #[test]
    fn the_program_and_its_arguments_are_left_alone() {
        let same = args("clump run -n 2 p -np 3 -n2");
        assert_eq!(rewrite(same.clone()), same);
        let same = args("clump run -n 2 -- -np2");
        assert_eq!(rewrite(same.clone()), same);
        let same = args("clump bench -np 2");
        assert_eq!(rewrite(same.clone()), same);
    }
}
