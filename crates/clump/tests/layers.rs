//! The import graph of every crate of the workspace, read as rustc resolves it: the module
//! tree from each crate root's `mod` declarations (`#[path]` and modules declared inside
//! item macros included), and every path of every file parsed with `syn`: `use` trees with
//! their groups and aliases, glob imports, `crate::`/`self::`/`super::` from leaf files and
//! inline modules, paths inside macro calls. No crate may have a circle between its files,
//! and in clump no file imports one on a higher floor (DESIGN.md's layers).

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Floors of clump's modules, lowest first: a module path prefix and its floor. The
/// longest prefix wins.
const FLOORS: &[(&str, u32)] = &[
    // Vocabulary every layer speaks, and the pure protocol logic.
    ("sync", 0),
    ("error", 0),
    ("message", 0),
    ("name", 0),
    ("config", 0),
    ("poll", 0),
    ("idle", 0),
    ("cpu", 0),
    ("serial", 0),
    ("thread_finder", 0),
    ("proto", 0),
    // The transports' machinery: queues, mappings, sockets, the reliability machine.
    ("transport", 1),
    ("boot", 1),
    ("spmd", 5),
    // The endpoint's state, split by owner.
    ("endpoint", 2),
    // Each transport's AM side: send and poll, over the endpoint's state.
    ("transport::shm::send", 3),
    ("transport::shm::poll", 3),
    ("transport::shm::short", 3),
    ("transport::shm::transport", 3),
    ("transport::net::send", 3),
    ("transport::net::poll", 3),
    ("transport::net::linger", 3),
    ("transport::net::transport", 3),
    // The AM layer: routing, handlers, tokens, bundles, the public surface.
    ("am", 4),
    ("lib", 5),
];

type Mod = Vec<String>;

/// One crate's modules: every module path (inline ones too) and the file that holds it.
#[derive(Default)]
struct Crate {
    /// Module path -> the file module it lives in (itself, for a file module).
    modules: BTreeMap<Mod, Mod>,
    /// File module -> its parsed source.
    files: BTreeMap<Mod, syn::File>,
}

impl Crate {
    /// Reads the crate whose root file is `root`, following `mod` declarations.
    fn load(root: &Path) -> Crate {
        let mut c = Crate::default();
        let dir = root.parent().unwrap().to_path_buf();
        c.load_file(root, Vec::new(), dir);
        c
    }

    fn load_file(&mut self, file: &Path, module: Mod, child_dir: PathBuf) {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.modules.insert(module.clone(), module.clone());
        self.declare(&parsed.items, &module, &module, file, &child_dir);
        self.files.insert(module, parsed);
    }

    /// Records the modules `items` declare inside `module` (of file module `node`).
    fn declare(
        &mut self,
        items: &[syn::Item],
        module: &Mod,
        node: &Mod,
        file: &Path,
        child_dir: &Path,
    ) {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let mut path = module.clone();
                    path.push(m.ident.to_string());
                    let name = m.ident.to_string();
                    match &m.content {
                        Some((_, inner)) => {
                            self.modules.insert(path.clone(), node.clone());
                            self.declare(inner, &path, node, file, &child_dir.join(&name));
                        }
                        None => {
                            let (source, dir) = match path_attr(&m.attrs) {
                                // Relative to the declaring file's directory; the file
                                // then declares its children as a mod.rs would.
                                Some(p) => {
                                    let f = file.parent().unwrap().join(p);
                                    let d = f.parent().unwrap().to_path_buf();
                                    (f, d)
                                }
                                None => {
                                    let flat = child_dir.join(format!("{name}.rs"));
                                    if flat.exists() {
                                        (flat, child_dir.join(&name))
                                    } else {
                                        (
                                            child_dir.join(&name).join("mod.rs"),
                                            child_dir.join(&name),
                                        )
                                    }
                                }
                            };
                            if source.exists() {
                                self.load_file(&source, path, dir);
                            }
                        }
                    }
                }
                syn::Item::Macro(m) => {
                    if let Ok(inner) = syn::parse2::<syn::File>(m.mac.tokens.clone()) {
                        self.declare(&inner.items, module, node, file, child_dir);
                    }
                }
                _ => {}
            }
        }
    }

    /// The file module `path` (absolute) names: its longest prefix that is a module.
    fn node_of(&self, path: &[String]) -> Option<&Mod> {
        (1..=path.len())
            .rev()
            .find_map(|n| self.modules.get(&path[..n]))
    }
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// What `use` items bind in one module: names to absolute paths, and glob sources.
#[derive(Default, Clone)]
struct Scope {
    names: BTreeMap<String, Mod>,
    globs: Vec<Mod>,
}

/// Resolves paths as rustc does inside one module of one crate.
struct Resolver<'a> {
    krate: &'a Crate,
    scopes: BTreeMap<Mod, Scope>,
}

impl Resolver<'_> {
    /// The absolute path `segs` names in `module`; `None` outside the crate.
    fn absolute(&self, module: &Mod, segs: &[String]) -> Option<Mod> {
        let (first, rest) = segs.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.clone(),
            "super" => {
                let mut m = module.clone();
                m.pop()?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop()?;
                    rest = &rest[1..];
                }
                return Some([m, rest.to_vec()].concat());
            }
            name => {
                let child = [module.clone(), vec![name.to_owned()]].concat();
                if self.krate.modules.contains_key(&child) {
                    child
                } else if let Some(bound) = self.scopes.get(module).and_then(|s| s.names.get(name))
                {
                    bound.clone()
                } else if let Some(glob) = self.scopes.get(module).and_then(|s| {
                    s.globs.iter().find(|g| {
                        self.krate
                            .modules
                            .contains_key(&[(*g).clone(), vec![name.to_owned()]].concat())
                    })
                }) {
                    [glob.clone(), vec![name.to_owned()]].concat()
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// Binds what a `use` tree imports into `module`'s scope, resolving as it goes.
    fn bind(&self, module: &Mod, prefix: &[String], tree: &syn::UseTree, scope: &mut Scope) {
        let with = |s: String| [prefix.to_vec(), vec![s]].concat();
        match tree {
            syn::UseTree::Path(p) => self.bind(module, &with(p.ident.to_string()), &p.tree, scope),
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let full = if name == "self" {
                    prefix.to_vec()
                } else {
                    with(name)
                };
                if let Some(abs) = self.absolute(module, &full) {
                    scope.names.insert(full.last().unwrap().clone(), abs);
                }
            }
            syn::UseTree::Rename(r) => {
                let name = r.ident.to_string();
                let full = if name == "self" {
                    prefix.to_vec()
                } else {
                    with(name)
                };
                if let Some(abs) = self.absolute(module, &full) {
                    scope.names.insert(r.rename.to_string(), abs);
                }
            }
            syn::UseTree::Glob(_) => {
                if let Some(abs) = self.absolute(module, prefix) {
                    scope.globs.push(abs);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.bind(module, prefix, t, scope);
                }
            }
        }
    }
}

/// Every path of a module's items, as written, with the module it is written in.
struct Paths<'a> {
    module: Mod,
    out: &'a mut Vec<(Mod, Vec<String>)>,
    uses: &'a mut Vec<(Mod, syn::UseTree)>,
}

impl Paths<'_> {
    /// A written path; one segment alone names no module (a module is never a value).
    fn push(&mut self, segs: Vec<String>) {
        if segs.len() > 1 {
            self.out.push((self.module.clone(), segs));
        }
    }

    /// Paths inside a macro call's tokens: each run of `ident :: ident ...`.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(id) => {
                    let mut segs = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segs.push(next.to_string());
                        j += 3;
                    }
                    if segs.len() > 1 {
                        self.push(segs);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.uses.push((self.module.clone(), u.tree.clone()));
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            let inner = [self.module.clone(), vec![m.ident.to_string()]].concat();
            let outer = std::mem::replace(&mut self.module, inner);
            for item in items {
                self.visit_item(item);
            }
            self.module = outer;
        }
    }
    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        self.push(
            m.mac
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect(),
        );
        match syn::parse2::<syn::File>(m.mac.tokens.clone()) {
            Ok(inner) => inner.items.iter().for_each(|i| self.visit_item(i)),
            Err(_) => self.tokens(m.mac.tokens.clone()),
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.push(
            m.path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect(),
        );
        self.tokens(m.tokens.clone());
    }
    // `pub(in path)` and attributes name no import.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
}

/// The paths a `use` tree names, each complete (groups expanded, `self` folded).
fn use_paths(prefix: &[String], tree: &syn::UseTree, out: &mut Vec<Vec<String>>) {
    let with = |s: String| [prefix.to_vec(), vec![s]].concat();
    match tree {
        syn::UseTree::Path(p) => use_paths(&with(p.ident.to_string()), &p.tree, out),
        syn::UseTree::Name(syn::UseName { ident, .. })
        | syn::UseTree::Rename(syn::UseRename { ident, .. }) => out.push(if ident == "self" {
            prefix.to_vec()
        } else {
            with(ident.to_string())
        }),
        syn::UseTree::Glob(_) => out.push(prefix.to_vec()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(prefix, t, out)),
    }
}

/// The file modules each file module of `krate` imports.
fn edges(krate: &Crate) -> BTreeMap<Mod, BTreeSet<Mod>> {
    let mut written = Vec::new();
    let mut uses = Vec::new();
    for (node, file) in &krate.files {
        let mut v = Paths {
            module: node.clone(),
            out: &mut written,
            uses: &mut uses,
        };
        v.visit_file(file);
    }
    // Bindings first (a `use` may lean on another's alias or glob: settle them in rounds).
    let mut r = Resolver {
        krate,
        scopes: BTreeMap::new(),
    };
    for _ in 0..4 {
        let mut scopes: BTreeMap<Mod, Scope> = BTreeMap::new();
        for (module, tree) in &uses {
            let mut scope = scopes.remove(module).unwrap_or_default();
            r.bind(module, &[], tree, &mut scope);
            scopes.insert(module.clone(), scope);
        }
        r.scopes = scopes;
    }
    for (module, tree) in &uses {
        let mut paths = Vec::new();
        use_paths(&[], tree, &mut paths);
        written.extend(paths.into_iter().map(|p| (module.clone(), p)));
    }
    let mut out: BTreeMap<Mod, BTreeSet<Mod>> = krate
        .files
        .keys()
        .map(|n| (n.clone(), BTreeSet::new()))
        .collect();
    for (module, segs) in &written {
        let from = &krate.modules[module];
        let Some(abs) = r.absolute(module, segs) else {
            continue;
        };
        let Some(to) = krate.node_of(&abs) else {
            continue;
        };
        // The root declares everything, and a parent declaring, re-exporting or using
        // its children is no import.
        if from.is_empty() || to == from || to.starts_with(from) {
            continue;
        }
        out.get_mut(from).unwrap().insert(to.clone());
    }
    out
}

/// Every crate root of the workspace: (crate name, root file).
fn roots() -> Vec<(String, PathBuf)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let src = dir.join("src");
        for main in ["lib.rs", "main.rs"] {
            if src.join(main).exists() {
                out.push((format!("{name} {main}"), src.join(main)));
            }
        }
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            for bin in bins {
                let bin = bin.unwrap().path();
                let root = if bin.is_dir() {
                    bin.join("main.rs")
                } else {
                    bin.clone()
                };
                if root.extension().is_some_and(|e| e == "rs") && root.exists() {
                    out.push((
                        format!("{name} bin {}", bin.file_name().unwrap().to_string_lossy()),
                        root,
                    ));
                }
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "only {} crate roots found", out.len());
    out
}

/// Strongly connected components with more than one file (Tarjan).
fn circles(g: &BTreeMap<Mod, BTreeSet<Mod>>) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a BTreeMap<Mod, BTreeSet<Mod>>,
        index: BTreeMap<&'a Mod, usize>,
        low: BTreeMap<&'a Mod, usize>,
        stack: Vec<&'a Mod>,
        on: BTreeSet<&'a Mod>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Mod) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
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
                comp.push(w.join("::"));
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
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
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

#[test]
fn no_crate_has_an_import_circle() {
    let mut found = Vec::new();
    for (name, root) in roots() {
        let g = edges(&Crate::load(&root));
        // Each edge inside a circle, so that the reader sees what to cut.
        found.extend(
            circles(&g)
                .into_iter()
                .map(|circle| format!("{name}: {circle:?}, edges {:?}", inside(&g, &circle))),
        );
    }
    assert!(found.is_empty(), "import circles: {found:#?}");
}

/// The edges between files of `circle`.
fn inside(g: &BTreeMap<Mod, BTreeSet<Mod>>, circle: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (from, tos) in g {
        let from = from.join("::");
        if circle.contains(&from) {
            for to in tos
                .iter()
                .map(|t| t.join("::"))
                .filter(|t| circle.contains(t))
            {
                out.push(format!("{from} -> {to}"));
            }
        }
    }
    out
}

#[test]
fn no_clump_file_imports_a_higher_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let g = edges(&Crate::load(&src));
    let mut upward = Vec::new();
    for (from, tos) in &g {
        let from = from.join("::");
        for to in tos.iter().map(|t| t.join("::")) {
            if floor(&to) > floor(&from) {
                upward.push(format!(
                    "{from} (floor {}) -> {to} (floor {})",
                    floor(&from),
                    floor(&to)
                ));
            }
        }
    }
    assert!(upward.is_empty(), "imports of a higher floor: {upward:#?}");
}

/// The transports side by side (DESIGN.md: one routing point, each transport complete):
/// no module of one transport names a module of the other's Active Message side. A
/// fallback from one to the other is a routing decision, taken in `endpoint` or `am`.
#[test]
fn no_transport_calls_the_other() {
    const AM_SIDE: &[&str] = &["send", "poll", "short", "linger", "transport"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let g = edges(&Crate::load(&src));
    let mut crossing = Vec::new();
    for (from, tos) in &g {
        for to in tos {
            // Modules under `transport::`: the transport's name, then its module.
            let under_transport = |m: &Mod| match m.as_slice() {
                [t, name, rest @ ..] if t == "transport" => {
                    Some((name.clone(), rest.first().cloned()))
                }
                _ => None,
            };
            let (Some((a, _)), Some((b, module))) = (under_transport(from), under_transport(to))
            else {
                continue;
            };
            let am_side = module.is_some_and(|m| AM_SIDE.contains(&m.as_str()));
            if a != b && am_side {
                crossing.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    assert!(
        crossing.is_empty(),
        "one transport calls the other: {crossing:#?}"
    );
}

#[test]
fn the_reader_resolves_as_rustc_does() {
    // A crate of files a, a::b, d, e, x, x::y (a leaf file), x::w; x::y is read.
    let m = |s: &str| -> Mod {
        s.split("::")
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect()
    };
    let mut krate = Crate::default();
    for f in ["a", "a::b", "d", "e", "x", "x::y", "x::w", "z", "g"] {
        krate.modules.insert(m(f), m(f));
    }
    krate.modules.insert(m("x::y::tests"), m("x::y"));
    let text = "
        use crate::{a::b::C, d};
        use super::super::e as ee;
        use crate::g::*;
        fn f() { super::w::run(); ee::h(); self::tests::k(); matches!(1, crate::a::K); }
        mod tests { fn t() { super::super::super::z::q(); } } // crate::nothing
    ";
    for f in krate.modules.values().cloned().collect::<Vec<_>>() {
        let body = if f == m("x::y") { text } else { "" };
        krate.files.insert(f, syn::parse_file(body).unwrap());
    }
    let got: BTreeSet<String> = edges(&krate)[&m("x::y")]
        .iter()
        .map(|t| t.join("::"))
        .collect();
    let want: BTreeSet<String> = ["a", "a::b", "d", "e", "g", "x::w", "z"]
        .map(String::from)
        .into();
    assert_eq!(got, want);
}
