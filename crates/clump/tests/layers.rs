//! The import graph of `src/`: no circle between files, and no file imports one on a
//! higher floor (DESIGN.md's layers). The graph is read from the source text: every
//! `crate::`/`super::` path, in `use` lines and inline, names the file it resolves to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Floors, lowest first: a module path prefix and its floor. The longest prefix wins.
const FLOORS: &[(&str, u32)] = &[
    // Vocabulary every layer speaks, and the pure protocol logic.
    ("sync", 0),
    ("error", 0),
    ("message", 0),
    ("name", 0),
    ("config", 0),
    ("poll", 0),
    ("idle", 0),
    ("proto", 0),
    // The transports' machinery: queues, mappings, sockets, the reliability machine.
    ("shm", 1),
    ("net", 1),
    ("boot", 1),
    ("spmd", 5),
    // The endpoint's state, split by owner.
    ("endpoint", 2),
    // Each transport's AM side: send and poll, over the endpoint's state.
    ("shm::send", 3),
    ("shm::poll", 3),
    ("shm::short", 3),
    ("net::send", 3),
    ("net::poll", 3),
    ("net::linger", 3),
    // The AM layer: routing, handlers, tokens, bundles, the public surface.
    ("am", 4),
    ("lib", 5),
];

fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The paths a file names: `crate::a::b` and `super::a` (resolved against `module`),
/// including each branch of a `use` tree's braces.
fn paths_named(text: &str, module: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let starts = rest.starts_with(b"crate::") || rest.starts_with(b"super::");
        if !starts || (i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let mut base: Vec<String> = if rest.starts_with(b"crate::") {
            i += "crate::".len();
            Vec::new()
        } else {
            let mut m: Vec<String> = module.split("::").map(String::from).collect();
            if !is_dir_module(module) {
                m.pop();
            }
            while bytes[i..].starts_with(b"super::") {
                i += "super::".len();
                m.pop();
            }
            m
        };
        loop {
            let start = i;
            while i < bytes.len() && ident(bytes[i]) {
                i += 1;
            }
            if start == i {
                break;
            }
            base.push(code[start..i].to_string());
            if bytes[i..].starts_with(b"::{") {
                // A use tree: every first segment inside the braces extends the base.
                let open = i + 2;
                let mut depth = 0;
                let mut j = open;
                let mut seg_start = open + 1;
                while j < bytes.len() {
                    match bytes[j] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b',' if depth == 1 => {
                            push_branch(&code[seg_start..j], &base, &mut out);
                            seg_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                push_branch(&code[seg_start..j.min(bytes.len())], &base, &mut out);
                i = j;
                break;
            }
            if bytes[i..].starts_with(b"::") {
                i += 2;
            } else {
                break;
            }
        }
        out.push(base);
    }
    out
}

thread_local! {
    static DIR_MODULES: std::cell::RefCell<BTreeSet<String>> = Default::default();
}

fn is_dir_module(module: &str) -> bool {
    module.is_empty() || DIR_MODULES.with(|d| d.borrow().contains(module))
}

fn push_branch(branch: &str, base: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = base.to_vec();
    for seg in branch.trim().split("::") {
        let seg: String = seg
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if seg.is_empty() || seg == "self" {
            break;
        }
        path.push(seg);
    }
    out.push(path);
}

/// The longest prefix of `path` that is a module with a file.
fn resolve(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| modules.contains(m))
}

fn floor(module: &str) -> u32 {
    let name = if module.is_empty() { "lib" } else { module };
    FLOORS
        .iter()
        .filter(|(prefix, _)| name == *prefix || name.starts_with(&format!("{prefix}::")))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, f)| f)
        .unwrap_or_else(|| panic!("module {name} has no floor: add it to FLOORS"))
}

struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let modules: BTreeSet<String> = all.iter().map(|f| module_of(&src, f)).collect();
    DIR_MODULES.with(|d| {
        *d.borrow_mut() = all
            .iter()
            .filter(|f| {
                f.file_name()
                    .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
            })
            .map(|f| module_of(&src, f))
            .chain(
                // `foo.rs` beside a `foo/` folder is a directory module too.
                all.iter()
                    .filter(|f| f.with_extension("").is_dir())
                    .map(|f| module_of(&src, f)),
            )
            .collect()
    });
    let mut edges = BTreeMap::new();
    for file in &all {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        let targets: BTreeSet<String> = paths_named(&text, &module)
            .iter()
            .filter_map(|p| resolve(p, &modules))
            // A parent declaring or re-exporting its children is no import.
            .filter(|t| {
                *t != module && !t.starts_with(&format!("{module}::")) && !module.is_empty()
            })
            .collect();
        edges.insert(module, targets);
    }
    Graph { edges }
}

/// Strongly connected components with more than one file (Tarjan).
fn circles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_file_imports_in_a_circle() {
    let g = graph();
    let found = circles(&g);
    assert!(found.is_empty(), "import circles in src/: {found:#?}");
}

#[test]
fn no_file_imports_a_higher_floor() {
    let g = graph();
    let upward: Vec<String> = g
        .edges
        .iter()
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|to| floor(to) > floor(from))
                .map(move |to| {
                    format!(
                        "{from} (floor {}) -> {to} (floor {})",
                        floor(from),
                        floor(to)
                    )
                })
        })
        .collect();
    assert!(upward.is_empty(), "imports of a higher floor: {upward:#?}");
}

#[test]
fn the_reader_sees_imports() {
    // The graph is only as good as its reader: these lines name three modules.
    let text = "use crate::a::{b::C, d};\nfn f() { super::e::g(); } // crate::z\n";
    let paths = paths_named(text, "x::y");
    assert!(paths.contains(&vec!["a".into(), "b".into(), "C".into()]));
    assert!(paths.contains(&vec!["a".into(), "d".into()]));
    assert!(paths.contains(&vec!["e".into(), "g".into()]));
    assert!(!paths.iter().any(|p| p.first().is_some_and(|s| s == "z")));
}
