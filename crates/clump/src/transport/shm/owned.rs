//! Whether a range of addresses is memory the program owns, readable and writable, as
//! `/proc/self/maps` lists it. A segment the program names (`AM_SetSeg`) is checked this
//! way first, so that bad memory gets an error instead of a crash or changed protections.

use std::io;

/// One line of `/proc/self/maps`: start, end, and whether it is readable and writable.
struct Mapping {
    start: u64,
    end: u64,
    read_write: bool,
}

fn parse(line: &str) -> Option<Mapping> {
    let mut fields = line.split_ascii_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let perms = fields.next()?.as_bytes();
    Some(Mapping {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        read_write: perms.first() == Some(&b'r') && perms.get(1) == Some(&b'w'),
    })
}

/// Why `addr..addr+len` is not readable and writable memory of this process, if it is
/// not; `None` if it is. `maps` is the text of `/proc/self/maps` (ascending order).
fn problem(maps: &str, addr: u64, len: u64) -> Option<String> {
    let Some(end) = addr.checked_add(len) else {
        return Some("the range wraps around the address space".into());
    };
    let mut covered = addr;
    for m in maps.lines().filter_map(parse) {
        if m.end <= covered {
            continue;
        }
        if m.start > covered {
            break;
        }
        if !m.read_write {
            return Some(format!(
                "{covered:#x} lies in a mapping that is not readable and writable"
            ));
        }
        covered = m.end;
        if covered >= end {
            return None;
        }
    }
    Some(format!("{covered:#x} is not mapped in this process"))
}

/// Checks that `addr..addr+len` (len > 0) lies in this process's readable and writable
/// mappings; the error says where it does not.
pub fn check(addr: *const u8, len: usize) -> io::Result<()> {
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    match problem(&maps, addr as u64, len as u64) {
        None => Ok(()),
        Some(why) => Err(io::Error::new(io::ErrorKind::InvalidInput, why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
00400000-00401000 r-xp 00000000 08:01 1 /bin/prog
00600000-00602000 rw-p 00000000 00:00 0 [heap]
00602000-00603000 rw-p 00000000 00:00 0
00700000-00701000 ---p 00000000 00:00 0
00701000-00702000 r--p 00000000 00:00 0
";

    #[test]
    fn accepts_ranges_inside_adjacent_writable_mappings() {
        assert_eq!(problem(MAPS, 0x600010, 3), None);
        assert_eq!(problem(MAPS, 0x601ff0, 0x20), None, "spans two mappings");
    }

    #[test]
    fn refuses_code_protected_unmapped_and_overrunning_ranges() {
        assert!(problem(MAPS, 0x400000, 16).is_some(), "code");
        assert!(problem(MAPS, 0x700000, 16).is_some(), "PROT_NONE");
        assert!(problem(MAPS, 0x701000, 16).is_some(), "read-only");
        assert!(problem(MAPS, 0x1000, 16).is_some(), "unmapped");
        assert!(problem(MAPS, 0x602ff0, 0x20).is_some(), "runs past the end");
        assert!(problem(MAPS, u64::MAX - 4, 16).is_some(), "wraps");
    }

    #[test]
    fn checks_this_process() {
        let mut heap = vec![0u8; 100];
        assert!(check(heap.as_mut_ptr(), 100).is_ok());
        assert!(check(4096 as *const u8, 8).is_err());
        assert!(check(checks_this_process as *const u8, 8).is_err());
    }
}
