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

pub const CASES: &[Case] = &[
    Case {
        name: "fft",
        size_per_rank: false,
        args: &["fft"],
        size_arg: "--n",
        paper: "256",
        quick: "32",
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    },
    Case {
        name: "con/comm",
        size_per_rank: true,
        args: &["con", "--graph", "lattice3d", "--present", "0.25"],
        size_arg: "--vertices",
        paper: "512000",
        quick: "8000",
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    },
    Case {
        name: "con/comp",
        size_per_rank: true,
        args: &["con", "--graph", "lattice2d", "--present", "0.4"],
        size_arg: "--vertices",
        paper: "640000",
        quick: "10000",
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    },
    Case {
        name: "em3d/naive",
        size_per_rank: true,
        args: &[
            "em3d", "--layout", "naive", "--degree", "20", "--remote", "0.4",
        ],
        size_arg: "--nodes",
        paper: "2500",
        quick: "500",
        paper_extra: &["--steps", "10"],
        quick_extra: &["--steps", "2"],
        versions: EM3D_VERSIONS,
        default_versions: &["get"],
    },
    Case {
        name: "em3d/good",
        size_per_rank: true,
        args: &[
            "em3d", "--layout", "good", "--degree", "20", "--remote", "0.4",
        ],
        size_arg: "--nodes",
        paper: "2500",
        quick: "500",
        paper_extra: &["--steps", "10"],
        quick_extra: &["--steps", "2"],
        versions: EM3D_VERSIONS,
        default_versions: &["get"],
    },
    Case {
        name: "matmul/128",
        size_per_rank: false,
        args: &["matmul", "--blocks", "4"],
        size_arg: "--block",
        paper: "128",
        quick: "32",
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    },
    Case {
        name: "matmul/16",
        size_per_rank: false,
        args: &["matmul", "--block", "16"],
        size_arg: "--blocks",
        paper: "16",
        quick: "8",
        paper_extra: &[],
        quick_extra: &[],
        versions: &[],
        default_versions: &[],
    },
    Case {
        name: "samplesort",
        size_per_rank: true,
        args: &["samplesort"],
        size_arg: "--keys",
        paper: "524288",
        quick: "20000",
        paper_extra: &[],
        quick_extra: &[],
        versions: SORT_VERSIONS,
        default_versions: SORT_VERSIONS,
    },
    Case {
        name: "radixsort",
        size_per_rank: true,
        args: &["radixsort"],
        size_arg: "--keys",
        paper: "524288",
        quick: "20000",
        paper_extra: &[],
        quick_extra: &[],
        versions: SORT_VERSIONS,
        default_versions: SORT_VERSIONS,
    },
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
