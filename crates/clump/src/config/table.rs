//! The one table of every environment variable clump and its layers read: name, layer,
//! kind (which bounds the value), default and meaning. `clump info` prints it, README's
//! Configuration section is this table (a test compares them), and every reader goes
//! through [`number`] or [`choice`] (the upper layers' through `config::layers`) so that
//! no variable is read outside it.

use super::{text, ConfigError};
use std::ffi::{OsStr, OsString};

/// Which crate reads a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Core,
    Gas,
    Mpi,
    Shmem,
    /// Read by the `clump` command: the launcher and the compiler wrappers.
    Command,
    /// Read by the test suite only (`scripts/test`).
    Tests,
    /// Set by the build for the programs cargo starts.
    Build,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Core => "core",
            Layer::Gas => "gas",
            Layer::Mpi => "mpi",
            Layer::Shmem => "shmem",
            Layer::Command => "command",
            Layer::Tests => "tests",
            Layer::Build => "build",
        }
    }
}

/// What a variable holds; every kind checks its value the same way wherever it is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `0` or `1`.
    Flag,
    /// A whole number in `min..=max`.
    Int {
        min: u64,
        max: u64,
    },
    /// A byte count in `min..=max`, with an optional K, M, G or T suffix.
    Bytes {
        min: u64,
        max: u64,
    },
    /// A percentage, decimals allowed.
    Percent,
    /// One of these words.
    Choice(&'static [&'static str]),
    Ipv4,
    /// Free text (a path, an interface name).
    Text,
    /// Up to this many hex digits, a secret: a bad value's error does not repeat it.
    SecretHex(usize),
}

/// The value a variable has when unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unset {
    /// A value of the variable's kind, read as if it had been set.
    Value(&'static str),
    /// Chosen by the reader; the text says how.
    Chosen(&'static str),
}

impl Unset {
    pub fn text(self) -> &'static str {
        match self {
            Unset::Value(t) | Unset::Chosen(t) => t,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Var {
    pub name: &'static str,
    pub layer: Layer,
    pub kind: Kind,
    pub default: Unset,
    pub meaning: &'static str,
}

/// Names under this prefix belong to the test suite's own programs and are never warned about.
pub const TEST_PREFIX: &str = "CLUMP_TEST_";

const FLAG: Kind = Kind::Flag;
const fn int(min: u64, max: u64) -> Kind {
    Kind::Int { min, max }
}
const fn bytes(min: u64, max: u64) -> Kind {
    Kind::Bytes { min, max }
}
const fn v(
    name: &'static str,
    layer: Layer,
    kind: Kind,
    default: Unset,
    meaning: &'static str,
) -> Var {
    Var {
        name,
        layer,
        kind,
        default,
        meaning,
    }
}
use Layer::{Build, Command, Core, Gas, Mpi, Shmem, Tests};
use Unset::{Chosen, Value};

const MEDIUM: u64 = crate::MAX_MEDIUM as u64;
const MAX_JOB: u64 = super::MAX_JOB_SIZE as u64;

#[rustfmt::skip]
pub static TABLE: &[Var] = &[
    v("CLUMP_RANK", Core, int(0, MAX_JOB - 1), Value("0"),
      "this process's rank in the job, below `CLUMP_SIZE` (set by `clump run`)"),
    v("CLUMP_SIZE", Core, int(1, MAX_JOB), Value("1"),
      "processes in the job (set by `clump run`)"),
    v("CLUMP_BOOT", Core, Kind::Choice(&["auto", "clump", "pmi2", "pmix"]),
      Chosen("from the environment: `CLUMP_BOOT_SOCKET`, then `PMIX_NAMESPACE`, then `PMI_FD`, else a job of one"),
      "how a process joins its job: the `clump run` launcher, Slurm's `srun --mpi=pmi2`, or PMIx (`srun --mpi=pmix`, Open MPI's `mpirun`)"),
    v("CLUMP_BOOT_SOCKET", Core, Kind::Text, Chosen("unset"),
      "path of the launcher's bootstrap socket (set by `clump run`)"),
    v("CLUMP_BOOT_TIMEOUT", Core, int(1, 86_400), Value("60"),
      "seconds start-up waits while the launcher or process manager says nothing"),
    v("CLUMP_JOB_ID", Core, Kind::SecretHex(16), Chosen("random (getrandom); under a process manager rank 0 draws it"),
      "the job's secret: the wire job field and default endpoint tag (set by `clump run`)"),
    v("CLUMP_JOB_KEY", Core, Kind::SecretHex(32), Chosen("random (getrandom); under a process manager rank 0 draws it"),
      "the key of the datagram MAC (`CLUMP_NET_AUTH`), never on the wire (set by `clump run`)"),
    v("CLUMP_CREDITS", Core, int(1, super::MAX_CREDITS as u64), Value("64"),
      "requests one endpoint may have in flight to one destination over shared memory"),
    v("CLUMP_NET_CREDITS", Core, int(1, super::MAX_CREDITS as u64), Value("64"),
      "requests one endpoint may have in flight to one destination over the network"),
    v("CLUMP_SPIN_US", Core, int(0, 1_000_000), Value("50"),
      "how long `wait` polls before it sleeps, in microseconds"),
    v("CLUMP_HOST", Core, int(0, MAX_JOB - 1), Value("0"),
      "the virtual host (set by `clump run --hosts`/`--transport udp`): processes of one host use shared memory, of different hosts UDP"),
    v("CLUMP_NET", Core, FLAG, Value("1"),
      "whether endpoints get a UDP socket and poll the network (`clump run` turns it off when the whole job is on one host)"),
    v("CLUMP_NET_IP", Core, Kind::Ipv4, Chosen("127.0.0.1; across nodes of a process manager, that of the route to the other nodes"),
      "the IPv4 address endpoints' sockets bind to"),
    v("CLUMP_NET_IFACE", Core, Kind::Text, Chosen("unset"),
      "bind to this interface's IPv4 address instead"),
    v("CLUMP_NET_DATAGRAM", Core, int(256, 65_507), Chosen("what the path to each peer carries (65507 on loopback, 1472 on Ethernet)"),
      "largest UDP datagram sent, in bytes (larger messages go in fragments)"),
    v("CLUMP_NET_OFFLOAD", Core, FLAG, Value("1"),
      "send runs of datagrams to one peer as `UDP_SEGMENT` super-datagrams, receive with `UDP_GRO`, where the kernel has them"),
    v("CLUMP_NET_TIMEOUT_MS", Core, int(10, 3_600_000), Value("10000"),
      "silent this long while it owes an ack or an answer, a peer is judged: waited for if its process lives and does not poll, unreachable if it polls (a cut link) or no launcher can tell, gone if it exited; also the longest a free waits for acks of what its endpoint sent"),
    v("CLUMP_NET_HEARTBEAT", Core, FLAG, Value("1"),
      "beat to the `clump run` launcher every `CLUMP_NET_TIMEOUT_MS`/8 (10 ms..=1 s) while polling the network: the evidence that tells a cut link from a stopped peer"),
    v("CLUMP_NET_DOORBELL", Core, FLAG, Value("1"),
      "give sockets a doorbell (an eBPF counter of queued datagrams) where BPF is allowed, so that polls skip the socket while nothing came"),
    v("CLUMP_NET_CONNECT", Core, FLAG, Value("1"),
      "where sockets have a doorbell, send to each peer (up to 16 per endpoint) from a socket of the same port connected to it, which spares the kernel a route lookup per datagram and takes that peer's datagrams"),
    v("CLUMP_NET_POLL_IDLE", Core, int(1, 1024), Value("32"),
      "an idle network is polled once every this many polls"),
    v("CLUMP_NET_POLL_BUSY", Core, int(1, 1024), Value("8"),
      "a busy network is polled once every this many polls; at most `CLUMP_NET_POLL_IDLE`"),
    v("CLUMP_NET_AUTH", Core, FLAG, Value("1"),
      "every datagram carries a 32-byte AEGIS MAC under the job's key; datagrams without a right tag are dropped (every rank must agree; 0 for a trusted network)"),
    v("CLUMP_NET_REORDER_BYTES", Core, bytes(0, 1 << 30), Value("4M"),
      "bytes of datagrams that arrived ahead of a missing one kept per peer (a full window both ways); beyond it they are dropped and the peer sends them again"),
    v("CLUMP_NET_REORDER_TOTAL", Core, bytes(0, 16 << 30), Value("32M"),
      "the same over all peers of an endpoint"),
    v("CLUMP_NET_LOSS", Core, Kind::Percent, Value("0"),
      "fault injection: percent of sent datagrams dropped"),
    v("CLUMP_NET_DUP", Core, Kind::Percent, Value("0"),
      "fault injection: percent of sent datagrams sent twice"),
    v("CLUMP_NET_REORDER", Core, Kind::Percent, Value("0"),
      "fault injection: percent of sent datagrams held back and sent after later ones"),
    v("CLUMP_NET_CORRUPT", Core, Kind::Percent, Value("0"),
      "fault injection: percent of sent datagrams with one byte flipped"),
    v("CLUMP_NET_REPLAY", Core, int(0, 1_000_000), Value("0"),
      "fault injection: an endpoint's first this many datagrams are sent again a batch later, verbatim, from its socket and from another port"),
    v("CLUMP_NET_SEED", Core, int(0, u64::MAX), Chosen("the process id"),
      "seed of the fault injector"),
    v("CLUMP_GAS_LOCAL", Gas, Kind::Choice(&["direct", "am"]), Value("direct"),
      "how the global address space reaches ranks of this host: straight through their mapped segment (one copy), or as Active Messages (Split-C's way)"),
    v("CLUMP_GAS_SEGMENT", Gas, bytes(4 << 10, 1 << 30), Value("64M"),
      "bytes of the global segment per rank, the same on every rank"),
    v("SHMEM_SYMMETRIC_SIZE", Shmem, bytes(4 << 10, 1 << 30), Chosen("`CLUMP_GAS_SEGMENT` if set, else 512M"),
      "bytes of OpenSHMEM's symmetric heap per PE"),
    v("CLUMP_SHMEM_BIND", Shmem, Kind::Choice(&["core", "none"]), Value("none"),
      "core: `shmem_init` binds each PE to a core of its own when its machine has one for each of the job's processes there (not under SHMEM_THREAD_SERIALIZED or MULTIPLE, whose threads would share it); none: leave placement to the system"),
    v("CLUMP_MPI_EAGER_SHM", Mpi, bytes(0, MEDIUM), Value("16K"),
      "largest MPI message sent eagerly to a rank of this host (larger ones go by rendezvous)"),
    v("CLUMP_MPI_EAGER_NET", Mpi, bytes(0, MEDIUM), Value("64K"),
      "largest MPI message sent eagerly to a rank of another host (Open MPI's TCP eager limit; a rendezvous costs a network round trip more)"),
    v("CLUMP_MPI_UNEXPECTED_BYTES", Mpi, bytes(0, 1 << 40), Value("256M"),
      "bounds the bytes of unexpected eager messages a rank holds; past it a message is still kept and the overflow reported"),
    v("CLUMP_MPI_SHM_COLL", Mpi, bytes(0, MEDIUM), Value("64K"),
      "size of the shared-memory slots: largest contribution of a rank to a collective on one host that goes through them in one step (0: no slots, collectives by messages)"),
    v("CLUMP_MPI_SPIN_US", Mpi, int(0, 1_000_000), Chosen("2000 while the processes of this host have a core each, else 0"),
      "how long a blocking MPI call polls before it sleeps, in microseconds"),
    v("CLUMP_MPI_BIND", Mpi, Kind::Choice(&["core", "none"]), Value("core"),
      "core: bind each process to a core of its own when its machine has one for each of the job's processes there; none: leave placement to the system"),
    v("CLUMP_MPI_SINGLE_COPY", Mpi, FLAG, Value("1"),
      "1: rendezvous on one host copies by cross-memory attach (from 64 KiB with a core each, sender and receiver each copying half); 0: medium chunks"),
    v("CLUMP_RSH", Command, Kind::Text, Chosen("ssh"),
      "the remote shell `clump run --hostfile`/`--host` starts ranks on other hosts with (split at spaces)"),
    v("CLUMP_CC", Command, Kind::Text, Chosen("cc"),
      "the C compiler of `mpicc` and `oshcc` (may have words: `gcc -m64`); after it `MPICH_CC`, `OMPI_CC`, `MPICC_CC`, `OSHCC_CC`"),
    v("CLUMP_CXX", Command, Kind::Text, Chosen("c++"),
      "the C++ compiler of `mpicxx`/`mpic++` and `oshc++`; after it `MPICH_CXX`, `OMPI_CXX`"),
    v("CLUMP_FC", Command, Kind::Text, Chosen("gfortran"),
      "the Fortran compiler of `mpifort`/`mpif90`/`mpif77` (it compiles the `mpi` and `mpi_f08` modules once, into the user's cache); after it `MPICH_FC`, `OMPI_FC`"),
    v("CLUMP_WRAPPER_RUNNING", Command, Kind::Text, Chosen("unset"),
      "set by a compiler wrapper for the compiler it runs, so that a wrapper started by it refuses to run again"),
    v("CLUMP_SOAK", Tests, FLAG, Value("0"),
      "`scripts/test` adds the long runs: the seeded simulation ten times longer, heavy-loss benchmarks, 10 runs of each multithreaded test (AM_PAR, MPI, OpenSHMEM, clump-gas), which `.ci/run` runs alone"),
    v("CLUMP_SIM_SEED", Tests, Kind::Text, Chosen("each scenario's own"),
      "reruns the seeded simulation of the network protocol with this seed (decimal or 0x hex), as a failure prints it"),
    v("CLUMP_SCALE_TESTS", Tests, Kind::Text, Chosen("unset"),
      "set: the tests with 1024 processes run (minutes on 2 cores)"),
    v("CLUMP_GIT_COMMIT", Build, Kind::Text, Chosen("the checkout's commit"),
      "set by clump-cli's build script (`clump info` and the benchmarks' JSON name it); cargo passes it to what `cargo run` and `cargo test` start"),
];

/// The variable of this name; a name missing from the table is a bug of its reader.
pub fn var(name: &str) -> &'static Var {
    TABLE
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("{name} is missing from the configuration table"))
}

impl Var {
    /// The range column: what values the kind accepts.
    pub fn range(&self) -> String {
        match self.kind {
            Kind::Flag => "0, 1".into(),
            Kind::Int { max: u64::MAX, .. } => "any 64-bit number".into(),
            Kind::Int { min, max } => format!("{min}..={max}"),
            Kind::Bytes { min, max } => format!("{}..={}", show_bytes(min), show_bytes(max)),
            Kind::Percent => "0..=100".into(),
            Kind::Choice(words) => words.join(", "),
            Kind::Ipv4 => "an IPv4 address".into(),
            Kind::Text => "text".into(),
            Kind::SecretHex(d) => format!("up to {d} hex digits"),
        }
    }

    /// Checks a value against the kind; the number it stands for where the kind is numeric.
    pub fn check(&self, raw: &OsStr) -> Result<Option<u64>, ConfigError> {
        let s = text(self.name, raw)?.trim();
        let bad = |why: String| ConfigError {
            name: self.name,
            value: match self.kind {
                Kind::SecretHex(_) => "(secret)".into(),
                _ => s.to_owned(),
            },
            why,
        };
        let within = |v: u64, min: u64, max: u64| {
            if (min..=max).contains(&v) {
                Ok(Some(v))
            } else {
                Err(bad(format!("must be between {min} and {max}")))
            }
        };
        match self.kind {
            Kind::Flag => match s {
                "0" => Ok(Some(0)),
                "1" => Ok(Some(1)),
                _ => Err(bad("expected 0 or 1".into())),
            },
            Kind::Int { min, max } => {
                let v = s
                    .parse()
                    .map_err(|e| bad(format!("expected a whole number ({e})")))?;
                within(v, min, max)
            }
            Kind::Bytes { min, max } => {
                let v = parse_bytes(s)
                    .ok_or_else(|| bad("expected a byte count like 4096, 64K, 16M or 1G".into()))?;
                within(v, min, max)
            }
            Kind::Percent => match s.parse::<f64>() {
                Ok(p) if (0.0..=100.0).contains(&p) => Ok(None),
                _ => Err(bad("expected a percentage between 0 and 100".into())),
            },
            Kind::Choice(words) => match words.contains(&s) {
                true => Ok(None),
                false => Err(bad(format!("expected {}", either(words)))),
            },
            Kind::Ipv4 => s
                .parse::<std::net::Ipv4Addr>()
                .map(|_| None)
                .map_err(|e| bad(format!("expected an IPv4 address ({e})"))),
            Kind::Text => Ok(None),
            Kind::SecretHex(digits) => {
                let why = |more: String| bad(format!("expected up to {digits} hex digits{more}"));
                if s.len() > digits {
                    return Err(why(String::new()));
                }
                u128::from_str_radix(s, 16)
                    .map(|_| None)
                    .map_err(|e| why(format!(" ({e})")))
            }
        }
    }
}

/// A numeric variable's value through `lookup`, or its default; `None` when unset and
/// the reader chooses.
pub fn number_in(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
) -> Result<Option<u64>, ConfigError> {
    let var = var(name);
    match (lookup(name), var.default) {
        (Some(raw), _) => var.check(&raw),
        (None, Unset::Value(d)) => var.check(OsStr::new(d)),
        (None, Unset::Chosen(_)) => Ok(None),
    }
}

/// A numeric variable (flag, whole number, byte count) from the environment.
pub fn number(name: &str) -> Result<Option<u64>, ConfigError> {
    number_in(&|n| std::env::var_os(n), name)
}

/// A choice variable from the environment: one of its words, or its default.
pub fn choice(name: &str) -> Result<Option<&'static str>, ConfigError> {
    choice_in(&|n| std::env::var_os(n), name)
}

/// A choice variable through `lookup`: one of its words, or its default.
pub fn choice_in(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
) -> Result<Option<&'static str>, ConfigError> {
    let var = var(name);
    let Kind::Choice(words) = var.kind else {
        panic!("{name} is not a choice");
    };
    let value = match lookup(name) {
        Some(raw) => {
            var.check(&raw)?;
            raw
        }
        None => match var.default {
            Unset::Value(d) => d.into(),
            Unset::Chosen(_) => return Ok(None),
        },
    };
    Ok(words
        .iter()
        .copied()
        .find(|w| *w == value.to_str().unwrap_or("").trim()))
}

/// A byte count with an optional K, M, G or T suffix (`64M`).
pub fn parse_bytes(v: &str) -> Option<u64> {
    let (digits, shift) = match v.as_bytes().last()? {
        b'K' | b'k' => (&v[..v.len() - 1], 10),
        b'M' | b'm' => (&v[..v.len() - 1], 20),
        b'G' | b'g' => (&v[..v.len() - 1], 30),
        b'T' | b't' => (&v[..v.len() - 1], 40),
        _ => (v, 0),
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// "a, b or c".
fn either(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A byte count in the largest unit that divides it (`4K`, `1G`).
fn show_bytes(n: u64) -> String {
    for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n & ((1 << shift) - 1) == 0 {
            return format!("{}{unit}", n >> shift);
        }
    }
    n.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_defaults_are_values_of_their_kind() {
        for (i, var) in TABLE.iter().enumerate() {
            assert!(
                TABLE[..i].iter().all(|o| o.name != var.name),
                "{} twice",
                var.name
            );
            if let Unset::Value(d) = var.default {
                var.check(OsStr::new(d))
                    .unwrap_or_else(|e| panic!("default of {}: {e}", var.name));
            }
        }
        assert_eq!(
            number_in(&|_| None, "CLUMP_CREDITS").unwrap(),
            Some(super::super::DEFAULT_CREDITS as u64)
        );
        assert_eq!(
            number_in(&|_| None, "CLUMP_NET_CREDITS").unwrap(),
            Some(super::super::DEFAULT_NET_CREDITS as u64)
        );
        assert_eq!(
            number_in(&|_| None, "CLUMP_NET_REORDER_TOTAL").unwrap(),
            Some(super::super::DEFAULT_REORDER_TOTAL_BYTES as u64)
        );
        assert_eq!(
            number_in(&|_| None, "CLUMP_NET_REORDER_BYTES").unwrap(),
            Some(super::super::DEFAULT_REORDER_PEER_BYTES as u64)
        );
    }

    #[test]
    fn kinds_check_values() {
        let check = |name: &str, value: &str| var(name).check(OsStr::new(value));
        assert_eq!(check("CLUMP_GAS_SEGMENT", "8K").unwrap(), Some(8192));
        assert!(check("CLUMP_GAS_SEGMENT", "2G").is_err());
        assert!(check("CLUMP_MPI_EAGER_SHM", "65537").is_err());
        assert!(check("CLUMP_MPI_BIND", "cores")
            .unwrap_err()
            .to_string()
            .contains("core or none"));
        assert!(check("CLUMP_NET_AUTH", "yes").is_err());
        let secret = check("CLUMP_JOB_KEY", "not-hex-at-all").unwrap_err();
        assert!(!secret.to_string().contains("not-hex"), "{secret}");
        assert_eq!(parse_bytes("1G"), Some(1 << 30));
        assert_eq!(show_bytes(4 << 10), "4K");
    }

    /// Every `CLUMP_*` or `SHMEM_*` variable any crate's code reads by name (through
    /// `env::var`, `var_os` or the table's own readers) is a row of the table.
    /// Every `.rs` file under `dir`.
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_variable_read_anywhere_is_in_the_table() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        sources(&crates, &mut files);
        let mut read = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for call in [
                "var(\"",
                "var_os(\"",
                "number(\"",
                "choice(\"",
                "lookup, \"",
                "None, \"",
                "flag(\"",
                "percent(\"",
            ] {
                for after in text.split(call).skip(1) {
                    let name = &after[..after.find('"').unwrap()];
                    if name.starts_with("SHMEM_")
                        || name.starts_with("CLUMP_") && !name.starts_with(TEST_PREFIX)
                    {
                        assert!(
                            TABLE.iter().any(|v| v.name == name),
                            "{} reads {name}, which the table lacks",
                            file.display()
                        );
                        read += 1;
                    }
                }
            }
        }
        assert!(read > 40, "only {read} reads found: is the pattern stale?");
    }

    /// README's Configuration section lists exactly this table, row for row.
    #[test]
    fn readme_configuration_is_the_table() {
        let readme = include_str!("../../../../README.md");
        let section = readme
            .split("\n## Configuration\n")
            .nth(1)
            .expect("README has a Configuration section");
        let section = section.split("\n## ").next().unwrap();
        let have: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
        let want: Vec<String> = TABLE
            .iter()
            .map(|v| {
                format!(
                    "| `{}` | {} | {} | {} | {} |",
                    v.name,
                    v.layer.name(),
                    v.meaning,
                    v.default.text(),
                    v.range()
                )
            })
            .collect();
        assert!(
            have == want,
            "README's Configuration table differs from config/table.rs; its rows should be:\n{}",
            want.join("\n")
        );
    }

    /// The upper layers' library code names none of their variables: `config::layers`
    /// reads them.
    #[test]
    fn no_upper_layer_reads_a_variable_itself() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for krate in ["clump-gas", "clump-mpi", "clump-capi", "clump-apps"] {
            sources(&crates.join(krate).join("src"), &mut files);
        }
        assert!(files.len() > 50, "only {} files found", files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            for quote in ["\"CLUMP_", "\"SHMEM_"] {
                for after in code.split(quote).skip(1) {
                    assert!(
                        after.starts_with("TEST_"),
                        "{} names {quote}{}: read it in clump's config::layers",
                        file.display(),
                        &after[..after.find('"').unwrap_or(after.len())]
                    );
                }
            }
            assert!(!code.contains("config::table"), "{} reads the table itself", file.display());
        }
    }
}
