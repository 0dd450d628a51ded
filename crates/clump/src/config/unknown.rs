//! `CLUMP_*` names that are in no layer's table: most likely misspelt, and otherwise
//! silently ignored. One warning per name, from the launcher for its job or from rank 0
//! of a job a process manager started.

use super::table::{TABLE, TEST_PREFIX};
use std::ffi::OsString;
use std::io::Write;

/// The `CLUMP_*` names among `names` that no table row knows, sorted.
pub fn unknown_names(names: impl IntoIterator<Item = OsString>) -> Vec<String> {
    let mut unknown: Vec<String> = names
        .into_iter()
        .filter_map(|n| n.into_string().ok())
        .filter(|n| n.starts_with("CLUMP_") && !n.starts_with(TEST_PREFIX))
        .filter(|n| TABLE.iter().all(|v| v.name != n))
        .collect();
    unknown.sort();
    unknown.dedup();
    unknown
}

/// The warning for an unknown name, with the nearest known one when it is a likely slip.
pub fn warning(name: &str) -> String {
    let nearest = TABLE
        .iter()
        .map(|v| {
            // Of names as near, one this name begins or ends is the likelier slip.
            let affix = v.name.starts_with(name) || name.starts_with(v.name);
            (distance(name, v.name), !affix, v.name)
        })
        .min()
        .filter(|(d, _, _)| *d <= 3);
    let hint = match nearest {
        Some((_, _, known)) => format!(" (did you mean {known}?)"),
        None => String::new(),
    };
    format!("warning: {name} is not a clump setting and is ignored{hint}; `clump info` lists them")
}

/// Writes one warning line per unknown `CLUMP_*` name of this process's environment,
/// each prefixed with `who`.
pub fn warn_unknown_env(who: &str) {
    let names = std::env::vars_os().map(|(k, _)| k);
    let mut err = std::io::stderr().lock();
    for name in unknown_names(names) {
        // A closed stderr loses the warning, nothing more.
        let _ = writeln!(err, "{who}: {}", warning(&name));
    }
}

/// Levenshtein distance between two names (short ASCII strings).
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unknown_clump_names_are_reported() {
        let names = [
            "CLUMP_NET_TIMEOUT",
            "CLUMP_CREDITS",
            "PATH",
            "CLUMP_TEST_VAR",
            "CLUMP_GAS_SEGMENT",
            // The clump command's own: the compiler wrappers' and the launcher's.
            "CLUMP_CC",
            "CLUMP_RSH",
        ]
        .map(OsString::from);
        assert_eq!(unknown_names(names), ["CLUMP_NET_TIMEOUT"]);
    }

    #[test]
    fn a_slip_is_answered_with_the_nearest_name() {
        let w = warning("CLUMP_NET_TIMEOUT");
        assert!(w.contains("did you mean CLUMP_NET_TIMEOUT_MS?"), "{w}");
        assert!(warning("CLUMP_CREDIT").contains("CLUMP_CREDITS"));
        assert!(!warning("CLUMP_SOMETHING_ELSE_ENTIRELY").contains("did you mean"));
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
