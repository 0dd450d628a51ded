//! The hosts a job may use: a hostfile (Open MPI's `host slots=N [max_slots=M]` and
//! MPICH's `host:N` lines) or `--host a,b:2`. A host named twice adds its slots up.

/// One host and how many ranks it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    /// Ranks placed here before any host is oversubscribed.
    pub slots: u32,
    /// The most ranks it takes even with `--oversubscribe` (Open MPI's `max_slots`).
    pub max_slots: Option<u32>,
}

/// Parses a hostfile's text; `origin` names it in errors ("FILE line 3: ...").
pub fn parse_file(text: &str, origin: &str) -> Result<Vec<Host>, String> {
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let host = parse_line(line).map_err(|e| format!("{origin} line {}: {e}", i + 1))?;
        add(&mut hosts, host);
    }
    if hosts.is_empty() {
        return Err(format!("{origin} names no host"));
    }
    Ok(hosts)
}

/// Parses `--host` values: comma-separated `name` or `name:N` (one slot without `:N`).
pub fn parse_list(values: &[String]) -> Result<Vec<Host>, String> {
    let mut hosts = Vec::new();
    for item in values.iter().flat_map(|v| v.split(',')) {
        let host = name_and_count(item.trim()).map_err(|e| format!("--host {item:?}: {e}"))?;
        add(&mut hosts, host);
    }
    if hosts.is_empty() {
        return Err("--host names no host".into());
    }
    Ok(hosts)
}

fn add(hosts: &mut Vec<Host>, host: Host) {
    match hosts.iter_mut().find(|h| h.name == host.name) {
        Some(h) => {
            h.slots += host.slots;
            h.max_slots = match (h.max_slots, host.max_slots) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        None => hosts.push(host),
    }
}

/// `name`, `name:N` (MPICH) or `name slots=N max_slots=M` (Open MPI, either key optional).
fn parse_line(line: &str) -> Result<Host, String> {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or_default();
    let mut host = name_and_count(first)?;
    let mut slots_given = first.contains(':');
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("{word:?} is not key=value (slots=N or max_slots=N)"))?;
        let n = count(value).map_err(|e| format!("{key}={value}: {e}"))?;
        match key {
            "slots" if !slots_given => {
                host.slots = n;
                slots_given = true;
            }
            "slots" => return Err("the slots are given twice".into()),
            "max_slots" | "max-slots" => host.max_slots = Some(n),
            _ => return Err(format!("unknown key {key:?} (slots or max_slots)")),
        }
    }
    if host.max_slots.is_some_and(|m| m < host.slots) {
        return Err(format!(
            "max_slots={} is below slots={}",
            host.max_slots.unwrap_or_default(),
            host.slots
        ));
    }
    Ok(host)
}

fn name_and_count(item: &str) -> Result<Host, String> {
    let (name, slots) = match item.split_once(':') {
        Some((name, n)) => (name, count(n)?),
        None => (item, 1),
    };
    let valid = |b: u8| b.is_ascii_alphanumeric() || b"-._".contains(&b);
    if name.is_empty() || !name.bytes().all(valid) {
        return Err(format!("{name:?} is not a host name or IPv4 address"));
    }
    Ok(Host {
        name: name.to_owned(),
        slots,
        max_slots: None,
    })
}

fn count(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a number of slots (1 or more)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, slots: u32, max_slots: Option<u32>) -> Host {
        Host {
            name: name.into(),
            slots,
            max_slots,
        }
    }

    #[test]
    fn open_mpi_and_mpich_lines_and_comments() {
        let text = "# cluster\n\
                    node0 slots=4 max_slots=6\n\
                    \n\
                    node1:2   # MPICH's form\n\
                    10.77.0.3\n\
                    node0 slots=2\n";
        assert_eq!(
            parse_file(text, "hf").unwrap(),
            vec![
                host("node0", 6, Some(6)),
                host("node1", 2, None),
                host("10.77.0.3", 1, None)
            ]
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let bad = |text: &str| parse_file(text, "hf").unwrap_err();
        assert_eq!(
            bad("a\nb slots=0\n"),
            "hf line 2: slots=0: \"0\" is not a number of slots (1 or more)"
        );
        assert!(bad("a cores=2").contains("unknown key \"cores\""));
        assert!(bad("a:2 slots=3").contains("slots are given twice"));
        assert!(bad("a slots").contains("is not key=value"));
        assert!(bad("a slots=4 max_slots=2").contains("below"));
        assert!(bad("a;b").contains("not a host name"));
        assert!(bad("a:x").contains("not a number"));
        assert_eq!(bad("# only a comment\n\n"), "hf names no host");
    }

    #[test]
    fn host_lists_split_on_commas_and_add_up() {
        let list = vec!["a,b:2".to_owned(), "a".to_owned()];
        assert_eq!(
            parse_list(&list).unwrap(),
            vec![host("a", 2, None), host("b", 2, None)]
        );
        assert!(parse_list(&["a,,b".to_owned()]).is_err());
        assert!(parse_list(&["a:0".to_owned()]).is_err());
    }
}
