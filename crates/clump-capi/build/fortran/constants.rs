//! The constants of mpif.h and the modules, read from include/mpi.h (one source for the
//! values the standard ABI fixes): every integer `#define` and enumerator, and each
//! predefined handle, whose Fortran value is its C value (`MPI_<Kind>_toint`).

/// One named constant: its value, and the handle kind for a handle (`Comm`, ...).
pub struct Constant {
    pub name: String,
    pub value: i64,
    pub handle: Option<String>,
}

pub fn read(header: &str) -> Vec<Constant> {
    let mut out: Vec<Constant> = Vec::new();
    for line in header.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#define ") {
            let mut words = rest.split_whitespace();
            let (Some(name), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            if let Some(c) = define(name, value, &out) {
                out.push(c);
            }
        } else if let Some((name, value)) = line.trim_end_matches(',').split_once(" = ") {
            if let Ok(v) = value.trim().parse::<i64>() {
                out.push(Constant {
                    name: name.trim().into(),
                    value: v,
                    handle: None,
                });
            }
        }
    }
    // Only what Fortran has: C's status indices, the tool interface and MPIX are not.
    out.retain(|c| {
        let n = c.name.as_str();
        n.starts_with("MPI_") && !n.starts_with("MPI_T_") && !n.starts_with("MPI_F_")
    });
    out
}

/// `#define NAME 12`, `#define NAME ((MPI_Comm)0x00000101)` or `#define NAME OTHER`.
fn define(name: &str, value: &str, known: &[Constant]) -> Option<Constant> {
    if let Ok(v) = value.parse::<i64>() {
        return Some(Constant {
            name: name.into(),
            value: v,
            handle: None,
        });
    }
    if let Some(rest) = value.strip_prefix("((MPI_") {
        let (kind, hex) = rest.split_once(")0x")?;
        let hex = hex.trim_end_matches(')');
        let kind = if kind == "Datatype" { "Datatype" } else { kind };
        if !super::table::HANDLES.contains(&kind) {
            return None;
        }
        return Some(Constant {
            name: name.into(),
            value: i64::from_str_radix(hex, 16).ok()?,
            handle: Some(kind.into()),
        });
    }
    let alias = known.iter().find(|c| c.name == value)?;
    Some(Constant {
        name: name.into(),
        value: alias.value,
        handle: alias.handle.clone(),
    })
}
