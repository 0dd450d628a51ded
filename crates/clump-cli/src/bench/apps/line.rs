//! The `key=value` fields of the lines the applications print (`RESULT`, `RANK`).

/// The text of `key=...` on a `RESULT` or `RANK` line.
pub fn field<'a>(line: &'a str, key: &str) -> Result<&'a str, String> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .ok_or_else(|| format!("no {key} in {line:?}"))
}

/// The number `key=...` on a `RESULT` or `RANK` line.
pub fn value<T: std::str::FromStr>(line: &str, key: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    field(line, key)?
        .parse()
        .map_err(|e| format!("{key} in {line:?}: {e}"))
}
