//! mpirun spellings of `clump run`'s options, rewritten before clap sees them:
//! `-np N`, `-npN` and `-nN` become `--np N`, and the single-dash long options users
//! type (`-hostfile`, `-host`, `-map-by`, `-oversubscribe`, ...) their `--` forms. Any
//! other single-dash word longer than a short option with its value becomes `--word`
//! too, so that clap refuses it as unknown, rather than reading `-hostfilx` as `-h`
//! (print the help and exit 0) and a batch script "succeeding" without running.
//! Only the launcher's own options are looked at: everything from the program on is
//! left as it is.

use std::ffi::OsString;

/// Launcher options that take a value (the next argument unless written `--opt=value`).
pub const TAKES_VALUE: &[&str] = &[
    "-n",
    "--np",
    "--hosts",
    "--transport",
    "-x",
    "--env",
    "-f",
    "--hostfile",
    "--machinefile",
    "-H",
    "--host",
    "--map-by",
    "--bind-to",
];

/// Short options whose value may follow without a space (`-x VAR` as `-xVAR`).
const SHORT_WITH_VALUE: &[char] = &['n', 'x', 'f', 'H'];

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
            out.extend(rest.next());
        } else if let Some(n) = text.strip_prefix("-np").filter(|n| digits(n)) {
            out.push(format!("--np={n}").into());
        } else if let Some(n) = text.strip_prefix("-n").filter(|n| digits(n)) {
            out.push(format!("--np={n}").into());
        } else if let Some(word) = single_dash_long(text) {
            let long = format!("--{word}");
            let value_follows = TAKES_VALUE.contains(&long.as_str()) && !word.contains('=');
            out.push(long.into());
            if value_follows {
                out.extend(rest.next());
            }
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

/// `-word` (more than one letter after a single dash) that is not a short option with
/// its value attached: returned without its dash.
fn single_dash_long(text: &str) -> Option<&str> {
    let word = text.strip_prefix('-').filter(|w| !w.starts_with('-'))?;
    let mut chars = word.chars();
    let first = chars.next()?;
    if chars.next().is_none() || SHORT_WITH_VALUE.contains(&first) {
        return None;
    }
    Some(word)
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
    fn single_dash_long_options_become_double_dash() {
        assert_eq!(
            rewrite(args(
                "clump run -hostfile hf -map-by node -bind-to core -oversubscribe -n 4 p"
            )),
            args("clump run --hostfile hf --map-by node --bind-to core --oversubscribe -n 4 p")
        );
        assert_eq!(
            rewrite(args(
                "clump run -host a,b:2 -machinefile=m -tag-output -np 2 p -host"
            )),
            args("clump run --host a,b:2 --machinefile=m --tag-output --np 2 p -host")
        );
        // After `-np N` the launcher's options go on.
        assert_eq!(
            rewrite(args("clump run -np 6 -map-by node p")),
            args("clump run --np 6 --map-by node p")
        );
        // Short options with their value attached stay as clap reads them.
        assert_eq!(
            rewrite(args("clump run -xLD_PATH -fhf -Ha,b -n 2 p")),
            args("clump run -xLD_PATH -fhf -Ha,b -n 2 p")
        );
        // Unknown ones become long, for clap to refuse rather than read `-h` in them.
        assert_eq!(
            rewrite(args("clump run -hostfilx hf -n 2 p")),
            args("clump run --hostfilx hf -n 2 p")
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
