//! The table of Fortran procedures (`fortran/interface.txt`): what each argument is.

/// What one argument is, as the table names it.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Choice,
    Discard,
    Null,
    Zero,
    Fn,
    /// A procedure of the large-count interface (`MPI_User_function_c`: its length an
    /// INTEGER(KIND=MPI_COUNT_KIND)).
    FnC,
    /// A procedure's address, as an integer for the Rust function that takes it.
    Proc,
    Int,
    IntOut,
    IntArr,
    Logical,
    LogicalOut,
    /// An array of LOGICALs (C ints 0 or 1, gfortran's representation too).
    LogicalArr,
    /// INTEGER(KIND=MPI_COUNT_KIND) read / written.
    Count,
    CountOut,
    /// An array of INTEGER(KIND=MPI_COUNT_KIND) (the counts of a large-count form).
    CountArr,
    /// An array of graph edge weights, or MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY.
    Weights,
    /// An error handler procedure (called as C calls it: object and code by reference).
    ErrFn,
    Aint,
    AintOut,
    /// A C address written (`baseptr`): an INTEGER(KIND=MPI_ADDRESS_KIND), and in the `mpi`
    /// module also TYPE(C_PTR) through the `_CPTR` specific.
    CptrOut,
    AintArr,
    /// A handle of this kind (`Comm`, `Datatype`, ...).
    Handle(String),
    HandleOut(String),
    /// An array of handles, its length the named argument, or `comm.peers` (a block per
    /// rank, or remote rank), `comm.sources` / `comm.destinations` (per neighbour).
    HandleArr(String, String),
    HandleArrOut(String, String),
    Status,
    Statuses,
    Str,
    /// CHARACTER read with leading and trailing blanks cut: an info key or value, which
    /// the standard strips in Fortran.
    Key,
    StrOut,
    Index,
    Indices(String),
    /// An attribute value read (`attrs::Value`) or where a get writes one (`attrs::Out`):
    /// INTEGER(KIND=MPI_ADDRESS_KIND), or the default INTEGER of MPI-1's calls. Only a
    /// Rust target (`=> f`) takes them: C's functions take addresses.
    Attr,
    AttrOut,
    AttrInt,
    AttrIntOut,
}

pub struct Arg {
    pub kind: Kind,
    pub name: String,
}

/// What the Fortran procedure gives back.
#[derive(Clone, Copy, PartialEq)]
pub enum Returns {
    /// A subroutine whose last argument is `ierror` (nearly all).
    Ierror,
    /// A subroutine without `ierror` (`MPI_Pcontrol`).
    Nothing,
    /// A DOUBLE PRECISION function (`MPI_Wtime`).
    Double,
    /// An INTEGER(KIND=MPI_ADDRESS_KIND) function (`MPI_Aint_add`).
    Aint,
}

pub struct Procedure {
    /// The C name without `MPI_`: `Send`, `Comm_rank`.
    pub name: String,
    pub args: Vec<Arg>,
    pub returns: Returns,
    /// The Rust function the entry point calls (a name src/mpi/fortran sees) instead of
    /// the C function `PMPI_<name>`, for the few whose Fortran meaning C cannot carry.
    pub target: Option<String>,
}

pub const HANDLES: &[&str] = &[
    "Comm",
    "Datatype",
    "Group",
    "Op",
    "Request",
    "Info",
    "Errhandler",
    "Message",
    "Win",
    "Session",
];

impl Procedure {
    /// Whether it is a large-count form (`Send_c`), which only mpi_f08 binds.
    pub fn is_large_count(&self) -> bool {
        self.name.ends_with("_c")
    }

    /// For a large-count form that is a second specific of its base's generic (`Send_c`
    /// of `MPI_Send`), the base. One whose only difference is the interface of a
    /// procedure argument (`Op_create_c`) cannot be told apart from its base by a
    /// generic, so it is a generic of its own, `MPI_Op_create_c`, as MPICH binds it.
    pub fn large_count_of(&self) -> Option<&str> {
        let own = self.args.iter().any(|a| a.kind == Kind::FnC);
        self.name.strip_suffix("_c").filter(|_| !own)
    }

    /// The CHARACTER arguments, whose lengths Fortran passes after all the others.
    pub fn strings(&self) -> impl Iterator<Item = &Arg> {
        self.args
            .iter()
            .filter(|a| matches!(a.kind, Kind::Str | Kind::Key | Kind::StrOut))
    }

    /// Whether the `mpi` module overloads it with a TYPE(C_PTR) specific `MPI_X_CPTR`.
    pub fn has_cptr(&self) -> bool {
        self.args.iter().any(|a| a.kind == Kind::CptrOut)
    }

    /// The arguments Fortran passes (all but `null` and `zero`).
    pub fn fortran_args(&self) -> impl Iterator<Item = &Arg> {
        self.args
            .iter()
            .filter(|a| !matches!(a.kind, Kind::Null | Kind::Zero))
    }
}

pub fn parse(text: &str) -> Result<Vec<Procedure>, String> {
    let procs: Vec<Procedure> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| line(l).map_err(|e| format!("fortran/interface.txt: {l}: {e}")))
        .collect::<Result<_, _>>()?;
    // A large-count form is a specific of its base's generic: the base must be there.
    for p in &procs {
        if let Some(base) = p.large_count_of() {
            if !procs.iter().any(|q| q.name == base) {
                return Err(format!("fortran/interface.txt: {} has no {base}", p.name));
            }
        }
    }
    Ok(procs)
}

fn line(l: &str) -> Result<Procedure, String> {
    let (head, tail) = l.split_once('(').ok_or("no (")?;
    let (inner, rest) = tail.rsplit_once(')').ok_or("no )")?;
    // `-> double|aint|nothing`, then `=> f`, each optional.
    let (result, target) = match rest.split_once("=>") {
        Some((r, f)) => (r.trim(), Some(f.trim().to_string())),
        None => (rest.trim(), None),
    };
    let returns = match result {
        "" => Returns::Ierror,
        "-> double" => Returns::Double,
        "-> aint" => Returns::Aint,
        "-> nothing" => Returns::Nothing,
        other => return Err(format!("unknown suffix {other}")),
    };
    let mut args = Vec::new();
    for a in inner.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (kind, name) = a
            .rsplit_once(' ')
            .ok_or("an argument needs a kind and a name")?;
        args.push(Arg {
            kind: kind_of(kind.trim())?,
            name: name.to_string(),
        });
    }
    let p = Procedure {
        name: head.trim().to_string(),
        args,
        returns,
        target,
    };
    for a in &p.args {
        let attr = matches!(
            a.kind,
            Kind::Attr | Kind::AttrOut | Kind::AttrInt | Kind::AttrIntOut
        );
        if attr && p.target.is_none() {
            return Err(format!(
                "{} is an attribute: it needs a `=> f` target",
                a.name
            ));
        }
        if let Kind::HandleArr(_, n) | Kind::HandleArrOut(_, n) | Kind::Indices(n) = &a.kind {
            let n = match n.split_once('.') {
                Some((comm, "peers" | "sources" | "destinations")) => comm,
                Some(_) => return Err(format!("{} has an unknown length {n}", a.name)),
                None => n.as_str(),
            };
            if !p.args.iter().any(|b| b.name == n) {
                return Err(format!("{} names no argument {n}", a.name));
            }
        }
    }
    Ok(p)
}

fn kind_of(k: &str) -> Result<Kind, String> {
    use Kind::*;
    // `BASE[n]` and `BASE*[n]`: the bracket names another argument.
    let (base, dep) = match k.split_once('[') {
        Some((b, d)) => (b, Some(d.trim_end_matches(']').to_string())),
        None => (k, None),
    };
    let dep_or = |what: &str| {
        dep.clone()
            .filter(|d| !d.is_empty())
            .ok_or(format!("{what} needs [n]"))
    };
    Ok(match (base, dep.as_deref()) {
        ("choice", None) => Choice,
        ("discard", None) => Discard,
        ("null", None) => Null,
        ("zero", None) => Zero,
        ("fn", None) => Fn,
        ("fn_c", None) => FnC,
        ("proc", None) => Proc,
        ("int", None) => Int,
        ("int*", None) => IntOut,
        ("int", Some("")) => IntArr,
        ("logical", None) => Logical,
        ("logical*", None) => LogicalOut,
        ("logical", Some("")) => LogicalArr,
        ("count", None) => Count,
        ("count*", None) => CountOut,
        ("count", Some("")) => CountArr,
        ("weights", None) => Weights,
        ("errfn", None) => ErrFn,
        ("aint", None) => Aint,
        ("aint*", None) => AintOut,
        ("cptr*", None) => CptrOut,
        ("aint", Some("")) => AintArr,
        ("status*", None) => Status,
        ("statuses", None) => Statuses,
        ("string", None) => Str,
        ("key", None) => Key,
        ("string_out", None) => StrOut,
        ("index*", None) => Index,
        ("indices", _) => Indices(dep_or("indices")?),
        ("attr", None) => Attr,
        ("attr*", None) => AttrOut,
        ("attr_int", None) => AttrInt,
        ("attr_int*", None) => AttrIntOut,
        (h, None) if HANDLES.contains(&h) => Handle(h.into()),
        (h, None) if HANDLES.contains(&h.trim_end_matches('*')) => {
            HandleOut(h.trim_end_matches('*').into())
        }
        (h, Some(_)) if HANDLES.contains(&h) => HandleArr(h.into(), dep_or(h)?),
        (h, Some(_)) if HANDLES.contains(&h.trim_end_matches('*')) => {
            HandleArrOut(h.trim_end_matches('*').into(), dep_or(h)?)
        }
        _ => return Err(format!("unknown kind {k}")),
    })
}
