//! The runs the papers made, as `clump-apps` arguments: paper 001's Table 3 (3D FFT, CON's
//! communication- and computation-bound runs, EM3D laid out naively and well) and paper 004's
//! Table 5 (matrix multiply with large and small blocks, sample and radix sort in their small-
//! message and bulk versions), each at the paper's size and at a quick one.

/// One run of the papers.
pub struct Case {
    /// As the papers name it (`con/comm`); `--apps` takes it or the part before the `/`.
    pub name: &'static str,
    /// Whether its size is per process (P processes do P times the work), so that its
    /// speedup is the scaled one, P·t(1)/t(P), rather than t(1)/t(P).
    pub size_per_rank: bool,
    /// The application and the arguments every size shares.
    pub args: &'static [&'static str],
    /// The argument `--size N` sets, and the paper's and the quick value of it.
    pub size_arg: &'static str,
    pub paper: &'static str,
    pub quick: &'static str,
    /// Further arguments at the paper's and the quick size.
    pub paper_extra: &'static [&'static str],
    pub quick_extra: &'static [&'static str],
    /// The versions it has (`--version V`) and those run unless `--versions` says otherwise.
    pub versions: &'static [&'static str],
    pub default_versions: &'static [&'static str],
}

const EM3D_VERSIONS: &[&str] = &["read", "get", "bulk", "store", "store-packed"];
const SORT_VERSIONS: &[&str] = &["small", "bulk"];

/// A run with one version and no arguments but its size (`sizes`: the paper's, the quick).
const fn plain(
    name: &'static str,
    size_per_rank: bool,
    args: &'static [&'static str],
    size_arg: &'static str,
    sizes: (&'static str, &'static str),
) -> Case {
    Case {
        name,
        size_per_rank,
        args,
        size_arg,
        paper: sizes.0,
        quick: sizes.1,
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    }
}

/// An EM3D run of paper 001: 2,500 nodes a process and 10 steps (500 and 2 when quick).
const fn em3d(name: &'static str, args: &'static [&'static str]) -> Case {
    Case {
        name,
        size_per_rank: true,
        args,
        size_arg: "--nodes",
        paper: "2500",
        quick: "500",
        paper_extra: &["--steps", "10"],
        quick_extra: &["--steps", "2"],
        versions: EM3D_VERSIONS,
        default_versions: &["get"],
    }
}

/// A sort of paper 004: 512K keys a process (20,000 when quick), in both versions.
const fn sort(name: &'static str, args: &'static [&'static str]) -> Case {
    Case {
        versions: SORT_VERSIONS,
        default_versions: SORT_VERSIONS,
        ..plain(name, true, args, "--keys", ("524288", "20000"))
    }
}

pub const CASES: &[Case] = &[
    plain("fft", false, &["fft"], "--n", ("256", "32")),
    plain(
        "con/comm",
        true,
        &["con", "--graph", "lattice3d", "--present", "0.25"],
        "--vertices",
        ("512000", "8000"),
    ),
    plain(
        "con/comp",
        true,
        &["con", "--graph", "lattice2d", "--present", "0.4"],
        "--vertices",
        ("640000", "10000"),
    ),
    em3d(
        "em3d/naive",
        &[
            "em3d", "--layout", "naive", "--degree", "20", "--remote", "0.4",
        ],
    ),
    em3d(
        "em3d/good",
        &[
            "em3d", "--layout", "good", "--degree", "20", "--remote", "0.4",
        ],
    ),
    plain(
        "matmul/128",
        false,
        &["matmul", "--blocks", "4"],
        "--block",
        ("128", "32"),
    ),
    plain(
        "matmul/16",
        false,
        &["matmul", "--block", "16"],
        "--blocks",
        ("16", "8"),
    ),
    sort("samplesort", &["samplesort"]),
    sort("radixsort", &["radixsort"]),
];

/// `--size`: the papers' inputs, quick ones, or one number for every case's size argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Size {
    Paper,
    Quick,
    N(u64),
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        match s {
            "paper" => Ok(Size::Paper),
            "quick" => Ok(Size::Quick),
            n => n
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .map(Size::N)
                .ok_or_else(|| format!("--size {n}: expected paper, quick or a positive number")),
        }
    }
}

impl Case {
    pub fn find(name: &str) -> Option<&'static Case> {
        CASES.iter().find(|c| c.name == name)
    }

    /// Whether `--apps` entry `sel` names this case (its name, or its application).
    pub fn selected_by(&self, sel: &str) -> bool {
        self.name == sel || self.name.split('/').next() == Some(sel)
    }

    /// Its arguments at `size` in `version` (`None`: it has none).
    pub fn arguments(&self, size: &Size, version: Option<&str>) -> Vec<String> {
        let (value, extra) = match size {
            Size::Paper => (self.paper.to_string(), self.paper_extra),
            Size::Quick => (self.quick.to_string(), self.quick_extra),
            Size::N(n) => (n.to_string(), self.paper_extra),
        };
        let mut out: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        out.extend([self.size_arg.to_string(), value]);
        out.extend(extra.iter().map(|a| a.to_string()));
        if let Some(v) = version {
            out.extend(["--version".to_string(), v.to_string()]);
        }
        out
    }

    /// The versions to run: those of `wanted` it has, else its defaults (`[None]` without).
    pub fn versions_to_run(&self, wanted: &[String]) -> Vec<Option<&'static str>> {
        if self.versions.is_empty() {
            return vec![None];
        }
        let chosen: Vec<Option<&'static str>> = self
            .versions
            .iter()
            .filter(|v| wanted.iter().any(|w| w == *v))
            .map(|v| Some(*v))
            .collect();
        if chosen.is_empty() {
            self.default_versions.iter().map(|v| Some(*v)).collect()
        } else {
            chosen
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_give_the_papers_arguments_and_choose_versions() {
        let em3d = Case::find("em3d/good").unwrap();
        assert!(em3d.selected_by("em3d") && em3d.selected_by("em3d/good"));
        assert!(!em3d.selected_by("em3d/naive"));
        assert_eq!(
            em3d.arguments(&Size::Paper, Some("store")).join(" "),
            "em3d --layout good --degree 20 --remote 0.4 --nodes 2500 --steps 10 --version store"
        );
        assert_eq!(
            Case::find("con/comm")
                .unwrap()
                .arguments(&"27000".parse().unwrap(), None)[5..],
            ["--vertices", "27000"]
        );
        assert_eq!(em3d.versions_to_run(&[]), [Some("get")]);
        assert_eq!(
            em3d.versions_to_run(&["read".into(), "small".into()]),
            [Some("read")]
        );
        let sort = Case::find("radixsort").unwrap();
        assert_eq!(sort.versions_to_run(&[]), [Some("small"), Some("bulk")]);
        assert_eq!(
            Case::find("fft").unwrap().versions_to_run(&["get".into()]),
            [None]
        );
        assert!("zero".parse::<Size>().unwrap_err().contains("paper, quick"));
    }
}
